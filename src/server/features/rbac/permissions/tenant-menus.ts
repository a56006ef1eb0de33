import { sql, type RawBuilder } from 'kysely';

/**
 * Which menus a tenant sees. A menu's meta may name the one tenant it belongs to (`tenant`, the
 * menus of a tenant's designed forms) or mark a platform page (`platform`). The same rule in
 * TypeScript, for menus already read, and in SQL, for reads that must not return the others.
 */

/**
 * Whether a menu is shown in a tenant: every menu, but those whose meta names another tenant,
 * and the platform's pages (meta.platform) to anyone but the platform administrator.
 */
export function isTenantsMenu({
  menuMeta,
  tenantCode,
  isPlatform,
}: {
  menuMeta: unknown;
  tenantCode: string;
  isPlatform: boolean;
}): boolean {
  const meta = menuMeta as { tenant?: unknown; platform?: unknown } | null;
  if (meta?.platform === true && !isPlatform) return false;
  return typeof meta?.tenant !== 'string' || meta.tenant === tenantCode;
}

/** SQL: the menu (its jsonb meta column) names no tenant, or this one. */
export function namesNoOtherTenant(metaColumn: string, tenantCode: string): RawBuilder<boolean> {
  const meta = sql.ref(metaColumn);
  return sql<boolean>`(jsonb_typeof(${meta} -> 'tenant') is distinct from 'string' or ${meta} ->> 'tenant' = ${tenantCode})`;
}
