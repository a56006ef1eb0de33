/**
 * The client session shared by the portal and the back-office (docs/product.md §4, §9): the token lives in
 * the "token" cookie, the role codes in memory (they are reloaded from the user-info call after a
 * page load). Other small preferences (sidebarStatus, language, size) are cookies as well.
 */

/** Where cookies are read and written; the browser's document by default, a fake one in tests. */
export interface CookieJar {
  cookie: string;
}

let jar: CookieJar | undefined = typeof document === 'undefined' ? undefined : document;

/** Tests (or a non-browser host) give their own cookie store. */
export function setCookieJar(next: CookieJar | undefined): void {
  jar = next;
}

export const TOKEN_COOKIE = 'token';

export function readCookie(name: string): string | undefined {
  if (!jar) return undefined;
  const prefix = `${name}=`;
  const found = jar.cookie
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(prefix));
  return found === undefined ? undefined : decodeURIComponent(found.slice(prefix.length));
}

/** A session cookie for the whole site unless days is given. */
export function writeCookie(name: string, value: string, days?: number): void {
  if (!jar) return;
  const expires =
    days === undefined ? '' : `; expires=${new Date(Date.now() + days * 86_400_000).toUTCString()}`;
  jar.cookie = `${name}=${encodeURIComponent(value)}; path=/${expires}; SameSite=Lax`;
}

export function removeCookie(name: string): void {
  if (!jar) return;
  jar.cookie = `${name}=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT; SameSite=Lax`;
}

type Listener = () => void;
const listeners = new Set<Listener>();
let roles: string[] = [];

function emit(): void {
  for (const listener of listeners) listener();
}

/** Called whenever the token or the roles change (sign-in, reset, role switch). */
export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function getToken(): string | undefined {
  const token = readCookie(TOKEN_COOKIE);
  return token ? token : undefined;
}

export function setToken(token: string): void {
  writeCookie(TOKEN_COOKIE, token);
  emit();
}

export function getRoles(): readonly string[] {
  return roles;
}

export function setRoles(next: readonly string[]): void {
  roles = [...next];
  emit();
}

export function hasToken(): boolean {
  return getToken() !== undefined;
}

/**
 * Where the role chosen with the role switch is kept: this tab, this session. The last choice is
 * also a cookie, so that the back-office page the server builds carries that role's menus
 * (features/web/services/admin-bootstrap.ts); a tab acting in another role asks for its own.
 */
const ACTING_ROLE_KEY = 'roleCode';

function storage(): Storage | undefined {
  try {
    return typeof sessionStorage === 'undefined' ? undefined : sessionStorage;
  } catch {
    return undefined;
  }
}

let actingRole: string | undefined = storage()?.getItem(ACTING_ROLE_KEY) ?? undefined;

/**
 * The role the user acts in now (docs/product.md §4 role change), one of the roles they hold; undefined
 * when they act in all of them. It is not a credential: the server checks it against the session.
 */
export function getActingRole(): string | undefined {
  return actingRole !== undefined && roles.includes(actingRole) ? actingRole : undefined;
}

export function setActingRole(role: string | undefined): void {
  actingRole = role || undefined;
  if (actingRole) {
    storage()?.setItem(ACTING_ROLE_KEY, actingRole);
    writeCookie(ACTING_ROLE_KEY, actingRole);
  } else {
    storage()?.removeItem(ACTING_ROLE_KEY);
    removeCookie(ACTING_ROLE_KEY);
  }
  emit();
}

/** The role this tab chose, before the held roles are known (a page load): unchecked. */
export function storedActingRole(): string | undefined {
  return actingRole;
}

/** The roles a request acts in (its RoleCode header): the chosen role, else every held role. */
export function requestRoles(): readonly string[] {
  const acting = getActingRole();
  return acting ? [acting] : roles;
}

/** docs/product.md §4 reset-token: clears the token and the roles (the chosen role too). */
export function resetToken(): void {
  removeCookie(TOKEN_COOKIE);
  roles = [];
  actingRole = undefined;
  storage()?.removeItem(ACTING_ROLE_KEY);
  removeCookie(ACTING_ROLE_KEY);
  emit();
}

/** The product slug of the portal home (/{product}); a page may name it in <meta name="ecobid-product">. */
export function productSlug(): string {
  if (typeof document === 'undefined') return 'ecobid';
  const meta = document.querySelector('meta[name="ecobid-product"]');
  return meta?.getAttribute('content') || 'ecobid';
}

/** The portal home, with the wanted path in the redirect query when given (docs/product.md §2.3). */
export function portalHome(redirect?: string): string {
  const home = `/${productSlug()}`;
  return redirect ? `${home}?redirect=${encodeURIComponent(redirect)}` : home;
}
