import { Ajv, type Options } from 'ajv';
import { ENTITY_FORMATS } from './formats.js';

/** The x- keywords of the entity vocabulary: annotations for ajv, described in schemas/_meta. */
export const ENTITY_KEYWORDS = [
  'x-entity',
  'x-ref',
  'x-dict',
  'x-unique',
  'x-secret',
  'x-list',
  'x-ui',
  'x-maxDepth',
  'x-auto',
  'x-detail',
  'x-column',
  'x-decimal',
  'x-computed',
  'x-rules',
] as const;

/**
 * The one set of ajv options used by the server and by the browser forms, so that a rule is
 * enforced the same way in both places. Strict: an unknown keyword is an error.
 */
export const AJV_OPTIONS: Options = {
  allErrors: true,
  strict: true,
  strictTypes: false,
  strictRequired: false,
  allowUnionTypes: true,
  useDefaults: true,
  coerceTypes: false,
  removeAdditional: false,
};

/**
 * The formats and the x- vocabulary of every ajv that checks entity data; the browser form's
 * validator (RJSF's own ajv, built with AJV_OPTIONS) goes through it too.
 */
export function configureAjv(ajv: Ajv): Ajv {
  for (const [name, format] of Object.entries(ENTITY_FORMATS)) ajv.addFormat(name, format);
  ajv.addVocabulary([...ENTITY_KEYWORDS]);
  return ajv;
}

export function createAjv(overrides: Options = {}): Ajv {
  return configureAjv(new Ajv({ ...AJV_OPTIONS, ...overrides }));
}
