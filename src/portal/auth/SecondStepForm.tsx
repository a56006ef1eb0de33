import { useEffect, useState, type FormEvent } from 'react';
import type { TwoFactorSetup } from '../../engine/api-types.js';
import { TotpSetupView } from './TotpSetupView.js';
import { usePortal } from '../context.js';
import { completeSecondStep, secondStepSetup, type SecondStep } from '../session.js';
import { SubmitButton } from './fields.js';
import { Field, FormAlert, TextInput } from './forms.js';
import { collect } from './rules.js';
import { useAuthForm } from './useAuthForm.js';

/**
 * The second step of the portal's sign-in (README "Two-factor sign-in"): a code of the
 * authenticator or a recovery code; or the enrolment the tenant or a role requires (QR code,
 * secret, a confirming code), whose recovery codes are shown once before going on.
 */
export function SecondStepForm({ step, onDone }: { step: SecondStep; onDone: () => Promise<void> }) {
  const { t } = usePortal();
  const form = useAuthForm<'code'>({ code: '' });
  const [setup, setSetup] = useState<TwoFactorSetup>();
  const [codes, setCodes] = useState<string[]>();
  const isEnrol = step.kind === 'enrol';

  useEffect(() => {
    if (isEnrol) void secondStepSetup(step).then(setSetup, () => undefined);
  }, [step, isEnrol]);

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    await form.submit(
      collect({ code: form.values.code.trim() ? undefined : t('twoFactor.codeRequired') }),
      async () => {
        const recovery = await completeSecondStep(step, form.values.code);
        if (recovery.length > 0) setCodes(recovery);
        else await onDone();
      },
    );
  };

  if (codes)
    return (
      <div data-testid="portal-tf-recovery">
        <h2>{t('twoFactor.recoveryTitle')}</h2>
        <p>{t('twoFactor.recoveryHint')}</p>
        <ul>
          {codes.map((code) => (
            <li key={code}>
              <code>{code}</code>
            </li>
          ))}
        </ul>
        <button type="button" className="btn btn-primary" onClick={() => void onDone()}>
          {t('twoFactor.done')}
        </button>
      </div>
    );

  return (
    <div data-testid="portal-second-step">
      <h2>{t(isEnrol ? 'twoFactor.enrolTitle' : 'twoFactor.stepTitle')}</h2>
      <p>{t(isEnrol ? 'twoFactor.enrolHint' : 'twoFactor.stepHint')}</p>
      {setup && <TotpSetupView setup={setup} secretTestId="portal-tf-secret" />}
      <FormAlert message={form.message} />
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Field
          label={t(isEnrol ? 'twoFactor.code' : 'twoFactor.disableCode')}
          error={form.errors.code}
          htmlFor="login-code"
        >
          <TextInput
            id="login-code"
            name="code"
            autoComplete="one-time-code"
            value={form.values.code}
            maxLength={32}
            onChange={(event) => form.set('code', event.target.value)}
          />
        </Field>
        <SubmitButton
          isBusy={form.isBusy}
          testId="login-code-submit"
          label={t(isEnrol ? 'twoFactor.confirm' : 'twoFactor.stepSubmit')}
          busyLabel={t('auth.signingIn')}
        />
      </form>
    </div>
  );
}
