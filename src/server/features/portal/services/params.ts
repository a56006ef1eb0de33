import { sql } from 'kysely';
import type { AppContext } from '../../../lib/context.js';
import type { PortalParams } from '../../../../engine/api-types.js';
import { column, table } from '../../../lib/sql/toolkit.js';

/** Params the portal may read without signing in (docs/product.md §1 footer, §2.2 personal centre, §1 consultation). */
export const PUBLIC_PARAM_KEYS = [
  'productTitle',
  'productTitleTw',
  'productTitleEn',
  'hotline',
  'mailbox',
  'buyerProgramUrl',
  'supplierProgramUrl',
  'customerServiceUrl',
  'customerServiceParams',
  'companyOperator',
  'icpRegistration',
  'publicSecurityRecord',
] as const satisfies readonly Exclude<keyof PortalParams, 'product'>[];

type PublicParamKey = (typeof PUBLIC_PARAM_KEYS)[number];

const isPublicParamKey = (key: string): key is PublicParamKey =>
  (PUBLIC_PARAM_KEYS as readonly string[]).includes(key);

/** The whitelisted params of the portal's tenant, with the product slug under `product`. */
export async function publicParams(ctx: AppContext): Promise<PortalParams> {
  const entity = ctx.registry.require('sysparam');
  const key = entity.fieldsByName.get('paramKey');
  const value = entity.fieldsByName.get('paramValue');
  const values: PortalParams = { product: ctx.config.product };
  if (!key || !value) return values;
  const tenant = entity.isTenantScoped ? sql`tenant_code = ${ctx.config.defaultTenant} and` : sql``;
  const rows = await sql<{
    key: string;
    value: string | null;
  }>`select ${column(key)} as key, ${column(value)} as value
    from ${table(entity)} where ${tenant} ${column(key)} in (${sql.join([...PUBLIC_PARAM_KEYS])})`.execute(
    ctx.db,
  );
  for (const row of rows.rows) if (isPublicParamKey(row.key)) values[row.key] = row.value ?? '';
  return values;
}

/** One param of the portal's tenant, trimmed; empty when unset. */
export async function paramValue({ ctx, key }: { ctx: AppContext; key: string }): Promise<string> {
  const entity = ctx.registry.require('sysparam');
  const keyField = entity.fieldsByName.get('paramKey');
  const valueField = entity.fieldsByName.get('paramValue');
  if (!keyField || !valueField) return '';
  const tenant = entity.isTenantScoped ? sql`tenant_code = ${ctx.config.defaultTenant} and` : sql``;
  const found = await sql<{
    value: string | null;
  }>`select ${column(valueField)} as value from ${table(entity)}
    where ${tenant} ${column(keyField)} = ${key} limit 1`.execute(ctx.db);
  return found.rows[0]?.value?.trim() ?? '';
}
