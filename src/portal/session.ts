import type {
  CurrentUser,
  EnrolledSignIn,
  SecondStepAnswer,
  TokenAnswer,
  TwoFactorSetup,
} from '../engine/api-types.js';
import { ApiError, apiGet, http } from '../web/http.js';
import { getToken, removeCookie, resetToken, setRoles, setToken } from '../web/session.js';

/** The portal user (GET /api/uaa/users/getBidUser, docs/http-contract.md). */
export type PortalUser = CurrentUser;

/** 1 buyer, 2 supplier: chosen on the sign-in screen (docs/product.md §6), remembered for the personal centre. */
export type UserType = 1 | 2;
const USER_TYPE_KEY = 'userType';
const BROWSER_CLIENT = `Basic ${btoa('browser:')}`;
/** docs/product.md §9: the sign-in tenant code is a fixed value. */
export const TENANT_CODE = 'default';

export function chosenUserType(): UserType | undefined {
  const value = localStorage.getItem(USER_TYPE_KEY);
  return value === '1' ? 1 : value === '2' ? 2 : undefined;
}

/** Remembers buyer or supplier as chosen on the sign-in page (a password or a provider's sign-in). */
export function chooseUserType(userType: UserType): void {
  localStorage.setItem(USER_TYPE_KEY, String(userType));
}

/** The signed-in user, or null when the token is no longer valid (it is then reset). */
export async function loadUser(): Promise<PortalUser | null> {
  if (!getToken()) return null;
  try {
    let user: PortalUser;
    try {
      user = await apiGet<PortalUser>('/api/uaa/users/getBidUser', undefined, { silent: true });
    } catch (error) {
      // until the portal user endpoint exists, the generic current-user call answers the same fields
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      user = await apiGet<PortalUser>('/api/uaa/users/getSysUser', undefined, { silent: true });
    }
    setRoles(user.roles);
    return user;
  } catch {
    return null;
  }
}

export type SignInMode = 'account' | 'mobile';
export interface SignInInput {
  mode: SignInMode;
  userType: UserType;
  username: string;
  password: string;
  mobile: string;
  smsCaptcha: string;
}

/**
 * POST /api/uaa/oauth/token (docs/product.md §7): form-urlencoded with the browser client's Basic header;
 * password grant for the account mode, mobile grant for the mobile mode. Names and codes are
 * trimmed, the password is not (docs/product.md §5). Rejects with the server's message.
 */
export async function signIn(input: SignInInput): Promise<SecondStep | undefined> {
  const form = new URLSearchParams({
    scope: 'ui',
    client_id: 'browser',
    tenantCode: TENANT_CODE,
    userType: String(input.userType),
  });
  if (input.mode === 'account') {
    form.set('grant_type', 'password');
    form.set('type', 'account');
    form.set('username', input.username.trim());
    form.set('password', input.password);
  } else {
    form.set('grant_type', 'mobile');
    form.set('type', 'mobile');
    form.set('mobile', input.mobile.trim());
    form.set('smsCaptcha', input.smsCaptcha.trim());
  }
  const response = await http.post<Partial<TokenAnswer & SecondStepAnswer>>(
    '/api/uaa/oauth/token',
    form.toString(),
    {
      headers: { Authorization: BROWSER_CLIENT, 'Content-Type': 'application/x-www-form-urlencoded' },
      silent: true,
    },
  );
  chooseUserType(input.userType);
  const { second_step: kind, challenge_token: challengeToken } = response.data;
  // Two-factor: no session yet, the page asks for the code (or the enrolment) under the challenge.
  if (kind && challengeToken) return { kind, challengeToken };
  const token = response.data.access_token;
  if (!token) throw new ApiError(response.data.message ?? 'Error');
  setToken(token);
  return undefined;
}

/** The second step a sign-in waits for (README "Two-factor sign-in"). */
export interface SecondStep {
  kind: SecondStepAnswer['second_step'];
  challengeToken: string;
}

/** The QR code and secret of an enrolment required at sign-in. */
export async function secondStepSetup(step: SecondStep): Promise<TwoFactorSetup> {
  const response = await http.post<{ data: TwoFactorSetup }>(
    '/api/uaa/twoFactor/enrol',
    { challengeToken: step.challengeToken },
    { silent: true },
  );
  return response.data.data;
}

/**
 * The second step: a code of the authenticator or a recovery code (or, for an enrolment, a code of
 * the new secret) opens the session; an enrolment answers its recovery codes, shown once.
 */
export async function completeSecondStep(step: SecondStep, code: string): Promise<string[]> {
  const url = step.kind === 'enrol' ? '/api/uaa/twoFactor/confirm' : '/api/uaa/twoFactor/verify';
  const response = await http.post<Partial<EnrolledSignIn>>(
    url,
    { challengeToken: step.challengeToken, code: code.trim() },
    { silent: true },
  );
  const token = response.data.access_token;
  if (!token) throw new ApiError(response.data.message ?? 'Error');
  setToken(token);
  return response.data.recovery_codes ?? [];
}

function clearAllCookies(): void {
  for (const part of document.cookie.split(';')) {
    const name = part.split('=')[0]?.trim();
    if (name) removeCookie(name);
  }
}

/** docs/product.md §4 portal logout: revoke the session, clear local storage and cookies, go home and reload. */
export async function logout(home: string): Promise<void> {
  if (getToken())
    await http
      .post('/api/uaa/oauth/logout', undefined, { silent: true, timeout: 2000 })
      .catch(() => undefined);
  resetToken();
  localStorage.clear();
  clearAllCookies();
  window.location.assign(home);
}

/**
 * Redeems the one-time ticket an OpenID provider's sign-in came back with (POST /api/oidc/ticket,
 * in the browser that started it): the same tokens as the password sign-in.
 */
export async function signInWithTicket(ticket: string): Promise<void> {
  const response = await http.post<Partial<TokenAnswer>>('/api/oidc/ticket', { ticket }, { silent: true });
  const token = response.data.access_token;
  if (!token) throw new ApiError(response.data.message ?? 'Error');
  setToken(token);
}
