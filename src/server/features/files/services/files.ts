import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { sql, type RawBuilder } from 'kysely';
import type { FileRecord, Page } from '../../../../engine/index.js';
import { writeAudit } from '../../../lib/audit.js';
import { recordEvents } from '../../../lib/events/index.js';
import type { AuthContext } from '../../../lib/auth.js';
import type { AppContext } from '../../../lib/context.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import { ObjectTooLargeError, type ByteRange, type FileStorage } from '../../../lib/storage/index.js';
import { chunksOf } from '../../../lib/storage/chunks.js';
import { assertAllFound, isAdmin } from '../../rbac/index.js';
import { fileSharedWith } from './access.js';
import {
  assertOwnFolder,
  freeFileName,
  lockOwner,
  netdiscParams,
  quotaError,
  usedBytes,
  type NetdiscParams,
} from './netdisc-rules.js';
import {
  acceptedType,
  cleanFileName,
  IMAGE_TYPES,
  SNIFF_BYTES,
  type FileUse,
  type SniffedType,
} from './rules.js';

/** Audit entity name of uploads. */
const AUDIT_ENTITY = 'file';

export type { FileRecord };

interface FileRow {
  id: number;
  tenant_code: string;
  owner_id: number;
  owner_name: string;
  file_use: string;
  original_filename: string;
  size_bytes: number;
  content_type: string;
  file_type: string;
  sha256: string;
  storage_key: string;
  created_at: Date | string;
}

export interface FilesContext {
  ctx: AppContext;
  storage: FileStorage;
  auth: AuthContext;
}

const toKilobytes = (bytes: number): number => Math.round((bytes / 1024) * 100) / 100;

function recordOf(row: FileRow): FileRecord {
  return {
    id: row.id,
    originalFilename: row.original_filename,
    size: toKilobytes(row.size_bytes),
    sizeBytes: row.size_bytes,
    contentType: row.content_type,
    fileType: row.file_type,
    use: row.file_use === 'image' ? 'image' : 'attachment',
    ownerName: row.owner_name,
    createdAt: new Date(row.created_at).toISOString(),
    url: `/api/file/file/download?id=${row.id}`,
  };
}

/**
 * Which files a caller may reach: those of their tenant that they uploaded, pictures (shown in
 * shared content such as notices) and, for the tenant's administrators, every file; downloads
 * also reach netdisc files shared with the caller (access.ts). Anything
 * else does not exist for them (404, never 403: a file id tells nothing).
 */
function visibleTo(auth: AuthContext): RawBuilder<unknown> {
  const tenant = sql`tenant_code = ${auth.tenantCode}`;
  if (isAdmin(auth.roles)) return tenant;
  return sql`${tenant} and (owner_id = ${auth.userId} or file_use = 'image')`;
}

/** Who may delete a file they can see: its owner and the tenant's administrators. */
function deletableBy(auth: AuthContext): RawBuilder<unknown> {
  const tenant = sql`tenant_code = ${auth.tenantCode}`;
  return isAdmin(auth.roles) ? tenant : sql`${tenant} and owner_id = ${auth.userId}`;
}

/** A new storage key: random, spread over 256 directories; nothing of the client's in it. */
function newStorageKey(): string {
  const id = randomUUID();
  return `${id.slice(0, 2)}/${id}`;
}

/**
 * The upload's bytes with their type decided from the first SNIFF_BYTES of them before any
 * more are passed on: a refused type (415) or an empty file (400) stops the stream at once.
 * The first chunk is nearly always long enough and is looked at where it is; only shorter
 * first chunks are gathered (and copied once) until there are enough bytes. Once decided, each
 * call is the source's own (no generator layer between the network chunks and the storage).
 */
class Sniffed implements AsyncIterableIterator<Uint8Array> {
  private readonly source: AsyncIterator<Uint8Array>;
  private isDecided = false;

  constructor(
    source: AsyncIterable<Uint8Array>,
    private readonly decide: (head: Uint8Array) => Promise<void>,
  ) {
    this.source = source[Symbol.asyncIterator]();
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    return this.isDecided ? this.source.next() : this.first();
  }

  /** Reads until there are enough bytes (or the end), decides, and hands over what was read. */
  private async first(): Promise<IteratorResult<Uint8Array>> {
    const held: Uint8Array[] = [];
    let heldBytes = 0;
    for (;;) {
      const read = await this.source.next();
      if (read.done) {
        const head = Buffer.concat(held);
        await this.decide(head);
        this.isDecided = true;
        return head.length > 0 ? { value: head, done: false } : read;
      }
      if (heldBytes === 0 && read.value.length >= SNIFF_BYTES) {
        await this.decided(read.value);
        return read;
      }
      held.push(read.value);
      heldBytes += read.value.length;
      if (heldBytes >= SNIFF_BYTES) {
        const head = Buffer.concat(held);
        await this.decided(head);
        return { value: head, done: false };
      }
    }
  }

  /** Decides on a head while the source goes on; a refusal stops the source. */
  private async decided(head: Uint8Array): Promise<void> {
    try {
      await this.decide(head);
    } catch (error) {
      await this.source.return?.();
      throw error;
    }
    this.isDecided = true;
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    await this.source.return?.();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Uint8Array> {
    return this;
  }
}

export interface UploadInput extends FilesContext {
  l10n: Localizer;
  use: FileUse;
  /** The name the client sent; cleaned here, stored as text only. */
  filename: string;
  /** The bytes, as they arrive. */
  source: AsyncIterable<Uint8Array>;
  /** Into the caller's netdisc: a folder of theirs, or its root (null); counted in their quota. */
  netdisc?: { folderId: number | null };
}

/**
 * Streams an upload into the storage (never whole in memory), then records it in one
 * transaction. The object is written completely before the row; if the row cannot be written
 * the object is removed, and a stream that fails (too large, refused type, a client gone) leaves
 * no object, so a failed upload leaves nothing.
 */
export async function uploadFile({
  ctx,
  storage,
  auth,
  l10n,
  use,
  filename,
  source,
  netdisc,
}: UploadInput): Promise<FileRecord> {
  const { attachmentTypes } = ctx.config.files;
  let { maxBytes } = ctx.config.files;
  let quota: { params: NetdiscParams; used: number } | undefined;
  if (netdisc) {
    if (netdisc.folderId !== null)
      await assertOwnFolder({ db: ctx.db, auth, folderId: netdisc.folderId, l10n, field: '/folderId' });
    quota = {
      params: await netdiscParams({ ctx, db: ctx.db, tenantCode: auth.tenantCode }),
      used: await usedBytes(ctx.db, auth),
    };
    const remaining = quota.params.quotaBytes - quota.used;
    if (remaining <= 0) throw quotaError(quota.params, quota.used);
    maxBytes = Math.min(maxBytes, remaining);
  }
  const name = cleanFileName(filename);
  const allowed = use === 'image' ? IMAGE_TYPES : attachmentTypes;
  let type: SniffedType | undefined;
  const decide = async (head: Uint8Array): Promise<void> => {
    if (head.length === 0)
      throw new AppError('fileEmpty', {}, [{ field: '/file', message: l10n.t('errors.fileEmpty') }]);
    type = await acceptedType({ head, name, allowed });
    if (!type) throw new AppError(use === 'image' ? 'fileTypeImage' : 'fileTypeRefused');
  };
  const key = newStorageKey();
  let stored;
  try {
    stored = await storage.put(key, new Sniffed(chunksOf(source), decide), { maxBytes });
  } catch (error) {
    if (error instanceof ObjectTooLargeError) {
      if (quota && maxBytes < ctx.config.files.maxBytes) throw quotaError(quota.params, quota.used);
      throw new AppError('fileTooLarge', { maxMb: Math.round(maxBytes / 1024 / 1024) });
    }
    throw error;
  }
  const sniffedType = type;
  if (!sniffedType) throw new Error('the upload stream ended without a type decision');
  const actor = { userId: auth.userId, username: auth.username, tenantCode: auth.tenantCode };
  try {
    const row = await inTransaction(ctx.db, async (trx) => {
      let storedName = name;
      if (netdisc && quota) {
        // Checked again under the owner's lock: concurrent uploads cannot pass the quota together.
        await lockOwner(trx, auth);
        if (netdisc.folderId !== null)
          await assertOwnFolder({ db: trx, auth, folderId: netdisc.folderId, l10n, field: '/folderId' });
        const used = await usedBytes(trx, auth);
        if (used + stored.size > quota.params.quotaBytes) throw quotaError(quota.params, used);
        // A name the folder already holds: kept both, as "name (1).ext" (desktop file managers do).
        storedName = await freeFileName({ db: trx, auth, folderId: netdisc.folderId, name });
      }
      const inserted = await sql<FileRow>`insert into sys_file (tenant_code, owner_id, owner_name, file_use,
          original_filename, size_bytes, content_type, file_type, sha256, storage_key, is_netdisc, folder_id)
        values (${auth.tenantCode}, ${auth.userId}, ${auth.username}, ${use}, ${storedName}, ${stored.size},
          ${sniffedType.contentType}, ${sniffedType.fileType}, ${stored.sha256}, ${key},
          ${netdisc !== undefined}, ${netdisc?.folderId ?? null})
        returning *`.execute(trx);
      const created = inserted.rows[0];
      if (!created) throw new Error('insert into sys_file returned no row');
      const record = recordOf(created);
      await writeAudit({
        trx,
        actor,
        entries: [
          { entity: AUDIT_ENTITY, recordKey: created.id, action: 'add', before: null, after: { ...record } },
        ],
      });
      await recordEvents({
        trx,
        actor,
        events: [
          {
            type: 'file.uploaded',
            entity: AUDIT_ENTITY,
            key: created.id,
            detail: { fileUse: use, sizeBytes: stored.size, contentType: sniffedType.contentType },
          },
        ],
      });
      return created;
    });
    return recordOf(row);
  } catch (error) {
    await storage.delete(key);
    throw error;
  }
}

/** The file of that id if the caller may reach it; 404 otherwise. */
async function visibleFile(
  { ctx, auth }: Pick<FilesContext, 'ctx' | 'auth'>,
  id: number,
  l10n: Localizer,
): Promise<FileRow> {
  const found = await sql<FileRow>`select * from sys_file
    where id = ${id} and (${visibleTo(auth)} or ${fileSharedWith(ctx, auth)})`.execute(ctx.db);
  const row = found.rows[0];
  if (!row) throw new AppError('notFound', { entity: l10n.t('files.title'), key: String(id) });
  return row;
}

export interface DownloadInfo {
  record: FileRecord;
  sha256: string;
  /** Opens the bytes (or a range of them); a file whose object is gone is a 404. */
  open(range?: ByteRange): Promise<Readable>;
}

function downloadOf(row: FileRow, storage: FileStorage, l10n: Localizer): DownloadInfo {
  return {
    record: recordOf(row),
    sha256: row.sha256,
    open: async (range) => {
      const stream = await storage.get(row.storage_key, range);
      if (!stream) throw new AppError('notFound', { entity: l10n.t('files.title'), key: String(row.id) });
      return stream;
    },
  };
}

/** What a download sends: the file's record and its bytes, if the caller may reach it. */
export async function fileForDownload(
  input: FilesContext & { id: number; l10n: Localizer },
): Promise<DownloadInfo> {
  return downloadOf(await visibleFile(input, input.id, input.l10n), input.storage, input.l10n);
}

/**
 * Files of a tenant by id for content that decides who may read them (a published notice's
 * attachments on the portal): the caller has checked that the content names them. In the
 * order asked; unknown ids and other tenants' files are left out.
 */
export async function contentFiles({
  ctx,
  storage,
  tenantCode,
  ids,
  l10n,
}: {
  ctx: AppContext;
  storage: FileStorage;
  tenantCode: string;
  ids: readonly number[];
  l10n: Localizer;
}): Promise<DownloadInfo[]> {
  if (ids.length === 0) return [];
  const found = await sql<FileRow>`select * from sys_file
    where tenant_code = ${tenantCode} and id in (${sql.join([...ids])}) and deleted_at is null`.execute(
    ctx.db,
  );
  const byId = new Map(found.rows.map((row) => [Number(row.id), row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [downloadOf(row, storage, l10n)] : [];
  });
}

/** List filters: text ones match parts of the value, case-insensitively; the others are equal. */
export interface FileFilters {
  originalFilename?: string;
  fileType?: string;
  contentType?: string;
  use?: FileUse;
  ownerName?: string;
}

const SORT_COLUMNS: Record<string, string> = {
  id: 'id',
  originalFilename: 'original_filename',
  size: 'size_bytes',
  fileType: 'file_type',
  contentType: 'content_type',
  ownerName: 'owner_name',
  createdAt: 'created_at',
};

/** Fields the list can be sorted on (sort=field or -field, comma-separated). */
export const FILE_SORT_FIELDS = Object.keys(SORT_COLUMNS);

const escapeLike = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export interface FileQuery extends FilesContext {
  filters: FileFilters;
  currentPage: number;
  pageSize: number;
  /** Sort terms already checked against FILE_SORT_FIELDS, e.g. ['-createdAt']. */
  sort: string[];
}

/** A page of the files the caller may reach, newest first unless sorted otherwise. */
export async function queryFiles({
  ctx,
  auth,
  filters,
  currentPage,
  pageSize,
  sort,
}: FileQuery): Promise<Page<FileRecord>> {
  const conditions: RawBuilder<unknown>[] = [visibleTo(auth)];
  if (filters.originalFilename)
    conditions.push(sql`original_filename ilike ${escapeLike(filters.originalFilename)}`);
  if (filters.contentType) conditions.push(sql`content_type ilike ${escapeLike(filters.contentType)}`);
  if (filters.ownerName) conditions.push(sql`owner_name ilike ${escapeLike(filters.ownerName)}`);
  if (filters.fileType) conditions.push(sql`file_type = ${filters.fileType.toLowerCase()}`);
  if (filters.use) conditions.push(sql`file_use = ${filters.use}`);
  const where = sql.join(conditions, sql` and `);
  const terms = (sort.length > 0 ? sort : ['-createdAt']).map((term) => {
    const isDescending = term.startsWith('-');
    const name = SORT_COLUMNS[term.replace(/^-/, '')] ?? 'id';
    return sql`${sql.ref(name)} ${sql.raw(isDescending ? 'desc' : 'asc')}`;
  });
  const order = sql.join([...terms, sql`id desc`]);
  const [count, rows] = await Promise.all([
    sql<{ total: number }>`select count(*)::int as total from sys_file where ${where}`.execute(ctx.db),
    sql<FileRow>`select * from sys_file where ${where} order by ${order}
      limit ${pageSize} offset ${(currentPage - 1) * pageSize}`.execute(ctx.db),
  ]);
  return {
    records: rows.rows.map(recordOf),
    total: count.rows[0]?.total ?? 0,
    totalExact: true,
    currentPage,
    pageSize,
  };
}

/**
 * Deletes the files of those ids that the caller may delete: the rows in one transaction, then
 * their objects. An object whose removal fails after the commit is left over, never a row
 * without its object.
 */
/**
 * Deletes files the caller may delete (their own; any of the tenant's for an administrator). An
 * id of a file they may not delete (another tenant's, someone else's) is a 404 and deletes nothing.
 */
export async function deleteFiles({
  ctx,
  storage,
  auth,
  ids,
  l10n,
}: FilesContext & { ids: number[]; l10n: Localizer }): Promise<{
  deleted: number;
}> {
  if (ids.length === 0) return { deleted: 0 };
  const actor = { userId: auth.userId, username: auth.username, tenantCode: auth.tenantCode };
  const removed = await inTransaction(ctx.db, async (trx) => {
    const rows = await sql<FileRow>`delete from sys_file
      where id in (${sql.join(ids)}) and ${deletableBy(auth)} returning *`.execute(trx);
    assertAllFound({ ids, found: rows.rows.map((row) => row.id), subject: l10n.t('files.title') });
    if (rows.rows.length > 0)
      await sql`delete from sys_netdisc_share where item_type = 'file'
        and item_id in (${sql.join(rows.rows.map((row) => row.id))})`.execute(trx);
    await writeAudit({
      trx,
      actor,
      entries: rows.rows.map((row) => ({
        entity: AUDIT_ENTITY,
        recordKey: row.id,
        action: 'delete' as const,
        before: { ...recordOf(row) },
        after: null,
      })),
    });
    return rows.rows;
  });
  for (const row of removed) await storage.delete(row.storage_key);
  return { deleted: removed.length };
}
