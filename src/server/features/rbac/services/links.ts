import { sql } from 'kysely';
import { EntityInputError, type EntityDef } from '../../../../engine/index.js';
import { writeAudit } from '../../../lib/audit.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { column, scopeCondition, table, whereClause } from '../../../lib/sql/toolkit.js';
import type { Localizer } from '../../../lib/i18n.js';
import { rescopeUsers } from '../../sessions/index.js';
import { assertOwnRecords } from '../permissions/policy.js';

/** A role assignment table: sys_role_user, sys_role_url, sys_role_menu or sys_role_post. */
export interface RoleLink {
  table: 'sys_role_user' | 'sys_role_url' | 'sys_role_menu' | 'sys_role_post';
  otherColumn: 'user_id' | 'url_id' | 'menu_id' | 'post_id';
  role: EntityDef;
  other: EntityDef;
}

export interface LinkRequest {
  db: Db;
  actor: Actor;
  l10n: Localizer;
}

/** Keys of `entity` among `keys` that the actor cannot see (missing or of another tenant). */
async function missingKeys(db: Db, entity: EntityDef, actor: Actor, keys: number[]): Promise<number[]> {
  if (keys.length === 0) return [];
  const found = await sql<{ key: number }>`select ${column(entity.key)} as key from ${table(entity)}
    ${whereClause([sql`${column(entity.key)} in (${sql.join(keys)})`, ...scopeCondition(entity, actor)])}`.execute(
    db,
  );
  const seen = new Set(found.rows.map((row) => row.key));
  return keys.filter((key) => !seen.has(key));
}

/** One record's side of a role link: the roles of a user/url/menu/post, or what a role is linked to. */
export interface LinkSide extends LinkRequest {
  link: RoleLink;
  /** 'role': `id` is a role's; 'other': `id` is the user's, url's, menu's or post's. */
  side: 'role' | 'other';
  id: number;
}

/** The ids linked to one record, ascending. */
export async function linkedIds(request: LinkSide): Promise<number[]> {
  const { link, side, id } = request;
  const [given, wanted] = side === 'role' ? ['role_id', link.otherColumn] : [link.otherColumn, 'role_id'];
  const rows = await sql<{ id: number }>`select ${sql.ref(wanted)} as id from ${sql.table(link.table)}
    where ${sql.ref(given)} = ${id} and tenant_code = ${request.actor.tenantCode} order by 1`.execute(
    request.db,
  );
  return rows.rows.map((row) => row.id);
}

/**
 * Replaces what one record is linked to: the roles of a user/url/menu/post, or the users/urls/menus
 * of a role. The record must be one of the caller's tenant (404 otherwise) and every linked key
 * too (400 naming the field otherwise); the change and its audit row are one transaction.
 */
export async function replaceLinks(
  request: LinkSide & {
    /** What the record is linked to from now on. */
    ids: number[];
    /** The names errors give the record's id and the linked ids. */
    fields: { id: string; ids: string };
  },
): Promise<{ linked: number }> {
  const { link, side, id, ids, fields } = request;
  const [fixedEntity, listEntity] = side === 'role' ? [link.role, link.other] : [link.other, link.role];
  const [fixedColumn, listColumn] =
    side === 'role' ? ['role_id', link.otherColumn] : [link.otherColumn, 'role_id'];
  return inTransaction(request.db, async (trx) => {
    // the record acted on is 404 when the tenant has none such (another tenant's id included)
    await assertOwnRecords({
      db: trx,
      entity: fixedEntity,
      tenantCode: request.actor.tenantCode,
      keys: [id],
      l10n: request.l10n,
    });
    const errors = [];
    const missing = await missingKeys(trx, listEntity, request.actor, ids);
    if (missing.length > 0) {
      errors.push({
        field: `/${fields.ids}`,
        message: request.l10n.t('errors.refMissing', { entity: listEntity.name, key: missing.join(', ') }),
      });
    }
    if (errors.length > 0) throw new EntityInputError(errors);
    const before = await linkedIds({ db: trx, actor: request.actor, l10n: request.l10n, link, side, id });
    await sql`delete from ${sql.table(link.table)} where ${sql.ref(fixedColumn)} = ${id} and tenant_code = ${request.actor.tenantCode}`.execute(
      trx,
    );
    if (ids.length > 0) {
      const rows = ids.map((other) => sql`(${request.actor.tenantCode}, ${id}, ${other})`);
      await sql`insert into ${sql.table(link.table)} (tenant_code, ${sql.ref(fixedColumn)}, ${sql.ref(listColumn)}) values ${sql.join(rows)}`.execute(
        trx,
      );
    }
    if (link.table === 'sys_role_user') {
      // Whoever gained or lost a role holds exactly the new roles from their next request on.
      const users = side === 'role' ? [...new Set([...before, ...ids])] : [id];
      await rescopeUsers({
        trx,
        tables: { userTable: link.other.table, roleTable: link.role.table },
        userIds: users,
      });
    }
    await writeAudit({
      trx,
      actor: request.actor,
      entries: [
        {
          entity: link.table,
          recordKey: `${fixedColumn}=${id}`,
          action: 'update',
          before: { [listColumn]: before },
          after: { [listColumn]: ids },
        },
      ],
    });
    return { linked: ids.length };
  });
}
