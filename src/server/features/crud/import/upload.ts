import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../lib/errors.js';
import { localizerFor } from '../../../lib/i18n.js';
import { object } from '../../../lib/route-schema.js';

/** What the import routes of entities and of published forms share: the upload and the answer. */

/** An import file: 200 000 rows of a wide entity still fit. */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024;
export const MAX_IMPORT_ROWS = 200_000;

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

/** The uploaded file's bytes (part "file"), refused past MAX_IMPORT_BYTES. */
export async function uploadedBytes(request: FastifyRequest): Promise<Buffer> {
  const l10n = localizerFor(request);
  if (!request.isMultipart()) throw new AppError('notMultipart');
  for await (const part of request.parts()) {
    if (part.type === 'field') continue;
    if (part.fieldname !== 'file') {
      part.file.resume();
      continue;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of part.file as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_IMPORT_BYTES) throw new AppError('fileTooLarge', { maxMb: MAX_IMPORT_BYTES >> 20 });
      chunks.push(chunk);
    }
    if (part.file.truncated) throw new AppError('fileTooLarge', { maxMb: MAX_IMPORT_BYTES >> 20 });
    return Buffer.concat(chunks);
  }
  throw new AppError('fileMissing', {}, [{ field: '/file', message: l10n.t('errors.fileMissing') }]);
}
