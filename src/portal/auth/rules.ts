/**
 * The checks of the portal's account forms, with the messages a Chinese user expects: an empty
 * field asks for it by name (请输入密码, 请再次输入密码), a filled one says what is wrong with it.
 * Names, numbers and codes are checked trimmed; passwords as typed (docs/product.md §5).
 */
export type Translate = (key: string, values?: Record<string, unknown>) => string;

/** Field rules a person expects (the lengths of docs/product.md §5). */
export const RULES = {
  username: /^[A-Za-z0-9_.@-]{3,64}$/,
  mobile: /^1[3-9]\d{9}$/,
  email: /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/,
  sms: /^\d{4,8}$/,
  passwordMin: 6,
  passwordMax: 31,
};

/** Room for a mobile number pasted with spaces around it: it is trimmed before use. */
export const MOBILE_INPUT_MAX = 20;

export function usernameError(t: Translate, username: string, isNew: boolean): string | undefined {
  const value = username.trim();
  if (!value) return t('auth.rules.usernameRequired');
  if (isNew && !RULES.username.test(value)) return t('auth.rules.username');
  return undefined;
}

export function passwordError(t: Translate, password: string): string | undefined {
  if (!password) return t('auth.rules.passwordRequired');
  if (password.length < RULES.passwordMin || password.length > RULES.passwordMax)
    return t('auth.rules.password');
  return undefined;
}

export function confirmError(t: Translate, password: string, confirm: string): string | undefined {
  if (!confirm) return t('auth.rules.confirmRequired');
  if (confirm !== password) return t('auth.rules.confirm');
  return undefined;
}

export function mobileError(t: Translate, mobile: string): string | undefined {
  const value = mobile.trim();
  if (!value) return t('auth.rules.mobileRequired');
  if (!RULES.mobile.test(value)) return t('auth.rules.mobile');
  return undefined;
}

export function smsError(t: Translate, code: string): string | undefined {
  const value = code.trim();
  if (!value) return t('auth.rules.sms');
  if (!RULES.sms.test(value)) return t('auth.rules.smsFormat');
  return undefined;
}

export function emailError(t: Translate, email: string): string | undefined {
  const value = email.trim();
  if (!value) return t('auth.rules.emailRequired');
  if (!RULES.email.test(value)) return t('auth.rules.email');
  return undefined;
}

/** The errors of a form, without the fields that passed. */
export function collect<K extends string>(
  checks: Partial<Record<K, string | undefined>>,
): Partial<Record<K, string>> {
  const found: Partial<Record<K, string>> = {};
  for (const key of Object.keys(checks) as K[]) {
    const message = checks[key];
    if (message) found[key] = message;
  }
  return found;
}
