import { sql } from 'kysely';
import type { Db } from '../../../lib/db/database.js';
import type { EntityRegistry } from '../../../lib/registry.js';
import { column, table } from '../../../lib/sql/toolkit.js';
import { REPORT_ENTITY, REPORT_MENU_PREFIX, REPORT_VIEW_COMPONENT } from './report-store.js';

/**
 * A saved report's menu page follows its record by any path: the report designer, the
 * generic entity delete and update (`/api/demo/report/delete`, `/update`), an import, plain SQL.
 * A trigger on the report table deletes the page (its grants go with it: sys_role_menu and
 * sys_role_button cascade) and renames it, in the statement's own transaction.
 */

const FUNCTION = 'ecobid_report_menu_sync';
const TRIGGER = 'ecobid_report_menu_sync';

/**
 * Creates (or re-creates) the function and the trigger, and removes the pages of reports deleted
 * before the trigger existed: at every start, in one transaction under an advisory lock (several
 * processes may start together).
 */
export async function installReportMenuSync(db: Db, registry: EntityRegistry): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('ecobid_report_menu_sync'))`.execute(trx);
    await install(trx, registry);
  });
}

async function install(trx: Db, registry: EntityRegistry): Promise<void> {
  const report = registry.get(REPORT_ENTITY);
  const menu = registry.get('sysmenu');
  const reportName = report?.fieldsByName.get('reportName');
  const menuCode = menu?.fieldsByName.get('menuCode');
  const menuName = menu?.fieldsByName.get('menuName');
  const menuComponent = menu?.fieldsByName.get('menuComponent');
  if (!report || !menu || !reportName || !menuCode || !menuName || !menuComponent) return;
  // Identifiers reach the body through format(%I) from the trigger's arguments, never as text.
  await sql`create or replace function ${sql.id(FUNCTION)}() returns trigger language plpgsql as $$
    declare
      menu_table text := tg_argv[0];
      code_column text := tg_argv[1];
      name_column text := tg_argv[2];
      key_column text := tg_argv[3];
      label_column text := tg_argv[4];
      prefix text := tg_argv[5];
      old_row jsonb := to_jsonb(old);
      new_row jsonb;
    begin
      if tg_op = 'DELETE' then
        execute format('delete from %I where %I = $1', menu_table, code_column)
          using prefix || (old_row ->> key_column);
        return null;
      end if;
      new_row := to_jsonb(new);
      if (new_row ->> label_column) is distinct from (old_row ->> label_column) then
        execute format(
          'update %I set %I = $1, updated_at = now(), updated_by = $2, version = version + 1 where %I = $3',
          menu_table, name_column, code_column)
          using new_row ->> label_column, new_row ->> 'updated_by', prefix || (new_row ->> key_column);
      end if;
      return null;
    end $$`.execute(trx);
  await sql`drop trigger if exists ${sql.id(TRIGGER)} on ${table(report)}`.execute(trx);
  const args = [menu.table, menuCode.column, menuName.column, report.key.column, reportName.column];
  await sql`create trigger ${sql.id(TRIGGER)} after delete or update on ${table(report)}
    for each row execute function ${sql.id(FUNCTION)}(${sql.join(
      [...args, REPORT_MENU_PREFIX].map((value) => sql.lit(value)),
    )})`.execute(trx);
  // Pages whose report went before the trigger was there.
  await sql`delete from ${table(menu)} m where ${column(menuComponent)} = ${REPORT_VIEW_COMPONENT}
    and not exists (select 1 from ${table(report)} r
      where ${sql.lit(REPORT_MENU_PREFIX)} || ${sql.ref(`r.${report.key.column}`)}::text = ${sql.ref(`m.${menuCode.column}`)})`.execute(
    trx,
  );
}
