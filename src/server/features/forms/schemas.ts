import { object, oneOf } from '../../lib/route-schema.js';

/** A form's status: a draft, or published (live as an entity). */
export const FORM_STATUS = oneOf(['draft', 'published']);

/** A form's content in an answer: the entity schema as saved, free-form like a schema file. */
export const FORM_CONTENT_ANSWER = { description: 'The entity schema as saved (free-form: a schema file)' };

/** A designed form as the designer's routes and the adoption of a table answer it (api-types FormRecord). */
export const FORM_RECORD = object(
  {
    id: { type: 'integer' },
    formCode: { type: 'string' },
    formName: { type: 'string' },
    formDescription: { type: ['string', 'null'] },
    formContent: FORM_CONTENT_ANSWER,
    status: FORM_STATUS,
    version: { type: 'integer' },
    publishedVersion: { type: ['integer', 'null'] },
    api: { type: ['string', 'null'], description: '/api/<api> of the live entity, while published' },
    menuId: { type: ['integer', 'null'] },
    menuRoles: {
      type: 'array',
      items: { type: 'string' },
      description: "the role codes granted the published form's menu (the list's answer only)",
    },
    createdAt: { type: 'string', format: 'date-time' },
    createdBy: { type: ['string', 'null'] },
    updatedAt: { type: ['string', 'null'], format: 'date-time' },
    updatedBy: { type: ['string', 'null'] },
  },
  [
    'id',
    'formCode',
    'formName',
    'formDescription',
    'formContent',
    'status',
    'version',
    'publishedVersion',
    'api',
    'menuId',
    'createdAt',
    'createdBy',
    'updatedAt',
    'updatedBy',
  ],
);
