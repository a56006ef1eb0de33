import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BUDGETS } from '../../../lib/budgets.js';
import { AppError } from '../../../lib/errors.js';
import { localizerFor } from '../../../lib/i18n.js';
import { boundaryOf, MultipartError, MultipartLimitError, MultipartReader } from '../../../lib/multipart.js';
import { requestChunks } from '../../../lib/storage/chunks.js';
import { object } from '../../../lib/route-schema.js';

/** What the import routes of entities and of published forms share: the upload and the answer. */

/** An import file: 200 000 rows of a wide entity still fit (BUDGETS.import). */
export const MAX_IMPORT_BYTES = BUDGETS.import.fileBytes;
export const MAX_IMPORT_ROWS = BUDGETS.import.rows;

const PROBLEM = object(
  {
    sheet: { type: 'string', description: 'the sheet of a sub-table row (absent: the first sheet)' },
    row: { type: 'integer', description: 'spreadsheet row (1 = the header row)' },
    field: { type: 'string', description: 'field name, or the header text of an unknown column' },
    message: { type: 'string' },
  },
  ['row', 'field', 'message'],
);

export const IMPORT_RESULT = object(
  {
    dryRun: { type: 'boolean' },
    total: { type: 'integer' },
    imported: { type: 'integer' },
    updated: {
      type: 'integer',
      description: 'updateByKey: of the rows written, those that updated a record',
    },
    skipped: { type: 'integer', description: 'mode=partial: rows left out for their problems' },
    problems: { type: 'array', items: PROBLEM },
    problemCount: { type: 'integer' },
    columns: {
      type: 'array',
      items: object(
        {
          header: { type: 'string', description: 'the header text of the column' },
          field: { type: 'string', description: 'the field it fills' },
          title: { type: 'string', description: "the field's title in the caller's language" },
        },
        ['header', 'field', 'title'],
      ),
    },
    ignored: {
      type: 'array',
      items: { type: 'string' },
      description: "headers of the columns left alone (read-only columns such as an export's id or times)",
    },
    preview: {
      type: 'array',
      description: 'on a dry run, the first rows as read, by field name',
      items: object(
        {
          row: { type: 'integer' },
          values: { type: 'object', additionalProperties: { type: 'string' } },
        },
        ['row', 'values'],
      ),
    },
  },
  ['dryRun', 'total', 'imported', 'problems', 'problemCount', 'columns', 'ignored'],
);

/** What an import's multipart body may hold: the part "file" and a few short fields. */
const MULTIPART_LIMITS = { maxParts: 4, maxFieldBytes: 1024, maxHeaderBytes: 16 * 1024 };

/**
 * Leaves multipart bodies unread for the import routes of the plugin it is called in: the handler
 * reads them with the upload routes' own reader (lib/multipart.ts, through uploadedBytes).
 */
export function acceptMultipart(app: FastifyInstance): void {
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => {
    done(null);
  });
}

/** A 400 naming the part "file": the body is not the multipart/form-data it claims to be. */
const malformed = (request: FastifyRequest): AppError =>
  new AppError('validation', {}, [
    { field: '/file', message: localizerFor(request).t('validation.invalid') },
  ]);

const tooLarge = (): AppError => new AppError('fileTooLarge', { maxMb: MAX_IMPORT_BYTES / (1024 * 1024) });

/**
 * The uploaded file's bytes (part "file"), read with the upload routes' multipart reader and
 * refused past MAX_IMPORT_BYTES (413) as soon as they pass it. A body that is not multipart is a
 * 415; a multipart body without its boundary, with a broken part or cut short is a 400 on /file.
 */
export async function uploadedBytes(request: FastifyRequest): Promise<Buffer> {
  return (await uploadedFile(request)).bytes;
}

/** The uploaded file (part "file"): its bytes and its name as sent (uploadedBytes). */
export async function uploadedFile(request: FastifyRequest): Promise<{ bytes: Buffer; fileName: string }> {
  const l10n = localizerFor(request);
  const contentType = request.headers['content-type'];
  if (!contentType || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType))
    throw new AppError('notMultipart');
  const boundary = boundaryOf(contentType);
  if (!boundary) throw malformed(request);
  const declared = Number(request.headers['content-length']);
  // A body declared larger than the file may be with its part headers is refused before it is read.
  if (Number.isFinite(declared) && declared > MAX_IMPORT_BYTES + 64 * 1024) throw tooLarge();
  const chunks = requestChunks(request.raw);
  try {
    const reader = new MultipartReader(chunks, boundary, MULTIPART_LIMITS);
    for (let part = await reader.nextPart(); part; part = await reader.nextPart()) {
      if (part.type !== 'file' || part.name !== 'file') continue;
      const pieces: Uint8Array[] = [];
      let size = 0;
      for await (const piece of part.body) {
        size += piece.length;
        if (size > MAX_IMPORT_BYTES) throw tooLarge();
        pieces.push(piece);
      }
      return { bytes: Buffer.concat(pieces, size), fileName: part.filename };
    }
  } catch (error) {
    if (error instanceof MultipartLimitError) throw new AppError('tooLarge');
    if (error instanceof MultipartError) throw malformed(request);
    throw error;
  } finally {
    // What is left of the body (the closing delimiter, or the rest of a refused file) is read and dropped.
    await chunks.return?.();
  }
  throw new AppError('fileMissing', {}, [{ field: '/file', message: l10n.t('errors.fileMissing') }]);
}
