import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { usePortal } from '../context.js';
import { signIn, type SignInMode, type UserType } from '../session.js';
import {
  AuthShell,
  Field,
  FormAlert,
  RULES,
  serverMessage,
  SmsButton,
  TextInput,
  type Errors,
} from './forms.js';

type Key = 'username' | 'password' | 'mobile' | 'smsCaptcha';

/** Sign-in: buyer or supplier (userType 1 or 2), account-and-password or mobile-and-code (SPEC §1, §6). */
export default function Login() {
  const { t, home, refreshUser } = usePortal();
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const [userType, setUserType] = useState<UserType>(search.get('userType') === '2' ? 2 : 1);
  const [mode, setMode] = useState<SignInMode>('account');
  const [values, setValues] = useState({ username: '', password: '', mobile: '', smsCaptcha: '' });
  const [errors, setErrors] = useState<Errors<Key>>({});
  const [message, setMessage] = useState<string>();
  const [isBusy, setIsBusy] = useState(false);

  const set = (key: Key, value: string): void => {
    setValues({ ...values, [key]: value });
    if (errors[key]) setErrors({ ...errors, [key]: undefined });
  };
  const validate = (): Errors<Key> => {
    const found: Errors<Key> = {};
    if (mode === 'account') {
      if (!values.username.trim()) found.username = t('auth.rules.required');
      if (!values.password) found.password = t('auth.rules.required');
    } else {
      if (!RULES.mobile.test(values.mobile.trim())) found.mobile = t('auth.rules.mobile');
      // SPEC §5: the verification code is required
      if (!RULES.sms.test(values.smsCaptcha.trim())) found.smsCaptcha = t('auth.rules.sms');
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
      await signIn({ mode, userType, ...values });
      const user = await refreshUser();
      if (!user) throw new Error(t('auth.verifyFailed'));
      if (user.roles.length === 0) throw new Error(t('auth.noRoles'));
      const redirect = search.get('redirect');
      void navigate(redirect && redirect.startsWith('/') && !redirect.startsWith('//') ? redirect : home);
    } catch (error) {
      setMessage(serverMessage(error, t('auth.failed')));
    } finally {
      setIsBusy(false);
    }
  };

  return (
    <AuthShell
      title={t('auth.loginTitle')}
      footer={
        <>
          <Link to="/forgetPwd">{t('auth.forgot')}</Link>
          <span>
            {t('auth.noAccount')} <Link to={`/register?userType=${userType}`}>{t('auth.toRegister')}</Link>
          </span>
        </>
      }
    >
      <div className="role-switch" role="radiogroup" aria-label={t('auth.role')}>
        {([1, 2] as const).map((type) => (
          <button
            key={type}
            type="button"
            role="radio"
            aria-checked={userType === type}
            data-testid={`role-${type}`}
            className={userType === type ? 'is-active' : undefined}
            onClick={() => setUserType(type)}
          >
            {t(type === 1 ? 'auth.iAmBuyer' : 'auth.iAmSupplier')}
          </button>
        ))}
      </div>
      <div className="mode-tabs" role="tablist">
        {(['account', 'mobile'] as const).map((item) => (
          <button
            key={item}
            type="button"
            role="tab"
            aria-selected={mode === item}
            data-testid={`mode-${item}`}
            className={mode === item ? 'is-active' : undefined}
            onClick={() => {
              setMode(item);
              setErrors({});
              setMessage(undefined);
            }}
          >
            {t(`auth.mode.${item}`)}
          </button>
        ))}
      </div>
      <FormAlert message={message} />
      <form onSubmit={(event) => void submit(event)} noValidate>
        {mode === 'account' ? (
          <>
            <Field label={t('auth.username')} error={errors.username} htmlFor="login-username">
              <TextInput
                id="login-username"
                name="username"
                autoComplete="username"
                value={values.username}
                maxLength={64}
                placeholder={t('auth.usernamePlaceholder')}
                onChange={(event) => set('username', event.target.value)}
              />
            </Field>
            <Field label={t('auth.password')} error={errors.password} htmlFor="login-password">
              <TextInput
                id="login-password"
                name="password"
                type="password"
                autoComplete="current-password"
                value={values.password}
                maxLength={31}
                placeholder={t('auth.passwordPlaceholder')}
                onChange={(event) => set('password', event.target.value)}
              />
            </Field>
          </>
        ) : (
          <>
            <Field label={t('auth.mobile')} error={errors.mobile} htmlFor="login-mobile">
              <TextInput
                id="login-mobile"
                name="mobile"
                type="tel"
                autoComplete="tel"
                inputMode="numeric"
                value={values.mobile}
                maxLength={11}
                placeholder={t('auth.mobilePlaceholder')}
                onChange={(event) => set('mobile', event.target.value)}
              />
            </Field>
            <Field label={t('auth.smsCaptcha')} error={errors.smsCaptcha} htmlFor="login-sms">
              <div className="input-group">
                <TextInput
                  id="login-sms"
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
          </>
        )}
        <button
          type="submit"
          className="btn btn-primary btn-block"
          disabled={isBusy}
          data-testid="login-submit"
        >
          {isBusy ? t('auth.signingIn') : t('auth.signIn')}
        </button>
      </form>
    </AuthShell>
  );
}
