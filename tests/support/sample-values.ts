import type { FieldSchema } from '../../src/engine/index.js';

/** Valid sample values from a schema alone (no test runner here: the browser tests use it too). */

/** Marks every text the generator makes, so that a contains filter can find sample records. */
export const TAG = 'qzx';

/** A per-record token: qzx12x. The closing x keeps qzx1x from matching inside qzx12x. */
export const token = (n: number): string => `${TAG}${n}x`;

/**
 * Values for fields with a pattern, which a generator cannot derive: for each record number the
 * candidates are tried in order and the first the pattern and length accept is used. Add a
 * candidate here when a new schema's pattern accepts none of them.
 */
const PATTERN_CANDIDATES: ((n: number) => string)[] = [
  token, // codes and keys: clientCode, dictType, menuCode, paramKey, tenantCode, username
  (n) => `${13_900_000_000 + n}`, // digits: mobile, phone, region codes
  (n) => `ROLE_${token(n).toUpperCase()}`, // role codes
  (n) => `/api/${token(n)}/**`, // URL permission patterns
  (n) => `+${(n % 999) + 1}`, // country codes
  (n) => `sum:${token(n)}`, // report measures (report.schema.json)
];

export type StringSchema = Pick<FieldSchema, 'minLength' | 'maxLength' | 'pattern' | 'format'>;

const HOUR = 3_600_000;

/** A valid string for a string schema, different for each n. */
export function sampleString(schema: StringSchema, n: number, name = 'text'): string {
  let candidates: string[];
  const time = new Date(Date.UTC(2024, 0, 1) + n * HOUR);
  switch (schema.format) {
    case 'email':
      candidates = [`${token(n)}@example.com`];
      break;
    case 'uri':
    case 'url':
      candidates = [`https://example.com/${token(n)}`];
      break;
    case 'date-time':
      candidates = [time.toISOString()];
      break;
    case 'date':
      candidates = [time.toISOString().slice(0, 10)];
      break;
    case 'time':
      candidates = [`${String(n % 24).padStart(2, '0')}:00:00Z`];
      break;
    case 'uuid':
      candidates = [`00000000-0000-4000-8000-${String(n).padStart(12, '0')}`];
      break;
    case 'ipv4':
      candidates = [`10.0.${Math.floor(n / 256) % 256}.${n % 256}`];
      break;
    case 'hostname':
      candidates = [`${token(n)}.example.com`];
      break;
    case 'decimal':
      // exact money, written in full (format decimal travels as text)
      candidates = [`${n}.50`];
      break;
    case 'int64':
      candidates = [String(1859123456789012345n + BigInt(n))];
      break;
    default:
      candidates = schema.pattern
        ? PATTERN_CANDIDATES.map((make) => make(n))
        : [`${name} ${token(n)}`, token(n)];
  }
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Number.POSITIVE_INFINITY;
  const pattern = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined;
  for (const candidate of candidates) {
    const padded = candidate.length < min && !pattern ? candidate.padEnd(min, 'x') : candidate;
    if (padded.length >= min && padded.length <= max && (!pattern || pattern.test(padded))) return padded;
  }
  throw new Error(`No sample value for ${name} (${JSON.stringify(schema)}): add one to PATTERN_CANDIDATES`);
}

/** A user as the generated create form sends it (with the confirmation), valid by the seeded schema. */
export const USER_FORM = {
  username: 'zhang.san',
  nickname: '张三',
  password: 'secret1',
  passwordConfirm: 'secret1',
  email: 'zhang@example.com',
  countryCode: '+86',
  mobile: '13800138000',
  phone: '010-1234567',
  status: '1',
  roleId: 1,
  orgId: 1,
} as const;
