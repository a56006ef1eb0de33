import { sql } from 'kysely';
import type { CurrentAuthority } from '../../../../engine/index.js';
import type { Row } from '../../../lib/db/database.js';
import type { AppContext } from '../../../lib/context.js';
import { buildTree, type TreeNode } from '../../../lib/entity-tree.js';
import { column, selectList, table } from '../../../lib/sql/toolkit.js';
import type { AuthContext } from '../../sessions/index.js';
import { AppError } from '../../../lib/errors.js';
import { fieldRightsByMenu } from './field-rights.js';
import { grantedButtons, grantedMenuIds, isAdmin, isPlatformAdmin, usableButtons } from './policy.js';
import { entityOfComponent, menuCallsOf } from './menu-calls.js';
import { isTenantsMenu } from './tenant-menus.js';

/** The home page's menu (工作台), which even a role of the home page only has. */
const HOME_MENU = 'workbench';

export interface AuthorityRequest {
  ctx: AppContext;
  auth: AuthContext;
  /** Narrows the tree to one top-level menu (the menu-switch select). */
  parentId?: number;
  /** Narrows the roles to those the post works in (the post-switch select). */
  postCode?: string;
}

/**
 * The roles a caller acts in for one of their posts: of the roles they act in now, those attached
 * to the post (sys_role_post). A post narrows and never grants: URL permissions are checked
 * against the caller's own roles, so a menu a post granted would only lead to refused calls.
 * A post the caller does not hold (no sysuserpost row of theirs) is refused with 403.
 */
export async function postRoles({
  ctx,
  auth,
  postCode,
}: {
  ctx: AppContext;
  auth: AuthContext;
  postCode: string;
}): Promise<string[]> {
  const post = ctx.registry.require('syspost');
  const userPost = ctx.registry.require('sysuserpost');
  const role = ctx.registry.require('sysrole');
  const held = await sql<{ id: number }>`select p.id from ${table(post)} p
    join ${table(userPost)} up on up.post_id = p.id and up.tenant_code = p.tenant_code
    where p.post_code = ${postCode} and p.tenant_code = ${auth.tenantCode} and up.user_id = ${auth.userId}
    limit 1`.execute(ctx.db);
  const postId = held.rows[0]?.id;
  if (postId === undefined) throw new AppError('postNotHeld', { post: postCode.slice(0, 64) });
  const attached = await sql<{ role_code: string }>`select r.role_code from sys_role_post rp
    join ${table(role)} r on r.id = rp.role_id
    where rp.post_id = ${postId} and rp.tenant_code = ${auth.tenantCode}`.execute(ctx.db);
  const codes = new Set(attached.rows.map((row) => row.role_code));
  return auth.roles.filter((code) => codes.has(code));
}

/**
 * What the caller's roles may see: ROLE_ADMIN every enabled menu and button; other roles the
 * menus and buttons granted to them (sys_role_menu, sys_role_button), with the ancestors of a
 * granted menu so that the tree stays whole. parentId narrows the tree to one top-level menu;
 * postCode narrows the roles to those of one of the caller's posts (postRoles).
 */
export async function currentAuthority({
  ctx,
  auth,
  parentId,
  postCode,
}: AuthorityRequest): Promise<CurrentAuthority<TreeNode>> {
  const menu = ctx.registry.require('sysmenu');
  const roles = postCode === undefined ? auth.roles : await postRoles({ ctx, auth, postCode });
  const enabled = await sql<Row>`select ${selectList(menu)} from ${table(menu)} where menu_status = '1'
    order by menu_sequence asc nulls first, ${column(menu.key)} asc`.execute(ctx.db);
  // A menu of one tenant's own (meta.tenant: a saved report's page) is not shown in the others.
  const isPlatform = isPlatformAdmin(ctx, { ...auth, roles });
  const all = {
    rows: enabled.rows.filter((row) =>
      isTenantsMenu({ menuMeta: row.menuMeta, tenantCode: auth.tenantCode, isPlatform }),
    ),
  };
  const byId = new Map(all.rows.map((row) => [row.id, row]));
  let allowed = new Set<unknown>(all.rows.map((row) => row.id));
  const buttons: Record<string, string[]> = {};
  if (isAdmin(roles)) {
    for (const row of all.rows)
      buttons[String(row.menuCode)] = Array.isArray(row.menuButton) ? (row.menuButton as string[]) : [];
  } else {
    allowed = new Set();
    // a granted menu brings its ancestors, so the tree has no holes
    const grant = (id: unknown): void => {
      for (let current: unknown = id; current !== undefined && current !== 0 && !allowed.has(current);) {
        if (!byId.has(current)) break;
        allowed.add(current);
        current = byId.get(current)?.menuParent;
      }
    };
    // A menu shows when its screen's calls are granted with it (menu-calls.ts): a menu whose
    // page this server does not know, or whose entity is the platform administrator's, is not shown.
    const entityNamed = (name: string) => ctx.registry.get(name);
    const isUsable = (id: number): boolean => {
      const component = String(byId.get(id)?.menuComponent ?? '');
      if (!menuCallsOf(component, entityNamed)) return false;
      return entityOfComponent(component, entityNamed)?.isPlatformAdminOnly !== true;
    };
    const granted = (await grantedMenuIds({ ctx, tenantCode: auth.tenantCode, roles })).filter(isUsable);
    for (const id of granted) grant(id);
    // Menus for every back-office user (the personal office, seed/workflow.ts): every role that
    // works in the back-office (a granted menu besides the home page) gets them with every
    // button; a portal-only role stays without, so it is still refused at the back-office
    // sign-in, and a role that may see only the home page (docs/product.md §6 ROLE_VISITOR)
    // sees only it.
    const worksInBackOffice = granted.some((id) => byId.get(id)?.menuCode !== HOME_MENU);
    for (const row of worksInBackOffice ? all.rows : []) {
      const meta = row.menuMeta as { everyone?: unknown } | null;
      if (meta?.everyone !== true) continue;
      grant(row.id);
      buttons[String(row.menuCode)] = Array.isArray(row.menuButton) ? [...(row.menuButton as string[])] : [];
    }
    for (const { menuId, button } of await grantedButtons({ ctx, tenantCode: auth.tenantCode, roles })) {
      const row = byId.get(menuId);
      const code = String(row?.menuCode ?? '');
      // a button whose calls the caller may not make is not shown (policy.ts usableButtons)
      const entity = entityOfComponent(String(row?.menuComponent ?? ''), entityNamed);
      if (!usableButtons(entity, new Set([button])).has(button)) continue;
      if (code && !buttons[code]?.includes(button)) (buttons[code] ??= []).push(button);
    }
  }
  let tree = buildTree(
    menu,
    all.rows.filter((row) => allowed.has(row.id)),
  );
  if (parentId !== undefined) tree = tree.filter((node) => node.id === parentId);
  const paths: string[] = [];
  const collect = (nodes: TreeNode[]): void => {
    for (const node of nodes) {
      if (typeof node.menuPath === 'string') paths.push(node.menuPath);
      if (node.children) collect(node.children);
    }
  };
  collect(tree);
  return {
    roles,
    currentRole: roles[0] ?? null,
    postCode: postCode ?? null,
    menus: tree,
    menu: paths,
    buttons,
    fieldRights: await fieldRightsByMenu({
      ctx,
      tenantCode: auth.tenantCode,
      roles,
      entityOf: (menuCode) => ctx.registry.get(menuCode),
    }),
  };
}
