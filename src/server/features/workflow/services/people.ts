import { sql, type RawBuilder } from 'kysely';
import { prepareInput, type EntityDef } from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { eventInsert, recordEvents } from '../../../lib/events/index.js';
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

/** Whether the process names candidate starters at all (else anyone of the tenant may start it). */
export function namesStarters(graph: {
  candidateStarterUsers?: string[] | undefined;
  candidateStarterGroups?: string[] | undefined;
}): boolean {
  return (graph.candidateStarterUsers ?? []).length > 0 || (graph.candidateStarterGroups ?? []).length > 0;
}

/**
 * Whether a user may start a process (camunda:candidateStarterUsers / candidateStarterGroups):
 * anyone when neither is set, else a user named or holding one of the groups.
 */
export function mayStart(
  graph: { candidateStarterUsers?: string[] | undefined; candidateStarterGroups?: string[] | undefined },
  who: Candidate,
): boolean {
  if (!namesStarters(graph)) return true;
  const groups = (graph.candidateStarterGroups ?? []).map(groupKey);
  return (
    (graph.candidateStarterUsers ?? []).includes(who.username) ||
    groups.some((group) => who.groups.includes(group))
  );
}

/** The role code holding a bare group name: itself when it is one, else ROLE_ and its name in capitals. */
export function roleCodeOfGroup(group: string): string {
  return /^ROLE_/.test(group) ? group : `ROLE_${group.toUpperCase().replace(/[^A-Z0-9_]+/g, '_')}`;
}

/** The tenant's roles and posts (code and name), as a group name written in a file may name them. */
export interface GroupHolders {
  roles: { code: string; name: string }[];
  posts: { code: string; name: string }[];
  /** The organisations' ids (org:N). */
  orgs: number[];
}

const same = (a: string, b: string): boolean =>
  a.localeCompare(b, undefined, { sensitivity: 'accent' }) === 0;

/**
 * The stored group of a group name written in a file (candidateGroups, potentialOwner's
 * `group(x)` or bare name), or undefined when nobody of the tenant can hold it. "role:X",
 * "post:X" and "org:N" name a role's code, a post's code and an organisation's id. A bare name
 * ("management", as Activiti, Flowable and Camunda files write them) is held, in this order, by
 * the role whose code is the name or ROLE_<NAME> (roleCodeOfGroup), the role whose name is the
 * name, the post whose code is the name, the post whose name is the name; all compared without
 * regard to case.
 */
export function holderOfGroup(group: string, holders: GroupHolders): string | undefined {
  const [prefix, ...rest] = group.split(':');
  const value = rest.join(':');
  if (group.includes(':') && (GROUP_PREFIXES as readonly string[]).includes(prefix ?? '')) {
    if (prefix === 'org') return holders.orgs.includes(Number(value)) ? group : undefined;
    const found = (prefix === 'role' ? holders.roles : holders.posts).find((row) => same(row.code, value));
    return found ? `${prefix}:${found.code}` : undefined;
  }
  const code = roleCodeOfGroup(group);
  const role =
    holders.roles.find((row) => same(row.code, group) || same(row.code, code)) ??
    holders.roles.find((row) => same(row.name, group));
  if (role) return `role:${role.code}`;
  const post =
    holders.posts.find((row) => same(row.code, group)) ?? holders.posts.find((row) => same(row.name, group));
  return post ? `post:${post.code}` : undefined;
}

/** The roles, posts and organisations of a tenant (what holderOfGroup reads). */
export async function groupHoldersOf({
  ctx,
  db,
  tenantCode,
}: {
  ctx: AppContext;
  db: Db;
  tenantCode: string;
}): Promise<GroupHolders> {
  const roles = ctx.registry.require('sysrole');
  const posts = ctx.registry.require('syspost');
  const orgs = ctx.registry.require('sysorg');
  const [roleRows, postRows, orgRows] = await Promise.all([
    sql<{ code: string; name: string }>`select ${sql.ref(columnOf(roles, 'roleCode'))} as code,
        ${sql.ref(columnOf(roles, 'roleName'))} as name
      from ${sql.table(roles.table)} where tenant_code = ${tenantCode} order by id`.execute(db),
    sql<{ code: string; name: string }>`select ${sql.ref(columnOf(posts, 'postCode'))} as code,
        ${sql.ref(columnOf(posts, 'postName'))} as name
      from ${sql.table(posts.table)} where tenant_code = ${tenantCode} order by id`.execute(db),
    sql<{ id: number }>`select id from ${sql.table(orgs.table)} where tenant_code = ${tenantCode}`.execute(
      db,
    ),
  ]);
  return { roles: roleRows.rows, posts: postRows.rows, orgs: orgRows.rows.map((row) => Number(row.id)) };
}

/** Each group's role, post or organisation name in the tenant; its code (without prefix) when it has none. */
export async function groupNamesOf({
  ctx,
  db,
  tenantCode,
  groups,
}: {
  ctx: AppContext;
  db: Db;
  tenantCode: string;
  groups: string[];
}): Promise<string[]> {
  if (groups.length === 0) return [];
  const orgs = ctx.registry.require('sysorg');
  const orgIds = groups.flatMap((group) => (/^org:\d+$/.test(group) ? [Number(group.slice(4))] : []));
  const [holders, orgRows] = await Promise.all([
    groupHoldersOf({ ctx, db, tenantCode }),
    orgIds.length > 0
      ? sql<{ id: number; name: string }>`select id, ${sql.ref(columnOf(orgs, 'orgName'))} as name
          from ${sql.table(orgs.table)} where tenant_code = ${tenantCode} and id in (${sql.join(orgIds)})`.execute(
          db,
        )
      : undefined,
  ]);
  const orgNames = new Map((orgRows?.rows ?? []).map((row) => [Number(row.id), row.name]));
  return groups.map((group) => {
    const [prefix = '', ...rest] = group.split(':');
    const code = rest.join(':');
    if (prefix === 'role') return holders.roles.find((role) => role.code === code)?.name ?? code;
    if (prefix === 'post') return holders.posts.find((post) => post.code === code)?.name ?? code;
    if (prefix === 'org') return orgNames.get(Number(code)) ?? code;
    return group;
  });
}

/** The user names of a tenant among some names. */
export async function existingUsernames({
  ctx,
  db,
  tenantCode,
  usernames,
}: {
  ctx: AppContext;
  db: Db;
  tenantCode: string;
  usernames: string[];
}): Promise<Set<string>> {
  if (usernames.length === 0) return new Set();
  const users = ctx.registry.require('sysuser');
  const column = sql.ref(columnOf(users, 'username'));
  const rows = await sql<{ username: string }>`select ${column} as username from ${sql.table(users.table)}
    where tenant_code = ${tenantCode} and ${column} in (${sql.join(usernames)})`.execute(db);
  return new Set(rows.rows.map((row) => row.username));
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
  // One statement: the organisation and the post codes together.
  const rows = await sql<{
    org_id: number | null;
    posts: string[] | null;
  }>`select (select ${sql.ref(columnOf(users, 'orgId'))} from ${sql.table(users.table)} where id = ${user.userId}) as org_id,
      (select array_agg(p.${sql.ref(columnOf(posts, 'postCode'))}) from ${sql.table(userPosts.table)} up
        join ${sql.table(posts.table)} p on p.id = up.${sql.ref(columnOf(userPosts, 'postId'))}
        where up.${sql.ref(columnOf(userPosts, 'userId'))} = ${user.userId}) as posts`.execute(db);
  const orgId = rows.rows[0]?.org_id;
  const postCodes = rows.rows[0]?.posts ?? [];
  return {
    username: user.username,
    groups: [
      ...user.heldRoles.map((role) => `role:${role}`),
      ...postCodes.map((code) => `post:${code}`),
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
    select ${sql.join(params)} where exists (select 1 from (${recipients}) r)
    returning ${sql.ref(entity.key.column)} as id`;
}

/**
 * A notice and its event (record.added of notification, so that the recipients' open inboxes
 * hear of it: features/events), as one statement; `notice` is a noticeInsert.
 */
export function noticeWithEvent(actor: Actor, notice: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`with notice as (${notice}) ${eventInsert({
    actor,
    type: 'record.added',
    entity: 'notification',
    key: sql`notice.id`,
    from: sql`notice`,
  })}`;
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
  const keys = await insertRecords({
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
  await recordEvents({
    trx: db,
    actor,
    events: keys.map((key) => ({ type: 'record.added', entity: 'notification', key })),
  });
}
