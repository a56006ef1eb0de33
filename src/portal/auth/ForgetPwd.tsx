import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { usePortal } from '../context.js';
import type { CharCaptcha } from '../../engine/api-types.js';
import { apiGet, apiPost } from '../../web/http.js';
import { TENANT_CODE } from '../session.js';
import {
  AuthDone,
  EmailField,
  MobileSmsFields,
  ModeTabs,
  NewPasswordFields,
  SubmitButton,
} from './fields.js';
import { AuthShell, Field, FormAlert, TextInput, type Errors } from './forms.js';
import { collect, confirmError, emailError, mobileError, passwordError, smsError } from './rules.js';
import { useAuthForm } from './useAuthForm.js';

type Key = 'mobile' | 'smsCaptcha' | 'password' | 'confirm' | 'email' | 'charCaptcha';
type Mode = 'mobile' | 'email';

/**
 * Forgotten password (docs/product.md §7): by mobile (checkMobileAndSms, then editPassword) or by mail
 * (retrievePassword with email and charCaptcha; the mailed link comes back here with ?code=,
 * which sets the new password through resetPassword).
 */
export default function ForgetPwd() {
  const [search] = useSearchParams();
  const code = search.get('code');
  return code ? <ResetWithCode code={code} /> : <RequestReset />;
}

function ResetWithCode({ code }: { code: string }) {
  const { t } = usePortal();
  const form = useAuthForm<'password' | 'confirm'>({ password: '', confirm: '' });
  const { values } = form;
  const [isDone, setIsDone] = useState(false);
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    const found = collect({
      password: passwordError(t, values.password),
      confirm: confirmError(t, values.password, values.confirm),
    });
    await form.submit(found, async () => {
      await apiPost(
        '/api/account/sysuserdetail/resetPassword',
        { code, tenantCode: TENANT_CODE, newPassword: values.password, confirmPassword: values.confirm },
        { silent: true },
      );
      setIsDone(true);
    });
  };
  if (isDone)
    return <AuthDone title={t('routes.forgetPwd')} message={t('auth.passwordChanged')} to="/login" />;
  return (
    <AuthShell title={t('routes.forgetPwd')}>
      <FormAlert message={form.message} />
      <form onSubmit={(event) => void submit(event)} noValidate>
        <NewPasswordFields
          idPrefix="rc"
          passwordLabel={t('auth.newPassword')}
          values={values}
          errors={form.errors}
          onChange={(key, value) => form.setValues({ ...values, [key]: value })}
        />
        <SubmitButton
          isBusy={form.isBusy}
          testId="reset-submit"
          label={t('auth.resetPassword')}
          busyLabel={t('auth.submitting')}
        />
      </form>
    </AuthShell>
  );
}

function RequestReset() {
  const { t } = usePortal();
  const [mode, setMode] = useState<Mode>('mobile');
  const form = useAuthForm<Key>({
    mobile: '',
    smsCaptcha: '',
    password: '',
    confirm: '',
    email: '',
    charCaptcha: '',
  });
  const { values, errors, set } = form;
  const [done, setDone] = useState<string>();
  const [captcha, setCaptcha] = useState<CharCaptcha>();
  const loadCaptcha = useCallback((): void => {
    apiGet<CharCaptcha>('/api/account/captcha/getCharCaptcha', undefined, { silent: true }).then(
      setCaptcha,
      () => setCaptcha(undefined),
    );
  }, []);
  useEffect(() => {
    if (mode === 'email') loadCaptcha();
  }, [mode, loadCaptcha]);

  const validate = (): Errors<Key> => {
    if (mode === 'mobile')
      return collect<Key>({
        mobile: mobileError(t, values.mobile),
        smsCaptcha: smsError(t, values.smsCaptcha),
        password: passwordError(t, values.password),
        confirm: confirmError(t, values.password, values.confirm),
      });
    return collect<Key>({
      email: emailError(t, values.email),
      charCaptcha: values.charCaptcha.trim() ? undefined : t('auth.rules.charCaptchaRequired'),
    });
  };
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    await form.submit(
      validate(),
      async () => {
        if (mode === 'mobile') {
          const check = {
            tenantCode: TENANT_CODE,
            mobile: values.mobile.trim(),
            smsCaptcha: values.smsCaptcha.trim(),
          };
          await apiPost('/api/account/sysuserdetail/checkMobileAndSms', check, { silent: true });
          await apiPost(
            '/api/account/sysuserdetail/editPassword',
            { ...check, password: values.password },
            { silent: true },
          );
          setDone(t('auth.passwordChanged'));
        } else {
          await apiPost(
            '/api/account/sysuserdetail/retrievePassword',
            {
              tenantCode: TENANT_CODE,
              email: values.email.trim(),
              charCaptcha: values.charCaptcha.trim(),
              captchaId: captcha?.captchaId ?? '',
            },
            { silent: true },
          );
          setDone(t('auth.mailSent'));
        }
      },
      () => {
        if (mode === 'email') loadCaptcha();
      },
    );
  };

  if (done) return <AuthDone title={t('routes.forgetPwd')} message={done} to="/login" />;
  return (
    <AuthShell
      title={t('routes.forgetPwd')}
      footer={
        <span>
          {t('auth.remembered')} <Link to="/login">{t('auth.toLogin')}</Link>
        </span>
      }
    >
      <ModeTabs
        modes={['mobile', 'email'] as const}
        value={mode}
        labelKey="auth.retrieveBy"
        onChange={(item) => {
          setMode(item);
          form.clearFeedback();
        }}
      />
      <FormAlert message={form.message} />
      <form onSubmit={(event) => void submit(event)} noValidate>
        {mode === 'mobile' ? (
          <>
            <MobileSmsFields
              idPrefix="fp"
              values={values}
              errors={errors}
              onChange={set}
              onError={form.setMessage}
            />
            <NewPasswordFields
              idPrefix="fp"
              passwordLabel={t('auth.newPassword')}
              values={values}
              errors={errors}
              onChange={set}
            />
          </>
        ) : (
          <>
            <EmailField
              id="fp-email"
              value={values.email}
              error={errors.email}
              onChange={(value) => set('email', value)}
            />
            <Field label={t('auth.charCaptcha')} error={errors.charCaptcha} htmlFor="fp-captcha">
              <div className="input-group">
                <TextInput
                  id="fp-captcha"
                  name="charCaptcha"
                  value={values.charCaptcha}
                  maxLength={8}
                  placeholder={t('auth.charCaptchaPlaceholder')}
                  onChange={(event) => set('charCaptcha', event.target.value)}
                />
                {captcha && (
                  <img
                    className="captcha-image"
                    src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(captcha.svg)}`}
                    alt={t('auth.charCaptcha')}
                    width={100}
                    height={38}
                    title={t('auth.refreshCaptcha')}
                    data-testid="char-captcha"
                    onClick={loadCaptcha}
                  />
                )}
              </div>
            </Field>
          </>
        )}
        <SubmitButton
          isBusy={form.isBusy}
          testId="forget-submit"
          label={t(mode === 'mobile' ? 'auth.resetPassword' : 'auth.sendMail')}
          busyLabel={t('auth.submitting')}
        />
      </form>
    </AuthShell>
  );
}
