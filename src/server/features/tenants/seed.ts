import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import dicts from './seed-data/dicts.json' with { type: 'json' };
import menus from './seed-data/menus.json' with { type: 'json' };
import params from './seed-data/params.json' with { type: 'json' };
import regions from './seed-data/regions.json' with { type: 'json' };
import roles from './seed-data/roles.json' with { type: 'json' };
import { insertRecords } from '../../lib/sql/insert-records.js';
import { seedPortalContent } from '../portal/index.js';
import { deployShippedProcesses } from '../workflow/index.js';
import { DEFAULT_EVENT_RETENTION_DAYS, EVENT_RETENTION_PARAM } from '../events/index.js';
import { NETDISC_PARAM_DEFAULTS } from '../files/index.js';
import type { Db } from '../../lib/db/database.js';
import type { EntityRegistry } from '../../lib/registry.js';
import { column, table, type Actor } from '../../lib/sql/toolkit.js';
import type { AppContext } from '../../lib/context.js';
import { localizer, type I18n } from '../../lib/i18n.js';

interface MenuNode {
  code: string;
  icon?: string;
  path: string;
  component?: string;
  sequence: number;
  buttons?: string[];
  meta?: Record<string, unknown>;
  children?: MenuNode[];
}
interface DictType {
  type: string;
  items: { value: string; sequence: number }[];
}
interface RegionRow {
  code: string;
  name: string;
  type: string;
  parent: string;
}
interface ParamRow {
  key: string;
  value: string;
}

// Imported, not read from disk, so that the data travels inside a bundled server.
const SEED_DATA = {
  'dicts.json': dicts,
  'menus.json': menus,
  'params.json': params,
  'regions.json': regions,
  'roles.json': roles,
};

function data<T>(file: keyof typeof SEED_DATA): T {
  return SEED_DATA[file] as T;
}

/** Seeded names are stored in Chinese, the product's language; the locales translate them on screen. */
const SEED_LANGUAGE = 'zh';

export interface SeedResult {
  isFirstStart: boolean;
  /** Set when the admin password was generated: shown once, then only its hash exists. */
  generatedAdminPassword?: string;
}

const DEFAULT_BUTTONS = ['add', 'update', 'delete', 'export'];

async function insertMenus(
  ctx: AppContext,
  trx: AppContext['db'],
  actor: Actor,
  i18n: I18n,
  nodes: MenuNode[],
  parent: number,
): Promise<void> {
  const menu = ctx.registry.require('sysmenu');
  for (const node of nodes) {
    const [id] = await insertRecords({
      trx,
      registry: ctx.registry,
      entity: menu,
      actor,
      records: [
        {
          menuCode: node.code,
          menuName: i18n.t(SEED_LANGUAGE, `menus.${node.code}`),
          menuIcon: node.icon,
          menuPath: node.path,
          menuComponent: node.component,
          menuSequence: node.sequence,
          menuParent: parent,
          menuStatus: '1',
          menuButton: node.buttons ?? [],
          menuMeta: node.meta ?? {},
        },
      ],
    });
    if (node.children?.length) await insertMenus(ctx, trx, actor, i18n, node.children, Number(id));
  }
}

/**
 * Params every tenant has, with their default values (the netdisc's quota and recycle-bin days,
 * the days events and webhook deliveries are kept):
 * added to a tenant that lacks them, under their Chinese name (the pages translate it), so an
 * administrator finds them under 参数 and 配置中心 rather than guessing their keys.
 */
export async function addTenantParams({
  trx,
  registry,
  actor,
  zh,
}: {
  trx: Db;
  registry: EntityRegistry;
  /** Who adds them, of the tenant that gets them. */
  actor: Actor;
  zh: (key: string) => string;
}): Promise<void> {
  const entity = registry.require('sysparam');
  const keyField = entity.fieldsByName.get('paramKey');
  if (!keyField) return;
  const tenant = entity.isTenantScoped ? sql`tenant_code = ${actor.tenantCode} and` : sql``;
  const defaults = [
    ...NETDISC_PARAM_DEFAULTS,
    { key: EVENT_RETENTION_PARAM, value: String(DEFAULT_EVENT_RETENTION_DAYS) },
  ];
  const keys = defaults.map((param) => param.key);
  const found = await sql<{ key: string }>`select ${column(keyField)} as key from ${table(entity)}
    where ${tenant} ${column(keyField)} in (${sql.join(keys)})`.execute(trx);
  const present = new Set(found.rows.map((row) => row.key));
  await insertRecords({
    trx,
    registry,
    entity,
    actor,
    records: defaults
      .filter((param) => !present.has(param.key))
      .map((param) => ({
        paramKey: param.key,
        paramName: zh(`params.${param.key}`),
        paramValue: param.value,
      })),
  });
}

/**
 * First start: the default tenant, its administrator, roles, menus, dictionaries, regions, params
 * and the product's processes (schemas/processes, deployed where a tenant lacks them: every start).
 */
export async function seedDatabase(ctx: AppContext, i18n: I18n): Promise<SeedResult> {
  const { registry, config } = ctx;
  return ctx.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(7243002)`.execute(trx);
    const tenant = registry.require('systenant');
    const existing = await sql`select 1 from ${sql.table(tenant.table)} limit 1`.execute(trx);
    const zh = (key: string): string => i18n.t(SEED_LANGUAGE, key);
    if (existing.rows.length > 0) {
      // A database seeded before a param existed gets it, for each tenant, with its default.
      const codeField = tenant.fieldsByName.get('tenantCode');
      const codes = codeField
        ? await sql<{ code: string }>`select ${column(codeField)} as code from ${table(tenant)}`.execute(trx)
        : { rows: [] };
      for (const { code } of codes.rows) {
        await addTenantParams({
          trx,
          registry,
          actor: { userId: null, username: 'system', tenantCode: code },
          zh,
        });
        await deployShippedProcesses({ ctx, trx, tenantCode: code, l10n: localizer(i18n, SEED_LANGUAGE) });
      }
      return { isFirstStart: false };
    }
    const actor: Actor = { userId: null, username: 'system', tenantCode: config.defaultTenant };

    await insertRecords({
      trx,
      registry,
      entity: tenant,
      actor,
      records: [
        {
          tenantCode: config.defaultTenant,
          tenantName: zh('seed.defaultTenantName'),
          tenantContact: zh('seed.operatorName'),
        },
      ],
    });

    const dict = registry.require('sysdict');
    for (const [index, type] of data<DictType[]>('dicts.json').entries()) {
      const [groupId] = await insertRecords({
        trx,
        registry,
        entity: dict,
        actor,
        records: [
          {
            dictType: type.type,
            dictName: zh(`dicts.${type.type}._`),
            dictSequence: (index + 1) * 10,
            dictParent: 0,
          },
        ],
      });
      await insertRecords({
        trx,
        registry,
        entity: dict,
        actor,
        records: type.items.map((item) => ({
          dictType: type.type,
          dictName: zh(`dicts.${type.type}.${item.value}`),
          dictValue: item.value,
          dictSequence: item.sequence,
          dictParent: groupId,
        })),
      });
    }

    await insertRecords({
      trx,
      registry,
      entity: registry.require('sysregion'),
      actor,
      records: data<RegionRow[]>('regions.json').map((region) => ({
        regionCode: region.code,
        regionName: region.name,
        regionType: region.type,
        regionParent: region.parent,
      })),
    });

    const roleCodes = data<{ code: string }[]>('roles.json').map((role) => role.code);
    const roleIds = await insertRecords({
      trx,
      registry,
      entity: registry.require('sysrole'),
      actor,
      records: roleCodes.map((code) => ({
        roleCode: code,
        roleName: zh(`roles.${code}.name`),
        roleDescription: zh(`roles.${code}.description`),
      })),
    });
    const adminRoleId = roleIds[roleCodes.indexOf('ROLE_ADMIN')];

    const [orgId] = await insertRecords({
      trx,
      registry,
      entity: registry.require('sysorg'),
      actor,
      records: [
        {
          orgName: zh('seed.operatorName'),
          orgType: 'company',
          orgDescription: zh('seed.operatorDescription'),
          orgSequence: 10,
          orgParent: 0,
        },
      ],
    });

    const generatedAdminPassword = config.adminPassword ? undefined : randomBytes(12).toString('base64url');
    await insertRecords({
      trx,
      registry,
      entity: registry.require('sysuser'),
      actor,
      records: [
        {
          username: 'admin',
          nickname: zh('seed.adminNickname'),
          password: config.adminPassword ?? generatedAdminPassword,
          email: 'admin@ecobid.example',
          countryCode: '+86',
          mobile: '13800000000',
          phone: '400-000-0000',
          status: '1',
          userType: 0,
          roleId: adminRoleId,
          orgId,
        },
      ],
    });

    await insertMenus(ctx, trx, actor, i18n, data<MenuNode[]>('menus.json'), 0);

    await insertRecords({
      trx,
      registry,
      entity: registry.require('sysparam'),
      actor,
      records: data<ParamRow[]>('params.json').map((param) => ({
        paramKey: param.key,
        paramName: zh(`params.${param.key}`),
        paramValue: param.value,
      })),
    });
    await addTenantParams({ trx, registry, actor, zh });

    await insertRecords({
      trx,
      registry,
      entity: registry.require('appclient'),
      actor,
      records: [
        {
          clientCode: 'browser',
          authType: ['password', 'mobile', 'refresh_token'],
          authScope: 'ui',
          tokenSeconds: 7200,
          refreshSeconds: 2_592_000,
          clientDescription: zh('seed.browserClient'),
        },
      ],
    });
    await seedPortalContent({ ctx, trx, actor });
    await deployShippedProcesses({
      ctx,
      trx,
      tenantCode: config.defaultTenant,
      l10n: localizer(i18n, SEED_LANGUAGE),
    });
    return generatedAdminPassword ? { isFirstStart: true, generatedAdminPassword } : { isFirstStart: true };
  });
}

/**
 * Every start: each entity whose schema asks for a menu place (x-entity.menu) gets its screen in
 * the menu tree if it is not there yet, so a dropped-in schema shows up without code changes.
 */
export async function syncEntityMenus(ctx: AppContext, i18n: I18n): Promise<void> {
  const menu = ctx.registry.require('sysmenu');
  const actor: Actor = { userId: null, username: 'system', tenantCode: ctx.config.defaultTenant };
  await ctx.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(7243003)`.execute(trx);
    const rows = await sql<{
      id: number;
      code: string;
    }>`select id, menu_code as code from ${sql.table(menu.table)}`.execute(trx);
    const idByCode = new Map(rows.rows.map((row) => [row.code, row.id]));
    for (const entity of ctx.registry.all) {
      // A published form's menu is the form's own (features/forms publish), in its tenant.
      if (!entity.menu || idByCode.has(entity.name) || ctx.registry.isRuntime(entity.name)) continue;
      const name =
        i18n.find(SEED_LANGUAGE, [`menus.${entity.name}`, `entities.${entity.name}.title`]) ?? entity.title;
      const [id] = await insertRecords({
        trx,
        registry: ctx.registry,
        entity: menu,
        actor,
        records: [
          {
            menuCode: entity.name,
            menuName: name,
            menuIcon: entity.menu.icon,
            menuPath: entity.menu.path ?? `/${entity.name}`,
            menuComponent: `entity/${entity.name}`,
            menuSequence: entity.menu.sequence ?? 100,
            menuParent: idByCode.get(entity.menu.parent) ?? 0,
            menuStatus: '1',
            menuButton: DEFAULT_BUTTONS,
            menuMeta: {},
          },
        ],
      });
      idByCode.set(entity.name, Number(id));
    }
    // The platform's pages (meta.platform: the seed's, and the screens of platform-admin entities)
    // show in the platform administrator's sidebar only; a database seeded before they were
    // marked gets the mark (a mark set to false by hand stays).
    const platformCodes = [
      ...platformMenuCodes(data<MenuNode[]>('menus.json')),
      ...ctx.registry.all
        .filter((entity) => entity.isPlatformAdminOnly && entity.menu)
        .map((entity) => entity.name),
    ];
    await sql`update ${sql.table(menu.table)} set menu_meta = coalesce(menu_meta, '{}'::jsonb) || '{"platform": true}'::jsonb
      where menu_code in (${sql.join(platformCodes)})
      and jsonb_typeof(menu_meta -> 'platform') is distinct from 'boolean'`.execute(trx);
  });
}

/** Codes of the seed's menus marked meta.platform, at any depth. */
function platformMenuCodes(nodes: MenuNode[]): string[] {
  return nodes.flatMap((node) => [
    ...(node.meta?.platform === true ? [node.code] : []),
    ...platformMenuCodes(node.children ?? []),
  ]);
}
