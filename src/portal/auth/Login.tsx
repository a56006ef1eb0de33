import { useCallback, useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { usePortal } from '../context.js';
import { resetToken } from '../../web/session.js';
import { signIn, TENANT_CODE, type SecondStep, type SignInMode, type UserType } from '../session.js';
import { SecondStepForm } from './SecondStepForm.js';
import { SsoProviders } from './SsoProviders.js';
import { MobileSmsFields, ModeTabs, RoleSwitch, SubmitButton } from './fields.js';
import { AuthShell, Field, FormAlert, TextInput, type Errors } from './forms.js';
import { collect, mobileError, smsError, usernameError } from './rules.js';
import { useAuthForm } from './useAuthForm.js';

type Key = 'username' | 'password' | 'mobile' | 'smsCaptcha';

/** Sign-in: buyer or supplier (userType 1 or 2), account-and-password or mobile-and-code (docs/product.md §1, §6). */
export default function Login() {
  const { t, home, user, isUserKnown, refreshUser } = usePortal();
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const redirect = search.get('redirect');
  // only a path of this site: an address elsewhere would make the sign-in page an open redirect
  const target = redirect && redirect.startsWith('/') && !redirect.startsWith('//') ? redirect : home;
  const [userType, setUserType] = useState<UserType>(search.get('userType') === '2' ? 2 : 1);
  const [mode, setMode] = useState<SignInMode>('account');
  const [step, setStep] = useState<SecondStep>();
  const form = useAuthForm<Key>({ username: '', password: '', mobile: '', smsCaptcha: '' });
  const { values, errors, set } = form;

  const validate = (): Errors<Key> => {
    if (mode === 'account')
      return collect({
        username: usernameError(t, values.username, false),
        // signing in checks only that a password was typed: its rules are the server's
        password: values.password ? undefined : t('auth.rules.passwordRequired'),
      });
    // docs/product.md §5: the verification code is required
    return collect({ mobile: mobileError(t, values.mobile), smsCaptcha: smsError(t, values.smsCaptcha) });
  };
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    await form.submit(validate(), async () => {
      const pending = await signIn({ mode, userType, ...values });
      if (pending) setStep(pending);
      else await finish();
    });
  };
  /**
   * The session is open (after the password, after the second step, or back from an OpenID
   * provider with a ticket): the user, then the target.
   */
  const finish = useCallback(async (): Promise<void> => {
    const signedIn = await refreshUser();
    if (!signedIn) throw new Error(t('auth.verifyFailed'));
    if (signedIn.roles.length === 0) {
      // docs/product.md §8: a user without roles is not signed in
      resetToken();
      await refreshUser();
      throw new Error(t('auth.noRoles'));
    }
    void navigate(target);
  }, [refreshUser, t, navigate, target]);

  // docs/product.md §2.1: a signed-in user does not see the form again; a token still being checked
  // shows nothing yet
  if (user && !form.isBusy && !step) return <Navigate to={target} replace />;
  if (!isUserKnown) return null;
  if (step)
    return (
      <AuthShell title={t('auth.loginTitle')}>
        <SecondStepForm step={step} onDone={finish} />
      </AuthShell>
    );

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
      <RoleSwitch value={userType} onChange={setUserType} />
      <ModeTabs
        modes={['account', 'mobile'] as const}
        value={mode}
        labelKey="auth.mode"
        onChange={(item) => {
          setMode(item);
          form.clearFeedback();
        }}
      />
      <FormAlert message={form.message} />
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
          <MobileSmsFields
            idPrefix="login"
            values={values}
            errors={errors}
            onChange={set}
            onError={form.setMessage}
            mobileAutoComplete="tel"
          />
        )}
        <SubmitButton
          isBusy={form.isBusy}
          testId="login-submit"
          label={t('auth.signIn')}
          busyLabel={t('auth.signingIn')}
        />
      </form>
      <SsoProviders
        tenantCode={TENANT_CODE}
        redirect={redirect ?? undefined}
        userType={userType}
        onSignedIn={finish}
      />
    </AuthShell>
  );
}
