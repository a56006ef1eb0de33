import { sql } from 'kysely';
import type { EntityDef } from '../../../../engine/index.js';
import type { AuthContext } from '../../../lib/auth.js';
import type { AppContext } from '../../../lib/context.js';
import type { OutboxEvent } from '../../../lib/events/index.js';
import type { Localizer } from '../../../lib/i18n.js';
import type { Condition } from '../../../lib/sql/toolkit.js';
import { assertUrlGranted, isWithinScope, recordPolicy } from '../../rbac/index.js';

/** What a session may hear of one entity's record events: the read policy's answer. */
export interface LiveRights {
  isVisible: (field: string) => boolean;
  /** The caller's row scope (empty: every row of the tenant). */
  rowConditions: readonly Condition[];
}

/**
 * The read rights of a caller on an entity, by the one permission policy: the URL grant of the
 * entity's list (its menu's calls), the tenant rules, the hidden fields and the row scope.
 * Undefined when the caller may not read the entity's list at all.
 */
export async function liveRightsOf({
  ctx,
  auth,
  entity,
  l10n,
}: {
  ctx: AppContext;
  auth: AuthContext;
  entity: EntityDef;
  l10n: Localizer;
}): Promise<LiveRights | undefined> {
  try {
    await assertUrlGranted({
      ctx,
      auth,
      path: `/api/${entity.api}/query`,
      method: 'GET',
      isSelfService: false,
    });
    const policy = await recordPolicy({ ctx, auth, entity, mode: 'read', l10n });
    return { isVisible: policy.isVisible, rowConditions: policy.rowConditions ?? [] };
  } catch {
    // A 403 of the policy: the caller hears nothing of the entity.
    return undefined;
  }
}

/**
 * Whether a record event's record lies within the caller's row scope now. A record gone (deleted,
 * purged) cannot be checked: a caller with a row scope is not told of it.
 */
export async function isRecordInScope({
  ctx,
  entity,
  event,
  rights,
}: {
  ctx: AppContext;
  entity: EntityDef;
  event: OutboxEvent;
  rights: LiveRights;
}): Promise<boolean> {
  if (rights.rowConditions.length === 0) return true;
  if (event.key === null || event.type === 'record.deleted' || event.type === 'record.purged') return false;
  const key = entity.key.type === 'integer' ? Number(event.key) : event.key;
  if (typeof key === 'number' && !Number.isSafeInteger(key)) return false;
  return isWithinScope({ trx: ctx.db, entity, key, conditions: rights.rowConditions });
}

/** Who a task event concerns: its assignee now and its candidates (users and groups). */
export interface TaskPeople {
  assignee: string | null;
  users: string[];
  groups: string[];
}

/** The assignee and candidates of a task of the tenant, as they are now (undefined: no such task). */
export async function taskPeople(
  ctx: AppContext,
  tenantCode: string,
  taskId: string,
): Promise<TaskPeople | undefined> {
  const id = Number(taskId);
  if (!Number.isSafeInteger(id)) return undefined;
  const task = await sql<{ assignee: string | null }>`select assignee from wf_task
    where id = ${id} and tenant_code = ${tenantCode}`.execute(ctx.db);
  const row = task.rows[0];
  if (!row) return undefined;
  const links = await sql<{ user_name: string | null; group_key: string | null }>`select user_name, group_key
    from wf_identity_link where task_id = ${id}`.execute(ctx.db);
  return {
    assignee: row.assignee,
    users: links.rows.flatMap((link) => (link.user_name ? [link.user_name] : [])),
    groups: links.rows.flatMap((link) => (link.group_key ? [link.group_key] : [])),
  };
}
