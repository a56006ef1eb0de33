import type { Format } from 'ajv';
import * as formatsModule from 'ajv-formats/dist/formats.js';

/**
 * The string formats of entity data: ajv-formats' full set, with the two PostgreSQL refuses
 * tightened. One module, so that the validators the server precompiles for the browser (ajv
 * standalone code) import the very same definitions.
 */

// ajv-formats is published as CommonJS; its exports arrive wrapped under some bundlers.
const { fullFormats } = ((formatsModule as unknown as { default?: typeof formatsModule }).default ??
  formatsModule) as typeof formatsModule;

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

function tightened(format: Format, isAccepted: (text: string) => boolean): Format {
  if (typeof format !== 'object' || format instanceof RegExp || typeof format.validate !== 'function')
    return format;
  const validate = format.validate as (text: string) => boolean;
  return {
    ...format,
    type: 'string',
    validate: (text: string) => validate(text) && isAccepted(text),
  } as Format;
}

export const ENTITY_FORMATS: Record<string, Format> = {
  ...fullFormats,
  // Exact numbers as text (engine/decimal.ts): digits and bounds are checked by prepareInput and
  // the field's pattern; the format only says "a number written out".
  decimal: { type: 'string', validate: /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/ },
  int64: { type: 'string', validate: /^-?(?:0|[1-9]\d{0,18})$/ },
  date: tightened(fullFormats.date, isPostgresDate),
  'date-time': tightened(fullFormats['date-time'], isPostgresDateTime),
};
