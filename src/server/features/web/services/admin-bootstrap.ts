import type { CurrentAuthority, CurrentUser, PostOption } from '../../../../engine/api-types.js';
import type { EntitySchema } from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import { cookieValue } from '../../../lib/http.js';
import type { TreeNode } from '../../../lib/entity-tree.js';
import { currentAuthority, postOptions } from '../../rbac/index.js';
import { tenantsEntities } from '../../forms/index.js';
import { currentUser, findSession } from '../../sessions/index.js';

/**
 * What every back-office page asks for before it can show anything, answered in the page itself
 * (GET /admin/…): the signed-in user (getSysUser), the menus and buttons of all the roles held
 * (queryCurrentAuthority without RoleCode or post), the posts (queryPostOptions) and the entity
 * schemas (GET /api/schemas). The same services and the same shapes as those endpoints, for the
 * caller only: the page is built per request, for the session of the token cookie.
 */
export interface AdminBootstrap {
  user: CurrentUser;
  authority: CurrentAuthority<TreeNode>;
  posts: PostOption[];
  schemas: {
    entities: { name: string; schema: EntitySchema }[];
    /** The server modules' texts by language (modules.<name>.<key>). */
    messages: Record<string, { modules: Record<string, unknown> }>;
  };
  /**
   * The role the authority is for: the one the tab chose with the role switch (its "roleCode"
   * cookie, when the user holds it), else null for every role held. A tab acting in another role
   * than the cookie's (two tabs, two roles) asks for its own.
   */
  actingRole: string | null;
}

export { cookieValue, tokenCookie } from '../../../lib/http.js';

/** The role the role switch chose last (the "roleCode" cookie, src/web/session.ts): a hint only. */
export function actingRoleCookie(header: string | undefined): string | undefined {
  const value = cookieValue(header, 'roleCode');
  return value !== undefined && value.length > 0 && value.length <= 64 ? value : undefined;
}

/**
 * The bootstrap for a token, or undefined without a live session (signed out, expired, disabled
 * user): then the page carries nothing and the back-office asks as it always did.
 */
export async function adminBootstrap({
  ctx,
  token,
  role,
}: {
  ctx: AppContext;
  /** The session token of the page's cookie. */
  token: string;
  /** The role the tab chose last (its cookie), a hint only: it counts when held. */
  role?: string | undefined;
}): Promise<AdminBootstrap | undefined> {
  const session = await findSession({
    db: ctx.db,
    userTable: ctx.registry.require('sysuser').table,
    accessToken: token,
    cache: ctx.sessionCache,
  });
  if (!session) return undefined;
  // A page load has no RoleCode header: the role the tab chose comes as a cookie, and counts only
  // when held (as features/sessions/auth-hook.ts's header); else the caller acts in every role held.
  const actingRole = role !== undefined && session.roles.includes(role) ? role : null;
  const auth = { ...session, roles: actingRole ? [actingRole] : session.roles, heldRoles: session.roles };
  const [user, authority, posts] = await Promise.all([
    currentUser({ ctx, auth }),
    currentAuthority({ ctx, auth }),
    postOptions({ ctx, auth }),
  ]);
  return {
    user,
    authority,
    posts,
    schemas: {
      // the published forms of the caller's tenant only, as GET /api/schemas answers it
      entities: tenantsEntities(ctx, session.tenantCode).map((entity) => ({
        name: entity.name,
        schema: entity.schema,
      })),
      messages: ctx.modules.messages(),
    },
    actingRole,
  };
}

/**
 * The bootstrap as the text of a <script type="application/json"> block: never run (the CSP's
 * script-src 'self' stays), and no "<" in it, so no text of the data can close the block.
 */
export function bootstrapJson(bootstrap: AdminBootstrap): string {
  return JSON.stringify(bootstrap)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
