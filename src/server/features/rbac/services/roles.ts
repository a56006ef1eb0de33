import { sql } from 'kysely';
import { EntityInputError, type RoleOption } from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import type { Localizer } from '../../../lib/i18n.js';
import { table, type Actor } from '../../../lib/sql/toolkit.js';
import { linkedIds, type RoleLink } from './links.js';
import { assertOwnRecords } from '../permissions/policy.js';

/** The four role assignment tables and the entities on their two sides. */
export function roleLinks(ctx: AppContext): Record<'user' | 'url' | 'menu' | 'post', RoleLink> {
  const { registry } = ctx;
  const role = registry.require('sysrole');
  return {
    user: { table: 'sys_role_user', otherColumn: 'user_id', role, other: registry.require('sysuser') },
    url: { table: 'sys_role_url', otherColumn: 'url_id', role, other: registry.require('sysurl') },
    menu: { table: 'sys_role_menu', otherColumn: 'menu_id', role, other: registry.require('sysmenu') },
    post: { table: 'sys_role_post', otherColumn: 'post_id', role, other: registry.require('syspost') },
  };
}

/**
 * The roles of the tenant, each marked checked: with userId (a user of the tenant: 404
 * otherwise), when the user holds it; with
 * postCode, when it is attached to the post; with both, when both hold. isAssignedOnly keeps the
 * checked ones only.
 */
export async function roleChoices({
  ctx,
  actor,
  l10n,
  userId,
  postCode,
  isAssignedOnly,
}: {
  ctx: AppContext;
  actor: Actor;
  l10n: Localizer;
  userId: number | undefined;
  postCode: string | undefined;
  isAssignedOnly: boolean;
}): Promise<RoleOption[]> {
  const links = roleLinks(ctx);
  const request = { db: ctx.db, actor, l10n };
  if (userId !== undefined) {
    const user = links.user.other;
    await assertOwnRecords({ db: ctx.db, entity: user, tenantCode: actor.tenantCode, keys: [userId], l10n });
  }
  const held =
    userId === undefined
      ? undefined
      : new Set(await linkedIds({ ...request, link: links.user, side: 'other', id: userId }));
  let attached: Set<number> | undefined;
  if (postCode !== undefined) {
    const post = links.post.other;
    const found = await sql<{ id: number }>`select id from ${table(post)}
      where post_code = ${postCode} and tenant_code = ${actor.tenantCode}`.execute(ctx.db);
    const postId = found.rows[0]?.id;
    if (postId === undefined) {
      throw new EntityInputError([
        { field: '/postCode', message: l10n.t('errors.refMissing', { entity: post.name, key: postCode }) },
      ]);
    }
    attached = new Set(await linkedIds({ ...request, link: links.post, side: 'other', id: postId }));
  }
  const rows = await sql<{ id: number; roleCode: string; roleName: string }>`
    select id, role_code as "roleCode", role_name as "roleName"
    from ${table(links.user.role)} where tenant_code = ${actor.tenantCode} order by role_code`.execute(
    ctx.db,
  );
  return rows.rows
    .map((row) => ({
      ...row,
      checked:
        (held !== undefined || attached !== undefined) &&
        (held?.has(row.id) ?? true) &&
        (attached?.has(row.id) ?? true),
    }))
    .filter((row) => !isAssignedOnly || row.checked);
}
