import { sql } from 'kysely';
import type { AppContext } from '../../../lib/context.js';
import { writeAudit } from '../../../lib/audit.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { column, table } from '../../../lib/sql/toolkit.js';

/**
 * Monitoring settings and rate limits kept as params of the default tenant (sys_param), so an
 * edit takes effect on every server process. Each process keeps them in its ParamCache
 * (lib/store/param-cache.ts), dropped by the database's notice of any write to the params, so a
 * sign-in or an SMS request reads its limits without a query. A missing row means the
 * environment's value (lib/config.ts) or the default here.
 */

export type RuleName = 'token' | 'captcha' | 'signInFailures' | 'smsDaily' | 'smsInterval';

export interface RuleDef {
  name: RuleName;
  param: string;
  /** What the limit counts, for the page (an i18n key suffix). */
  unit: 'perMinute' | 'failures' | 'perDay' | 'seconds';
  /** The calls the rule guards (route patterns, or what is counted). */
  routes: string[];
  fallback: (ctx: AppContext) => number;
}

export const RATE_LIMIT_RULES: readonly RuleDef[] = [
  {
    name: 'token',
    param: 'rateLimit.token',
    unit: 'perMinute',
    routes: ['POST /api/uaa/oauth/token'],
    fallback: (ctx) => ctx.config.abuse.tokenPerMinute,
  },
  {
    name: 'captcha',
    param: 'rateLimit.captcha',
    unit: 'perMinute',
    routes: ['/api/account/captcha/*', '/api/account/sysuserdetail/* (register, recover)'],
    fallback: (ctx) => ctx.config.abuse.captchaPerMinute,
  },
  {
    name: 'signInFailures',
    param: 'rateLimit.signInFailures',
    unit: 'failures',
    routes: ['POST /api/uaa/oauth/token'],
    fallback: (ctx) => ctx.config.abuse.signInMaxFailures,
  },
  {
    name: 'smsDaily',
    param: 'rateLimit.smsDaily',
    unit: 'perDay',
    routes: ['/api/account/captcha/getSmsCaptcha'],
    fallback: (ctx) => ctx.config.abuse.smsDailyLimit,
  },
  {
    name: 'smsInterval',
    param: 'rateLimit.smsInterval',
    unit: 'seconds',
    routes: ['/api/account/captcha/getSmsCaptcha'],
    fallback: (ctx) => ctx.config.abuse.smsIntervalSeconds,
  },
];

export const MONITOR_PARAMS = {
  logRetentionDays: { param: 'monitor.logRetentionDays', fallback: 7, max: 3650 },
  slowQueryMs: { param: 'monitor.slowQueryMs', fallback: 200, max: 600_000 },
} as const;

/** Raw values of the default tenant's params by key. */
export async function readParams(ctx: AppContext, keys: readonly string[]): Promise<Map<string, string>> {
  const entity = ctx.registry.require('sysparam');
  const keyField = entity.fieldsByName.get('paramKey');
  const valueField = entity.fieldsByName.get('paramValue');
  const found = new Map<string, string>();
  if (!keyField || !valueField || keys.length === 0) return found;
  const tenant = entity.isTenantScoped ? sql`tenant_code = ${ctx.config.defaultTenant} and` : sql``;
  const rows = await sql<{ key: string; value: string | null }>`select ${column(keyField)} as key,
    ${column(valueField)} as value from ${table(entity)} where ${tenant} ${column(keyField)} in (${sql.join([...keys])})`.execute(
    ctx.db,
  );
  for (const row of rows.rows) found.set(row.key, row.value?.trim() ?? '');
  return found;
}

/** Every param this module knows: read together and cached together. */
const OPERATIONAL_KEYS: readonly string[] = [
  ...RATE_LIMIT_RULES.map((rule) => rule.param),
  ...Object.values(MONITOR_PARAMS).map((setting) => setting.param),
];

/** The i18n key of a param's name (locales: params.rateLimit.token, params.monitor.slowQueryMs, …). */
export const paramNameKey = (key: string): string => `params.${key}`;

/**
 * The Chinese name (the one the seed and setParam store) of each param of the tenant that the
 * locales name (params.<key>): while a param still has that name, the pages show it translated;
 * a param added by hand, or renamed, keeps the name it was given.
 */
export async function knownParamNames({
  ctx,
  tenantCode,
  zhName,
}: {
  ctx: AppContext;
  tenantCode: string;
  /** The Chinese name the locales give a param's key, undefined for a key they do not name. */
  zhName: (key: string) => string | undefined;
}): Promise<Record<string, string>> {
  const entity = ctx.registry.require('sysparam');
  const keyField = entity.fieldsByName.get('paramKey');
  if (!keyField) return {};
  const tenant = entity.isTenantScoped ? sql`where tenant_code = ${tenantCode}` : sql``;
  const rows = await sql<{
    key: string;
  }>`select ${column(keyField)} as key from ${table(entity)} ${tenant}`.execute(ctx.db);
  const names: Record<string, string> = {};
  for (const { key } of rows.rows) {
    const name = zhName(key);
    if (name !== undefined) names[key] = name;
  }
  return names;
}

/**
 * The operational params (rate limits, monitoring settings) from the process's cache, read in
 * one query when a write to the params (on any process) dropped it.
 */
export async function operationalParams(ctx: AppContext): Promise<ReadonlyMap<string, string>> {
  const cached = ctx.paramCache.get();
  if (cached) return cached;
  const generation = ctx.paramCache.generation;
  const values = await readParams(ctx, OPERATIONAL_KEYS);
  ctx.paramCache.set(values, generation);
  return values;
}

/** A whole-number param, its fallback when unset or not a positive whole number. */
export async function numberParam({
  ctx,
  key,
  fallback,
}: {
  ctx: AppContext;
  key: string;
  fallback: number;
}): Promise<number> {
  const raw = OPERATIONAL_KEYS.includes(key)
    ? (await operationalParams(ctx)).get(key)
    : (await readParams(ctx, [key])).get(key);
  const value = Number(raw);
  return raw && Number.isInteger(value) && value > 0 ? value : fallback;
}

/** The limit of a rate-limit rule now, as every process reads it. */
export function ruleLimit(ctx: AppContext, name: RuleName): Promise<number> {
  const rule = RATE_LIMIT_RULES.find((candidate) => candidate.name === name);
  if (!rule) throw new Error(`unknown rate-limit rule ${name}`);
  return numberParam({ ctx, key: rule.param, fallback: rule.fallback(ctx) });
}

/**
 * Sets a param of the default tenant (insert or update) with its audit row, in one transaction.
 * Monitoring params are operational: they belong to the platform, not to one tenant.
 */
export async function setParam({
  ctx,
  actor,
  key,
  value,
  name,
}: {
  ctx: AppContext;
  actor: Actor;
  key: string;
  value: string;
  name: string;
}): Promise<void> {
  const entity = ctx.registry.require('sysparam');
  const keyField = entity.fieldsByName.get('paramKey');
  const valueField = entity.fieldsByName.get('paramValue');
  const nameField = entity.fieldsByName.get('paramName');
  if (!keyField || !valueField || !nameField)
    throw new Error('sysparam lacks paramKey, paramValue or paramName');
  const tenantCode = ctx.config.defaultTenant;
  await inTransaction(ctx.db, async (trx) => {
    const found = await sql<Record<string, unknown>>`select * from ${table(entity)}
      where tenant_code = ${tenantCode} and ${column(keyField)} = ${key} for update`.execute(trx);
    const before = found.rows[0];
    if (before) {
      const changed = await sql<
        Record<string, unknown>
      >`update ${table(entity)} set ${column(valueField)} = ${value},
        updated_at = now(), updated_by = ${actor.username}, version = version + 1
        where ${sql.ref(entity.key.column)} = ${before[entity.key.column]} returning *`.execute(trx);
      await writeAudit({
        trx,
        actor: { ...actor, tenantCode },
        entries: [
          {
            entity: 'sysparam',
            recordKey: before[entity.key.column],
            action: 'update',
            before: { paramKey: key, paramValue: before[valueField.column] },
            after: { paramKey: key, paramValue: changed.rows[0]?.[valueField.column] ?? value },
          },
        ],
      });
      return;
    }
    const added = await sql<Record<string, unknown>>`insert into ${table(entity)}
      (tenant_code, ${column(keyField)}, ${column(valueField)}, ${column(nameField)}, created_by, updated_by)
      values (${tenantCode}, ${key}, ${value}, ${name}, ${actor.username}, ${actor.username}) returning *`.execute(
      trx,
    );
    await writeAudit({
      trx,
      actor: { ...actor, tenantCode },
      entries: [
        {
          entity: 'sysparam',
          recordKey: added.rows[0]?.[entity.key.column],
          action: 'add',
          before: null,
          after: { paramKey: key, paramName: name, paramValue: value },
        },
      ],
    });
  });
}
