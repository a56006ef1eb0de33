import { describe, expect, it } from 'vitest';
import {
  checkEntitySchema,
  checkRecord,
  computeFields,
  englishTranslate,
  evaluateExpression,
  Exact,
  EXPRESSION_LIMITS,
  ExpressionError,
  expressionValues,
  fieldValueOf,
  parseExpression,
  ruleErrors,
  withVirtualFields,
  type EntitySchema,
  type FieldSchema,
} from '../../src/engine/index.js';
import { entityOf, FILE, widgetJson, type Json } from './fixtures.js';

const properties: Record<string, FieldSchema> = {
  budget: { type: 'string', format: 'decimal', 'x-decimal': { precision: 18, scale: 2 } },
  count: { type: 'integer' },
  big: { type: 'string', format: 'int64' },
  ratio: { type: 'number' },
  publishDate: { type: 'string', format: 'date' },
  deadline: { type: 'string', format: 'date-time' },
  startTime: { type: 'string', format: 'date-time' },
  name: { type: 'string' },
};

const value = (text: string, record: Record<string, unknown> = {}): unknown => {
  const result = evaluateExpression(text, expressionValues(properties, record));
  return result instanceof Exact ? result.toText() : result;
};

describe('the expression language', () => {
  it('does exact decimal arithmetic', () => {
    expect(value('0.1 + 0.2')).toBe('0.3');
    expect(value('budget * 1.13', { budget: '100.10' })).toBe('113.1130');
    expect(value('budget - 0.01', { budget: '0.00' })).toBe('-0.01');
    expect(value('big + 1', { big: '9223372036854775806' })).toBe('9223372036854775807');
    expect(value('count * ratio', { count: 3, ratio: 0.1 })).toBe('0.3');
    expect(value('10 / 4')).toBe('2.50000000000000000000');
    expect(value('7 % 3')).toBe('1');
    expect(value('-budget', { budget: '5' })).toBe('-5');
    expect(value('round(2.345, 2)')).toBe('2.35');
    expect(value('round(-2.5)')).toBe('-3');
    expect(value('abs(-1.5) + floor(1.7) + ceil(1.2)')).toBe('4.5');
    expect(value('max(1, 3, 2) + min(4, 5)')).toBe('7');
    expect(value('1 + 2 * 3')).toBe('7');
    expect(value('(1 + 2) * 3')).toBe('9');
  });

  it('compares, with and/or/not and if-then-else', () => {
    expect(value('1 < 2 and 2 <= 2 && 3 > 2 and not (1 > 2)')).toBe(true);
    expect(value('1 eq 1 or 1 ne 1')).toBe(true);
    expect(value('!(1 == 1) || false')).toBe(false);
    expect(value('name == "ab" and name != \'b\'', { name: 'ab' })).toBe(true);
    expect(value('if count > 1 then "many" else "one"', { count: 2 })).toBe('many');
    expect(value('name + "!"', { name: 'hi' })).toBe('hi!');
    expect(value('1.50 == 1.5')).toBe(true);
  });

  it('compares dates as dates, date-times as instants', () => {
    // Same instant written with two offsets: a text comparison would say otherwise.
    expect(
      value('deadline >= startTime', {
        deadline: '2026-01-01T08:00:00+08:00',
        startTime: '2026-01-01T00:00:00Z',
      }),
    ).toBe(true);
    expect(
      value('deadline > startTime', {
        deadline: '2026-01-01T08:00:00+08:00',
        startTime: '2026-01-01T00:00:00Z',
      }),
    ).toBe(false);
    // A date against a date-time: the date's first instant (UTC).
    expect(
      value('deadline >= publishDate', { deadline: '2026-03-01T00:00:00Z', publishDate: '2026-03-01' }),
    ).toBe(true);
    expect(
      value('deadline >= publishDate', { deadline: '2026-02-28T23:59:59Z', publishDate: '2026-03-01' }),
    ).toBe(false);
    expect(
      value('deadline >= publishDate', {
        deadline: new Date('2026-03-02T00:00:00Z'),
        publishDate: '2026-03-01',
      }),
    ).toBe(true);
    expect(value('publishDate < "2026-03-02"', { publishDate: '2026-03-01' })).toBe(true);
  });

  it('leaves empty values open: arithmetic gives null, a comparison holds', () => {
    expect(value('budget * 2')).toBe(null);
    expect(value('deadline >= publishDate', { publishDate: '2026-01-01' })).toBe(true);
    expect(value('name == null')).toBe(true);
    expect(value('empty(name)', { name: '' })).toBe(true);
  });

  it('refuses what it cannot read, with a clear message', () => {
    const problem = (text: string): string => {
      try {
        parseExpression(text);
        return 'no problem';
      } catch (error) {
        expect(error).toBeInstanceOf(ExpressionError);
        return (error as Error).message;
      }
    };
    expect(problem('1 +')).toBe('the expression ends too early');
    expect(problem('budget ** 2')).toBe('unexpected "*"');
    expect(problem('constructor.prototype')).toBe('unexpected "."');
    expect(problem('eval("1")')).toBe('unknown function eval()');
    expect(problem('"open')).toBe('a text is not closed by its quote');
    expect(problem('(1')).toBe('")" expected');
    expect(problem('')).toBe('the expression is empty');
    expect(problem(`1${' + 1'.repeat(300)}`)).toMatch(/longer than 1000 characters \(expressions.length\)/);
    expect(problem(`${'('.repeat(40)}1${')'.repeat(40)}`)).toMatch(/nests deeper than 32/);
    expect(() => value('1 / 0')).toThrow('division by zero');
    expect(() => value('name * 2', { name: 'x' })).toThrow('* needs numbers, not a text');
  });

  it('stops at its budgets of steps and digits', () => {
    expect(EXPRESSION_LIMITS.steps).toBeGreaterThan(0);
    // The longest expression the length allows stays far below the step budget…
    const long = `1${' + 1'.repeat(240)}`;
    expect(value(long)).toBe('241');
    // …and numbers cannot grow without bound.
    const huge = `${'99999999999999999999 * '.repeat(6)}99999999999999999999`;
    expect(() => value(huge)).toThrow(/more than 100 digits/);
  });

  it('converts to the computed field: decimals rounded half up to the scale, int64 as text', () => {
    const result = evaluateExpression('budget * 1.13', expressionValues(properties, { budget: '0.50' }));
    expect(fieldValueOf(properties.budget as FieldSchema, result)).toBe('0.57'); // 0.565 → 0.57
    const negative = evaluateExpression(
      '0 - budget * 1.13',
      expressionValues(properties, { budget: '0.50' }),
    );
    expect(fieldValueOf(properties.budget as FieldSchema, negative)).toBe('-0.57');
    expect(fieldValueOf(properties.big as FieldSchema, new Exact(25n, 1))).toBe('3');
    expect(fieldValueOf(properties.count as FieldSchema, new Exact(25n, 1))).toBe(3);
    expect(fieldValueOf(properties.ratio as FieldSchema, new Exact(25n, 1))).toBe(2.5);
    expect(() =>
      fieldValueOf(properties.budget as FieldSchema, Exact.ofText('10000000000000000000')),
    ).toThrow(/too large/);
  });
});

const schemaJson = (extra: Json, root: Json = {}): Json =>
  widgetJson({
    properties: {
      budget: properties.budget as unknown as Json,
      publishDate: properties.publishDate as unknown as Json,
      deadline: properties.deadline as unknown as Json,
      ...extra,
    },
    root,
  });

describe('x-computed and x-rules in a schema', () => {
  const json = schemaJson(
    {
      budgetWithTax: {
        type: 'string',
        format: 'decimal',
        'x-decimal': { precision: 18, scale: 2 },
        'x-computed': { expression: 'budget * 1.13', stored: true },
      },
      label: { type: 'string', 'x-computed': { expression: 'name + " (" + budget + ")"' } },
    },
    {
      'x-rules': [
        {
          expression: 'deadline >= publishDate',
          message: 'entities.widget.rules.deadline',
          fields: ['deadline'],
        },
      ],
    },
  );

  it('is accepted by the meta-schema and builds read-only fields, the virtual one without sort or filter', () => {
    expect(checkEntitySchema(FILE, 'widget', json)).toEqual([]);
    const entity = entityOf('widget', json);
    const stored = entity.fieldsByName.get('budgetWithTax');
    const virtual = entity.fieldsByName.get('label');
    expect(stored?.isReadOnly).toBe(true);
    expect(stored?.filter).toBe('number');
    expect(virtual?.isReadOnly).toBe(true);
    expect(virtual?.isSortable).toBe(false);
    expect(virtual?.filter).toBeUndefined();
  });

  it('computes and checks a record', () => {
    const schema = json as unknown as EntitySchema;
    const t = (key: string): string =>
      key === 'entities.widget.rules.deadline' ? 'must not be before the publish date' : key;
    const good = checkRecord(
      schema,
      { name: 'a', budget: '100.00', publishDate: '2026-01-01', deadline: '2026-01-02T00:00:00Z' },
      t,
    );
    expect(good).toEqual({ values: { budgetWithTax: '113.00' }, errors: [] });
    const bad = checkRecord(
      schema,
      { budget: '1', publishDate: '2026-01-02', deadline: '2026-01-01T00:00:00Z' },
      t,
    );
    expect(bad.errors).toEqual([{ field: '/deadline', message: 'must not be before the publish date' }]);
    expect(withVirtualFields(schema, { name: 'a', budget: '1.00' }, t)).toEqual({
      name: 'a',
      budget: '1.00',
      label: 'a (1.00)',
    });
    expect(computeFields(schema, {}, englishTranslate).values).toEqual({ budgetWithTax: null, label: null });
    // A designed form's rule message is its own text.
    expect(
      ruleErrors(
        {
          properties: schema.properties,
          'x-rules': [{ expression: 'budget > 10', message: '预算须大于 10' }],
        },
        { budget: '5' },
        t,
      ),
    ).toEqual([{ field: '/budget', message: '预算须大于 10' }]);
  });

  it('refuses a bad expression at load, naming the property', () => {
    const problems = (extra: Json, root: Json = {}): string[] =>
      checkEntitySchema(FILE, 'widget', schemaJson(extra, root)).map((p) => `${p.pointer}: ${p.message}`);
    expect(problems({ total: { type: 'number', 'x-computed': { expression: 'budget *' } } })).toEqual([
      '/properties/total/x-computed/expression: x-computed of "total": the expression ends too early',
    ]);
    expect(problems({ total: { type: 'number', 'x-computed': { expression: 'price * 2' } } })).toEqual([
      '/properties/total/x-computed/expression: x-computed of "total": "price" is not a field of this schema',
    ]);
    expect(
      problems({
        a: { type: 'number', 'x-computed': { expression: 'budget * 2' } },
        b: { type: 'number', 'x-computed': { expression: 'a * 2' } },
      }),
    ).toEqual([
      '/properties/b/x-computed/expression: x-computed of "b": "a" is itself computed; compute from the other fields',
    ]);
    expect(problems({}, { 'x-rules': [{ expression: 'deadline >=', message: 'x' }] })).toEqual([
      '/x-rules/0/expression: x-rules 1: the expression ends too early',
    ]);
    expect(problems({}, { 'x-rules': [{ expression: 'true', message: 'x', fields: ['nope'] }] })).toEqual([
      '/x-rules/0/fields: x-rules 1: "nope" is not a field of this schema',
    ]);
  });
});
