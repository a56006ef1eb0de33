import { sql } from 'kysely';
import type { Db, Row } from '../../../lib/db/database.js';
import type { RequestAuth } from '../../../lib/auth.js';
import { insertRecords } from '../../../lib/sql/insert-records.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { addRecord, deleteRecords, updateRecord, type CrudRequest } from '../../crud/index.js';
import { recordPolicy } from '../../rbac/index.js';
import { checkReport, type ReportDefinition } from './report.js';
import type { ReportAccess } from './report-fields.js';

/**
 * Saved reports: records of the `report` entity (schemas/report.schema.json) whose
 * definition was checked against the registry and the caller's permissions, each with a page in
 * the menu under 报表 (/report/view/<id>), granted to the roles the caller acts in and shown only
 * in the caller's tenant (menu meta `tenant`), like a published form's page.
 */

export const REPORT_ENTITY = 'report';
/** The menu group the saved reports' pages go under (seed/demo-menus.ts). */
export const REPORT_MENU_PARENT = 'reports';
/** A report's page is this prefix and the report's id (the trigger of report-menu-sync.ts reads it too). */
export const REPORT_MENU_PREFIX = 'report_';
export const reportMenuCode = (id: number): string => `${REPORT_MENU_PREFIX}${id}`;
export const reportMenuPath = (id: number): string => `/report/view/${id}`;
export const REPORT_VIEW_COMPONENT = 'report/view';

export interface SaveReportInput extends ReportDefinition {
  id?: number;
  version?: number;
  reportName: string;
}

export interface StoreAccess extends ReportAccess {
  auth: RequestAuth;
  actor: Actor;
}

async function crudOf(access: StoreAccess): Promise<CrudRequest> {
  const { ctx, auth, l10n, actor } = access;
  const entity = ctx.registry.require(REPORT_ENTITY);
  const policy = await recordPolicy({ ctx, auth, entity, mode: 'write', l10n });
  return {
    db: ctx.db,
    registry: ctx.registry,
    entity,
    actor,
    l10n,
    policy,
    roles: auth.roles,
    modules: ctx.modules,
  };
}

/** The report's menu entry and its grants to the caller's roles, in the add's transaction. */
async function addMenu(access: StoreAccess, trx: Db, row: Row): Promise<Row> {
  const { ctx, actor, auth } = access;
  const menu = ctx.registry.require('sysmenu');
  const role = ctx.registry.require('sysrole');
  const id = Number(row.id);
  const parent = await sql<{ id: number }>`select id from ${sql.table(menu.table)}
    where menu_code = ${REPORT_MENU_PARENT}`.execute(trx);
  const [menuId] = await insertRecords({
    trx,
    registry: ctx.registry,
    entity: menu,
    actor,
    records: [
      {
        menuCode: reportMenuCode(id),
        menuName: String(row.reportName),
        menuIcon: 'bar-chart',
        menuPath: reportMenuPath(id),
        menuComponent: REPORT_VIEW_COMPONENT,
        menuSequence: 100 + (id % 1000),
        menuParent: Number(parent.rows[0]?.id ?? 0),
        menuStatus: '1',
        menuButton: [],
        menuMeta: { tenant: actor.tenantCode, noCache: true },
      },
    ],
  });
  if (auth.roles.length > 0)
    await sql`insert into sys_role_menu (tenant_code, role_id, menu_id)
      select ${actor.tenantCode}, r.id, ${Number(menuId)} from ${sql.table(role.table)} r
      where r.tenant_code = ${actor.tenantCode} and r.role_code in (${sql.join(auth.roles)})
      on conflict do nothing`.execute(trx);
  return row;
}

/** Adds (no id) or changes (id and version) a report after checking its definition. */
export async function saveReport(access: StoreAccess, input: SaveReportInput): Promise<Row> {
  const { id, version, reportName, ...definition } = input;
  await checkReport(access, definition);
  const body = { reportName, ...definition };
  const crud = await crudOf(access);
  if (id === undefined)
    return addRecord({ ...crud, afterAdd: (trx, row) => addMenu(access, trx, row) }, body);
  // The page keeps the report's name: the trigger of report-menu-sync.ts renames it in the update.
  return updateRecord(crud, { id, version, ...body });
}

/** Deletes a report of the caller's tenant; the trigger of report-menu-sync.ts takes its page. */
export async function deleteReport(access: StoreAccess, id: number): Promise<void> {
  await deleteRecords(await crudOf(access), [id]);
}
