import { object, oneOf, text } from '../../../lib/route-schema.js';
import { FILE_USES } from '../services/rules.js';

/**
 * The schemas the file routes share: what a file is for, and a file as the answers describe it
 * (engine/api-types.ts FileRecord and FileLink, which the admin reads).
 */

/** The use of an upload, in the query or as a part of the multipart body. */
export const FILE_USE = oneOf(FILE_USES, {
  maxLength: 16,
  description: 'image: jpg, jpeg, gif, png, bmp only; attachment (default): FILE_ATTACHMENT_TYPES',
});

/** A netdisc folder of the caller's, as upload parameters send it (text: a query or a multipart part). */
export const FOLDER_ID = text(20, {
  pattern: '^[0-9]{0,15}$',
  description: "A netdisc folder of the caller's: the file goes into their netdisc (counted in the quota)",
});

const USE_ANSWER = { type: 'string', enum: [...FILE_USES] };

/** A file as upload, query and download describe it (FileRecord). */
export const FILE_RECORD = object(
  {
    id: { type: 'integer' },
    originalFilename: { type: 'string' },
    size: { type: 'number', description: 'Size in KB' },
    sizeBytes: { type: 'integer' },
    contentType: { type: 'string', description: 'Sniffed from the bytes' },
    fileType: { type: 'string', description: 'jpg, png, pdf, docx, …' },
    use: USE_ANSWER,
    ownerName: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    url: { type: 'string', description: 'Where the file is downloaded' },
  },
  [
    'id',
    'originalFilename',
    'size',
    'sizeBytes',
    'contentType',
    'fileType',
    'use',
    'ownerName',
    'createdAt',
    'url',
  ],
);

/** A file as forms and lists show it (FileLink). */
export const FILE_LINK = object(
  {
    id: { type: 'integer' },
    originalFilename: { type: 'string' },
    size: { type: 'number', description: 'Size in KB' },
    fileType: { type: 'string' },
    contentType: { type: 'string' },
    use: USE_ANSWER,
    url: { type: 'string', description: "The download address (with the caller's token)" },
    pictureUrl: { type: 'string', description: 'The public address of a picture (use image only)' },
  },
  ['id', 'originalFilename', 'size', 'fileType', 'contentType', 'use', 'url'],
);
