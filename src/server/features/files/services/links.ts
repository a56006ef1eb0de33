import type { Readable } from 'node:stream';
import { sql, type RawBuilder } from 'kysely';
import type { FileLink } from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import type { FileStorage } from '../../../lib/storage/index.js';
import { isAdmin } from '../../rbac/index.js';

/**
 * Links to files for pages that cannot send the caller's token: an <img> in a notice, a
 * thumbnail in a list, a carousel picture on the public portal. A picture (an upload of use
 * image) has a public address that names its id and the start of its sha256, so that only
 * someone who was shown the address can fetch it (ids alone cannot be walked). Attachments have
 * none: they are downloaded with the caller's token.
 */

/** Hex digits of the sha256 in a picture's public address (64 bits). */
const HASH_DIGITS = 16;

interface LinkRow {
  id: number;
  original_filename: string;
  size_bytes: number;
  content_type: string;
  file_type: string;
  file_use: string;
  sha256: string;
}

export const pictureUrlOf = (id: number, sha256: string): string =>
  `/api/file/file/picture?id=${id}&h=${sha256.slice(0, HASH_DIGITS)}`;

/**
 * Which files a caller may reach (as download, query and file fields have it): those of their
 * tenant that they uploaded, pictures, and for the tenant's administrators every file.
 */
export function visibleFiles(caller: {
  tenantCode: string;
  userId: number | null;
  roles: readonly string[];
}): RawBuilder<unknown> {
  const tenant = sql`tenant_code = ${caller.tenantCode}`;
  if (isAdmin(caller.roles)) return tenant;
  return sql`${tenant} and (owner_id = ${caller.userId} or file_use = 'image')`;
}

/** The files of those ids the caller may reach, in the order asked; unknown ones are left out. */
export async function fileLinks({
  ctx,
  caller,
  ids,
}: {
  ctx: AppContext;
  caller: { tenantCode: string; userId: number; roles: readonly string[] };
  ids: number[];
}): Promise<FileLink[]> {
  if (ids.length === 0) return [];
  const found = await sql<LinkRow>`select id, original_filename, size_bytes, content_type, file_type,
      file_use, sha256 from sys_file where id in (${sql.join(ids)}) and ${visibleFiles(caller)}`.execute(
    ctx.db,
  );
  const byId = new Map(found.rows.map((row) => [Number(row.id), row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    const isPicture = row.file_use === 'image';
    return [
      {
        id,
        originalFilename: row.original_filename,
        size: Math.round((Number(row.size_bytes) / 1024) * 100) / 100,
        fileType: row.file_type,
        contentType: row.content_type,
        use: isPicture ? 'image' : 'attachment',
        url: `/api/file/file/download?id=${id}`,
        ...(isPicture ? { pictureUrl: pictureUrlOf(id, row.sha256) } : {}),
      },
    ];
  });
}

export interface PublicPicture {
  contentType: string;
  sha256: string;
  size: number;
  open(): Promise<Readable>;
}

/** A picture by its public address; anything else (wrong hash, an attachment, gone) is a 404. */
export async function publicPicture({
  ctx,
  storage,
  id,
  hash,
  l10n,
}: {
  ctx: AppContext;
  storage: FileStorage;
  id: number;
  /** The first 16 hex digits of the picture's sha256, as its address names them. */
  hash: string;
  l10n: Localizer;
}): Promise<PublicPicture> {
  const notFound = (): AppError =>
    new AppError('notFound', { entity: l10n.t('files.title'), key: String(id) });
  if (!/^[0-9a-f]{16}$/.test(hash)) throw notFound();
  const found = await sql<{ content_type: string; sha256: string; size_bytes: number; storage_key: string }>`
    select content_type, sha256, size_bytes, storage_key from sys_file
    where id = ${id} and file_use = 'image' and left(sha256, ${HASH_DIGITS}) = ${hash}`.execute(ctx.db);
  const row = found.rows[0];
  if (!row) throw notFound();
  return {
    contentType: row.content_type,
    sha256: row.sha256,
    size: Number(row.size_bytes),
    open: async () => {
      const stream = await storage.get(row.storage_key);
      if (!stream) throw notFound();
      return stream;
    },
  };
}
