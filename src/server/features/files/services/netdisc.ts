import { sql, type RawBuilder } from 'kysely';
import type {
  NetdiscItemType,
  NetdiscTargetType,
  NetdiscItemRef,
  NetdiscFolder,
  NetdiscFile,
  FolderNode,
  FolderListing,
  RecycledItem,
  ShareTarget,
  SharedWithMe,
  QuotaUsage,
  SearchResult,
} from '../../../../engine/api-types.js';
import { writeAudit } from '../../../lib/audit.js';
import type { AuthContext } from '../../../lib/auth.js';
import type { AppContext } from '../../../lib/context.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import type { Db } from '../../../lib/db/types.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import { column, table } from '../../../lib/sql/toolkit.js';
import type { FileStorage } from '../../../lib/storage/index.js';
import { fileSharedWith, sharedFolderIds } from './access.js';
import {
  assertFileNameFree,
  assertOwnFolder,
  expiresAt,
  freeFileName,
  lockOwner,
  netdiscParams,
  toMb,
  usedBytes,
} from './netdisc-rules.js';
import { cleanFileName, IMAGE_TYPES, renamedType } from './rules.js';

/**
 * The netdisc: each user's folder tree of files, a recycle bin kept for the tenant's
 * netdiscRecycleDays, read-only shares with users, roles and organisations, a quota per user
 * (netdiscQuotaMb). Every change is one transaction; objects are removed from the storage only
 * after the rows that referred to them are gone.
 */

export type ItemType = NetdiscItemType;
export const ITEM_TYPES: readonly ItemType[] = ['file', 'folder'];
export type TargetType = NetdiscTargetType;
export const TARGET_TYPES: readonly TargetType[] = ['user', 'role', 'org'];
export type ItemRef = NetdiscItemRef;

export interface NetdiscContext {
  ctx: AppContext;
  storage: FileStorage;
  auth: AuthContext;
  l10n: Localizer;
  /** The clock (tests move it to see the recycle bin expire). */
  now?: Date;
}

interface FolderRow {
  id: number | string;
  name: string;
  parent_id: number | string | null;
  owner_id: number | string;
  deleted_at: Date | string | null;
  created_at: Date | string;
}

interface FileRow {
  id: number | string;
  original_filename: string;
  size_bytes: number | string;
  content_type: string;
  file_type: string;
  folder_id: number | string | null;
  owner_name: string;
  storage_key: string;
  deleted_at: Date | string | null;
  created_at: Date | string;
}

const AUDIT_FOLDER = 'netdiscFolder';
const AUDIT_FILE = 'file';

const toId = (value: number | string | null): number | null => (value === null ? null : Number(value));
const iso = (value: Date | string): string => new Date(value).toISOString();

const folderOf = (row: FolderRow): NetdiscFolder => ({
  id: Number(row.id),
  name: row.name,
  parentId: toId(row.parent_id),
  createdAt: iso(row.created_at),
});

const fileOf = (row: FileRow): NetdiscFile => {
  const sizeBytes = Number(row.size_bytes);
  return {
    id: Number(row.id),
    name: row.original_filename,
    size: Math.round((sizeBytes / 1024) * 100) / 100,
    sizeBytes,
    contentType: row.content_type,
    fileType: row.file_type,
    folderId: toId(row.folder_id),
    ownerName: row.owner_name,
    createdAt: iso(row.created_at),
    url: `/api/file/file/download?id=${Number(row.id)}`,
  };
};

const actorOf = (auth: AuthContext) => ({
  userId: auth.userId,
  username: auth.username,
  tenantCode: auth.tenantCode,
});

const own = (auth: AuthContext): RawBuilder<unknown> =>
  sql`tenant_code = ${auth.tenantCode} and owner_id = ${auth.userId}`;

const ownFile = (auth: AuthContext): RawBuilder<unknown> => sql`${own(auth)} and is_netdisc`;

const escapeLike = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A folder name: cleaned like a file name (no separators, "..", control characters), 1–100 long. */
function folderName(name: string, l10n: Localizer, field = '/name'): string {
  const trimmed = name.trim();
  const cleaned = trimmed === '' ? '' : cleanFileName(trimmed).slice(0, 100);
  if (cleaned === '' || (cleaned === 'file' && trimmed !== 'file'))
    throw new AppError('validation', {}, [{ field, message: l10n.t('netdisc.nameRequired') }]);
  return cleaned;
}

const notFound = (l10n: Localizer, item: ItemRef, field?: string): AppError => {
  const entity = l10n.t(item.type === 'folder' ? 'netdisc.folder' : 'netdisc.file');
  const key = String(item.id);
  return new AppError(
    'notFound',
    { entity, key },
    field ? [{ field, message: l10n.t('errors.notFound', { entity, key }) }] : undefined,
  );
};

/** Refuses (409, naming `field`) a folder name already used by another folder of the same parent. */
async function assertNameFree(
  db: Db,
  auth: AuthContext,
  parentId: number | null,
  name: string,
  l10n: Localizer,
  exceptId?: number,
  field = '/name',
): Promise<void> {
  const parent = parentId === null ? sql`parent_id is null` : sql`parent_id = ${parentId}`;
  const except = exceptId === undefined ? sql`` : sql`and id <> ${exceptId}`;
  const found = await sql`select 1 from sys_netdisc_folder where ${own(auth)} and ${parent}
    and deleted_at is null and lower(name) = lower(${name}) ${except}`.execute(db);
  if (found.rows.length > 0)
    throw new AppError('uniqueClash', { value: name }, [
      { field, message: l10n.t('netdisc.nameTaken', { name }) },
    ]);
}

/** The caller's own folder tree (outside the recycle bin), nested. */
export async function folderTree({ ctx, auth }: NetdiscContext): Promise<FolderNode[]> {
  const rows = await sql<FolderRow>`select * from sys_netdisc_folder
    where ${own(auth)} and deleted_at is null order by lower(name), id`.execute(ctx.db);
  const nodes = new Map<number, FolderNode>();
  for (const row of rows.rows) nodes.set(Number(row.id), { ...folderOf(row), children: [] });
  const roots: FolderNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parentId === null ? undefined : nodes.get(node.parentId);
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

/** Ancestors of a folder, top first, the folder itself last. */
async function pathOf(db: Db, folderId: number): Promise<FolderRow[]> {
  const rows = await sql<FolderRow & { depth: number }>`with recursive up as (
      select f.*, 0 as depth from sys_netdisc_folder f where id = ${folderId}
      union all
      select p.*, up.depth + 1 from sys_netdisc_folder p join up on p.id = up.parent_id where up.depth < 100
    ) select * from up order by depth desc`.execute(db);
  return rows.rows;
}

/**
 * One folder's content: the caller's root (folderId null), a folder of theirs, or a folder shared
 * with them (read-only). Anything else is a 404.
 */
export async function listFolder(
  input: NetdiscContext & { folderId: number | null },
): Promise<FolderListing> {
  const { ctx, auth, l10n, folderId } = input;
  if (folderId === null) {
    const [folders, files] = await Promise.all([
      sql<FolderRow>`select * from sys_netdisc_folder where ${own(auth)} and parent_id is null
        and deleted_at is null order by lower(name), id`.execute(ctx.db),
      sql<FileRow>`select * from sys_file where ${ownFile(auth)} and folder_id is null and deleted_at is null
        order by lower(original_filename), id`.execute(ctx.db),
    ]);
    return {
      folder: null,
      path: [],
      folders: folders.rows.map(folderOf),
      files: files.rows.map(fileOf),
      readOnly: false,
    };
  }
  const found = await sql<FolderRow & { is_shared: boolean }>`select f.*,
      f.id in ${sharedFolderIds(ctx, auth)} as is_shared
    from sys_netdisc_folder f where f.id = ${folderId} and f.tenant_code = ${auth.tenantCode}
      and f.deleted_at is null`.execute(ctx.db);
  const folder = found.rows[0];
  const isOwn = folder !== undefined && Number(folder.owner_id) === auth.userId;
  if (!folder || (!isOwn && !folder.is_shared)) throw notFound(l10n, { type: 'folder', id: folderId });
  const [folders, files, path] = await Promise.all([
    sql<FolderRow>`select * from sys_netdisc_folder where parent_id = ${folderId} and deleted_at is null
      order by lower(name), id`.execute(ctx.db),
    sql<FileRow>`select * from sys_file where is_netdisc and folder_id = ${folderId} and deleted_at is null
      order by lower(original_filename), id`.execute(ctx.db),
    pathOf(ctx.db, folderId),
  ]);
  let shown = path;
  if (!isOwn) {
    // From the topmost folder the caller was given, not above it.
    const visible = await sql<{ id: number | string }>`select id from sys_netdisc_folder
      where id in (${sql.join(path.map((row) => Number(row.id)))}) and id in ${sharedFolderIds(ctx, auth)}`.execute(
      ctx.db,
    );
    const ids = new Set(visible.rows.map((row) => Number(row.id)));
    const first = path.findIndex((row) => ids.has(Number(row.id)));
    shown = path.slice(Math.max(0, first));
  }
  return {
    folder: folderOf(folder),
    path: shown.map((row) => ({ id: Number(row.id), name: row.name })),
    folders: folders.rows.map(folderOf),
    files: files.rows.map(fileOf),
    readOnly: !isOwn,
  };
}

/** A new folder of the caller's, at their root or in a folder of theirs. */
export async function createFolder(
  input: NetdiscContext & { name: string; parentId: number | null },
): Promise<NetdiscFolder> {
  const { ctx, auth, l10n, parentId } = input;
  const name = folderName(input.name, l10n);
  const row = await inTransaction(ctx.db, async (trx) => {
    await lockOwner(trx, auth);
    if (parentId !== null)
      await assertOwnFolder({ db: trx, auth, folderId: parentId, l10n, field: '/parentId' });
    await assertNameFree(trx, auth, parentId, name, l10n);
    const inserted =
      await sql<FolderRow>`insert into sys_netdisc_folder (tenant_code, owner_id, parent_id, name)
      values (${auth.tenantCode}, ${auth.userId}, ${parentId}, ${name}) returning *`.execute(trx);
    const created = inserted.rows[0];
    if (!created) throw new Error('insert into sys_netdisc_folder returned no row');
    await auditItems(trx, auth, [{ type: 'folder', id: Number(created.id) }], 'add', null, {
      name,
      parentId,
    });
    return created;
  });
  return folderOf(row);
}

/** Renames a file or folder of the caller's (outside the recycle bin). */
export async function renameItem(input: NetdiscContext & { item: ItemRef; name: string }): Promise<void> {
  const { ctx, auth, l10n, item } = input;
  await inTransaction(ctx.db, async (trx) => {
    await lockOwner(trx, auth);
    if (item.type === 'folder') {
      const name = folderName(input.name, l10n);
      const found =
        await sql<FolderRow>`select * from sys_netdisc_folder where id = ${item.id} and ${own(auth)}
        and deleted_at is null`.execute(trx);
      const folder = found.rows[0];
      if (!folder) throw notFound(l10n, item);
      await assertNameFree(trx, auth, toId(folder.parent_id), name, l10n, item.id);
      await sql`update sys_netdisc_folder set name = ${name} where id = ${item.id}`.execute(trx);
      await auditItems(trx, auth, [item], 'update', { name: folder.name }, { name });
      return;
    }
    if (input.name.trim() === '')
      throw new AppError('validation', {}, [{ field: '/name', message: l10n.t('netdisc.nameRequired') }]);
    const name = cleanFileName(input.name.trim());
    const found = await sql<FileRow & { file_use: string }>`select * from sys_file
      where id = ${item.id} and ${ownFile(auth)} and deleted_at is null`.execute(trx);
    const file = found.rows[0];
    if (!file) throw notFound(l10n, item);
    const folderId = toId(file.folder_id);
    await assertFileNameFree({ db: trx, auth, folderId, name, l10n, field: '/name', exceptId: item.id });
    // A new extension may change the type (txt → md, jpg → jpeg); the bytes' own type stays.
    const allowed = file.file_use === 'image' ? IMAGE_TYPES : ctx.config.files.attachmentTypes;
    const type = renamedType({ fileType: file.file_type, contentType: file.content_type }, name, allowed);
    await sql`update sys_file set original_filename = ${name}, file_type = ${type.fileType},
      content_type = ${type.contentType} where id = ${item.id}`.execute(trx);
    await auditItems(
      trx,
      auth,
      [item],
      'update',
      { originalFilename: file.original_filename, fileType: file.file_type },
      { originalFilename: name, fileType: type.fileType },
    );
  });
}

/** One audit row per file or folder a netdisc call changed, in the call's transaction. */
function auditItems(
  trx: Db,
  auth: AuthContext,
  items: readonly ItemRef[],
  action: 'add' | 'update' | 'delete',
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): Promise<void> {
  return writeAudit({
    trx,
    actor: actorOf(auth),
    entries: items.map((item) => ({
      entity: item.type === 'folder' ? AUDIT_FOLDER : AUDIT_FILE,
      recordKey: item.id,
      action,
      before,
      after,
    })),
  });
}

/** Ids of a folder and every folder below it (those in the recycle bin too). */
async function subtreeIds(db: Db, folderId: number): Promise<number[]> {
  const rows = await sql<{ id: number | string }>`with recursive down(id) as (
      select ${folderId}::bigint
      union
      select f.id from sys_netdisc_folder f join down on f.parent_id = down.id
    ) select id from down`.execute(db);
  return rows.rows.map((row) => Number(row.id));
}

/**
 * Moves files and folders of the caller's into a folder of theirs or their root. A folder moved
 * into itself or below itself is refused (naming targetFolderId), as is a folder name already
 * used at the target. All or nothing.
 */
export async function moveItems(
  input: NetdiscContext & { items: ItemRef[]; targetFolderId: number | null },
): Promise<{ moved: number }> {
  const { ctx, auth, l10n, items, targetFolderId } = input;
  return inTransaction(ctx.db, async (trx) => {
    await lockOwner(trx, auth);
    if (targetFolderId !== null)
      await assertOwnFolder({ db: trx, auth, folderId: targetFolderId, l10n, field: '/targetFolderId' });
    for (const [index, item] of items.entries()) {
      if (item.type === 'folder') {
        const found =
          await sql<FolderRow>`select * from sys_netdisc_folder where id = ${item.id} and ${own(auth)}
          and deleted_at is null`.execute(trx);
        const folder = found.rows[0];
        if (!folder) throw notFound(l10n, item, '/items');
        if (targetFolderId !== null && (await subtreeIds(trx, item.id)).includes(targetFolderId))
          throw new AppError('validation', {}, [
            { field: '/targetFolderId', message: l10n.t('netdisc.moveIntoSelf') },
          ]);
        await assertNameFree(trx, auth, targetFolderId, folder.name, l10n, item.id, `/items/${index}`);
        await sql`update sys_netdisc_folder set parent_id = ${targetFolderId} where id = ${item.id}`.execute(
          trx,
        );
      } else {
        const found = await sql<FileRow>`select * from sys_file where id = ${item.id} and ${ownFile(auth)}
          and deleted_at is null`.execute(trx);
        const file = found.rows[0];
        if (!file) throw notFound(l10n, item, '/items');
        await assertFileNameFree({
          db: trx,
          auth,
          folderId: targetFolderId,
          name: file.original_filename,
          l10n,
          field: `/items/${index}`,
          exceptId: item.id,
        });
        await sql`update sys_file set folder_id = ${targetFolderId} where id = ${item.id}`.execute(trx);
      }
    }
    await auditItems(trx, auth, items, 'update', null, { moveTo: targetFolderId });
    return { moved: items.length };
  });
}

/**
 * Moves files and folders of the caller's to the recycle bin: the item is the one the user
 * deleted (trash_root); a folder takes what it holds with it, at the same time.
 */
export async function trashItems(input: NetdiscContext & { items: ItemRef[] }): Promise<{ deleted: number }> {
  const { ctx, auth, l10n, items } = input;
  const now = input.now ?? new Date();
  return inTransaction(ctx.db, async (trx) => {
    await lockOwner(trx, auth);
    for (const item of items) {
      if (item.type === 'folder') {
        const found = await sql`select 1 from sys_netdisc_folder where id = ${item.id} and ${own(auth)}
          and deleted_at is null`.execute(trx);
        if (found.rows.length === 0) throw notFound(l10n, item, '/items');
        const ids = await subtreeIds(trx, item.id);
        await sql`update sys_netdisc_folder set deleted_at = ${now}, trash_root = (id = ${item.id})
          where id in (${sql.join(ids)}) and deleted_at is null`.execute(trx);
        await sql`update sys_file set deleted_at = ${now}, trash_root = false
          where is_netdisc and folder_id in (${sql.join(ids)}) and deleted_at is null`.execute(trx);
      } else {
        const updated = await sql`update sys_file set deleted_at = ${now}, trash_root = true
          where id = ${item.id} and ${ownFile(auth)} and deleted_at is null returning id`.execute(trx);
        if (updated.rows.length === 0) throw notFound(l10n, item, '/items');
      }
    }
    await auditItems(trx, auth, items, 'update', null, { recycleBin: true });
    return { deleted: items.length };
  });
}

/** What went into the recycle bin with a root: the folders and files deleted with it. */
async function batchOf(
  db: Db,
  root: ItemRef,
  deletedAt: Date,
): Promise<{ folderIds: number[]; fileIds: number[] }> {
  if (root.type === 'file') return { folderIds: [], fileIds: [root.id] };
  const folders = await sql<{ id: number | string }>`with recursive down(id) as (
      select ${root.id}::bigint
      union
      select f.id from sys_netdisc_folder f join down on f.parent_id = down.id
        where f.deleted_at = ${deletedAt} and not f.trash_root
    ) select id from down`.execute(db);
  const folderIds = folders.rows.map((row) => Number(row.id));
  const files = await sql<{ id: number | string }>`select id from sys_file where is_netdisc
    and folder_id in (${sql.join(folderIds)}) and deleted_at = ${deletedAt} and not trash_root`.execute(db);
  return { folderIds, fileIds: files.rows.map((row) => Number(row.id)) };
}

interface RootRow {
  type: ItemType;
  id: number | string;
  name: string;
  deleted_at: Date | string;
  size_bytes: number | string | null;
}

/** The recycle bin's roots of the caller, or of everyone of a tenant (owner undefined). */
function rootsQuery(tenantCode: string, ownerId: number | undefined, olderThan?: Date): RawBuilder<RootRow> {
  const owner = ownerId === undefined ? sql`` : sql`and owner_id = ${ownerId}`;
  const before = olderThan === undefined ? sql`` : sql`and deleted_at < ${olderThan}`;
  return sql<RootRow>`select 'folder' as type, id, name, deleted_at, null as size_bytes from sys_netdisc_folder
      where tenant_code = ${tenantCode} ${owner} and trash_root and deleted_at is not null ${before}
    union all
    select 'file' as type, id, original_filename as name, deleted_at, size_bytes from sys_file
      where tenant_code = ${tenantCode} ${owner} and is_netdisc and trash_root and deleted_at is not null ${before}`;
}

/** The caller's recycle bin, newest first; what has passed its days is purged first. */
export async function recycleBin(input: NetdiscContext): Promise<RecycledItem[]> {
  const { ctx, auth } = input;
  const now = input.now ?? new Date();
  await purgeExpired({ ctx, storage: input.storage, now, tenantCode: auth.tenantCode });
  const { recycleDays } = await netdiscParams({ ctx, db: ctx.db, tenantCode: auth.tenantCode });
  const roots =
    await sql<RootRow>`${rootsQuery(auth.tenantCode, auth.userId)} order by deleted_at desc, id desc`.execute(
      ctx.db,
    );
  const items: RecycledItem[] = [];
  for (const row of roots.rows) {
    const deletedAt = new Date(row.deleted_at);
    let sizeBytes = Number(row.size_bytes ?? 0);
    if (row.type === 'folder') {
      const { fileIds } = await batchOf(ctx.db, { type: 'folder', id: Number(row.id) }, deletedAt);
      if (fileIds.length > 0) {
        const sum = await sql<{ total: number | string }>`select coalesce(sum(size_bytes), 0) as total
          from sys_file where id in (${sql.join(fileIds)})`.execute(ctx.db);
        sizeBytes = Number(sum.rows[0]?.total ?? 0);
      }
    }
    items.push({
      type: row.type,
      id: Number(row.id),
      name: row.name,
      sizeBytes,
      deletedAt: deletedAt.toISOString(),
      expiresAt: expiresAt(deletedAt, recycleDays).toISOString(),
    });
  }
  return items;
}

/** A recycle-bin root of the caller's; a 404 naming the items otherwise. */
async function ownRoot(db: Db, auth: AuthContext, item: ItemRef, l10n: Localizer): Promise<Date> {
  const found =
    item.type === 'folder'
      ? await sql<{
          deleted_at: Date | string;
        }>`select deleted_at from sys_netdisc_folder where id = ${item.id}
          and ${own(auth)} and trash_root and deleted_at is not null`.execute(db)
      : await sql<{ deleted_at: Date | string }>`select deleted_at from sys_file where id = ${item.id}
          and ${ownFile(auth)} and trash_root and deleted_at is not null`.execute(db);
  const row = found.rows[0];
  if (!row)
    throw new AppError('notFound', { entity: l10n.t('netdisc.title'), key: String(item.id) }, [
      { field: '/items', message: l10n.t('netdisc.notInRecycleBin', { type: item.type, id: item.id }) },
    ]);
  return new Date(row.deleted_at);
}

/**
 * Restores recycle-bin items of the caller's with what went with them. An item whose folder is
 * gone or itself in the recycle bin comes back at the caller's root.
 */
export async function restoreItems(
  input: NetdiscContext & { items: ItemRef[] },
): Promise<{ restored: number }> {
  const { ctx, auth, l10n, items } = input;
  return inTransaction(ctx.db, async (trx) => {
    await lockOwner(trx, auth);
    for (const item of items) {
      const deletedAt = await ownRoot(trx, auth, item, l10n);
      const { folderIds, fileIds } = await batchOf(trx, item, deletedAt);
      const parentLive = sql`exists (select 1 from sys_netdisc_folder p where p.deleted_at is null and p.id =`;
      if (item.type === 'folder') {
        await sql`update sys_netdisc_folder set parent_id = case when parent_id is null or ${parentLive} parent_id)
            then parent_id else null end where id = ${item.id}`.execute(trx);
        await sql`update sys_netdisc_folder set deleted_at = null, trash_root = false
          where id in (${sql.join(folderIds)})`.execute(trx);
      } else {
        const placed = await sql<FileRow>`update sys_file set folder_id = case when folder_id is null
            or ${parentLive} folder_id) then folder_id else null end where id = ${item.id} returning *`.execute(
          trx,
        );
        const file = placed.rows[0];
        if (file) {
          // A file of that name added meanwhile: the restored one comes back as "name (1).ext".
          const name = await freeFileName({
            db: trx,
            auth,
            folderId: toId(file.folder_id),
            name: file.original_filename,
            exceptId: item.id,
          });
          if (name !== file.original_filename)
            await sql`update sys_file set original_filename = ${name} where id = ${item.id}`.execute(trx);
        }
      }
      if (fileIds.length > 0)
        await sql`update sys_file set deleted_at = null, trash_root = false where id in (${sql.join(fileIds)})`.execute(
          trx,
        );
    }
    await auditItems(trx, auth, items, 'update', { recycleBin: true }, { recycleBin: false });
    return { restored: items.length };
  });
}

/** Removes the rows of recycle-bin roots (and what went with them); the storage keys to remove. */
async function purgeRows(trx: Db, roots: { item: ItemRef; deletedAt: Date }[]): Promise<string[]> {
  const keys: string[] = [];
  for (const { item, deletedAt } of roots) {
    const { folderIds, fileIds } = await batchOf(trx, item, deletedAt);
    if (fileIds.length > 0) {
      const removed = await sql<{
        storage_key: string;
      }>`delete from sys_file where id in (${sql.join(fileIds)})
        returning storage_key`.execute(trx);
      keys.push(...removed.rows.map((row) => row.storage_key));
      await sql`delete from sys_netdisc_share where item_type = 'file' and item_id in (${sql.join(fileIds)})`.execute(
        trx,
      );
    }
    if (folderIds.length > 0) {
      // Folders deleted earlier on their own below this one come back at the root if restored.
      await sql`delete from sys_netdisc_folder where id in (${sql.join(folderIds)})`.execute(trx);
      await sql`delete from sys_netdisc_share where item_type = 'folder' and item_id in (${sql.join(folderIds)})`.execute(
        trx,
      );
    }
  }
  return keys;
}

async function removeObjects(storage: FileStorage, keys: string[]): Promise<void> {
  for (const key of keys) await storage.delete(key);
}

/** Purges recycle-bin items of the caller's for good: rows first, then the stored bytes. */
export async function purgeItems(input: NetdiscContext & { items: ItemRef[] }): Promise<{ purged: number }> {
  const { ctx, auth, l10n, items, storage } = input;
  const keys = await inTransaction(ctx.db, async (trx) => {
    await lockOwner(trx, auth);
    const roots = [];
    for (const item of items) roots.push({ item, deletedAt: await ownRoot(trx, auth, item, l10n) });
    const removed = await purgeRows(trx, roots);
    await auditItems(trx, auth, items, 'delete', { recycleBin: true }, null);
    return removed;
  });
  await removeObjects(storage, keys);
  return { purged: items.length };
}

/**
 * Purges what has been in the recycle bin longer than its tenant's netdiscRecycleDays at `now`:
 * one tenant's, or every tenant's. Returns how many recycle-bin items went.
 */
export async function purgeExpired({
  ctx,
  storage,
  now,
  tenantCode,
}: {
  ctx: AppContext;
  storage: FileStorage;
  now: Date;
  tenantCode?: string;
}): Promise<number> {
  const tenants =
    tenantCode !== undefined
      ? [tenantCode]
      : (
          await sql<{
            tenant_code: string;
          }>`select distinct tenant_code from sys_netdisc_folder where trash_root
            union select distinct tenant_code from sys_file where trash_root`.execute(ctx.db)
        ).rows.map((row) => row.tenant_code);
  let purged = 0;
  for (const tenant of tenants) {
    const { recycleDays } = await netdiscParams({ ctx, db: ctx.db, tenantCode: tenant });
    const cutoff = new Date(now.getTime() - recycleDays * 24 * 60 * 60 * 1000);
    const keys = await inTransaction(ctx.db, async (trx) => {
      const roots = await sql<RootRow>`${rootsQuery(tenant, undefined, cutoff)}`.execute(trx);
      purged += roots.rows.length;
      return purgeRows(
        trx,
        roots.rows.map((row) => ({
          item: { type: row.type, id: Number(row.id) },
          deletedAt: new Date(row.deleted_at),
        })),
      );
    });
    await removeObjects(storage, keys);
  }
  return purged;
}

/** Names of share targets of the tenant; a target that does not exist is undefined. */
async function targetNames(
  ctx: AppContext,
  db: Db,
  tenantCode: string,
  targets: { type: TargetType; id: number }[],
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const lookups: [TargetType, string, string][] = [
    ['user', 'sysuser', 'username'],
    ['role', 'sysrole', 'roleName'],
    ['org', 'sysorg', 'orgName'],
  ];
  for (const [type, entityName, labelName] of lookups) {
    const ids = targets.filter((target) => target.type === type).map((target) => target.id);
    if (ids.length === 0) continue;
    const entity = ctx.registry.require(entityName);
    const label = entity.fieldsByName.get(labelName);
    const labelSql = label ? column(label) : sql.ref('id');
    const tenant = entity.isTenantScoped ? sql`and tenant_code = ${tenantCode}` : sql``;
    const rows = await sql<{ id: number | string; name: string | null }>`select id, ${labelSql} as name
      from ${table(entity)} where id in (${sql.join(ids)}) ${tenant}`.execute(db);
    for (const row of rows.rows) names.set(`${type}:${Number(row.id)}`, String(row.name ?? row.id));
  }
  return names;
}

/** An item of the caller's outside the recycle bin, or a 404. */
async function assertOwnItem(db: Db, auth: AuthContext, item: ItemRef, l10n: Localizer): Promise<void> {
  const found =
    item.type === 'folder'
      ? await sql`select 1 from sys_netdisc_folder where id = ${item.id} and ${own(auth)} and deleted_at is null`.execute(
          db,
        )
      : await sql`select 1 from sys_file where id = ${item.id} and ${ownFile(auth)} and deleted_at is null`.execute(
          db,
        );
  if (found.rows.length === 0) throw notFound(l10n, item);
}

/** Who an item of the caller's is shared with. */
export async function sharesOf(input: NetdiscContext & { item: ItemRef }): Promise<ShareTarget[]> {
  const { ctx, auth, l10n, item } = input;
  await assertOwnItem(ctx.db, auth, item, l10n);
  const rows = await sql<{
    target_type: TargetType;
    target_id: number | string;
  }>`select target_type, target_id
    from sys_netdisc_share where tenant_code = ${auth.tenantCode} and item_type = ${item.type}
      and item_id = ${item.id} order by target_type, target_id`.execute(ctx.db);
  const targets = rows.rows.map((row) => ({ type: row.target_type, id: Number(row.target_id) }));
  const names = await targetNames(ctx, ctx.db, auth.tenantCode, targets);
  return targets.map((target) => ({ ...target, name: names.get(`${target.type}:${target.id}`) ?? '' }));
}

/**
 * Shares an item of the caller's read-only with exactly these users, roles and organisations of
 * their tenant (an empty list stops sharing). A target that does not exist is refused by name.
 */
export async function shareItem(
  input: NetdiscContext & { item: ItemRef; targets: { type: TargetType; id: number }[] },
): Promise<ShareTarget[]> {
  const { ctx, auth, l10n, item } = input;
  const unique = new Map(input.targets.map((target) => [`${target.type}:${target.id}`, target]));
  const targets = [...unique.values()];
  await inTransaction(ctx.db, async (trx) => {
    await assertOwnItem(trx, auth, item, l10n);
    const names = await targetNames(ctx, trx, auth.tenantCode, targets);
    const missing = targets.findIndex((target) => !names.has(`${target.type}:${target.id}`));
    const absent = targets[missing];
    if (absent)
      throw new AppError('validation', {}, [
        {
          field: `/targets/${missing}`,
          message: l10n.t('netdisc.targetNotFound', { type: absent.type, id: absent.id }),
        },
      ]);
    await sql`delete from sys_netdisc_share where tenant_code = ${auth.tenantCode} and item_type = ${item.type}
      and item_id = ${item.id}`.execute(trx);
    for (const target of targets)
      await sql`insert into sys_netdisc_share (tenant_code, item_type, item_id, target_type, target_id)
        values (${auth.tenantCode}, ${item.type}, ${item.id}, ${target.type}, ${target.id})`.execute(trx);
    await auditItems(trx, auth, [item], 'update', null, { sharedWith: targets });
  });
  return sharesOf(input);
}

/** What others shared with the caller directly (folders to open, files to download). */
export async function sharedWithMe({ ctx, auth }: NetdiscContext): Promise<SharedWithMe> {
  const user = ctx.registry.require('sysuser');
  const username = user.fieldsByName.get('username');
  const ownerName = username
    ? sql`(select ${column(username)} from ${table(user)} u where u.id = f.owner_id)`
    : sql`''`;
  const [folders, files] = await Promise.all([
    sql<
      FolderRow & { owner_name: string | null }
    >`select f.*, ${ownerName} as owner_name from sys_netdisc_folder f
      where f.id in ${sharedFolderIds(ctx, auth)} and f.owner_id <> ${auth.userId}
        and (f.parent_id is null or f.parent_id not in ${sharedFolderIds(ctx, auth)})
      order by lower(f.name), f.id`.execute(ctx.db),
    sql<FileRow>`select * from sys_file where ${fileSharedWith(ctx, auth)} and owner_id <> ${auth.userId}
        and (folder_id is null or folder_id not in ${sharedFolderIds(ctx, auth)})
      order by lower(original_filename), id`.execute(ctx.db),
  ]);
  return {
    folders: folders.rows.map((row) => ({ ...folderOf(row), ownerName: row.owner_name ?? '' })),
    files: files.rows.map(fileOf),
  };
}

/** The caller's netdisc usage against the tenant's quota per user. */
export async function quotaOf({ ctx, auth }: NetdiscContext): Promise<QuotaUsage> {
  const [params, used] = await Promise.all([
    netdiscParams({ ctx, db: ctx.db, tenantCode: auth.tenantCode }),
    usedBytes(ctx.db, auth),
  ]);
  return {
    usedBytes: used,
    quotaBytes: params.quotaBytes,
    usedMb: toMb(used),
    quotaMb: toMb(params.quotaBytes),
  };
}

/** Folders and files whose name contains the text: the caller's and those shared with them. */
export async function searchNetdisc(input: NetdiscContext & { name: string }): Promise<SearchResult> {
  const { ctx, auth } = input;
  const pattern = escapeLike(input.name.trim());
  const limit = 200;
  const [folders, files] = await Promise.all([
    sql<FolderRow>`select * from sys_netdisc_folder where tenant_code = ${auth.tenantCode} and deleted_at is null
      and (owner_id = ${auth.userId} or id in ${sharedFolderIds(ctx, auth)}) and name ilike ${pattern}
      order by lower(name), id limit ${limit}`.execute(ctx.db),
    sql<
      FileRow & { owner_id: number | string }
    >`select * from sys_file where deleted_at is null and is_netdisc
      and ((${ownFile(auth)}) or ${fileSharedWith(ctx, auth)}) and original_filename ilike ${pattern}
      order by lower(original_filename), id limit ${limit}`.execute(ctx.db),
  ]);
  return {
    folders: folders.rows.map((row) => ({
      ...folderOf(row),
      readOnly: Number(row.owner_id) !== auth.userId,
    })),
    files: files.rows.map((row) => ({ ...fileOf(row), readOnly: Number(row.owner_id) !== auth.userId })),
  };
}
