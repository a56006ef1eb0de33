import { object } from '../../../lib/route-schema.js';
import { IMPORT_RESULT } from './upload.js';

/** An import job as the API answers it (engine/api-types.ts ImportJob). */
export const IMPORT_JOB = object(
  {
    id: { type: 'integer' },
    entity: { type: 'string', description: 'the entity imported into' },
    fileName: { type: 'string' },
    status: { type: 'string', enum: ['running', 'done', 'failed'] },
    mode: { type: 'string', enum: ['all', 'partial'] },
    updateByKey: { type: 'boolean' },
    total: { type: 'integer', description: 'data rows of the file (0 until counted)' },
    done: { type: 'integer', description: 'rows of the phase under way done so far' },
    phase: {
      type: 'string',
      enum: ['reading', 'hashing', 'writing'],
      description:
        'reading the file, hashing its passwords (before the transaction), checking and writing the rows',
    },
    result: IMPORT_RESULT,
    error: object(
      {
        message: { type: 'string' },
        errors: {
          type: 'array',
          items: object({ field: { type: 'string' }, message: { type: 'string' } }, ['field', 'message']),
        },
      },
      ['message', 'errors'],
    ),
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
  ['id', 'entity', 'fileName', 'status', 'mode', 'updateByKey', 'total', 'done', 'createdAt', 'updatedAt'],
);
