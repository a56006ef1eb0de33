import { useCallback, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { usePortal } from '../context.js';
import type { CharCaptcha } from '../../engine/api-types.js';
import { apiGet } from '../../web/http.js';
import type { UserType } from '../session.js';
import { AuthShell, Field, FormAlert, SmsButton, TextInput, type Errors } from './forms.js';
import { MOBILE_INPUT_MAX } from './rules.js';

type MobileKey = 'mobile' | 'smsCaptcha';

/**
 * Mobile number and SMS code, with the "get code" button and its countdown. With `withCaptcha`
 * (registration: the number is nobody's yet) a character captcha comes first, sent with the
 * request for a code and drawn anew after each one.
 */
export function MobileSmsFields({
  idPrefix,
  values,
  errors,
  onChange,
  onError,
  mobileAutoComplete,
  withCaptcha = false,
}: {
  idPrefix: string;
  values: Record<MobileKey, string>;
  errors: Errors<MobileKey>;
  onChange: (key: MobileKey, value: string) => void;
  onError: (message: string) => void;
  mobileAutoComplete?: string;
  withCaptcha?: boolean;
}) {
  const { t } = usePortal();
  const [captcha, setCaptcha] = useState<CharCaptcha>();
  const [charCaptcha, setCharCaptcha] = useState('');
  const loadCaptcha = useCallback((): void => {
    setCharCaptcha('');
    apiGet<CharCaptcha>('/api/account/captcha/getCharCaptcha', undefined, {
      silent: true,
    }).then(setCaptcha, () => setCaptcha(undefined));
  }, []);
  useEffect(() => {
    if (withCaptcha) loadCaptcha();
  }, [withCaptcha, loadCaptcha]);
  return (
    <>
      <Field label={t('auth.mobile')} error={errors.mobile} htmlFor={`${idPrefix}-mobile`}>
        <TextInput
          id={`${idPrefix}-mobile`}
          name="mobile"
          type="tel"
          autoComplete={mobileAutoComplete}
          inputMode="numeric"
          value={values.mobile}
          maxLength={MOBILE_INPUT_MAX}
          placeholder={t('auth.mobilePlaceholder')}
          onChange={(event) => onChange('mobile', event.target.value)}
        />
      </Field>
      {withCaptcha && (
        <Field label={t('auth.charCaptcha')} htmlFor={`${idPrefix}-captcha`}>
          <div className="input-group">
            <TextInput
              id={`${idPrefix}-captcha`}
              name="charCaptcha"
              value={charCaptcha}
              maxLength={8}
              placeholder={t('auth.charCaptchaPlaceholder')}
              onChange={(event) => setCharCaptcha(event.target.value)}
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
      )}
      <Field label={t('auth.smsCaptcha')} error={errors.smsCaptcha} htmlFor={`${idPrefix}-sms`}>
        <div className="input-group">
          <TextInput
            id={`${idPrefix}-sms`}
            name="smsCaptcha"
            inputMode="numeric"
            autoComplete="one-time-code"
            value={values.smsCaptcha}
            maxLength={8}
            placeholder={t('auth.smsPlaceholder')}
            onChange={(event) => onChange('smsCaptcha', event.target.value)}
          />
          <SmsButton
            mobile={values.mobile}
            onError={onError}
            {...(withCaptcha
              ? { captcha: { captchaId: captcha?.captchaId ?? '', charCaptcha }, onTried: loadCaptcha }
              : {})}
          />
        </div>
      </Field>
    </>
  );
}

type PasswordKey = 'password' | 'confirm';

/** A new password and its confirmation. */
export function NewPasswordFields({
  idPrefix,
  passwordLabel,
  values,
  errors,
  onChange,
}: {
  idPrefix: string;
  passwordLabel: string;
  values: Record<PasswordKey, string>;
  errors: Errors<PasswordKey>;
  onChange: (key: PasswordKey, value: string) => void;
}) {
  const { t } = usePortal();
  const rows: [PasswordKey, string, string][] = [
    ['password', passwordLabel, t('auth.passwordRule')],
    ['confirm', t('auth.confirm'), t('auth.confirmPlaceholder')],
  ];
  return rows.map(([key, label, placeholder]) => (
    <Field key={key} label={label} error={errors[key]} htmlFor={`${idPrefix}-${key}`}>
      <TextInput
        id={`${idPrefix}-${key}`}
        name={key}
        type="password"
        autoComplete="new-password"
        value={values[key]}
        maxLength={31}
        placeholder={placeholder}
        onChange={(event) => onChange(key, event.target.value)}
      />
    </Field>
  ));
}

export function EmailField({
  id,
  value,
  error,
  onChange,
}: {
  id: string;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
}) {
  const { t } = usePortal();
  return (
    <Field label={t('auth.email')} error={error} htmlFor={id}>
      <TextInput
        id={id}
        name="email"
        type="email"
        autoComplete="email"
        value={value}
        maxLength={128}
        placeholder={t('auth.emailPlaceholder')}
        onChange={(event) => onChange(event.target.value)}
      />
    </Field>
  );
}

/** Buyer or supplier. */
export function RoleSwitch({ value, onChange }: { value: UserType; onChange: (type: UserType) => void }) {
  const { t } = usePortal();
  return (
    <div className="role-switch" role="radiogroup" aria-label={t('auth.role')}>
      {([1, 2] as const).map((type) => (
        <button
          key={type}
          type="button"
          role="radio"
          aria-checked={value === type}
          data-testid={`role-${type}`}
          className={value === type ? 'is-active' : undefined}
          onClick={() => onChange(type)}
        >
          {t(type === 1 ? 'auth.iAmBuyer' : 'auth.iAmSupplier')}
        </button>
      ))}
    </div>
  );
}

/** The tabs of a form's ways (by account or mobile, by mobile or mail). */
export function ModeTabs<M extends string>({
  modes,
  value,
  labelKey,
  onChange,
}: {
  modes: readonly M[];
  value: M;
  labelKey: string;
  onChange: (mode: M) => void;
}) {
  const { t } = usePortal();
  return (
    <div className="mode-tabs" role="tablist">
      {modes.map((item) => (
        <button
          key={item}
          type="button"
          role="tab"
          aria-selected={value === item}
          data-testid={`mode-${item}`}
          className={value === item ? 'is-active' : undefined}
          onClick={() => onChange(item)}
        >
          {t(`${labelKey}.${item}`)}
        </button>
      ))}
    </div>
  );
}

export function SubmitButton({
  isBusy,
  testId,
  label,
  busyLabel,
}: {
  isBusy: boolean;
  testId: string;
  label: string;
  busyLabel: string;
}) {
  return (
    <button type="submit" className="btn btn-primary btn-block" disabled={isBusy} data-testid={testId}>
      {isBusy ? busyLabel : label}
    </button>
  );
}

/** The screen after a form has done its work: the success message and the way to sign in. */
export function AuthDone({ title, message, to }: { title: string; message: string; to: string }) {
  const { t } = usePortal();
  return (
    <AuthShell title={title}>
      <FormAlert message={message} kind="success" />
      <Link to={to} className="btn btn-primary btn-block">
        {t('auth.toLogin')}
      </Link>
    </AuthShell>
  );
}
