import { describe, expect, it } from 'vitest';
import {
  chooseCount,
  choosePageRead,
  decodeCursor,
  encodeCursor,
  EntityInputError,
  orderTerms,
  parseListQuery,
  planRows,
  PLAIN_OFFSET_LIMIT,
} from '../../src/engine/index.js';
import { entityOf, widgetJson } from './fixtures.js';

const widget = entityOf(
  'widget',
  widgetJson({
    entity: { defaultSort: '-seenAt' },
    properties: { seenAt: { type: 'string', format: 'date-time' } },
  }),
);
const policy = { exactLimit: 100_000, timeoutMs: 5_000 };

describe('count strategy', () => {
  it('counts exactly below the threshold or on request, estimates above it', () => {
    expect(chooseCount(99_999, policy, false)).toBe('exact');
    expect(chooseCount(100_000, policy, false)).toBe('estimate');
    expect(chooseCount(9_000_000, policy, true)).toBe('exact');
  });

  it('reads the estimate of EXPLAIN (FORMAT JSON), parsed or as text', () => {
    const plan = [{ Plan: { 'Node Type': 'Seq Scan', 'Plan Rows': 1234567 } }];
    expect(planRows(plan)).toBe(1234567);
    expect(planRows(JSON.stringify(plan))).toBe(1234567);
    expect(planRows([{}])).toBe(0);
  });
});

describe('keyset cursors', () => {
  it('orders by the sort and then by the key in the direction of the last term', () => {
    expect(
      orderTerms(widget, widget.defaultSort).map((t) => [t.field.name, t.isDescending, t.isNullable]),
    ).toEqual([
      ['seenAt', true, true],
      ['id', true, false],
    ]);
  });

  it('round-trips a cursor with Chinese text and empty values, and rejects anything else', () => {
    const cursor = { query: 'abc', rowsBefore: 40, values: ['张三 2024-01-01 10:00:00.123456+00', null] };
    const token = encodeCursor(cursor);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(token, 2)).toEqual(cursor);
    expect(decodeCursor(token, 3)).toBeUndefined();
    expect(decodeCursor('not a cursor!', 2)).toBeUndefined();
    expect(decodeCursor(encodeCursor({ ...cursor, rowsBefore: -1 }), 2)).toBeUndefined();
  });

  it('reads the page after a cursor of the same list by keyset, a deep page without one by keys first', () => {
    const cursor = { query: 'q', rowsBefore: 19_980, values: ['x', '1'] };
    expect(choosePageRead(1_000, 20, cursor, 'q')).toEqual({ kind: 'keyset', cursor, offset: 0 });
    expect(choosePageRead(1_002, 20, cursor, 'q')).toEqual({ kind: 'keyset', cursor, offset: 40 });
    expect(choosePageRead(1_000, 20, cursor, 'other list')).toEqual({ kind: 'deferred', offset: 19_980 });
    expect(choosePageRead(2, 20, undefined, 'q')).toEqual({ kind: 'offset', offset: 20 });
    expect(choosePageRead(2, PLAIN_OFFSET_LIMIT + 1, undefined, 'q').kind).toBe('deferred');
  });

  it('takes `after` and `totalExact` from the query, and names a bad one', () => {
    const first = parseListQuery(widget, { currentPage: '2' });
    const token = encodeCursor({
      query: first.fingerprint,
      rowsBefore: 20,
      values: ['2024-01-01 00:00:00+00', '5'],
    });
    const second = parseListQuery(widget, { currentPage: '2', after: token, totalExact: 'true' });
    expect(second.cursor?.rowsBefore).toBe(20);
    expect(second.wantsExactTotal).toBe(true);
    expect(parseListQuery(widget, { name: 'x' }).fingerprint).not.toBe(first.fingerprint);
    for (const [params, field] of [
      [{ after: 'garbage!' }, '/after'],
      [{ totalExact: 'maybe' }, '/totalExact'],
    ] as const) {
      try {
        parseListQuery(widget, params);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(EntityInputError);
        expect((error as EntityInputError).errors.map((item) => item.field)).toEqual([field]);
      }
    }
  });
});
