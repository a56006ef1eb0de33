import type { FastifyRequest } from 'fastify';
import type { ImportJob, ImportResult } from '../../../../engine/api-types.js';
import { answer, flag, object, oneOf } from '../../../lib/route-schema.js';
import type { CrudRequest } from '../services/crud.js';
import { readDetailSheets } from './details.js';
import { IMPORT_CHUNK_ROWS, importRecords } from './import.js';
import { IMPORT_JOB } from './job-schema.js';
import { startImportJob } from './jobs.js';
import { openUploadedSheet } from './read.js';
import { hashFileSecrets } from './secrets.js';
import { IMPORT_RESULT, MAX_IMPORT_ROWS, uploadedFile } from './upload.js';

/**
 * The one import of every entity (the schema files' and the published forms'): the query it takes,
 * its answer, and the handling of a request once the caller's write access is known.
 */

export const IMPORT_QUERY = object({
  dryRun: flag('true: check only, write nothing'),
  mode: oneOf(['all', 'partial'], {
    description:
      'all (default): every row or none; partial: the good rows are written, the bad ones reported',
  }),
  updateByKey: flag(
    'true: a row naming an existing record (by the key column, an export’s first, or the first unique field) updates it',
  ),
  background: flag('true: run as a background job, answered at once (GET /api/import/job?id= follows it)'),
});

export const IMPORT_QUERY_TEXT =
  " mode=partial writes the good rows and reports the bad ones; updateByKey=true updates the record a row names by its key column (an export's first) or its first unique field instead of adding one. background=true answers at once with a job (GET /api/import/job?id=… follows its progress, rows done of total, and its result).";

export const IMPORT_ANSWER = answer({ anyOf: [IMPORT_RESULT, IMPORT_JOB] });

/** Reads the upload and imports it as the query asks: checked, written, or started as a job. */
export async function handleImport(
  request: FastifyRequest<{
    Querystring: { dryRun?: string; mode?: 'all' | 'partial'; updateByKey?: string; background?: string };
  }>,
  crud: CrudRequest,
): Promise<ImportResult | ImportJob> {
  const dryRun = request.query.dryRun === 'true';
  const mode = request.query.mode ?? 'all';
  const updateByKey = request.query.updateByKey === 'true';
  const { bytes, fileName } = await uploadedFile(request);
  if (request.query.background === 'true' && !dryRun)
    return startImportJob({ crud, bytes, fileName, mode, updateByKey, log: request.log });
  // Sub-table (x-detail) rows: the sheets after the first, keyed by the master row's label
  // (read before the first sheet is opened: each reading takes a thread of its own).
  const details = await readDetailSheets({ crud, bytes, maxRows: MAX_IMPORT_ROWS });
  // Passwords are hashed before the import's transaction opens (secrets.ts). On PGlite the file is
  // read through before it as well: a transaction there holds the only connection, which must not
  // wait while a file past its budgets is read (PostgreSQL's other connections do not wait).
  const readThrough = request.server.ctx.dbKind === 'pglite';
  const hashed = dryRun ? undefined : (await hashFileSecrets({ crud, bytes, readThrough })).hashed;
  const sheet = await openUploadedSheet({ bytes, maxRows: MAX_IMPORT_ROWS, chunkRows: IMPORT_CHUNK_ROWS });
  return importRecords({
    crud,
    sheet,
    dryRun,
    mode,
    updateByKey,
    ...(details ? { details } : {}),
    ...(hashed ? { hashed } : {}),
  });
}
