import { sql, type RawBuilder } from 'kysely';
import { prepareInput, type EntityDef } from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { insertRecords } from '../../../lib/sql/insert-records.js';
import { insertRow, type Actor } from '../../../lib/sql/toolkit.js';

/**
 * People of the workflow: candidate groups are "role:X", "post:X" and "org:N" (a bare name is a
 * role code), as in the organisation-user tree; users are user names.
 */

const GROUP_PREFIXES = ['role', 'post', 'org'] as const;

/**
 * The stored form of a candidate group: a bare role code gets its "role:" prefix. A bare group
 * name of another engine ("management", "sales-team") is held by the role of that name in our
 * form of role codes (ROLE_MANAGEMENT, ROLE_SALES_TEAM), which an administrator can make.
 */
export function groupKey(group: string): string {
  const [prefix] = group.split(':');
  if (group.includes(':') && (GROUP_PREFIXES as readonly string[]).includes(prefix ?? '')) return group;
  return `role:${roleCodeOfGroup(group)}`;
}

/** The role code holding a bare group name: itself when it is one, else ROLE_ and its name in capitals. */
export function roleCodeOfGroup(group: string): string {
  return /^ROLE_/.test(group) ? group : `ROLE_${group.toUpperCase().replace(/[^A-Z0-9_]+/g, '_')}`;
}

const columnOf = (entity: EntityDef, field: string): string => {
  const def = entity.fieldsByName.get(field);
  if (!def) throw new Error(`the ${entity.name} schema has no field ${field}`);
  return def.column;
};

/** Who the caller is as a candidate: their user name and their groups. */
export interface Candidate {
  username: string;
  groups: string[];
}

/** The groups of a user: roles held, posts held, their organisation. */
export async function candidateOf({
  ctx,
  db,
  user,
}: {
  ctx: AppContext;
  db: Db;
  user: { userId: number; username: string; heldRoles: readonly string[] };
}): Promise<Candidate> {
  const users = ctx.registry.require('sysuser');
  const userPosts = ctx.registry.require('sysuserpost');
  const posts = ctx.registry.require('syspost');
  const [org, postRows] = await Promise.all([
    sql<{
      org_id: number | null;
    }>`select ${sql.ref(columnOf(users, 'orgId'))} as org_id from ${sql.table(users.table)}
      where id = ${user.userId}`.execute(db),
    sql<{
      code: string;
    }>`select p.${sql.ref(columnOf(posts, 'postCode'))} as code from ${sql.table(userPosts.table)} up
      join ${sql.table(posts.table)} p on p.id = up.${sql.ref(columnOf(userPosts, 'postId'))}
      where up.${sql.ref(columnOf(userPosts, 'userId'))} = ${user.userId}`.execute(db),
  ]);
  const orgId = org.rows[0]?.org_id;
  return {
    username: user.username,
    groups: [
      ...user.heldRoles.map((role) => `role:${role}`),
      ...postRows.rows.map((row) => `post:${row.code}`),
      ...(orgId ? [`org:${orgId}`] : []),
    ],
  };
}

/** The select of the ids of a tenant's users named directly or through a role group. */
function userIdsQuery(
  ctx: AppContext,
  tenantCode: string,
  usernames: string[],
  groups: string[],
): RawBuilder<{ id: number }> {
  const users = ctx.registry.require('sysuser');
  const roles = ctx.registry.require('sysrole');
  const roleCodes = groups.filter((group) => group.startsWith('role:')).map((group) => group.slice(5));
  const names = usernames.length > 0 ? usernames : [''];
  const codes = roleCodes.length > 0 ? roleCodes : [''];
  const roleId = sql.ref(`u.${columnOf(users, 'roleId')}`);
  return sql<{ id: number }>`select distinct u.id from ${sql.table(users.table)} u
    where u.tenant_code = ${tenantCode} and (u.${sql.ref(columnOf(users, 'username'))} in (${sql.join(names)})
      or ${roleId} in (select r.id from ${sql.table(roles.table)} r where r.tenant_code = ${tenantCode}
        and r.${sql.ref(columnOf(roles, 'roleCode'))} in (${sql.join(codes)}))
      or u.id in (select ru.user_id from sys_role_user ru join ${sql.table(roles.table)} r on r.id = ru.role_id
        where r.tenant_code = ${tenantCode} and r.${sql.ref(columnOf(roles, 'roleCode'))} in (${sql.join(codes)})))`;
}

/** Ids of the users of a tenant named directly or through a role group (for inbox notices). */
export async function userIdsOf({
  ctx,
  db,
  tenantCode,
  usernames,
  groups,
}: {
  ctx: AppContext;
  db: Db;
  tenantCode: string;
  usernames: string[];
  groups: string[];
}): Promise<number[]> {
  const rows = await userIdsQuery(ctx, tenantCode, usernames, groups).execute(db);
  return rows.rows.map((row) => row.id);
}

/**
 * The insert of an inbox notice to the users named directly or through role groups, as one
 * statement to run or to put into another (its recipients are found inside it, so telling them
 * costs no round trip of its own). No row when nobody is found.
 */
export function noticeInsert({
  ctx,
  actor,
  to,
  notice,
}: {
  ctx: AppContext;
  actor: Actor;
  to: { usernames: string[]; groups: string[]; userIds?: number[] };
  notice: { title: string; content: string };
}): RawBuilder<unknown> {
  const entity = ctx.registry.require('notification');
  const values = prepareInput(
    entity,
    ctx.registry.validators(entity),
    {
      title: notice.title.slice(0, 100),
      content: notice.content,
      type: 'system',
      priority: '1',
      publishObject: [0],
    },
    'create',
  ).values;
  const fields = entity.fields.filter((field) => !field.detail && values[field.name] !== undefined);
  const { columns, params } = insertRow({ entity, values, fields, actor });
  const at = fields.findIndex((field) => field.name === 'publishObject');
  const recipients = to.userIds?.length
    ? sql`select v.id from (values ${sql.join(to.userIds.map((id) => sql`(${id}::bigint)`))}) as v (id)`
    : userIdsQuery(ctx, actor.tenantCode, to.usernames, to.groups);
  params[at] = sql`(select jsonb_agg(r.id order by r.id) from (${recipients}) r)`;
  return sql`insert into ${sql.table(entity.table)} (${sql.join(columns)})
    select ${sql.join(params)} where exists (select 1 from (${recipients}) r)`;
}

/** Whether a user name exists in the tenant. */
export async function userExists({
  ctx,
  db,
  tenantCode,
  username,
}: {
  ctx: AppContext;
  db: Db;
  tenantCode: string;
  username: string;
}): Promise<boolean> {
  const users = ctx.registry.require('sysuser');
  const rows = await sql`select 1 from ${sql.table(users.table)}
    where tenant_code = ${tenantCode} and ${sql.ref(columnOf(users, 'username'))} = ${username}`.execute(db);
  return rows.rows.length > 0;
}

/** An inbox notice to some users (the notification entity, addressed by publishObject). */
export async function notifyUsers({
  ctx,
  db,
  actor,
  userIds,
  notice,
}: {
  ctx: AppContext;
  db: Db;
  actor: Actor;
  userIds: number[];
  notice: { title: string; content: string };
}): Promise<void> {
  if (userIds.length === 0) return;
  const entity = ctx.registry.require('notification');
  await insertRecords({
    trx: db,
    registry: ctx.registry,
    entity,
    actor,
    records: [
      {
        title: notice.title.slice(0, 100),
        content: notice.content,
        type: 'system',
        priority: '1',
        publishObject: userIds,
      },
    ],
  });
}
