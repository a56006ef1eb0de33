import { useEffect, useState, type InputHTMLAttributes, type ReactNode } from 'react';
import { Link } from 'react-router';
import { usePortal } from '../context.js';
import { ApiError, apiGet } from '../../web/http.js';
import { Logo } from '../ui/Logo.js';
import { mobileError } from './rules.js';

export type Errors<K extends string> = Partial<Record<K, string>>;

/** The server's message of a failed call (field messages included), for the form's alert. */
export function serverMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiError) {
    const fields = error.errors.map((item) => item.message).filter(Boolean);
    return fields.length > 0 && !fields.includes(error.message)
      ? `${error.message}：${fields.join('；')}`
      : error.message || fallback;
  }
  return error instanceof Error ? error.message : fallback;
}

export function Field({
  label,
  error,
  children,
  htmlFor,
}: {
  label: string;
  error?: string | undefined;
  children: ReactNode;
  htmlFor: string;
}) {
  return (
    <div className={`field${error ? ' has-error' : ''}`}>
      <label htmlFor={htmlFor}>{label}</label>
      {children}
      <span className="field-error" role={error ? 'alert' : undefined}>
        {error ?? ''}
      </span>
    </div>
  );
}

export function TextInput(props: InputHTMLAttributes<HTMLInputElement> & { id: string }) {
  return <input className="input" {...props} />;
}

/** A solved character captcha, sent with a code to a number no user has yet (registration). */
export interface CaptchaAnswer {
  captchaId: string;
  charCaptcha: string;
}

/**
 * The "get code" button: GET /api/account/captcha/getSmsCaptcha?mobile= with a 60 s countdown.
 * With `captcha`, its answer goes along and `onTried` follows every attempt (a captcha works once).
 */
export function SmsButton({
  mobile,
  onError,
  captcha,
  onTried,
}: {
  mobile: string;
  onError: (message: string) => void;
  captcha?: CaptchaAnswer | undefined;
  onTried?: () => void;
}) {
  const { t } = usePortal();
  const [seconds, setSeconds] = useState(0);
  const [isSending, setIsSending] = useState(false);
  useEffect(() => {
    if (seconds <= 0) return;
    const timer = setTimeout(() => setSeconds(seconds - 1), 1000);
    return () => clearTimeout(timer);
  }, [seconds]);
  const send = async (): Promise<void> => {
    const invalid = mobileError(t, mobile);
    if (invalid) {
      onError(invalid);
      return;
    }
    if (captcha && !captcha.charCaptcha.trim()) {
      onError(t('auth.rules.charCaptchaRequired'));
      return;
    }
    setIsSending(true);
    try {
      const answer = captcha ? { captchaId: captcha.captchaId, charCaptcha: captcha.charCaptcha.trim() } : {};
      await apiGet(
        '/api/account/captcha/getSmsCaptcha',
        { mobile: mobile.trim(), ...answer },
        { silent: true },
      );
      setSeconds(60);
    } catch (error) {
      onError(serverMessage(error, t('auth.failed')));
    } finally {
      setIsSending(false);
      onTried?.();
    }
  };
  return (
    <button
      type="button"
      className="btn sms-button"
      data-testid="sms-button"
      disabled={seconds > 0 || isSending}
      onClick={() => void send()}
    >
      {seconds > 0 ? t('auth.resend', { seconds }) : t('auth.getCode')}
    </button>
  );
}

export function FormAlert({
  message,
  kind = 'error',
}: {
  message: string | undefined;
  kind?: 'error' | 'success';
}) {
  if (!message) return null;
  return (
    <div className={`form-alert form-alert-${kind}`} role="alert" data-testid="form-alert">
      {message}
    </div>
  );
}

/** The standalone frame of the account screens: brand panel and the form card. */
export function AuthShell({
  title,
  children,
  footer,
}: {
  title: string;
  children: ReactNode;
  footer?: ReactNode;
}) {
  const { t, params, home, productTitle } = usePortal();
  return (
    <div className="auth-page">
      <header className="auth-top">
        <Link to={home} className="brand">
          <Logo size={34} />
          <strong>{productTitle}</strong>
        </Link>
        <Link to={home} className="auth-home">
          {t('auth.backHome')}
        </Link>
      </header>
      <div className="auth-body">
        <section className="auth-aside" aria-hidden="true">
          <h2>{t('auth.asideTitle')}</h2>
          <ul>
            <li>{t('home.promise.safe.payLater')}</li>
            <li>{t('home.promise.safe.bankDirect')}</li>
            <li>{t('home.promise.safe.logistics')}</li>
            <li>{t('home.promise.safe.supervision')}</li>
          </ul>
        </section>
        <section className="auth-card">
          <h1>{title}</h1>
          {children}
          {footer && <div className="auth-footer">{footer}</div>}
        </section>
      </div>
      <p className="auth-copy">
        {params.companyOperator} · {t('footer.hotline')} {params.hotline}
      </p>
    </div>
  );
}
