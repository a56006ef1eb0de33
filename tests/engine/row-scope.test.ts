import { describe, expect, it } from 'vitest';
import { parseScopeCondition, type ScopeExpr, type Translate } from '../../src/engine/index.js';
import { entityOf, widgetJson } from './fixtures.js';

const widget = entityOf(
  'widget',
  widgetJson({
    properties: {
      kind: { type: 'string', 'x-dict': 'widget_kind' },
      ownerId: { type: 'integer', 'x-ref': 'owner' },
      qty: { type: 'integer' },
      isOn: { type: 'boolean' },
      madeOn: { type: 'string', format: 'date' },
      tags: { type: 'array', items: { type: 'string' }, 'x-dict': 'widget_tag' },
    },
  }),
);

/** The message key and its parameters, as the locales would fill them. */
const translate: Translate = (key, params = {}) => `${key} ${JSON.stringify(params)}`;
const parse = (text: string) => parseScopeCondition(widget, text, translate, '/condition');
const expr = (text: string): ScopeExpr => {
  const parsed = parse(text);
  if ('error' in parsed) throw new Error(parsed.error.message);
  return parsed.expr;
};
const error = (text: string): string => {
  const parsed = parse(text);
  if (!('error' in parsed)) throw new Error(`"${text}" parsed`);
  expect(parsed.error.field).toBe('/condition');
  return parsed.error.message;
};

describe('scope conditions (engine/row-scope.ts)', () => {
  it('reads comparisons, in-lists, $user variables, and / or / not with their precedence', () => {
    const parsed = expr(
      'kind = 1 and ownerId in $user.orgsBelow or not (qty >= 3) and createdBy = $user.username',
    );
    expect(parsed.op).toBe('or');
    if (parsed.op !== 'or') return;
    const [left, right] = parsed.items;
    expect(left?.op).toBe('and');
    expect(right?.op).toBe('and');
    if (left?.op !== 'and') return;
    // a number written for a text field is its text
    expect(left.items[0]).toMatchObject({
      op: 'compare',
      comparison: '=',
      value: { kind: 'literal', value: '1' },
    });
    expect(left.items[1]).toMatchObject({
      op: 'in',
      isNegated: false,
      values: [{ kind: 'variable', name: 'orgsBelow' }],
    });
    expect(expr('qty not in (1, 2)')).toMatchObject({
      op: 'in',
      isNegated: true,
      values: [{ value: 1 }, { value: 2 }],
    });
    expect(expr('madeOn is not null')).toMatchObject({ op: 'null', isNegated: true });
    expect(expr("isOn = true and madeOn < '2024-02-29'")).toMatchObject({ op: 'and' });
    expect(expr('qty <> 2')).toMatchObject({ comparison: '!=' });
  });

  it('refuses what it cannot read, naming the position', () => {
    expect(error('kind = ')).toBe('errors.scopeSyntax {"at":8}');
    expect(error('kind == 1')).toContain('errors.scopeSyntax');
    expect(error('(kind = 1')).toContain('errors.scopeSyntax');
    expect(error('')).toContain('errors.scopeSyntax');
    expect(error("kind = 'open")).toContain('errors.scopeSyntax');
  });

  it('refuses unknown fields, fields outside the filter vocabulary, wrong types and variables', () => {
    expect(error('nosuch = 1')).toBe('errors.unknownFilterField {"at":1,"field":"nosuch"}');
    expect(error('tags = 1')).toContain('errors.unknownFilterField');
    expect(error("qty = 'x'")).toContain('errors.scopeType {"at"');
    expect(error('isOn = 1')).toContain('errors.scopeType {"at"');
    expect(error("madeOn = '2024-02-30'")).toContain('errors.scopeType {"at"');
    expect(error('ownerId = $user.username')).toContain('errors.scopeType {"at"');
    expect(error('ownerId = $user.orgs')).toContain('errors.scopeSyntax');
    expect(error('ownerId in $user.nothing')).toContain('errors.scopeVariable');
    expect(error(`qty = 1${' and qty = 1'.repeat(300)}`)).toContain('validation.maxLength');
  });
});
