import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { usePortal } from '../context.js';
import { apiGet, apiPost } from '../../web/http.js';
import { TENANT_CODE } from '../session.js';
import {
  AuthShell,
  Field,
  FormAlert,
  passwordError,
  RULES,
  serverMessage,
  SmsButton,
  TextInput,
  type Errors,
} from './forms.js';

type Key = 'mobile' | 'smsCaptcha' | 'password' | 'confirm' | 'email' | 'charCaptcha';
type Mode = 'mobile' | 'email';

/**
 * Forgotten password (SPEC §7): by mobile (checkMobileAndSms, then editPassword) or by mail
 * (retrievePassword with email and charCaptcha; the mailed link comes back here with ?code=,
 * which sets the new password through resetPassword).
 */
export default function ForgetPwd() {
  const [search] = useSearchParams();
  const code = search.get('code');
  return code ? <ResetWithCode code={code} /> : <RequestReset />;
}

interface CharCaptcha {
  captchaId: string;
  svg: string;
}

function ResetWithCode({ code }: { code: string }) {
  const { t } = usePortal();
  const [values, setValues] = useState({ password: '', confirm: '' });
  const [errors, setErrors] = useState<Errors<'password' | 'confirm'>>({});
  const [message, setMessage] = useState<string>();
  const [isDone, setIsDone] = useState(false);
  const [isBusy, setIsBusy] = useState(false);
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    const found: Errors<'password' | 'confirm'> = {};
    const password = passwordError(t, values.password);
    if (password) found.password = password;
    if (values.confirm !== values.password) found.confirm = t('auth.rules.confirm');
    setErrors(found);
    setMessage(undefined);
    if (Object.keys(found).length > 0) return;
    setIsBusy(true);
    try {
      await apiPost(
        '/api/account/sysuserdetail/resetPassword',
        { code, tenantCode: TENANT_CODE, newPassword: values.password, confirmPassword: values.confirm },
        { silent: true },
      );
      setIsDone(true);
    } catch (error) {
      setMessage(serverMessage(error, t('auth.failed')));
    } finally {
      setIsBusy(false);
    }
  };
  if (isDone) {
    return (
      <AuthShell title={t('routes.forgetPwd')}>
        <FormAlert message={t('auth.passwordChanged')} kind="success" />
        <Link to="/login" className="btn btn-primary btn-block">
          {t('auth.toLogin')}
        </Link>
      </AuthShell>
    );
  }
  return (
    <AuthShell title={t('routes.forgetPwd')}>
      <FormAlert message={message} />
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Field label={t('auth.newPassword')} error={errors.password} htmlFor="rc-password">
          <TextInput
            id="rc-password"
            name="password"
            type="password"
            autoComplete="new-password"
            value={values.password}
            maxLength={31}
            placeholder={t('auth.passwordRule')}
            onChange={(event) => setValues({ ...values, password: event.target.value })}
          />
        </Field>
        <Field label={t('auth.confirm')} error={errors.confirm} htmlFor="rc-confirm">
          <TextInput
            id="rc-confirm"
            name="confirm"
            type="password"
            autoComplete="new-password"
            value={values.confirm}
            maxLength={31}
            placeholder={t('auth.confirmPlaceholder')}
            onChange={(event) => setValues({ ...values, confirm: event.target.value })}
          />
        </Field>
        <button
          type="submit"
          className="btn btn-primary btn-block"
          disabled={isBusy}
          data-testid="reset-submit"
        >
          {isBusy ? t('auth.submitting') : t('auth.resetPassword')}
        </button>
      </form>
    </AuthShell>
  );
}

function RequestReset() {
  const { t } = usePortal();
  const [mode, setMode] = useState<Mode>('mobile');
  const [values, setValues] = useState({
    mobile: '',
    smsCaptcha: '',
    password: '',
    confirm: '',
    email: '',
    charCaptcha: '',
  });
  const [errors, setErrors] = useState<Errors<Key>>({});
  const [message, setMessage] = useState<string>();
  const [done, setDone] = useState<string>();
  const [isBusy, setIsBusy] = useState(false);
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

  const set = (key: Key, value: string): void => {
    setValues({ ...values, [key]: value });
    if (errors[key]) setErrors({ ...errors, [key]: undefined });
  };
  const validate = (): Errors<Key> => {
    const found: Errors<Key> = {};
    if (mode === 'mobile') {
      if (!RULES.mobile.test(values.mobile.trim())) found.mobile = t('auth.rules.mobile');
      if (!RULES.sms.test(values.smsCaptcha.trim())) found.smsCaptcha = t('auth.rules.sms');
      const password = passwordError(t, values.password);
      if (password) found.password = password;
      if (values.confirm !== values.password) found.confirm = t('auth.rules.confirm');
    } else {
      if (!RULES.email.test(values.email.trim())) found.email = t('auth.rules.email');
      if (!values.charCaptcha.trim()) found.charCaptcha = t('auth.rules.required');
    }
    return found;
  };
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    const found = validate();
    setErrors(found);
    setMessage(undefined);
    if (Object.keys(found).length > 0) return;
    setIsBusy(true);
    try {
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
    } catch (error) {
      setMessage(serverMessage(error, t('auth.failed')));
      if (mode === 'email') loadCaptcha();
    } finally {
      setIsBusy(false);
    }
  };

  if (done) {
    return (
      <AuthShell title={t('routes.forgetPwd')}>
        <FormAlert message={done} kind="success" />
        <Link to="/login" className="btn btn-primary btn-block">
          {t('auth.toLogin')}
        </Link>
      </AuthShell>
    );
  }
  return (
    <AuthShell
      title={t('routes.forgetPwd')}
      footer={
        <span>
          {t('auth.remembered')} <Link to="/login">{t('auth.toLogin')}</Link>
        </span>
      }
    >
      <div className="mode-tabs" role="tablist">
        {(['mobile', 'email'] as const).map((item) => (
          <button
            key={item}
            type="button"
            role="tab"
            aria-selected={mode === item}
            className={mode === item ? 'is-active' : undefined}
            onClick={() => {
              setMode(item);
              setErrors({});
              setMessage(undefined);
            }}
          >
            {t(`auth.retrieveBy.${item}`)}
          </button>
        ))}
      </div>
      <FormAlert message={message} />
      <form onSubmit={(event) => void submit(event)} noValidate>
        {mode === 'mobile' ? (
          <>
            <Field label={t('auth.mobile')} error={errors.mobile} htmlFor="fp-mobile">
              <TextInput
                id="fp-mobile"
                name="mobile"
                type="tel"
                inputMode="numeric"
                value={values.mobile}
                maxLength={11}
                placeholder={t('auth.mobilePlaceholder')}
                onChange={(event) => set('mobile', event.target.value)}
              />
            </Field>
            <Field label={t('auth.smsCaptcha')} error={errors.smsCaptcha} htmlFor="fp-sms">
              <div className="input-group">
                <TextInput
                  id="fp-sms"
                  name="smsCaptcha"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  value={values.smsCaptcha}
                  maxLength={8}
                  placeholder={t('auth.smsPlaceholder')}
                  onChange={(event) => set('smsCaptcha', event.target.value)}
                />
                <SmsButton mobile={values.mobile} onError={setMessage} />
              </div>
            </Field>
            <Field label={t('auth.newPassword')} error={errors.password} htmlFor="fp-password">
              <TextInput
                id="fp-password"
                name="password"
                type="password"
                autoComplete="new-password"
                value={values.password}
                maxLength={31}
                placeholder={t('auth.passwordRule')}
                onChange={(event) => set('password', event.target.value)}
              />
            </Field>
            <Field label={t('auth.confirm')} error={errors.confirm} htmlFor="fp-confirm">
              <TextInput
                id="fp-confirm"
                name="confirm"
                type="password"
                autoComplete="new-password"
                value={values.confirm}
                maxLength={31}
                placeholder={t('auth.confirmPlaceholder')}
                onChange={(event) => set('confirm', event.target.value)}
              />
            </Field>
          </>
        ) : (
          <>
            <Field label={t('auth.email')} error={errors.email} htmlFor="fp-email">
              <TextInput
                id="fp-email"
                name="email"
                type="email"
                autoComplete="email"
                value={values.email}
                maxLength={128}
                placeholder={t('auth.emailPlaceholder')}
                onChange={(event) => set('email', event.target.value)}
              />
            </Field>
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
        <button
          type="submit"
          className="btn btn-primary btn-block"
          disabled={isBusy}
          data-testid="forget-submit"
        >
          {isBusy ? t('auth.submitting') : t(mode === 'mobile' ? 'auth.resetPassword' : 'auth.sendMail')}
        </button>
      </form>
    </AuthShell>
  );
}
