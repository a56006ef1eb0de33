import { sql } from 'kysely';
import { EntityInputError } from '../../../../engine/index.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import { table } from '../../../lib/sql/toolkit.js';
import { entityTitle } from '../../../lib/titles.js';
import { deleteRecords, updateRecord, type CrudRequest } from '../../crud/index.js';
import { replaceLinks, type RoleLink } from '../../rbac/index.js';

/**
 * `PUT` and `DELETE vue-element-admin/role/{key}` (docs/product.md §7) on the real roles: the
 * template's role object `{key, name, description, routes}` mapped onto sys_role and its menu
 * grants. The key is the role code; the work is done by the engine's update and delete and by the
 * role-menu link service, so checks, audit rows and session effects are those of the role screens;
 * an update runs all of them in one transaction.
 */

/**
 * A template route as `GET vue-element-admin/routes` answers it and a client sends it back: `name`
 * is the menu code, `children` the routes under it; nothing else is read.
 */
export interface TemplateRoute {
  name?: unknown;
  children?: unknown;
}

export interface TemplateRoleChange {
  key?: string;
  name?: string;
  description?: string;
  routes?: readonly TemplateRoute[];
}

const isRoute = (value: unknown): value is TemplateRoute =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The role with that code in the caller's tenant, or a 404 naming it. */
async function roleByCode(request: CrudRequest, key: string): Promise<{ id: number; version: number }> {
  const rows = await sql<{ id: number; version: number }>`select id, version from ${table(request.entity)}
    where role_code = ${key} and tenant_code = ${request.actor.tenantCode}`.execute(request.db);
  const found = rows.rows[0];
  if (!found) throw new AppError('notFound', { entity: entityTitle(request.l10n, request.entity), key });
  return { id: Number(found.id), version: Number(found.version) };
}

function routeNames(routes: readonly TemplateRoute[]): string[] {
  return routes.flatMap((route) => [
    ...(typeof route.name === 'string' ? [route.name] : []),
    ...(Array.isArray(route.children) ? routeNames(route.children.filter(isRoute)) : []),
  ]);
}

/** Menu ids of the routes' names; an unknown name is a 400 on /routes. */
async function menuIdsOf(
  request: CrudRequest,
  link: RoleLink,
  routes: readonly TemplateRoute[],
): Promise<number[]> {
  const codes = [...new Set(routeNames(routes))];
  if (codes.length === 0) return [];
  const rows = await sql<{ id: number; code: string }>`select id, menu_code as code from ${table(link.other)}
    where menu_code in (${sql.join(codes)})`.execute(request.db);
  const known = new Map(rows.rows.map((row) => [row.code, Number(row.id)]));
  const missing = codes.filter((code) => !known.has(code));
  if (missing.length > 0) {
    throw new EntityInputError([
      {
        field: '/routes',
        message: request.l10n.t('errors.refMissing', {
          entity: entityTitle(request.l10n, link.other),
          key: missing.join(', '),
        }),
      },
    ]);
  }
  return codes.map((code) => known.get(code) as number);
}

/**
 * Renames and redescribes the role; with `routes`, its menu grants become exactly those menus.
 * The code itself is not changed (sessions and grants name roles by it): a different `key` in
 * the body is a 400 on /key.
 */
export async function updateTemplateRole({
  request,
  menuLink,
  key,
  change,
}: {
  request: CrudRequest;
  /** The role-menu link (rbac roleLinks(ctx).menu). */
  menuLink: RoleLink;
  /** The role's code. */
  key: string;
  change: TemplateRoleChange;
}): Promise<void> {
  if (change.key !== undefined && change.key !== key) {
    throw new EntityInputError([{ field: '/key', message: request.l10n.t('validation.invalid') }]);
  }
  // One transaction: the name, the description and the grants change together or not at all.
  await inTransaction(request.db, async (trx) => {
    const inside: CrudRequest = { ...request, db: trx };
    const role = await roleByCode(inside, key);
    // Checked before anything is written: an unknown menu is a 400 naming /routes.
    const menuIds = change.routes ? await menuIdsOf(inside, menuLink, change.routes) : undefined;
    await updateRecord(inside, {
      id: role.id,
      version: role.version,
      ...(change.name !== undefined ? { roleName: change.name } : {}),
      ...(change.description !== undefined ? { roleDescription: change.description } : {}),
    });
    if (menuIds) {
      await replaceLinks({
        db: trx,
        actor: request.actor,
        l10n: request.l10n,
        link: menuLink,
        side: 'role',
        id: role.id,
        ids: menuIds,
        fields: { id: 'key', ids: 'routes' },
      });
    }
  });
}

/** Deletes the role (refused with 409 while a user holds it, as on the role screen). */
export async function deleteTemplateRole(request: CrudRequest, key: string): Promise<void> {
  const role = await roleByCode(request, key);
  await deleteRecords(request, [role.id]);
}
