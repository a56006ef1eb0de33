import { describe, expect, it } from 'vitest';
import {
  compileEntities,
  containsNul,
  createSchemaOf,
  EntityInputError,
  englishTranslate,
  prepareInput,
  toFieldErrors,
  updateSchemaOf,
  type EntityDef,
  type FieldError,
  type PreparedInput,
  type Translate,
  type WriteMode,
} from '../../src/engine/index.js';
import { entityOf, realSources, validatorsOf, widgetJson } from './fixtures.js';

const widget = entityOf(
  'widget',
  widgetJson({
    required: ['name'],
    properties: {
      code: { type: 'string', pattern: '^[a-z]+$', 'x-unique': true },
      note: { type: 'string', maxLength: 10 },
      status: { type: 'string', default: '1' },
      tags: { type: 'array', items: { type: 'string' }, default: [] },
      meta: { type: 'object', default: {} },
      qty: { type: 'integer', minimum: 0, default: 0 },
      big: { type: 'integer' },
      price: { type: 'number' },
      isOn: { type: 'boolean', default: false },
      email: { type: 'string', format: 'email' },
      madeOn: { type: 'string', format: 'date' },
      seenAt: { type: 'string', format: 'date-time' },
      pin: { type: 'string', minLength: 6, writeOnly: true, 'x-secret': true },
    },
  }),
);
const validators = validatorsOf(widget);

function prepare(
  body: unknown,
  mode: WriteMode,
  translate?: Translate,
  entity: EntityDef = widget,
): PreparedInput {
  return prepareInput(entity, entity === widget ? validators : validatorsOf(entity), body, mode, translate);
}

/** The field errors of a body that must be refused. */
function errorsOf(body: unknown, mode: WriteMode, translate?: Translate, entity?: EntityDef): FieldError[] {
  try {
    prepare(body, mode, translate, entity);
  } catch (error) {
    expect(error).toBeInstanceOf(EntityInputError);
    return (error as EntityInputError).errors;
  }
  throw new Error('the body was accepted');
}

describe('createSchemaOf / updateSchemaOf', () => {
  it('create: writable fields only, the schema required list, no extras', () => {
    const schema = createSchemaOf(widget);
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(properties)).not.toContain('id');
    for (const system of ['tenantCode', 'createdAt', 'createdBy', 'updatedAt', 'updatedBy', 'version']) {
      expect(Object.keys(properties)).not.toContain(system);
    }
    expect(schema.required).toEqual(['name']);
    expect(schema.additionalProperties).toBe(false);
    expect(properties.status?.default).toBe('1');
    expect(properties.big).toMatchObject({
      minimum: Number.MIN_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
    });
    expect(properties.qty).toMatchObject({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
  });

  it('update: key and version required, no defaults, a generated key is a positive safe integer', () => {
    const schema = updateSchemaOf(widget);
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    expect(schema.required).toEqual(['id', 'version']);
    expect(properties.id).toEqual({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
    expect(properties.version).toEqual({ type: 'integer', minimum: 0 });
    for (const property of Object.values(properties)) {
      expect(property).not.toHaveProperty('default');
      expect(property).not.toHaveProperty('readOnly');
    }
    expect(Object.keys(properties)).not.toContain('createdAt');
    expect(Object.keys(properties)).not.toContain('tenantCode');
  });
});

describe('prepareInput on create', () => {
  it('applies defaults', () => {
    expect(prepare({ name: 'a' }, 'create')).toEqual({
      values: { name: 'a', status: '1', tags: [], meta: {}, qty: 0, isOn: false },
      cleared: [],
    });
  });

  it('gives each record its own copy of an array or object default', () => {
    const first = prepare({ name: 'a' }, 'create').values;
    (first.tags as string[]).push('x');
    (first.meta as Record<string, unknown>).x = 1;
    expect(prepare({ name: 'b' }, 'create').values).toMatchObject({ tags: [], meta: {} });
  });

  it('keeps given values over defaults, including falsy ones', () => {
    const { values } = prepare(
      { name: 'a', status: '2', qty: 0, isOn: true, tags: ['t'], pin: 'secret1', price: 0 },
      'create',
    );
    expect(values).toMatchObject({ status: '2', qty: 0, isOn: true, tags: ['t'], pin: 'secret1', price: 0 });
  });

  it('drops the generated key and the system fields a client sends back', () => {
    const body = {
      id: 7,
      name: 'a',
      version: 3,
      tenantCode: 'other',
      createdAt: '2020-01-01T00:00:00Z',
      createdBy: 'mallory',
      updatedAt: 'x',
      updatedBy: 'y',
    };
    expect(prepare(body, 'create').values).toEqual({
      name: 'a',
      status: '1',
      tags: [],
      meta: {},
      qty: 0,
      isOn: false,
    });
  });

  it('treats null as no value, and an empty string where it is no value of the field: the default, or "is required"', () => {
    expect(prepare({ name: 'a', status: '', note: null, email: '' }, 'create').values).toEqual({
      name: 'a',
      status: '1',
      tags: [],
      meta: {},
      qty: 0,
      isOn: false,
    });
    expect(errorsOf({ name: '' }, 'create')).toEqual([{ field: '/name', message: 'is required' }]);
    expect(errorsOf({ name: null }, 'create')).toEqual([{ field: '/name', message: 'is required' }]);
    expect(errorsOf({}, 'create')).toEqual([{ field: '/name', message: 'is required' }]);
  });

  it('refuses unknown fields, even empty ones', () => {
    expect(errorsOf({ name: 'a', colour: 'red' }, 'create')).toEqual([
      { field: '/colour', message: 'is not a field of this form' },
    ]);
    expect(errorsOf({ name: 'a', colour: '' }, 'create')).toEqual([
      { field: '/colour', message: 'is not a field of this form' },
    ]);
  });

  it('refuses NUL characters anywhere, PostgreSQL cannot store them', () => {
    // One message for the field, not "is invalid" and then "is required" as well.
    expect(errorsOf({ name: 'a\u0000b' }, 'create')).toEqual([{ field: '/name', message: 'is invalid' }]);
    expect(errorsOf({ name: 'a', tags: ['ok', 'n\u0000'] }, 'create')).toEqual([
      { field: '/tags', message: 'is invalid' },
    ]);
    expect(errorsOf({ name: 'a', meta: { deep: { value: '\u0000' } } }, 'create')).toEqual([
      { field: '/meta', message: 'is invalid' },
    ]);
    expect(errorsOf({ name: 'a', meta: { 'k\u0000': 1 } }, 'create')).toEqual([
      { field: '/meta', message: 'is invalid' },
    ]);
  });

  it('keeps integers inside the safe range and within the schema bounds', () => {
    expect(prepare({ name: 'a', big: Number.MAX_SAFE_INTEGER }, 'create').values.big).toBe(
      Number.MAX_SAFE_INTEGER,
    );
    expect(prepare({ name: 'a', big: Number.MIN_SAFE_INTEGER }, 'create').values.big).toBe(
      Number.MIN_SAFE_INTEGER,
    );
    expect(errorsOf({ name: 'a', big: 2 ** 53 }, 'create')).toEqual([
      { field: '/big', message: `must be at most ${Number.MAX_SAFE_INTEGER}` },
    ]);
    expect(errorsOf({ name: 'a', big: -(2 ** 53) }, 'create')).toEqual([
      { field: '/big', message: `must be at least ${Number.MIN_SAFE_INTEGER}` },
    ]);
    expect(errorsOf({ name: 'a', big: 1e300 }, 'create')).toEqual([
      { field: '/big', message: `must be at most ${Number.MAX_SAFE_INTEGER}` },
    ]);
    expect(errorsOf({ name: 'a', qty: -1 }, 'create')).toEqual([
      { field: '/qty', message: 'must be at least 0' },
    ]);
    expect(errorsOf({ name: 'a', qty: 1.5 }, 'create')).toEqual([
      { field: '/qty', message: 'must be a whole number' },
    ]);
  });

  it('does not coerce types', () => {
    expect(errorsOf({ name: 'a', qty: '5' }, 'create')).toEqual([
      { field: '/qty', message: 'must be a whole number' },
    ]);
    expect(errorsOf({ name: 'a', isOn: 'true' }, 'create')).toEqual([
      { field: '/isOn', message: 'must be yes or no' },
    ]);
    expect(errorsOf({ name: 5 }, 'create')).toEqual([{ field: '/name', message: 'must be text' }]);
    expect(errorsOf({ name: 'a', meta: [] }, 'create')).toEqual([
      { field: '/meta', message: 'must be an object' },
    ]);
  });

  it('checks formats, patterns and lengths', () => {
    expect(errorsOf({ name: 'a', email: 'nope' }, 'create')).toEqual([
      { field: '/email', message: 'must be a valid email' },
    ]);
    expect(errorsOf({ name: 'a', code: 'ABC' }, 'create')).toEqual([
      { field: '/code', message: 'is not in the expected format' },
    ]);
    expect(errorsOf({ name: 'a', note: 'x'.repeat(11) }, 'create')).toEqual([
      { field: '/note', message: 'must be at most 10 characters' },
    ]);
    expect(errorsOf({ name: 'a', pin: '123' }, 'create')).toEqual([
      { field: '/pin', message: 'must be at least 6 characters' },
    ]);
  });

  it.each([
    ['a real date-time', '2024-02-29T10:00:00Z', true],
    ['a date-time with an offset', '2024-01-01T10:00:00+15:59', true],
    ['February 30th', '2024-02-30T10:00:00Z', false],
    ['a date-time without a zone', '2024-01-01T10:00:00', false],
    ['year 0, which PostgreSQL refuses', '0000-01-01T00:00:00Z', false],
    ['an offset beyond ±15:59, which PostgreSQL refuses', '2024-01-01T10:00:00+16:00', false],
    ['a far negative offset', '2024-01-01T10:00:00-2000', false],
  ])('date-time: %s (%s)', (_title, value, isValid) => {
    // A valid date-time is written as the same instant in UTC (a naive adopted column keeps it).
    if (isValid)
      expect(prepare({ name: 'a', seenAt: value }, 'create').values.seenAt).toBe(
        new Date(value).toISOString(),
      );
    else
      expect(errorsOf({ name: 'a', seenAt: value }, 'create')).toEqual([
        { field: '/seenAt', message: 'must be a valid date-time' },
      ]);
  });

  it.each([
    ['2024-02-29', true],
    ['0001-01-01', true],
    ['2023-02-29', false],
    ['2024-13-01', false],
    ['0000-01-01', false],
  ])('date: %s', (value, isValid) => {
    if (isValid) expect(prepare({ name: 'a', madeOn: value }, 'create').values.madeOn).toBe(value);
    else
      expect(errorsOf({ name: 'a', madeOn: value }, 'create')).toEqual([
        { field: '/madeOn', message: 'must be a valid date' },
      ]);
  });

  it('names nested values by their JSON pointer', () => {
    expect(errorsOf({ name: 'a', tags: ['ok', 5] }, 'create')).toEqual([
      { field: '/tags/1', message: 'must be text' },
    ]);
  });

  it('reports every bad field, one message each', () => {
    const errors = errorsOf({ name: '', code: 'ABC', qty: -1.5, colour: 1 }, 'create');
    expect(errors.map((e) => e.field).sort()).toEqual(['/code', '/colour', '/name', '/qty']);
  });

  it('refuses a body that is not an object', () => {
    for (const body of [null, [], 'name', 5]) {
      expect(errorsOf(body, 'create')).toEqual([{ field: '/', message: 'must be an object' }]);
    }
  });

  it('puts the field errors into the error message too', () => {
    expect(() => prepare({ name: '' }, 'create')).toThrow('/name: is required');
  });

  it('translates every message with the given function', () => {
    const translate: Translate = (key, params) => `${key}${JSON.stringify(params)}`;
    expect(errorsOf({ name: '', qty: -1, colour: 'x', note: '\u0000' }, 'create', translate)).toEqual([
      { field: '/note', message: 'validation.invalid{}' },
      { field: '/name', message: 'validation.required{"missingProperty":"name"}' },
      { field: '/colour', message: 'validation.additionalProperties{"additionalProperty":"colour"}' },
      { field: '/qty', message: 'validation.minimum{"comparison":">=","limit":0}' },
    ]);
    expect(errorsOf('x', 'create', translate)).toEqual([
      { field: '/', message: 'validation.type{"type":"validation.typeName.object{}"}' },
    ]);
  });
});

describe('prepareInput on update', () => {
  it('requires the key and the version', () => {
    expect(errorsOf({ name: 'a' }, 'update')).toEqual([
      { field: '/id', message: 'is required' },
      { field: '/version', message: 'is required' },
    ]);
    expect(errorsOf({ id: '', version: null }, 'update')).toEqual([
      { field: '/id', message: 'is required' },
      { field: '/version', message: 'is required' },
    ]);
  });

  it('wants a positive safe integer key and a non-negative version', () => {
    expect(errorsOf({ id: 0, version: -1 }, 'update')).toEqual([
      { field: '/id', message: 'must be at least 1' },
      { field: '/version', message: 'must be at least 0' },
    ]);
    expect(errorsOf({ id: '5', version: 1 }, 'update')).toEqual([
      { field: '/id', message: 'must be a whole number' },
    ]);
    expect(errorsOf({ id: 2 ** 53, version: 1 }, 'update')).toEqual([
      { field: '/id', message: `must be at most ${Number.MAX_SAFE_INTEGER}` },
    ]);
  });

  it('takes any subset of the fields and applies no defaults', () => {
    expect(prepare({ id: 1, version: 0 }, 'update')).toEqual({ values: { id: 1, version: 0 }, cleared: [] });
    expect(prepare({ id: 1, version: 2, note: 'n' }, 'update')).toEqual({
      values: { id: 1, version: 2, note: 'n' },
      cleared: [],
    });
  });

  it('keeps the current secret when an edit form sends it empty', () => {
    expect(prepare({ id: 1, version: 2, pin: '' }, 'update')).toEqual({
      values: { id: 1, version: 2 },
      cleared: [],
    });
    expect(prepare({ id: 1, version: 2, pin: null }, 'update')).toEqual({
      values: { id: 1, version: 2 },
      cleared: [],
    });
    expect(prepare({ id: 1, version: 2, pin: 'secret99' }, 'update').values.pin).toBe('secret99');
  });

  it('clears optional fields sent empty, and refuses clearing a required one', () => {
    // '' is a value of an optional plain text field (kept apart from NULL, issue 33), not of an email.
    expect(prepare({ id: 1, version: 2, note: '', email: null, tags: null }, 'update')).toEqual({
      values: { id: 1, version: 2, note: '' },
      cleared: ['email', 'tags'],
    });
    expect(prepare({ id: 1, version: 2, note: null, email: '' }, 'update')).toEqual({
      values: { id: 1, version: 2 },
      cleared: ['note', 'email'],
    });
    expect(errorsOf({ id: 1, version: 2, name: '' }, 'update')).toEqual([
      { field: '/name', message: 'is required' },
    ]);
    expect(errorsOf({ id: 1, version: 2, name: null }, 'update')).toEqual([
      { field: '/name', message: 'is required' },
    ]);
  });

  it('drops read-only and system fields but keeps key and version', () => {
    const body = {
      id: 1,
      version: 2,
      tenantCode: 'other',
      createdAt: 'x',
      createdBy: 'x',
      updatedAt: 'x',
      updatedBy: 'x',
      name: 'b',
    };
    expect(prepare(body, 'update')).toEqual({ values: { id: 1, version: 2, name: 'b' }, cleared: [] });
  });

  it('refuses unknown fields and NUL characters', () => {
    expect(errorsOf({ id: 1, version: 2, colour: 'red' }, 'update')).toEqual([
      { field: '/colour', message: 'is not a field of this form' },
    ]);
    expect(errorsOf({ id: 1, version: 2, colour: null }, 'update')).toEqual([
      { field: '/colour', message: 'is not a field of this form' },
    ]);
    expect(errorsOf({ id: 1, version: 2, note: '\u0000' }, 'update')).toEqual([
      { field: '/note', message: 'is invalid' },
    ]);
    expect(errorsOf({ id: '\u0000', version: 2 }, 'update')).toEqual([
      { field: '/id', message: 'is invalid' },
    ]);
  });

  it('still checks the values it is given', () => {
    expect(errorsOf({ id: 1, version: 2, qty: -1, email: 'x' }, 'update')).toEqual([
      { field: '/qty', message: 'must be at least 0' },
      { field: '/email', message: 'must be a valid email' },
    ]);
  });
});

describe('prepareInput with a client-supplied string key (sysregion)', () => {
  const region = compileEntities(realSources()).find((e) => e.name === 'sysregion');
  if (!region) throw new Error('no sysregion');
  const body = { regionCode: '110000', regionName: 'Beijing', regionType: '1' };

  it('requires the key on create and applies the parent default', () => {
    expect(prepare(body, 'create', undefined, region).values).toEqual({ ...body, regionParent: '0' });
    expect(errorsOf({ ...body, regionCode: '' }, 'create', undefined, region)).toEqual([
      { field: '/regionCode', message: 'is required' },
    ]);
  });

  it('checks the key against its own schema on update', () => {
    expect(
      prepare({ regionCode: '110000', version: 1, regionName: 'Peking' }, 'update', undefined, region).values,
    ).toEqual({
      regionCode: '110000',
      version: 1,
      regionName: 'Peking',
    });
    expect(errorsOf({ regionCode: '11', version: 1 }, 'update', undefined, region)).toEqual([
      { field: '/regionCode', message: 'must be at least 6 characters' },
    ]);
    expect(errorsOf({ version: 1 }, 'update', undefined, region)).toEqual([
      { field: '/regionCode', message: 'is required' },
    ]);
  });
});

describe('messages', () => {
  it('interpolates English messages and falls back to "is invalid"', () => {
    expect(englishTranslate('validation.maxLength', { limit: 5 })).toBe('must be at most 5 characters');
    expect(englishTranslate('errors.unknownSortField', { field: 'x' })).toBe('cannot sort by "x"');
    expect(englishTranslate('validation.whatever', {})).toBe('is invalid');
  });

  it('keys errors by JSON pointer, first problem of a field wins, unknown keywords are "invalid"', () => {
    expect(
      toFieldErrors([
        { keyword: 'minLength', instancePath: '/name', schemaPath: '', params: { limit: 3 } },
        { keyword: 'pattern', instancePath: '/name', schemaPath: '', params: { pattern: 'x' } },
        { keyword: 'const', instancePath: '', schemaPath: '', params: { allowedValue: 1 } },
        { keyword: 'required', instancePath: '/meta', schemaPath: '', params: { missingProperty: 'a' } },
      ]),
    ).toEqual([
      { field: '/name', message: 'must be at least 3 characters' },
      { field: '/', message: 'is invalid' },
      { field: '/meta/a', message: 'is required' },
    ]);
  });

  it('containsNul looks into strings, arrays, object values and keys', () => {
    expect(containsNul('a')).toBe(false);
    expect(containsNul(5)).toBe(false);
    expect(containsNul(null)).toBe(false);
    expect(containsNul(['a', ['\u0000']])).toBe(true);
    expect(containsNul({ a: { b: 'c' } })).toBe(false);
    expect(containsNul({ a: { '\u0000': 1 } })).toBe(true);
  });
});
