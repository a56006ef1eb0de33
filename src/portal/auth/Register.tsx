import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { usePortal } from '../context.js';
import { apiPost } from '../../web/http.js';
import { TENANT_CODE, type UserType } from '../session.js';
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

type Key = 'companyName' | 'username' | 'mobile' | 'smsCaptcha' | 'email' | 'password' | 'confirm' | 'agree';
export type RegisterVariant = 'register' | 'newRegister' | 'tourist';

/**
 * Buyer, supplier and tourist registration (SPEC §2.2 /register, /newRegister, /touristRegister).
 * Both company variants post to registerAccount (SPEC §7), the tourist one to register.
 */
export default function Register({ variant }: { variant: RegisterVariant }) {
  const { t } = usePortal();
  const [search] = useSearchParams();
  const isTourist = variant === 'tourist';
  const [userType, setUserType] = useState<UserType>(search.get('userType') === '2' ? 2 : 1);
  const [values, setValues] = useState({
    companyName: '',
    username: '',
    mobile: '',
    smsCaptcha: '',
    email: '',
    password: '',
    confirm: '',
  });
  const [agree, setAgree] = useState(false);
  const [errors, setErrors] = useState<Errors<Key>>({});
  const [message, setMessage] = useState<string>();
  const [done, setDone] = useState<string>();
  const [isBusy, setIsBusy] = useState(false);

  const set = (key: Exclude<Key, 'agree'>, value: string): void => {
    setValues({ ...values, [key]: value });
    if (errors[key]) setErrors({ ...errors, [key]: undefined });
  };
  const validate = (): Errors<Key> => {
    const found: Errors<Key> = {};
    if (!isTourist && values.companyName.trim().length < 2) found.companyName = t('auth.rules.company');
    if (!RULES.username.test(values.username.trim())) found.username = t('auth.rules.username');
    if (!RULES.mobile.test(values.mobile.trim())) found.mobile = t('auth.rules.mobile');
    if (!RULES.sms.test(values.smsCaptcha.trim())) found.smsCaptcha = t('auth.rules.sms');
    if (!isTourist && !RULES.email.test(values.email.trim())) found.email = t('auth.rules.email');
    const password = passwordError(t, values.password);
    if (password) found.password = password;
    if (values.confirm !== values.password) found.confirm = t('auth.rules.confirm');
    if (!agree) found.agree = t('auth.rules.agree');
    return found;
  };
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    const found = validate();
    setErrors(found);
    setMessage(undefined);
    if (Object.keys(found).length > 0) return;
    setIsBusy(true);
    const body = {
      tenantCode: TENANT_CODE,
      username: values.username.trim(),
      mobile: values.mobile.trim(),
      smsCaptcha: values.smsCaptcha.trim(),
      password: values.password,
      // the account endpoints take the kind by name (tourist, buyer, supplier)
      ...(isTourist
        ? { userType: 'tourist' }
        : {
            userType: userType === 1 ? 'buyer' : 'supplier',
            companyName: values.companyName.trim(),
            email: values.email.trim(),
          }),
    };
    try {
      await apiPost(
        isTourist ? '/api/account/sysuserdetail/register' : '/api/account/sysuserdetail/registerAccount',
        body,
        { silent: true },
      );
      setDone(t('auth.registered'));
    } catch (error) {
      setMessage(serverMessage(error, t('auth.failed')));
    } finally {
      setIsBusy(false);
    }
  };

  const title = t(
    isTourist
      ? 'routes.touristRegister'
      : variant === 'newRegister'
        ? 'routes.newRegister'
        : 'routes.register',
  );
  if (done) {
    return (
      <AuthShell title={title}>
        <FormAlert message={done} kind="success" />
        <Link to={`/login?userType=${userType}`} className="btn btn-primary btn-block">
          {t('auth.toLogin')}
        </Link>
      </AuthShell>
    );
  }
  return (
    <AuthShell
      title={title}
      footer={
        <span>
          {t('auth.hasAccount')} <Link to="/login">{t('auth.toLogin')}</Link>
        </span>
      }
    >
      {!isTourist && (
        <div className="role-switch" role="radiogroup" aria-label={t('auth.role')}>
          {([1, 2] as const).map((type) => (
            <button
              key={type}
              type="button"
              role="radio"
              aria-checked={userType === type}
              className={userType === type ? 'is-active' : undefined}
              onClick={() => setUserType(type)}
            >
              {t(type === 1 ? 'auth.iAmBuyer' : 'auth.iAmSupplier')}
            </button>
          ))}
        </div>
      )}
      {isTourist && <p className="muted">{t('auth.touristHint')}</p>}
      <FormAlert message={message} />
      <form onSubmit={(event) => void submit(event)} noValidate className="register-form">
        {!isTourist && (
          <Field
            label={t(userType === 1 ? 'auth.buyerCompany' : 'auth.supplierCompany')}
            error={errors.companyName}
            htmlFor="reg-company"
          >
            <TextInput
              id="reg-company"
              name="companyName"
              autoComplete="organization"
              value={values.companyName}
              maxLength={128}
              placeholder={t('auth.companyPlaceholder')}
              onChange={(event) => set('companyName', event.target.value)}
            />
          </Field>
        )}
        <Field label={t('auth.username')} error={errors.username} htmlFor="reg-username">
          <TextInput
            id="reg-username"
            name="username"
            autoComplete="username"
            value={values.username}
            maxLength={64}
            placeholder={t('auth.usernameRule')}
            onChange={(event) => set('username', event.target.value)}
          />
        </Field>
        <Field label={t('auth.mobile')} error={errors.mobile} htmlFor="reg-mobile">
          <TextInput
            id="reg-mobile"
            name="mobile"
            type="tel"
            inputMode="numeric"
            autoComplete="tel"
            value={values.mobile}
            maxLength={11}
            placeholder={t('auth.mobilePlaceholder')}
            onChange={(event) => set('mobile', event.target.value)}
          />
        </Field>
        <Field label={t('auth.smsCaptcha')} error={errors.smsCaptcha} htmlFor="reg-sms">
          <div className="input-group">
            <TextInput
              id="reg-sms"
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
        {!isTourist && (
          <Field label={t('auth.email')} error={errors.email} htmlFor="reg-email">
            <TextInput
              id="reg-email"
              name="email"
              type="email"
              autoComplete="email"
              value={values.email}
              maxLength={128}
              placeholder={t('auth.emailPlaceholder')}
              onChange={(event) => set('email', event.target.value)}
            />
          </Field>
        )}
        <Field label={t('auth.password')} error={errors.password} htmlFor="reg-password">
          <TextInput
            id="reg-password"
            name="password"
            type="password"
            autoComplete="new-password"
            value={values.password}
            maxLength={31}
            placeholder={t('auth.passwordRule')}
            onChange={(event) => set('password', event.target.value)}
          />
        </Field>
        <Field label={t('auth.confirm')} error={errors.confirm} htmlFor="reg-confirm">
          <TextInput
            id="reg-confirm"
            name="confirm"
            type="password"
            autoComplete="new-password"
            value={values.confirm}
            maxLength={31}
            placeholder={t('auth.confirmPlaceholder')}
            onChange={(event) => set('confirm', event.target.value)}
          />
        </Field>
        <div className={`field agree${errors.agree ? ' has-error' : ''}`}>
          <label>
            <input type="checkbox" checked={agree} onChange={(event) => setAgree(event.target.checked)} />{' '}
            {t('auth.agreePrefix')}
            <Link to="/biddingAgreement" target="_blank">
              {t('routes.biddingAgreement')}
            </Link>
          </label>
          <span className="field-error">{errors.agree ?? ''}</span>
        </div>
        <button
          type="submit"
          className="btn btn-primary btn-block"
          disabled={isBusy}
          data-testid="register-submit"
        >
          {isBusy ? t('auth.submitting') : t('auth.registerSubmit')}
        </button>
      </form>
    </AuthShell>
  );
}
