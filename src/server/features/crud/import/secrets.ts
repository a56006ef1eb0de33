import { hashSecretsConcurrently } from '../../../lib/passwords.js';
import type { CrudRequest } from '../services/crud.js';
import { IMPORT_CHUNK_ROWS, secretColumns, type HashedSecrets } from './import.js';
import { openUploadedSheet, surveyUploadedSheet, uploadedHeader } from './read.js';
import { MAX_IMPORT_ROWS } from './upload.js';

/**
 * The passwords of an import, hashed before its transaction opens: hashing is the slow part of an
 * import of users (scrypt, ~50 ms of a core each), and on the embedded database a transaction
 * holds the one connection, so every other request would wait for the hashing. The file is read
 * once more for its secret columns; each chunk's secrets are hashed concurrently, off the event
 * loop (lib/passwords.ts). The import takes a hash when the row's value is still the text hashed.
 */

export interface HashedFile {
  /** The hashes of the file's secret cells; none when its header names no secret column. */
  hashed?: HashedSecrets;
}

/**
 * Reads the file's first sheet and hashes its secret cells; `onProgress` gets the rows done so
 * far. A file whose header names no secret column is read through only with `readThrough`, which
 * finds a file past its budgets before a transaction opens (its rows counted, not handed over);
 * otherwise the import reads it once, in its transaction, within the same budgets (an .xlsx read
 * twice cost 0.9 s of every 100,000 rows on PostgreSQL).
 */
export async function hashFileSecrets({
  crud,
  bytes,
  readThrough = false,
  onProgress,
}: {
  crud: CrudRequest;
  bytes: Buffer;
  /** Read the whole sheet even when it holds no secret (its budgets checked before the transaction). */
  readThrough?: boolean;
  onProgress?: (rows: number) => void;
}): Promise<HashedFile> {
  // Read through for its budgets, or to its header only: an .xlsx's rows stay in its reading thread.
  // (With secret columns the hashing reads the file once more: a file of passwords is hashed at
  // ~50 ms a row, against which a second reading is nothing; without, it is read once here.)
  const survey = readThrough
    ? await surveyUploadedSheet({ bytes, maxRows: MAX_IMPORT_ROWS })
    : { header: await uploadedHeader(bytes) };
  const columns = secretColumns(crud, survey.header);
  if (columns.length === 0) {
    if ('rows' in survey) onProgress?.(survey.rows);
    return {};
  }
  const sheet = await openUploadedSheet({ bytes, maxRows: MAX_IMPORT_ROWS, chunkRows: IMPORT_CHUNK_ROWS });
  let rows = 0;
  const hashed: HashedSecrets = new Map();
  for await (const chunk of sheet.chunks) {
    // Hashed in slices, so that progress moves while a chunk's passwords are hashed.
    for (let start = 0; start < chunk.length; start += 100) {
      const slice = chunk.slice(start, start + 100);
      for (const { index, field } of columns) {
        const holders = slice.filter(({ cells }) => (cells[index] ?? '') !== '');
        const hashes = await hashSecretsConcurrently(holders.map(({ cells }) => cells[index] ?? ''));
        holders.forEach(({ row, cells }, at) => {
          let byField = hashed.get(row);
          if (!byField) hashed.set(row, (byField = new Map()));
          byField.set(field.name, { text: cells[index] ?? '', hash: hashes[at] ?? '' });
        });
      }
      rows += slice.length;
      onProgress?.(rows);
    }
  }
  return { hashed };
}
