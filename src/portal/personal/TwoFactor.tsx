import { useEffect, useState, type FormEvent } from 'react';
import type { TwoFactorSetup, TwoFactorStatus } from '../../engine/api-types.js';
import { SubmitButton } from '../auth/fields.js';
import { Field, FormAlert, TextInput } from '../auth/forms.js';
import { collect } from '../auth/rules.js';
import { useAuthForm } from '../auth/useAuthForm.js';
import { TotpSetupView } from '../auth/TotpSetupView.js';
import { usePortal } from '../context.js';
import { personalApi } from './api.js';

/**
 * 我的账户's two-factor card (README "Two-factor sign-in"): turn it on (QR code and secret, a
 * confirming code, the recovery codes shown once) or off (the password and a code).
 */
export function TwoFactorCard() {
  const { t } = usePortal();
  const [status, setStatus] = useState<TwoFactorStatus>();
  const [setup, setSetup] = useState<TwoFactorSetup>();
  const [codes, setCodes] = useState<string[]>();
  const form = useAuthForm<'code' | 'password'>({ code: '', password: '' });
  const { values, errors, set } = form;

  const load = (): Promise<void> => personalApi.twoFactorStatus().then(setStatus);
  useEffect(() => {
    void load().catch(() => undefined);
  }, []);

  const codeError = () => (values.code.trim() ? undefined : t('twoFactor.codeRequired'));

  const start = async (): Promise<void> => {
    await form.submit({}, async () => {
      setCodes(undefined);
      setSetup(await personalApi.twoFactorSetup());
    });
  };

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    if (setup) {
      await form.submit(collect({ code: codeError() }), async () => {
        const done = await personalApi.twoFactorEnable(values.code);
        setSetup(undefined);
        setCodes(done.recoveryCodes);
        form.setValues({ code: '', password: '' });
        await load();
      });
      return;
    }
    await form.submit(
      collect({
        password: values.password ? undefined : t('twoFactor.passwordRequired'),
        code: codeError(),
      }),
      async () => {
        await personalApi.twoFactorDisable(values.password, values.code);
        form.setValues({ code: '', password: '' });
        await load();
      },
    );
  };

  const codeField = (label: string) => (
    <Field label={label} error={errors.code} htmlFor="tf-code">
      <TextInput
        id="tf-code"
        name="code"
        autoComplete="one-time-code"
        maxLength={32}
        value={values.code}
        onChange={(event) => set('code', event.target.value)}
      />
    </Field>
  );

  return (
    <section className="card personal-card" data-testid="personal-two-factor">
      <h2>
        {t('twoFactor.title')}{' '}
        {status && (
          <small data-testid="personal-tf-state">
            {t(status.isEnabled ? 'twoFactor.enabled' : 'twoFactor.disabled')}
          </small>
        )}
      </h2>
      <p>{t('twoFactor.intro')}</p>
      {status?.isRequired && !status.isEnabled && <p>{t('twoFactor.required')}</p>}
      <FormAlert message={form.message} />
      {codes && (
        <div data-testid="personal-tf-recovery">
          <FormAlert message={t('twoFactor.recoveryHint')} kind="success" />
          <ul>
            {codes.map((code) => (
              <li key={code}>
                <code>{code}</code>
              </li>
            ))}
          </ul>
        </div>
      )}
      {status && !status.isEnabled && !setup && (
        <button type="button" className="btn btn-primary" onClick={() => void start()}>
          {t('twoFactor.enable')}
        </button>
      )}
      {setup && <TotpSetupView setup={setup} secretTestId="personal-tf-secret" />}
      {(setup || status?.isEnabled) && (
        <form onSubmit={(event) => void submit(event)} noValidate className="personal-form">
          {status?.isEnabled && !setup && (
            <>
              <p>{t('twoFactor.recoveryLeft', { count: status.recoveryCodesLeft })}</p>
              <Field label={t('twoFactor.password')} error={errors.password} htmlFor="tf-password">
                <TextInput
                  id="tf-password"
                  name="password"
                  type="password"
                  autoComplete="current-password"
                  maxLength={31}
                  value={values.password}
                  onChange={(event) => set('password', event.target.value)}
                />
              </Field>
            </>
          )}
          {codeField(t(setup ? 'twoFactor.code' : 'twoFactor.disableCode'))}
          <SubmitButton
            isBusy={form.isBusy}
            testId="personal-tf-submit"
            label={t(setup ? 'twoFactor.confirm' : 'twoFactor.disable')}
            busyLabel={t('auth.submitting')}
          />
        </form>
      )}
    </section>
  );
}
