import type { CurrentAuthority, CurrentUser, PostOption } from '../../engine/api-types.js';
import type { EntitySchema } from '../../engine/index.js';
import type { Language } from '../../web/i18n.js';

/**
 * What the server put in the back-office page for the signed-in user (src/server/features/web/routes.ts,
 * <script type="application/json" id="ecobid-bootstrap">): the answers of getSysUser,
 * queryCurrentAuthority (every role held, no post), queryPostOptions and /api/schemas, so that a
 * page load does not wait for four calls before it can show anything. The providers seed their
 * caches with it; each part is handed out once, and none after a sign-in or sign-out.
 */
export interface AdminBootstrap {
  user: CurrentUser;
  authority: CurrentAuthority;
  posts: PostOption[];
  schemas: {
    entities: { name: string; schema: EntitySchema }[];
    /** The server modules' texts by language (modules.<name>.<key>): their rules' messages. */
    messages?: Partial<Record<Language, Record<string, unknown>>>;
  };
  /** The role the authority is for (the roleCode cookie's, when held), null for all held. */
  actingRole: string | null;
}

export const BOOTSTRAP_ID = 'ecobid-bootstrap';

let parts: Partial<AdminBootstrap> | undefined;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads the page's block once and takes it out of the document. */
function read(): Partial<AdminBootstrap> {
  if (parts) return parts;
  parts = {};
  if (typeof document === 'undefined') return parts;
  const block = document.getElementById(BOOTSTRAP_ID);
  if (!block) return parts;
  block.remove();
  try {
    const data: unknown = JSON.parse(block.textContent ?? '');
    if (!isObject(data)) return parts;
    if (isObject(data.user) && Array.isArray(data.user.roles))
      parts.user = data.user as unknown as CurrentUser;
    if (isObject(data.authority) && Array.isArray(data.authority.menus))
      parts.authority = data.authority as unknown as CurrentAuthority;
    if (Array.isArray(data.posts)) parts.posts = data.posts as PostOption[];
    if (typeof data.actingRole === 'string' || data.actingRole === null) parts.actingRole = data.actingRole;
    if (isObject(data.schemas) && Array.isArray(data.schemas.entities))
      parts.schemas = data.schemas as unknown as AdminBootstrap['schemas'];
  } catch {
    // a damaged block: the providers ask the API instead
  }
  return parts;
}

/** The part of the page's bootstrap, once: the second ask (a reload of the data) goes to the API. */
export function takeBootstrap<K extends keyof AdminBootstrap>(key: K): AdminBootstrap[K] | undefined {
  const all = read();
  const part = all[key];
  delete all[key];
  return part;
}

/** The part of the page's bootstrap, without taking it (a look ahead at boot, ./warm.ts). */
export function peekBootstrap<K extends keyof AdminBootstrap>(key: K): AdminBootstrap[K] | undefined {
  return read()[key];
}

/** Whether the page came with a part, without taking it. */
export function hasBootstrap(key: keyof AdminBootstrap): boolean {
  return read()[key] !== undefined;
}

/** Sign-in, sign-out: what the page was built for is no one's any more. */
export function forgetBootstrap(): void {
  parts = {};
  if (typeof document !== 'undefined') document.getElementById(BOOTSTRAP_ID)?.remove();
}
