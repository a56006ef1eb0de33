import { useEffect, useState, type FormEvent } from 'react';
import { usePortal } from '../context.js';
import { ApiError } from '../../web/http.js';
import type { PortalUser } from '../session.js';
import { ErrorNote, SkeletonLines } from '../ui/common.js';
import { MobileSmsFields, NewPasswordFields, SubmitButton } from '../auth/fields.js';
import { Field, FormAlert, TextInput } from '../auth/forms.js';
import { collect, confirmError, emailError, mobileError, passwordError, smsError } from '../auth/rules.js';
import { useAuthForm } from '../auth/useAuthForm.js';
import { personalApi, type OwnDetail, type ProfileChange } from './api.js';
import { OidcLinksCard } from './OidcLinks.js';
import { TwoFactorCard } from './TwoFactor.js';

type ProfileKey = 'nickname' | 'email' | 'phone' | 'address' | 'profile';
const PROFILE_FIELDS: { key: ProfileKey; max: number; autoComplete?: string }[] = [
  { key: 'nickname', max: 64, autoComplete: 'nickname' },
  { key: 'email', max: 128, autoComplete: 'email' },
  { key: 'phone', max: 32, autoComplete: 'tel' },
  { key: 'address', max: 255, autoComplete: 'street-address' },
  { key: 'profile', max: 2000 },
];
const PHONE = /^[0-9+()\- ]{3,32}$/;

/** The server's names for a form's fields (updatePassword calls the current password "password"). */
function renameFields(error: unknown, names: Record<string, string>): unknown {
  if (!(error instanceof ApiError)) return error;
  return new ApiError(error.message, {
    ...(error.status === undefined ? {} : { status: error.status }),
    errors: error.errors.map((item) => ({ ...item, field: names[item.field] ?? item.field })),
  });
}

/** 我的账户: the profile, the mobile number (proved by an SMS code), the password and two-factor sign-in. */
export function AccountSection({ user }: { user: PortalUser }) {
  const { t } = usePortal();
  const [detail, setDetail] = useState<OwnDetail>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    personalApi
      .detail()
      .then(setDetail, (failure: unknown) =>
        setError(failure instanceof Error ? failure.message : t('auth.failed')),
      );
  }, [t]);
  if (error) return <ErrorNote text={error} />;
  if (!detail)
    return (
      <section className="card">
        <SkeletonLines count={8} />
      </section>
    );
  return (
    <>
      <ProfileCard detail={detail} onSaved={setDetail} />
      <MobileCard detail={detail} onSaved={setDetail} />
      <PasswordCard user={user} />
      <TwoFactorCard />
      <OidcLinksCard />
    </>
  );
}

function ProfileCard({ detail, onSaved }: { detail: OwnDetail; onSaved: (detail: OwnDetail) => void }) {
  const { t } = usePortal();
  const form = useAuthForm<ProfileKey>({
    nickname: detail.nickname ?? '',
    email: detail.email ?? '',
    phone: detail.phone ?? '',
    address: detail.address ?? '',
    profile: detail.profile ?? '',
  });
  const { values, errors, set } = form;
  const [saved, setSaved] = useState(false);
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setSaved(false);
    const found = collect<ProfileKey>({
      nickname: values.nickname.trim() ? undefined : t('personal.rules.nickname'),
      email: emailError(t, values.email),
      phone: !values.phone.trim() || PHONE.test(values.phone.trim()) ? undefined : t('personal.rules.phone'),
    });
    await form.submit(found, async () => {
      const change: ProfileChange = {};
      for (const { key } of PROFILE_FIELDS) {
        const value = values[key].trim();
        if (value !== (detail[key] ?? '')) change[key] = value;
      }
      const next = await personalApi.updateProfile({ ...change, version: detail.version });
      onSaved(next);
      setSaved(true);
    });
  };
  return (
    <section className="card personal-card" data-testid="personal-profile">
      <h2>{t('personal.profile.title')}</h2>
      <FormAlert message={form.message} />
      {saved && <FormAlert message={t('personal.saved')} kind="success" />}
      <form onSubmit={(event) => void submit(event)} noValidate className="personal-form">
        <Field label={t('auth.username')} htmlFor="pc-username">
          <TextInput id="pc-username" value={detail.username} readOnly disabled />
        </Field>
        {PROFILE_FIELDS.map(({ key, max, autoComplete }) => (
          <Field key={key} label={t(`personal.profile.${key}`)} error={errors[key]} htmlFor={`pc-${key}`}>
            {key === 'profile' ? (
              <textarea
                id="pc-profile"
                name="profile"
                className="input"
                rows={3}
                maxLength={max}
                value={values.profile}
                onChange={(event) => set('profile', event.target.value)}
              />
            ) : (
              <TextInput
                id={`pc-${key}`}
                name={key}
                autoComplete={autoComplete}
                maxLength={max}
                value={values[key]}
                onChange={(event) => set(key, event.target.value)}
              />
            )}
          </Field>
        ))}
        <SubmitButton
          isBusy={form.isBusy}
          testId="profile-submit"
          label={t('personal.save')}
          busyLabel={t('auth.submitting')}
        />
      </form>
    </section>
  );
}

function MobileCard({ detail, onSaved }: { detail: OwnDetail; onSaved: (detail: OwnDetail) => void }) {
  const { t, refreshUser } = usePortal();
  const form = useAuthForm<'mobile' | 'smsCaptcha'>({ mobile: '', smsCaptcha: '' });
  const { values, errors, set } = form;
  const [saved, setSaved] = useState(false);
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setSaved(false);
    const mobile = values.mobile.trim();
    const found = collect({
      mobile: mobile === detail.mobile ? t('personal.rules.sameMobile') : mobileError(t, values.mobile),
      smsCaptcha: smsError(t, values.smsCaptcha),
    });
    await form.submit(found, async () => {
      const next = await personalApi.updateMobile({
        mobile,
        smsCaptcha: values.smsCaptcha.trim(),
        version: detail.version,
      });
      onSaved(next);
      form.setValues({ mobile: '', smsCaptcha: '' });
      setSaved(true);
      await refreshUser();
    });
  };
  return (
    <section className="card personal-card" data-testid="personal-mobile">
      <h2>{t('personal.mobile.title')}</h2>
      <p className="muted">{t('personal.mobile.current', { mobile: detail.mobile || t('personal.none') })}</p>
      <FormAlert message={form.message} />
      {saved && <FormAlert message={t('personal.mobile.saved')} kind="success" />}
      <form onSubmit={(event) => void submit(event)} noValidate className="personal-form">
        <MobileSmsFields
          idPrefix="pc"
          values={values}
          errors={errors}
          onChange={set}
          onError={form.setMessage}
          mobileAutoComplete="tel"
        />
        <SubmitButton
          isBusy={form.isBusy}
          testId="mobile-submit"
          label={t('personal.mobile.submit')}
          busyLabel={t('auth.submitting')}
        />
      </form>
    </section>
  );
}

function PasswordCard({ user }: { user: PortalUser }) {
  const { t } = usePortal();
  const form = useAuthForm<'old' | 'password' | 'confirm'>({ old: '', password: '', confirm: '' });
  const { values, errors, set } = form;
  const [saved, setSaved] = useState(false);
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setSaved(false);
    const found = collect({
      old: values.old ? undefined : t('personal.rules.oldPassword'),
      password: passwordError(t, values.password),
      confirm: confirmError(t, values.password, values.confirm),
    });
    await form.submit(found, async () => {
      try {
        await personalApi.updatePassword(user.id, values.old, values.password);
      } catch (error) {
        throw renameFields(error, { '/password': '/old', '/newPassword': '/password' });
      }
      form.setValues({ old: '', password: '', confirm: '' });
      setSaved(true);
    });
  };
  return (
    <section className="card personal-card" data-testid="personal-password">
      <h2>{t('personal.password.title')}</h2>
      <FormAlert message={form.message} />
      {saved && <FormAlert message={t('personal.password.saved')} kind="success" />}
      <form onSubmit={(event) => void submit(event)} noValidate className="personal-form">
        <Field label={t('personal.password.old')} error={errors.old} htmlFor="pc-old">
          <TextInput
            id="pc-old"
            name="old"
            type="password"
            autoComplete="current-password"
            maxLength={31}
            value={values.old}
            onChange={(event) => set('old', event.target.value)}
          />
        </Field>
        <NewPasswordFields
          idPrefix="pc"
          passwordLabel={t('auth.newPassword')}
          values={values}
          errors={errors}
          onChange={set}
        />
        <SubmitButton
          isBusy={form.isBusy}
          testId="password-submit"
          label={t('personal.password.submit')}
          busyLabel={t('auth.submitting')}
        />
      </form>
    </section>
  );
}
