import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { usePortal } from '../context.js';
import { apiPost } from '../../web/http.js';
import { TENANT_CODE, type UserType } from '../session.js';
import {
  AuthDone,
  EmailField,
  MobileSmsFields,
  NewPasswordFields,
  RoleSwitch,
  SubmitButton,
} from './fields.js';
import { AuthShell, Field, FormAlert, TextInput, type Errors } from './forms.js';
import {
  collect,
  confirmError,
  emailError,
  mobileError,
  passwordError,
  smsError,
  usernameError,
} from './rules.js';
import { useAuthForm } from './useAuthForm.js';

type Key = 'companyName' | 'username' | 'mobile' | 'smsCaptcha' | 'email' | 'password' | 'confirm' | 'agree';
export type RegisterVariant = 'register' | 'newRegister' | 'tourist';

/**
 * Buyer, supplier and tourist registration (docs/product.md §2.2 /register, /newRegister, /touristRegister).
 * Both company variants post to registerAccount (docs/product.md §7), the tourist one to register.
 */
export default function Register({ variant }: { variant: RegisterVariant }) {
  const { t } = usePortal();
  const [search] = useSearchParams();
  const isTourist = variant === 'tourist';
  const [userType, setUserType] = useState<UserType>(search.get('userType') === '2' ? 2 : 1);
  const form = useAuthForm<Exclude<Key, 'agree'>, Key>({
    companyName: '',
    username: '',
    mobile: '',
    smsCaptcha: '',
    email: '',
    password: '',
    confirm: '',
  });
  const { values, errors, set } = form;
  const [agree, setAgree] = useState(false);
  const [done, setDone] = useState<string>();

  const validate = (): Errors<Key> => {
    return collect<Key>({
      companyName: !isTourist && values.companyName.trim().length < 2 ? t('auth.rules.company') : undefined,
      username: usernameError(t, values.username, true),
      mobile: mobileError(t, values.mobile),
      smsCaptcha: smsError(t, values.smsCaptcha),
      email: isTourist ? undefined : emailError(t, values.email),
      password: passwordError(t, values.password),
      confirm: confirmError(t, values.password, values.confirm),
      agree: agree ? undefined : t('auth.rules.agree'),
    });
  };
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
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
    await form.submit(validate(), async () => {
      await apiPost(
        isTourist ? '/api/account/sysuserdetail/register' : '/api/account/sysuserdetail/registerAccount',
        body,
        { silent: true },
      );
      setDone(t('auth.registered'));
    });
  };

  const title = t(
    isTourist
      ? 'routes.touristRegister'
      : variant === 'newRegister'
        ? 'routes.newRegister'
        : 'routes.register',
  );
  if (done) return <AuthDone title={title} message={done} to={`/login?userType=${userType}`} />;
  return (
    <AuthShell
      title={title}
      footer={
        <span>
          {t('auth.hasAccount')} <Link to="/login">{t('auth.toLogin')}</Link>
        </span>
      }
    >
      {!isTourist && <RoleSwitch value={userType} onChange={setUserType} />}
      {isTourist && <p className="muted">{t('auth.touristHint')}</p>}
      <FormAlert message={form.message} />
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
        <MobileSmsFields
          idPrefix="reg"
          values={values}
          errors={errors}
          onChange={set}
          onError={form.setMessage}
          mobileAutoComplete="tel"
          withCaptcha
        />
        {!isTourist && (
          <EmailField
            id="reg-email"
            value={values.email}
            error={errors.email}
            onChange={(value) => set('email', value)}
          />
        )}
        <NewPasswordFields
          idPrefix="reg"
          passwordLabel={t('auth.password')}
          values={values}
          errors={errors}
          onChange={set}
        />
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
        <SubmitButton
          isBusy={form.isBusy}
          testId="register-submit"
          label={t('auth.registerSubmit')}
          busyLabel={t('auth.submitting')}
        />
      </form>
    </AuthShell>
  );
}
