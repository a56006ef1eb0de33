import { sql } from 'kysely';
import type { Row } from '../db/database.js';
import type { AppContext } from '../context.js';
import { buildTree, type TreeNode } from '../crud/tree.js';
import { column, selectList, table } from '../crud/sql.js';
import type { AuthContext } from '../auth/session.js';

export const ADMIN_ROLE = 'ROLE_ADMIN';

export interface CurrentAuthority {
  roles: string[];
  /** The menu tree the roles allow (enabled menus only). */
  menus: TreeNode[];
  /** Every allowed menu path, nested routes included (SPEC §3 "menu-for-user response"). */
  menu: string[];
  /** Buttons the roles may use, by menu code. */
  buttons: Record<string, string[]>;
}

/**
 * What the caller's roles may see: ROLE_ADMIN every enabled menu and button; other roles the
 * menus and buttons granted to them (sys_role_menu, sys_role_button), with the ancestors of a
 * granted menu so that the tree stays whole. parentId narrows the tree to one top-level menu.
 */
export async function currentAuthority(
  ctx: AppContext,
  auth: AuthContext,
  parentId?: number,
): Promise<CurrentAuthority> {
  const menu = ctx.registry.require('sysmenu');
  const role = ctx.registry.require('sysrole');
  const isAdmin = auth.roles.includes(ADMIN_ROLE);
  const all = await sql<Row>`select ${selectList(menu)} from ${table(menu)} where menu_status = '1'
    order by menu_sequence asc nulls first, ${column(menu.key)} asc`.execute(ctx.db);
  const byId = new Map(all.rows.map((row) => [row.id, row]));
  let allowed = new Set<unknown>(all.rows.map((row) => row.id));
  const buttons: Record<string, string[]> = {};
  if (isAdmin) {
    for (const row of all.rows)
      buttons[String(row.menuCode)] = Array.isArray(row.menuButton) ? (row.menuButton as string[]) : [];
  } else {
    const granted = await sql<{ menu_id: number }>`select distinct rm.menu_id from sys_role_menu rm
      join ${table(role)} r on r.id = rm.role_id
      where r.tenant_code = ${auth.tenantCode} and r.role_code in (${sql.join(auth.roles.length > 0 ? auth.roles : [''])})`.execute(
      ctx.db,
    );
    allowed = new Set();
    for (const { menu_id: id } of granted.rows) {
      // a granted menu brings its ancestors, so the tree has no holes
      for (let current: unknown = id; current !== undefined && current !== 0 && !allowed.has(current);) {
        if (!byId.has(current)) break;
        allowed.add(current);
        current = byId.get(current)?.menuParent;
      }
    }
    const grantedButtons = await sql<{
      menu_id: number;
      button: string;
    }>`select distinct rb.menu_id, rb.button from sys_role_button rb
      join ${table(role)} r on r.id = rb.role_id
      where r.tenant_code = ${auth.tenantCode} and r.role_code in (${sql.join(auth.roles.length > 0 ? auth.roles : [''])})`.execute(
      ctx.db,
    );
    for (const { menu_id: id, button } of grantedButtons.rows) {
      const code = String(byId.get(id)?.menuCode ?? '');
      if (code) (buttons[code] ??= []).push(button);
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
  return { roles: auth.roles, menus: tree, menu: paths, buttons };
}
