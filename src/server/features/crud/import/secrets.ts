import { hashSecretsConcurrently } from '../../../lib/passwords.js';
import type { CrudRequest } from '../services/crud.js';
import { IMPORT_CHUNK_ROWS, secretColumns, type HashedSecrets } from './import.js';
import { openUploadedSheet } from './read.js';
import { MAX_IMPORT_ROWS } from './upload.js';

/**
 * The passwords of an import, hashed before its transaction opens: hashing is the slow part of an
 * import of users (scrypt, ~50 ms of a core each), and on the embedded database a transaction
 * holds the one connection, so every other request would wait for the hashing. The file is read
 * once more for its secret columns; each chunk's secrets are hashed concurrently, off the event
 * loop (lib/passwords.ts). The import takes a hash when the row's value is still the text hashed.
 */

export interface HashedFile {
  /** Data rows of the file (every row, whether or not it holds a secret). */
  rows: number;
  hashed?: HashedSecrets;
}

/**
 * Reads the file's first sheet, counting its rows and hashing its secret cells; `onProgress`
 * gets the rows done so far and the total read so far (hashing: rows whose secrets are hashed).
 */
export async function hashFileSecrets({
  crud,
  bytes,
  onProgress,
}: {
  crud: CrudRequest;
  bytes: Buffer;
  onProgress?: (rows: number) => void;
}): Promise<HashedFile> {
  const sheet = await openUploadedSheet({ bytes, maxRows: MAX_IMPORT_ROWS, chunkRows: IMPORT_CHUNK_ROWS });
  const columns = secretColumns(crud, sheet.header);
  let rows = 0;
  if (columns.length === 0) {
    for await (const chunk of sheet.chunks) rows += chunk.length;
    return { rows };
  }
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
  return { rows, hashed };
}
