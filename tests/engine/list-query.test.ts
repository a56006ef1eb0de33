import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PAGE_SIZE,
  EntityInputError,
  MAX_PAGE_SIZE,
  parseListQuery,
  type FieldError,
  type Filter,
  type ListQuery,
  type RawParams,
  type Translate,
} from '../../src/engine/index.js';
import { entityOf, widgetJson } from './fixtures.js';

const widget = entityOf(
  'widget',
  widgetJson({
    entity: { defaultSort: 'name,-id' },
    properties: {
      code: { type: 'string', 'x-unique': true },
      kind: { type: 'string', 'x-dict': 'widget_kind' },
      size: { type: 'string', enum: ['s', 'm', 'l'] },
      ownerId: { type: 'integer', 'x-ref': 'owner' },
      qty: { type: 'integer' },
      price: { type: 'number' },
      isOn: { type: 'boolean' },
      madeOn: { type: 'string', format: 'date' },
      seenAt: { type: 'string', format: 'date-time' },
      tags: { type: 'array', items: { type: 'string' }, 'x-dict': 'widget_tag' },
      scores: { type: 'array', items: { type: 'integer', enum: [1, 2, 3] } },
      flags: { type: 'array', items: { type: 'boolean' }, 'x-list': { filter: 'select' } },
      plain: { type: 'array', items: { type: 'string' } },
      pin: { type: 'string', 'x-secret': true },
      meta: { type: 'object' },
      note: { type: 'string', 'x-list': { filter: 'none' } },
      quiet: { type: 'string', 'x-list': { sorter: false } },
    },
  }),
);

function parse(params: RawParams, translate?: Translate): ListQuery {
  return parseListQuery(widget, params, translate);
}

function errorsOf(params: RawParams, translate?: Translate): FieldError[] {
  try {
    parse(params, translate);
  } catch (error) {
    expect(error).toBeInstanceOf(EntityInputError);
    return (error as EntityInputError).errors;
  }
  throw new Error('the query was accepted');
}

/** The one filter a query yields, without its field definition. */
function filterOf(params: RawParams): Record<string, unknown> {
  const { filters } = parse(params);
  expect(filters).toHaveLength(1);
  const [filter] = filters as [Filter];
  const { field, ...rest } = filter;
  return { field: field.name, ...rest };
}

describe('parseListQuery: paging', () => {
  it('defaults to the first page of 20 in the default sort, unfiltered', () => {
    expect(DEFAULT_PAGE_SIZE).toBe(20);
    expect(parse({})).toEqual({
      currentPage: 1,
      pageSize: 20,
      sort: [
        { field: 'name', isDescending: false },
        { field: 'id', isDescending: true },
      ],
      filters: [],
      fingerprint: expect.any(String) as string,
      wantsExactTotal: false,
    });
  });

  it('reads currentPage and pageSize from text or numbers', () => {
    expect(parse({ currentPage: '3', pageSize: '50' })).toMatchObject({ currentPage: 3, pageSize: 50 });
    expect(parse({ currentPage: 2, pageSize: 10 })).toMatchObject({ currentPage: 2, pageSize: 10 });
    expect(parse({ currentPage: ' 4 ', pageSize: '' })).toMatchObject({ currentPage: 4, pageSize: 20 });
  });

  it('allows a page size of 10000 but not 10001', () => {
    expect(MAX_PAGE_SIZE).toBe(10_000);
    expect(parse({ pageSize: '10000' }).pageSize).toBe(10_000);
    expect(errorsOf({ pageSize: '10001' })).toEqual([
      { field: '/pageSize', message: 'must be at most 10000' },
    ]);
    expect(errorsOf({ pageSize: '99999999999999999999' })).toEqual([
      { field: '/pageSize', message: 'must be at most 10000' },
    ]);
  });

  it('bounds currentPage', () => {
    expect(parse({ currentPage: '1000000000' }).currentPage).toBe(1_000_000_000);
    expect(errorsOf({ currentPage: '1000000001' })).toEqual([
      { field: '/currentPage', message: 'must be at most 1000000000' },
    ]);
  });

  it.each([
    ['0', 'must be at least 1'],
    ['-1', 'must be at least 1'],
    ['ten', 'must be a whole number'],
    ['1.5', 'must be a whole number'],
    ['1e3', 'must be a whole number'],
    [['10', '20'], 'must be a whole number'],
  ])('refuses pageSize %j: %s', (value, message) => {
    expect(errorsOf({ pageSize: value })).toEqual([{ field: '/pageSize', message }]);
    expect(errorsOf({ currentPage: value })).toEqual([{ field: '/currentPage', message }]);
  });
});

describe('parseListQuery: sort', () => {
  it('parses field and -field, comma-separated or repeated', () => {
    expect(parse({ sort: '-qty, name' }).sort).toEqual([
      { field: 'qty', isDescending: true },
      { field: 'name', isDescending: false },
    ]);
    expect(parse({ sort: ['code', '-createdAt'] }).sort).toEqual([
      { field: 'code', isDescending: false },
      { field: 'createdAt', isDescending: true },
    ]);
  });

  it('keeps the default sort when sort is empty', () => {
    expect(parse({ sort: '' }).sort).toEqual(widget.defaultSort);
    expect(parse({ sort: ' , ' }).sort).toEqual([]);
  });

  it.each(['colour', 'pin', 'tags', 'meta', 'quiet', '-pin'])('refuses to sort by %s', (sort) => {
    const field = sort.replace(/^-/, '');
    expect(errorsOf({ sort })).toEqual([{ field: '/sort', message: `cannot sort by "${field}"` }]);
  });

  it('names every bad sort field', () => {
    expect(errorsOf({ sort: 'name,colour,-pin' })).toEqual([
      { field: '/sort', message: 'cannot sort by "colour"' },
      { field: '/sort', message: 'cannot sort by "pin"' },
    ]);
  });
});

describe('parseListQuery: filters', () => {
  it('text: contains, trimmed', () => {
    expect(filterOf({ name: '  Wid ' })).toEqual({ field: 'name', op: 'contains', value: 'Wid' });
    expect(filterOf({ createdBy: 'adm' })).toEqual({ field: 'createdBy', op: 'contains', value: 'adm' });
  });

  it('text: one value only', () => {
    expect(errorsOf({ name: ['a', 'b'] })).toEqual([{ field: '/name', message: 'is invalid' }]);
  });

  it('ignores empty filters', () => {
    expect(parse({ name: '', kind: [], qty: ['', ' '], isOn: null, size: undefined }).filters).toEqual([]);
  });

  it('select: in, with repeated parameters', () => {
    expect(filterOf({ kind: 'a' })).toEqual({ field: 'kind', op: 'in', values: ['a'] });
    expect(filterOf({ kind: ['a', 'b'] })).toEqual({ field: 'kind', op: 'in', values: ['a', 'b'] });
    expect(filterOf({ size: ['s', 'l'] })).toEqual({ field: 'size', op: 'in', values: ['s', 'l'] });
    // x-unique alone does not make a select: a unique code is still searched as text.
    expect(filterOf({ code: 'X-1' })).toEqual({ field: 'code', op: 'contains', value: 'X-1' });
  });

  it('select on an integer reference: coerced to numbers', () => {
    expect(filterOf({ ownerId: ['1', '22'] })).toEqual({ field: 'ownerId', op: 'in', values: [1, 22] });
    expect(filterOf({ ownerId: 5 })).toEqual({ field: 'ownerId', op: 'in', values: [5] });
  });

  it('number: integers and decimals', () => {
    expect(filterOf({ qty: '-3' })).toEqual({ field: 'qty', op: 'in', values: [-3] });
    expect(filterOf({ id: '7' })).toEqual({ field: 'id', op: 'in', values: [7] });
    expect(filterOf({ price: '1.5' })).toEqual({ field: 'price', op: 'in', values: [1.5] });
    expect(filterOf({ price: '1e3' })).toEqual({ field: 'price', op: 'in', values: [1000] });
  });

  it.each([
    ['qty', 'abc', 'integer'],
    ['qty', '1.5', 'integer'],
    ['qty', '1234567890123456', 'integer'],
    ['ownerId', ['1', 'x'], 'integer'],
    ['price', 'Infinity', 'number'],
    ['price', 'NaN', 'number'],
    ['price', '1e400', 'number'],
    ['isOn', 'yes', 'boolean'],
  ])('number/boolean coercion: %s=%j is a type error', (name, value, type) => {
    // the type in words, never its code (issue 40 point 11)
    const words: Record<string, string> = {
      integer: 'a whole number',
      number: 'a number',
      boolean: 'yes or no',
    };
    expect(errorsOf({ [name]: value })).toEqual([{ field: `/${name}`, message: `must be ${words[type]}` }]);
  });

  it('boolean: true/1 and false/0', () => {
    expect(filterOf({ isOn: 'true' })).toEqual({ field: 'isOn', op: 'in', values: [true] });
    expect(filterOf({ isOn: '1' })).toEqual({ field: 'isOn', op: 'in', values: [true] });
    expect(filterOf({ isOn: 'false' })).toEqual({ field: 'isOn', op: 'in', values: [false] });
    expect(filterOf({ isOn: false })).toEqual({ field: 'isOn', op: 'in', values: [false] });
    expect(filterOf({ isOn: '0' })).toEqual({ field: 'isOn', op: 'in', values: [false] });
  });

  it('date range: from and to, either side open', () => {
    expect(filterOf({ madeOn: '2024-01-01,2024-01-31' })).toEqual({
      field: 'madeOn',
      op: 'range',
      from: '2024-01-01',
      to: '2024-01-31',
    });
    expect(filterOf({ madeOn: '2024-01-01,' })).toEqual({ field: 'madeOn', op: 'range', from: '2024-01-01' });
    expect(filterOf({ madeOn: ' , 2024-01-31' })).toEqual({ field: 'madeOn', op: 'range', to: '2024-01-31' });
    expect(filterOf({ seenAt: '2024-01-01T10:00:00Z,2024-01-02 23:59:59.999999+08:00' })).toEqual({
      field: 'seenAt',
      op: 'range',
      from: '2024-01-01T10:00:00Z',
      to: '2024-01-02 23:59:59.999999+08:00',
    });
    expect(filterOf({ createdAt: '2024-02-29T00:00,2024-03-01T00:00+0530' })).toMatchObject({ op: 'range' });
  });

  it.each([
    '2024-01-01T10:00',
    '2024-01-01 23:59:59',
    '2024-01-01T10:00:00.5Z',
    '2024-01-01T10:00-15:59',
    '2000-02-29',
    '0001-01-01',
    '9999-12-31',
  ])('date range: accepts %s', (date) => {
    expect(filterOf({ seenAt: date })).toEqual({ field: 'seenAt', op: 'range', from: date });
  });

  it.each([
    ['a day that does not exist', '2024-02-30'],
    ['February 29th of a common year', '2023-02-29'],
    ['a century that is not a leap year', '1900-02-29'],
    ['April 31st', '2024-04-31'],
    ['month 13', '2024-13-01'],
    ['month 0', '2024-00-10'],
    ['day 0', '2024-01-00'],
    ['year 0', '0000-01-01'],
    ['hour 24', '2024-01-01T24:00'],
    ['minute 60', '2024-01-01T23:60'],
    ['second 60', '2024-01-01T23:59:60'],
    ['an offset beyond 15:59', '2024-01-01T10:00+16:00'],
    ['offset minutes beyond 59', '2024-01-01T10:00+05:75'],
    ['seven fraction digits', '2024-01-01T10:00:00.1234567'],
    ['a word', 'yesterday'],
    ['a short year', '24-01-01'],
    ['both sides empty', ','],
    ['three parts', '2024-01-01,2024-01-02,2024-01-03'],
  ])('date range: refuses %s (%s)', (_title, text) => {
    expect(errorsOf({ madeOn: text })).toEqual([{ field: '/madeOn', message: 'must be a valid date' }]);
    expect(errorsOf({ seenAt: `2024-01-01,${text}` })).toEqual([
      { field: '/seenAt', message: 'must be a valid date' },
    ]);
  });

  it('date range: one parameter only', () => {
    expect(errorsOf({ madeOn: ['2024-01-01', '2024-01-31'] })).toEqual([
      { field: '/madeOn', message: 'is invalid' },
    ]);
  });

  it('array: hasItem with the item type', () => {
    expect(filterOf({ tags: 'red' })).toEqual({ field: 'tags', op: 'hasItem', value: 'red' });
    expect(filterOf({ scores: '2' })).toEqual({ field: 'scores', op: 'hasItem', value: 2 });
    expect(filterOf({ flags: 'true' })).toEqual({ field: 'flags', op: 'hasItem', value: true });
    expect(errorsOf({ scores: 'two' })).toEqual([{ field: '/scores', message: 'must be a whole number' }]);
    expect(errorsOf({ flags: 'maybe' })).toEqual([{ field: '/flags', message: 'must be yes or no' }]);
    expect(errorsOf({ tags: ['red', 'blue'] })).toEqual([{ field: '/tags', message: 'is invalid' }]);
  });

  it.each(['colour', 'pin', 'meta', 'note', 'plain', 'tenantCode', 'version', 'constructor', '__proto__'])(
    'refuses %s, which is not a filter',
    (name) => {
      const params: RawParams = Object.create(null) as RawParams;
      params[name] = 'x';
      expect(errorsOf(params)).toEqual([
        { field: `/${name}`, message: `"${name}" is not a filter of this list` },
      ]);
    },
  );

  it('refuses NUL characters in a filter', () => {
    expect(errorsOf({ name: 'a\u0000' })).toEqual([{ field: '/name', message: 'is invalid' }]);
    expect(errorsOf({ kind: ['a', '\u0000'] })).toEqual([{ field: '/kind', message: 'is invalid' }]);
  });

  it('keeps filters in parameter order, and takes an export body with JSON values', () => {
    const { filters, currentPage } = parse({ isOn: true, qty: 5, kind: ['a', 'b'], currentPage: 2 });
    expect(currentPage).toBe(2);
    expect(filters.map((f) => [f.field.name, f.op])).toEqual([
      ['isOn', 'in'],
      ['qty', 'in'],
      ['kind', 'in'],
    ]);
  });

  it('reports every problem at once', () => {
    expect(
      errorsOf({ pageSize: '0', sort: 'colour', colour: 'x', qty: 'many', madeOn: '2024-02-30' }),
    ).toEqual([
      { field: '/pageSize', message: 'must be at least 1' },
      { field: '/sort', message: 'cannot sort by "colour"' },
      { field: '/colour', message: '"colour" is not a filter of this list' },
      { field: '/qty', message: 'must be a whole number' },
      { field: '/madeOn', message: 'must be a valid date' },
    ]);
  });

  it('translates with the given function', () => {
    const translate: Translate = (key, params) => `${key}${JSON.stringify(params)}`;
    expect(
      errorsOf({ pageSize: '10001', sort: 'pin', colour: 'x', madeOn: 'x', price: 'x' }, translate),
    ).toEqual([
      { field: '/pageSize', message: 'validation.maximum{"limit":10000}' },
      { field: '/sort', message: 'errors.unknownSortField{"field":"pin"}' },
      { field: '/colour', message: 'errors.unknownFilterField{"field":"colour"}' },
      { field: '/madeOn', message: 'validation.format{"format":"date"}' },
      { field: '/price', message: 'validation.type{"type":"validation.typeName.number{}"}' },
    ]);
  });
});
