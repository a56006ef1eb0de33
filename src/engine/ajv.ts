import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';

/** The x- keywords of the entity vocabulary: annotations for ajv, described in schemas/_meta. */
export const ENTITY_KEYWORDS = ['x-entity', 'x-ref', 'x-dict', 'x-unique', 'x-secret', 'x-list', 'x-ui'] as const;

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
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

export function createAjv(overrides: Options = {}): Ajv {
  const ajv = new Ajv({ ...AJV_OPTIONS, ...overrides });
  addFormats(ajv);
  ajv.addVocabulary([...ENTITY_KEYWORDS]);
  return ajv;
}
