import { sql } from 'kysely';
import type { AppContext } from '../../lib/context.js';

/**
 * The personal office (发起流程, 我的流程, 待签收, 待办, 已办 and their detail pages) is for every
 * back-office user, like its API calls: its menus carry meta.everyone, which grants them with all
 * their buttons to every role that has some back-office menu (features/rbac/permissions/authority.ts;
 * portal-only roles stay without a back-office menu). Runs on every start, so an
 * existing database gets the flag too; a menu whose meta already says `everyone` (true, or false
 * as an administrator set it) is left alone.
 */
export const PERSONAL_OFFICE_MENUS = [
  'oa',
  'startprocess',
  'myprocess',
  'myprocessdetails',
  'candidatetask',
  'assigneetask',
  'finishedtask',
  'mytaskdetails',
];

export async function syncWorkflowMenus(ctx: AppContext): Promise<void> {
  const menu = ctx.registry.require('sysmenu');
  const column = (field: string): string => menu.fieldsByName.get(field)?.column ?? field;
  const meta = sql.ref(column('menuMeta'));
  await sql`update ${sql.table(menu.table)} set ${meta} = coalesce(${meta}, '{}'::jsonb) || '{"everyone": true}'::jsonb
    where ${sql.ref(column('menuCode'))} in (${sql.join(PERSONAL_OFFICE_MENUS)})
      and not (coalesce(${meta}, '{}'::jsonb) ? 'everyone')`.execute(ctx.db);
}
