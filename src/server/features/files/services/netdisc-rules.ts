import { sql } from 'kysely';
import type { AuthContext } from '../../../lib/auth.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/types.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import { column, table } from '../../../lib/sql/toolkit.js';

/** Params (sysparam, per tenant) of the netdisc, and their values when unset. */
export const QUOTA_PARAM = 'netdiscQuotaMb';
export const RECYCLE_DAYS_PARAM = 'netdiscRecycleDays';
export const DEFAULT_QUOTA_MB = 1024;
export const DEFAULT_RECYCLE_DAYS = 30;

/**
 * The netdisc's params as each tenant gets them (first start, a new tenant, a database seeded
 * before they existed), so that an administrator finds them under 参数 and 配置中心.
 */
export const NETDISC_PARAM_DEFAULTS: readonly { key: string; value: string }[] = [
  { key: QUOTA_PARAM, value: String(DEFAULT_QUOTA_MB) },
  { key: RECYCLE_DAYS_PARAM, value: String(DEFAULT_RECYCLE_DAYS) },
];

const MB = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface NetdiscParams {
  quotaBytes: number;
  recycleDays: number;
}

/** A whole number of at least `minimum` from a param's text, or the default. */
function wholeNumber(text: string | undefined, fallback: number, minimum: number): number {
  const value = text === undefined ? Number.NaN : Number(text.trim());
  return Number.isInteger(value) && value >= minimum ? value : fallback;
}

/** The tenant's quota per user and recycle-bin days (params netdiscQuotaMb, netdiscRecycleDays). */
export async function netdiscParams({
  ctx,
  db,
  tenantCode,
}: {
  ctx: AppContext;
  /** Where to read: the app's database, or a transaction. */
  db: Db;
  tenantCode: string;
}): Promise<NetdiscParams> {
  const entity = ctx.registry.require('sysparam');
  const key = entity.fieldsByName.get('paramKey');
  const value = entity.fieldsByName.get('paramValue');
  const values = new Map<string, string>();
  if (key && value) {
    const tenant = entity.isTenantScoped ? sql`tenant_code = ${tenantCode} and` : sql``;
    const rows = await sql<{ key: string; value: string | null }>`select ${column(key)} as key,
        ${column(value)} as value from ${table(entity)}
      where ${tenant} ${column(key)} in (${QUOTA_PARAM}, ${RECYCLE_DAYS_PARAM})`.execute(db);
    for (const row of rows.rows) values.set(row.key, row.value ?? '');
  }
  return {
    quotaBytes: wholeNumber(values.get(QUOTA_PARAM), DEFAULT_QUOTA_MB, 0) * MB,
    recycleDays: wholeNumber(values.get(RECYCLE_DAYS_PARAM), DEFAULT_RECYCLE_DAYS, 0),
  };
}

/** When an item deleted at `deletedAt` leaves the recycle bin for good. */
export const expiresAt = (deletedAt: Date, recycleDays: number): Date =>
  new Date(deletedAt.getTime() + recycleDays * DAY_MS);

/** Bytes of the caller's netdisc files, those in the recycle bin included (they still take room). */
export async function usedBytes(db: Db, auth: AuthContext): Promise<number> {
  const found = await sql<{ used: string | number | null }>`select coalesce(sum(size_bytes), 0) as used
    from sys_file where tenant_code = ${auth.tenantCode} and owner_id = ${auth.userId} and is_netdisc`.execute(
    db,
  );
  return Number(found.rows[0]?.used ?? 0);
}

export const toMb = (bytes: number): number => Math.round((bytes / MB) * 100) / 100;

/** The quota error, naming the quota and what is used. */
export const quotaError = (params: NetdiscParams, used: number): AppError =>
  new AppError('netdiscQuotaExceeded', { quotaMb: toMb(params.quotaBytes), usedMb: toMb(used) });

/**
 * Serialises the netdisc changes of one user (quota checks of concurrent uploads) until the
 * transaction ends.
 */
export async function lockOwner(trx: Db, auth: AuthContext): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`netdisc:${auth.tenantCode}:${auth.userId}`}))`.execute(
    trx,
  );
}

/** The caller's folder of that id, not in the recycle bin; a 404 naming the field otherwise. */
export async function assertOwnFolder({
  db,
  auth,
  folderId,
  l10n,
  field,
}: {
  db: Db;
  auth: AuthContext;
  folderId: number;
  l10n: Localizer;
  /** The JSON pointer the 404 names (the parameter that sent the folder). */
  field: string;
}): Promise<void> {
  const found = await sql`select 1 from sys_netdisc_folder where id = ${folderId}
    and tenant_code = ${auth.tenantCode} and owner_id = ${auth.userId} and deleted_at is null`.execute(db);
  if (found.rows.length === 0) {
    const entity = l10n.t('netdisc.folder');
    throw new AppError('notFound', { entity, key: String(folderId) }, [
      { field, message: l10n.t('errors.notFound', { entity, key: String(folderId) }) },
    ]);
  }
}

/** Where a netdisc file lives: a folder of its owner's, or their root (null). */
const inFolder = (folderId: number | null) =>
  folderId === null ? sql`folder_id is null` : sql`folder_id = ${folderId}`;

/** A name's stem and extension with its dot ("报价.pdf" → ["报价", ".pdf"]; "README" → ["README", ""]). */
function splitName(name: string): [string, string] {
  const match = /^(.+?)(\.[A-Za-z0-9]{1,10})$/.exec(name);
  return match ? [match[1] ?? name, match[2] ?? ''] : [name, ''];
}

/**
 * Refuses (409, naming `field`) a file name another live file of the caller's already has in that
 * folder, whatever its case: two files of one name in one folder cannot be told apart.
 */
export async function assertFileNameFree({
  db,
  auth,
  folderId,
  name,
  l10n,
  field,
  exceptId,
}: {
  db: Db;
  auth: AuthContext;
  folderId: number | null;
  name: string;
  l10n: Localizer;
  field: string;
  /** The file being renamed or moved (not a clash with itself). */
  exceptId?: number;
}): Promise<void> {
  const except = exceptId === undefined ? sql`` : sql`and id <> ${exceptId}`;
  const found = await sql`select 1 from sys_file where tenant_code = ${auth.tenantCode}
    and owner_id = ${auth.userId} and is_netdisc and deleted_at is null and ${inFolder(folderId)}
    and lower(original_filename) = lower(${name}) ${except}`.execute(db);
  if (found.rows.length > 0)
    throw new AppError('uniqueClash', { value: name }, [
      { field, message: l10n.t('netdisc.fileNameTaken', { name }) },
    ]);
}

/**
 * The name an upload (or a restore) takes in a folder of the caller's: its own when free, else
 * the first free "stem (n).ext", as desktop file managers keep both. Call under lockOwner.
 */
export async function freeFileName({
  db,
  auth,
  folderId,
  name,
  exceptId,
}: {
  db: Db;
  auth: AuthContext;
  folderId: number | null;
  name: string;
  exceptId?: number;
}): Promise<string> {
  const [stem, extension] = splitName(name);
  const prefix = `${stem.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const except = exceptId === undefined ? sql`` : sql`and id <> ${exceptId}`;
  const rows = await sql<{ name: string }>`select lower(original_filename) as name from sys_file
    where tenant_code = ${auth.tenantCode} and owner_id = ${auth.userId} and is_netdisc
      and deleted_at is null and ${inFolder(folderId)} and lower(original_filename) like ${prefix} ${except}`.execute(
    db,
  );
  const taken = new Set(rows.rows.map((row) => row.name));
  if (!taken.has(name.toLowerCase())) return name;
  for (let n = 1; ; n += 1) {
    const candidate = `${stem} (${n})${extension}`;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}
