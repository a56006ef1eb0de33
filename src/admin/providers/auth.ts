import type { AuthProvider } from '@refinedev/core';
import type {
  CurrentAuthority,
  CurrentUser,
  EnrolledSignIn,
  MenuNode,
  SecondStepAnswer,
  TokenAnswer,
} from '../../engine/api-types.js';
import { ApiError, apiGet, apiPost, http } from '../../web/http.js';
import {
  getRoles,
  getToken,
  portalHome,
  getActingRole,
  resetToken,
  setRoles,
  setToken,
  storedActingRole,
} from '../../web/session.js';
import { forgetBootstrap, takeBootstrap } from './bootstrap.js';
import { forgetResources, loadResources } from './resources.js';

/** The signed-in back-office user (GET /api/uaa/users/getSysUser). */
export type SysUser = CurrentUser;

/** docs/product.md §9: the sign-in client and scope are fixed; the tenant is `default` unless named. */
export const SIGN_IN = { clientId: 'browser', scope: 'ui', tenantCode: 'default' } as const;

const TENANT_KEY = 'signInTenant';

/**
 * The tenant the sign-in page signs into: the `tenant` query of /admin/login, else the tenant of
 * the last sign-in on this browser when it was not the default one, else `default`. A tenant's
 * administrator opens /admin/login?tenant=<code> once; the page remembers it after that.
 */
export function signInTenant(fromUrl: string | null): string {
  const named = fromUrl?.trim();
  if (named) return named;
  try {
    return localStorage.getItem(TENANT_KEY) || SIGN_IN.tenantCode;
  } catch {
    return SIGN_IN.tenantCode;
  }
}

/** Remembers (or, for the default tenant, forgets) the tenant signed into. */
export function rememberSignInTenant(tenantCode: string): void {
  try {
    if (tenantCode === SIGN_IN.tenantCode) localStorage.removeItem(TENANT_KEY);
    else localStorage.setItem(TENANT_KEY, tenantCode);
  } catch {
    // storage refused (private mode): the query names the tenant each time
  }
}

export type SignInType = 'account' | 'mobile';

export interface SignInForm {
  /** 'oidc': the one-time ticket an OpenID provider's sign-in came back with (features/oidc). */
  type: SignInType | 'oidc';
  ticket?: string;
  username?: string;
  password?: string;
  mobile?: string;
  smsCaptcha?: string;
  /** The tenant signed into (signInTenant); `default` when absent. */
  tenantCode?: string;
  /** Where to go after signing in (the redirect query). */
  redirect?: string;
  /**
   * The second step of a sign-in (two-factor): the challenge of the first step's answer and a code
   * of the authenticator (or a recovery code); `enrol` confirms an enrolment required at sign-in.
   */
  secondStep?: { kind: SecondStepAnswer['second_step']; challengeToken: string; code: string };
  /** Called when the credentials were right but a second step stands before the session. */
  onSecondStep?: (step: { kind: SecondStepAnswer['second_step']; challengeToken: string }) => void;
  /** Shows the recovery codes of an enrolment made at sign-in; resolves once they were read. */
  onRecoveryCodes?: (codes: string[]) => Promise<void>;
}

type SignInAnswer = Partial<TokenAnswer & SecondStepAnswer & EnrolledSignIn>;

const SECOND_STEP_URL = { totp: '/api/uaa/twoFactor/verify', enrol: '/api/uaa/twoFactor/confirm' } as const;

/** The token request of the form: the first step (password, SMS code) or the second (two-factor). */
async function requestSignIn(form: SignInForm): Promise<SignInAnswer> {
  const step = form.secondStep;
  if (step) {
    const answer = await http.post<SignInAnswer>(SECOND_STEP_URL[step.kind], {
      challengeToken: step.challengeToken,
      code: step.code.trim(),
    });
    return answer.data;
  }
  if (form.type === 'oidc')
    return (await http.post<SignInAnswer>('/api/oidc/ticket', { ticket: form.ticket ?? '' })).data;
  const response = await http.post<SignInAnswer>('/api/uaa/oauth/token', signInBody(form), {
    headers: {
      Authorization: `Basic ${btoa(`${SIGN_IN.clientId}:`)}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
  });
  return response.data;
}

/** The form-urlencoded body of POST /api/uaa/oauth/token (docs/product.md §5: trims all but the password). */
export function signInBody(form: SignInForm): URLSearchParams {
  const body = new URLSearchParams({
    scope: SIGN_IN.scope,
    client_id: SIGN_IN.clientId,
    tenantCode: (form.tenantCode ?? SIGN_IN.tenantCode).trim() || SIGN_IN.tenantCode,
    type: form.type,
    grant_type: form.type === 'mobile' ? 'mobile' : 'password',
  });
  if (form.type === 'mobile') {
    body.set('mobile', (form.mobile ?? '').trim());
    body.set('smsCaptcha', (form.smsCaptcha ?? '').trim());
  } else {
    body.set('username', (form.username ?? '').trim());
    body.set('password', form.password ?? '');
  }
  return body;
}

export interface AuthTexts {
  /** 当前用户未配置角色权限，无法登录 */
  noRoles: string;
  /** 验证失败，请重新登录。 */
  verifyFailed: string;
  /** 角色必须为非null数组！ */
  rolesNotArray: string;
  /** Has Error */
  hasError: string;
}

export interface AuthOptions {
  t: (key: string) => string;
  /** Shows a message (antd message.error) for failures the HTTP client does not toast. */
  notify: (message: string) => void;
  /** Leaves the back-office for the portal (full navigation). */
  leave: (url: string) => void;
  /**
   * Leaves the back-office for the portal after a delay (a message to read first); from now on
   * the back-office redirects nowhere else (no sign-in page flashes meanwhile).
   */
  leaveAfter: (url: string, delayMs: number) => void;
  /** Current back-office path, for the redirect query. */
  currentPath: () => string;
  /** Closes the tags and clears per-user state (docs/product.md §4 logout). */
  onLogout: () => void;
  /** Closes what a failed attempt left on screen (its error toast) once a sign-in succeeds. */
  onSignedIn?: () => void;
}

let identity: Promise<SysUser> | undefined;
let authority: Promise<CurrentAuthority> | undefined;
/** Asked for beside the user at sign-in or page load, handed to the first getPermissions. */
let prefetched: Promise<CurrentAuthority> | undefined;
/**
 * The role the prefetch acted in: on a page load it starts before the user's roles are known, so
 * a role chosen for the tab is not yet in its RoleCode header and its answer is not that role's.
 */
let prefetchedRole = '';
/** The role of the page's own authority when one was taken (seededAuthority). */
let seededRole: string | undefined;

const LEAVE_DELAY_MS = 2000;
/** The portal's personal centre (src/portal/routes.ts PERSONAL_PATH). */
const PORTAL_PERSONAL_CENTRE = '/personal';
/** The user was told why they leave the back-office and is on the way to the portal. */
let isSentToPortal = false;

/** Loads the current user once per session and checks its roles (docs/product.md §4, §5). */
export function loadUser(options: AuthOptions): Promise<SysUser> {
  // the page's own answer when the server put one in it (bootstrap.ts), else the call
  const seeded = identity ? undefined : takeBootstrap('user');
  identity ??= (
    seeded
      ? Promise.resolve<SysUser | undefined>(seeded)
      : apiGet<SysUser | undefined>('/api/uaa/users/getSysUser', undefined, { silent: true })
  )
    .then((user) => {
      if (!user) throw new Error(options.t('admin.auth.verifyFailed'));
      if (!Array.isArray(user.roles)) throw new Error(options.t('admin.auth.rolesNotArray'));
      if (user.roles.length === 0) throw new Error(options.t('admin.auth.noRoles'));
      setRoles(user.roles);
      return user;
    })
    .catch((error: unknown) => {
      identity = undefined;
      throw error;
    });
  return identity;
}

export function forgetUser(): void {
  identity = undefined;
  authority = undefined;
  prefetched = undefined;
  forgetBootstrap();
}

/** What getPermissions takes: the post the post-switch select narrowed the roles to. */
export interface PermissionParams {
  postCode?: string;
}

/**
 * POST queryCurrentAuthority (docs/product.md §6): the menus and buttons of the roles acted in (the RoleCode
 * header), narrowed by the post. A server without the per-role endpoint answers 404: then the
 * whole menu tree, which the route table filters by the held roles.
 */
async function fetchAuthority(postCode: string | undefined): Promise<CurrentAuthority> {
  try {
    return await apiPost<CurrentAuthority>('/api/account/sysuserdetail/queryCurrentAuthority', undefined, {
      params: postCode ? { postCode } : {},
      silent: true,
    });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    const menus = await apiGet<MenuNode[]>('/api/admin/sysmenu/querySysMenuTree');
    return {
      roles: [...getRoles()],
      currentRole: null,
      postCode: null,
      menus,
      menu: [],
      buttons: {},
      fieldRights: {},
    };
  }
}

/**
 * The page's authority (no post; every role held, or the role the tab chose when the page was
 * made for it: its actingRole), when it is the one wanted; taken once either way.
 */
function seededAuthority(): { authority: CurrentAuthority; role: string } | undefined {
  const madeFor = takeBootstrap('actingRole');
  const authority = takeBootstrap('authority');
  // before the held roles are known (a page load) the tab's stored choice is the one to match
  const wanted = getActingRole() ?? storedActingRole() ?? null;
  if (!authority || (madeFor ?? null) !== wanted) return undefined;
  return { authority, role: wanted ?? '' };
}

function loadAuthority(postCode: string | undefined): Promise<CurrentAuthority> {
  const seeded = postCode ? undefined : seededAuthority();
  if (seeded) seededRole = seeded.role;
  const next = seeded ? Promise.resolve(seeded.authority) : fetchAuthority(postCode);
  authority = next;
  next.catch(() => {
    if (authority === next) authority = undefined;
  });
  return next;
}

/** The authority getPermissions loaded last (the role and post acted in now), else a new one. */
export function currentAuthority(): Promise<CurrentAuthority> {
  return authority ?? loadAuthority(undefined);
}

/**
 * What every back-office page needs, asked for at once rather than one after another: the menus
 * (beside the user) and the entity schemas the screens are made from.
 */
function prefetch(): Promise<CurrentAuthority> {
  if (!prefetched) {
    seededRole = undefined;
    prefetched = loadAuthority(undefined);
    // the page's answer names its role; a call made now has no RoleCode yet: every role held
    prefetchedRole = seededRole ?? getActingRole() ?? '';
  }
  void loadResources();
  return prefetched;
}

/** The provider's end-session address of a session opened through an OpenID provider, else null. */
async function providerLogoutUrl(): Promise<string | null> {
  try {
    return (await apiGet<{ url: string | null }>('/api/oidc/logoutUrl', { app: 'admin' }, { silent: true }))
      .url;
  } catch {
    return null;
  }
}

/** A sign-in that worked for a user the back-office has nothing for (a portal buyer). */
class NoBackOffice extends Error {}

function messageOf(error: unknown, options: AuthOptions): string {
  if (error instanceof Error && error.message) return error.message;
  return options.t('admin.auth.hasError');
}

export function createAuthProvider(options: AuthOptions): AuthProvider {
  return {
    login: async (form: SignInForm) => {
      try {
        const answer = await requestSignIn(form);
        if (answer.second_step && answer.challenge_token) {
          // No session yet: the page asks for the second step (a success with nowhere to go).
          form.onSecondStep?.({ kind: answer.second_step, challengeToken: answer.challenge_token });
          return { success: true };
        }
        const token = answer.access_token;
        if (!token) throw new ApiError(answer.message || options.t('admin.auth.hasError'));
        forgetUser();
        setToken(token);
        rememberSignInTenant((form.tenantCode ?? SIGN_IN.tenantCode).trim() || SIGN_IN.tenantCode);
        // the schemas list the published forms of the caller's tenant: read again for this one
        forgetResources();
        const [, granted] = await Promise.all([
          loadUser(options),
          // a user whose roles may not even read their menus has no back-office either
          prefetch().catch((error: unknown) => {
            if (error instanceof ApiError && error.status === 403) return { menus: [] };
            throw error;
          }),
        ]);
        // No back-office menu (a portal buyer or supplier): no empty shell, the portal instead.
        if (granted.menus.length === 0) {
          await http.post('/api/uaa/oauth/logout', undefined, { silent: true }).catch(() => undefined);
          throw new NoBackOffice(options.t('admin.auth.noBackOffice'));
        }
        options.onSignedIn?.();
        if (answer.recovery_codes) await form.onRecoveryCodes?.(answer.recovery_codes);
        const redirect = form.redirect && form.redirect.startsWith('/') ? form.redirect : '/workbench';
        return { success: true, redirectTo: redirect };
      } catch (error) {
        // The HTTP client has already toasted server answers; a roles problem is ours to show.
        if (!(error instanceof ApiError)) {
          resetToken();
          forgetUser();
          options.notify(messageOf(error, options));
        }
        // Let the message be read before leaving for the portal home.
        if (error instanceof NoBackOffice) setTimeout(() => options.leave(portalHome()), LEAVE_DELAY_MS);
        return { success: false, error: { name: 'signIn', message: messageOf(error, options) } };
      }
    },

    logout: async () => {
      const path = options.currentPath();
      // a session opened through an OpenID provider ends there too (its end-session address)
      const atProvider = getToken() ? await providerLogoutUrl() : null;
      if (getToken())
        await http.post('/api/uaa/oauth/logout', undefined, { silent: true }).catch(() => undefined);
      resetToken();
      forgetUser();
      options.onLogout();
      // docs/product.md §2.3: the landing after logout is /{product}?redirect={fullPath}.
      options.leave(atProvider ?? portalHome(`/admin${path}`));
      return { success: true, redirectTo: undefined };
    },

    check: async () => {
      if (!getToken()) return { authenticated: false, redirectTo: '/login' };
      // On the first check of a page load only: later checks (navigation) find the menus loaded.
      if (!authority) void prefetch();
      if (getRoles().length > 0) return { authenticated: true };
      try {
        await loadUser(options);
      } catch (error) {
        // Empty roles or a failed user-info call: reset the token, say why, go to /{product}
        // with the wanted path in the redirect query (docs/product.md §2.1, §4, §8).
        resetToken();
        if (!(error instanceof ApiError && error.reason === 'invalid_token') && !isSentToPortal) {
          isSentToPortal = true;
          options.notify(messageOf(error, options));
          // Let the message be read before leaving for the portal home.
          options.leaveAfter(portalHome(`/admin${options.currentPath()}`), LEAVE_DELAY_MS);
        }
        return { authenticated: false, redirectTo: '/login' };
      }
      // A buyer or supplier (no back-office menu in any of their roles) who opens the back-office:
      // no empty shell, their portal personal centre instead, still signed in there.
      const granted = await (prefetched ?? currentAuthority()).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 403) return { menus: [] };
        throw error;
      });
      // Narrowed to one role of several (the role switch) that has none: the shell stays, with
      // the switch to go back to all roles.
      if (granted.menus.length === 0 && !(getActingRole() ?? storedActingRole())) {
        // said once, however many checks the page runs meanwhile
        if (!isSentToPortal) options.notify(options.t('admin.auth.portalUser'));
        isSentToPortal = true;
        options.leaveAfter(PORTAL_PERSONAL_CENTRE, LEAVE_DELAY_MS);
        return { authenticated: false };
      }
      return { authenticated: true };
    },

    // The HTTP client already handles invalid_token (toast, token reset, home) for every call.
    onError: async () => ({}),

    getIdentity: async () => (getToken() ? loadUser(options) : null),

    // The menus and buttons of the roles acted in (MenuProvider reads them through usePermissions).
    getPermissions: (params?: PermissionParams) => {
      const isPrefetchForThese = !params?.postCode && prefetchedRole === (getActingRole() ?? '');
      const ready = isPrefetchForThese ? prefetched : undefined;
      prefetched = undefined;
      return ready ?? loadAuthority(params?.postCode);
    },
  };
}
