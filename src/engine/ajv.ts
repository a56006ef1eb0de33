import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';

/** The x- keywords of the entity vocabulary: annotations for ajv, described in schemas/_meta. */
export const ENTITY_KEYWORDS = [
  'x-entity',
  'x-ref',
  'x-dict',
  'x-unique',
  'x-secret',
  'x-list',
  'x-ui',
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

// ajv-formats is published as CommonJS; its default export arrives wrapped under some bundlers.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats);

/**
 * PostgreSQL has no year 0 and refuses UTC offsets beyond ±15:59, both of which ajv-formats
 * lets through: refused here, such a value is a 400 naming the field instead of a failed insert.
 */
function isPostgresDate(text: string): boolean {
  return !text.startsWith('0000');
}
function isPostgresDateTime(text: string): boolean {
  return isPostgresDate(text) && !/[+-](1[6-9]|[2-9]\d)(:?\d\d)?$/.test(text);
}

function tightenFormat(ajv: Ajv, name: string, isAccepted: (text: string) => boolean): void {
  const base = ajv.formats[name];
  if (typeof base !== 'object' || base instanceof RegExp || typeof base.validate !== 'function') return;
  const validate = base.validate as (text: string) => boolean;
  ajv.addFormat(name, { type: 'string', validate: (text: string) => validate(text) && isAccepted(text) });
}

/**
 * The formats and the x- vocabulary of every ajv that checks entity data; the browser form's
 * validator (RJSF's own ajv, built with AJV_OPTIONS) goes through it too.
 */
export function configureAjv(ajv: Ajv): Ajv {
  addFormats(ajv);
  tightenFormat(ajv, 'date', isPostgresDate);
  tightenFormat(ajv, 'date-time', isPostgresDateTime);
  ajv.addVocabulary([...ENTITY_KEYWORDS]);
  return ajv;
}

export function createAjv(overrides: Options = {}): Ajv {
  return configureAjv(new Ajv({ ...AJV_OPTIONS, ...overrides }));
}
