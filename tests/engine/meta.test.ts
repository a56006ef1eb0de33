import { describe, expect, it } from 'vitest';
import {
  checkEntitySchema,
  compileEntities,
  SchemaFileError,
  SYSTEM_FIELD_NAMES,
  type SchemaProblem,
  type SchemaSource,
} from '../../src/engine/index.js';
import { FILE, widgetJson, type Json } from './fixtures.js';

function check(json: unknown, name = 'widget'): SchemaProblem[] {
  return checkEntitySchema(FILE, name, json);
}

/** One problem, in this file, at this pointer, whose message matches. */
function expectProblem(problems: SchemaProblem[], pointer: string, message: RegExp): void {
  expect(problems).toContainEqual({ file: FILE, pointer, message: expect.stringMatching(message) });
}

describe('checkEntitySchema: a valid schema', () => {
  it('has no problems', () => {
    expect(check(widgetJson())).toEqual([]);
  });

  it('accepts every documented keyword and annotation', () => {
    const json = widgetJson({
      root: { $id: 'widget', $comment: 'c', description: 'd' },
      entity: {
        defaultSort: '-name,id',
        tenant: true,
        menu: { parent: 'admin', icon: 'tool', sequence: 5 },
        tree: { parent: 'parentId', root: 0, sequence: 'position' },
      },
      properties: {
        parentId: { type: 'integer', 'x-ref': 'widget', default: 0 },
        position: { type: 'integer', minimum: 0, maximum: 100, default: 0 },
        code: {
          type: 'string',
          pattern: '^[a-z]+$',
          format: 'email',
          'x-unique': true,
          examples: ['a'],
          $comment: 'c',
          description: 'd',
          'x-list': { visible: true, width: 40, sorter: true, filter: 'text', fixed: 'left', ellipsis: true },
          'x-ui': {
            widget: 'text',
            order: 1,
            span: 24,
            placeholder: 'p',
            rows: 1,
            confirm: false,
            createOnly: false,
          },
        },
        pin: { type: 'string', writeOnly: true, 'x-secret': true },
        kind: { type: 'string', enum: ['a', 'b'], 'x-dict': 'widget_kind' },
        tags: {
          type: 'array',
          items: { type: 'string', enum: ['x', 'y'] },
          minItems: 0,
          maxItems: 3,
          uniqueItems: true,
        },
        meta: { type: 'object', default: {} },
        ratio: { type: 'number' },
        isOn: { type: 'boolean', default: false },
      },
    });
    expect(check(json)).toEqual([]);
  });

  it('lets a platform entity own a tenantCode field', () => {
    const json = widgetJson({
      entity: { tenant: false },
      properties: { tenantCode: { type: 'string', 'x-unique': true } },
    });
    expect(check(json)).toEqual([]);
  });
});

describe('checkEntitySchema: meta-schema rejections', () => {
  const cases: { title: string; json: unknown; pointer: string; message: RegExp }[] = [
    { title: 'not an object', json: [], pointer: '', message: /must be object/ },
    { title: 'null', json: null, pointer: '', message: /must be object/ },
    {
      title: 'unknown x- keyword at the root',
      json: widgetJson({ root: { 'x-foo': true } }),
      pointer: '/x-foo',
      message: /unknown keyword "x-foo"/,
    },
    {
      title: 'unknown keyword at the root',
      json: widgetJson({ root: { definitions: {} } }),
      pointer: '/definitions',
      message: /unknown keyword "definitions"/,
    },
    {
      title: 'unknown keyword in a property',
      json: widgetJson({ properties: { name: { type: 'string', maxlength: 5 } } }),
      pointer: '/properties/name/maxlength',
      message: /unknown keyword "maxlength"/,
    },
    {
      title: 'unknown x- keyword in a property',
      json: widgetJson({ properties: { name: { type: 'string', 'x-hidden': true } } }),
      pointer: '/properties/name/x-hidden',
      message: /unknown keyword "x-hidden"/,
    },
    {
      title: 'unknown keyword in array items',
      json: widgetJson({ properties: { tags: { type: 'array', items: { type: 'string', default: 'a' } } } }),
      pointer: '/properties/tags/items/default',
      message: /unknown keyword "default"/,
    },
    {
      title: 'unknown keyword in x-entity',
      json: widgetJson({ entity: { tenantScoped: true } }),
      pointer: '/x-entity/tenantScoped',
      message: /unknown keyword "tenantScoped"/,
    },
    {
      title: 'unknown keyword in x-list',
      json: widgetJson({ properties: { name: { type: 'string', 'x-list': { hidden: true } } } }),
      pointer: '/properties/name/x-list/hidden',
      message: /unknown keyword "hidden"/,
    },
    {
      title: 'unknown keyword in x-entity.tree',
      json: widgetJson({ entity: { tree: { parent: 'name', root: '0', children: 'kids' } } }),
      pointer: '/x-entity/tree/children',
      message: /unknown keyword "children"/,
    },
    {
      title: 'missing x-entity',
      json: widgetJson({ root: { 'x-entity': undefined } }),
      pointer: '',
      message: /missing "x-entity"/,
    },
    {
      title: 'missing properties',
      json: widgetJson({ root: { properties: undefined } }),
      pointer: '',
      message: /missing "properties"/,
    },
    {
      title: 'missing x-entity.key',
      json: widgetJson({ entity: { key: undefined } }),
      pointer: '/x-entity',
      message: /missing "key"/,
    },
    {
      title: 'missing x-entity.label',
      json: widgetJson({ entity: { label: undefined } }),
      pointer: '/x-entity',
      message: /missing "label"/,
    },
    {
      title: 'missing tree root',
      json: widgetJson({ entity: { tree: { parent: 'name' } } }),
      pointer: '/x-entity/tree',
      message: /missing "root"/,
    },
    {
      title: 'a property without a type',
      json: widgetJson({ properties: { name: { title: 'Name' } } }),
      pointer: '/properties/name',
      message: /missing "type"/,
    },
    {
      title: 'an unknown type',
      json: widgetJson({ properties: { name: { type: 'date' } } }),
      pointer: '/properties/name/type',
      message: /must be one of \["string","integer","number","boolean","array","object"\]/,
    },
    {
      title: 'an unknown format',
      json: widgetJson({ properties: { name: { type: 'string', format: 'phone' } } }),
      pointer: '/properties/name/format',
      message: /must be one of/,
    },
    {
      title: 'an invalid pattern',
      json: widgetJson({ properties: { name: { type: 'string', pattern: '([a-z' } } }),
      pointer: '/properties/name/pattern',
      message: /regex/,
    },
    {
      title: 'another $schema',
      json: widgetJson({ root: { $schema: 'https://json-schema.org/draft/2020-12/schema' } }),
      pointer: '/$schema',
      message: /constant/,
    },
    {
      title: 'a root type other than object',
      json: widgetJson({ root: { type: 'array' } }),
      pointer: '/type',
      message: /constant/,
    },
    {
      title: 'additionalProperties true',
      json: widgetJson({ root: { additionalProperties: true } }),
      pointer: '/additionalProperties',
      message: /constant/,
    },
    {
      title: 'an empty title',
      json: widgetJson({ root: { title: '' } }),
      pointer: '/title',
      message: /fewer than 1/,
    },
    {
      title: 'no properties at all',
      json: widgetJson({ root: { properties: {} } }),
      pointer: '/properties',
      message: /fewer than 1/,
    },
    {
      title: 'an api without a section',
      json: widgetJson({ entity: { api: 'widget' } }),
      pointer: '/x-entity/api',
      message: /pattern/,
    },
    {
      title: 'an upper-case table',
      json: widgetJson({ entity: { table: 'Widget' } }),
      pointer: '/x-entity/table',
      message: /pattern/,
    },
    {
      title: 'a malformed defaultSort',
      json: widgetJson({ entity: { defaultSort: 'name desc' } }),
      pointer: '/x-entity/defaultSort',
      message: /pattern/,
    },
    {
      title: 'a non-boolean tenant',
      json: widgetJson({ entity: { tenant: 'yes' } }),
      pointer: '/x-entity/tenant',
      message: /boolean/,
    },
    {
      title: 'a menu without parent',
      json: widgetJson({ entity: { menu: { icon: 'x' } } }),
      pointer: '/x-entity/menu',
      message: /missing "parent"/,
    },
    {
      title: 'a too narrow list column',
      json: widgetJson({ properties: { name: { type: 'string', 'x-list': { width: 10 } } } }),
      pointer: '/properties/name/x-list/width',
      message: />= 40/,
    },
    {
      title: 'an unknown filter kind',
      json: widgetJson({ properties: { name: { type: 'string', 'x-list': { filter: 'fuzzy' } } } }),
      pointer: '/properties/name/x-list/filter',
      message: /must be one of/,
    },
    {
      title: 'an unknown widget',
      json: widgetJson({ properties: { name: { type: 'string', 'x-ui': { widget: 'slider' } } } }),
      pointer: '/properties/name/x-ui/widget',
      message: /must be one of/,
    },
    {
      title: 'an x-ref that is not an entity name',
      json: widgetJson({ properties: { owner: { type: 'integer', 'x-ref': 'Sys-User' } } }),
      pointer: '/properties/owner/x-ref',
      message: /pattern/,
    },
    {
      title: 'a non-scalar item type',
      json: widgetJson({ properties: { tags: { type: 'array', items: { type: 'array' } } } }),
      pointer: '/properties/tags/items/type',
      message: /must be one of/,
    },
    {
      title: 'a repeated required entry',
      json: widgetJson({ required: ['name', 'name'] }),
      pointer: '/required',
      message: /duplicate/,
    },
    {
      title: 'a field name that is not camelCase',
      json: widgetJson({ properties: { user_name: { type: 'string' } } }),
      pointer: '/properties/user_name',
      message: /field name/,
    },
  ];

  it.each(cases)('rejects $title at $pointer', ({ json, pointer, message }) => {
    expectProblem(check(json), pointer, message);
  });

  it('reports each meta-schema problem once', () => {
    const problems = check(widgetJson({ properties: { Bad: { type: 'string' } } }));
    const ids = problems.map((p) => `${p.pointer}|${p.message}`);
    expect(new Set(ids).size).toBe(ids.length);
    expect(problems).toHaveLength(1);
  });

  it('escapes a field name that holds a slash in its pointer', () => {
    expectProblem(
      check(widgetJson({ properties: { 'a/b': { type: 'string' } } })),
      '/properties/a~1b',
      /field name/,
    );
  });

  it('lists several problems of one file together', () => {
    const problems = check(
      widgetJson({ root: { 'x-foo': 1 }, properties: { name: { type: 'string', bogus: 1 } } }),
    );
    expect(problems.map((p) => p.pointer).sort()).toEqual(['/properties/name/bogus', '/x-foo']);
  });
});

describe('checkEntitySchema: semantic rules', () => {
  const cases: { title: string; json: Json; name?: string; pointer: string; message: RegExp }[] = [
    {
      title: 'a file name that is not lower-case',
      json: widgetJson(),
      name: 'Widget',
      pointer: '',
      message: /file name "Widget"/,
    },
    {
      title: 'an $id other than the file name',
      json: widgetJson({ root: { $id: 'gadget' } }),
      pointer: '/$id',
      message: /must equal the file name "widget"/,
    },
    {
      title: 'a text filter hint on an integer field',
      json: widgetJson({ properties: { size: { type: 'integer', 'x-list': { filter: 'text' } } } }),
      pointer: '/properties/size/x-list/filter',
      message: /"text" filter does not fit a integer field/,
    },
    {
      title: 'a date-range filter hint on a plain string',
      json: widgetJson({ properties: { note: { type: 'string', 'x-list': { filter: 'dateRange' } } } }),
      pointer: '/properties/note/x-list/filter',
      message: /"dateRange" filter does not fit a string field/,
    },
    ...SYSTEM_FIELD_NAMES.map((system) => ({
      title: `the system field ${system} declared`,
      json: widgetJson({ properties: { [system]: { type: 'string' } } }),
      pointer: `/properties/${system}`,
      message: /added by the framework/,
    })),
    {
      title: 'a required entry that is not a property',
      json: widgetJson({ required: ['name', 'colour'] }),
      pointer: '/required/1',
      message: /"colour" is not a property/,
    },
    {
      title: 'a key that is not a property',
      json: widgetJson({ entity: { key: 'uuid' } }),
      pointer: '/x-entity/key',
      message: /"uuid" is not a property/,
    },
    {
      title: 'a key that is a system field',
      json: widgetJson({ entity: { key: 'version' } }),
      pointer: '/x-entity/key',
      message: /"version" is not a property/,
    },
    {
      title: 'a readOnly string key',
      json: widgetJson({ properties: { id: { type: 'string', readOnly: true } } }),
      pointer: '/properties/id',
      message: /generated \(readOnly\) key must be an integer/,
    },
    {
      title: 'a number key',
      json: widgetJson({ properties: { id: { type: 'number' } } }),
      pointer: '/properties/id',
      message: /key must be an integer or a string/,
    },
    {
      title: 'a boolean key',
      json: widgetJson({ properties: { id: { type: 'boolean' } } }),
      pointer: '/properties/id',
      message: /key must be an integer or a string/,
    },
    {
      title: 'a label that is not a property',
      json: widgetJson({ entity: { label: 'title' } }),
      pointer: '/x-entity/label',
      message: /"title" is not a property/,
    },
    {
      title: 'a tree parent that is not a property',
      json: widgetJson({ entity: { tree: { parent: 'parentId', root: 0 } } }),
      pointer: '/x-entity/tree/parent',
      message: /"parentId" is not a property/,
    },
    {
      title: 'a tree parent without x-ref',
      json: widgetJson({
        entity: { tree: { parent: 'parentId', root: 0 } },
        properties: { parentId: { type: 'integer' } },
      }),
      pointer: '/properties/parentId',
      message: /tree parent must have "x-ref": "widget"/,
    },
    {
      title: 'a tree parent referring to another entity',
      json: widgetJson({
        entity: { tree: { parent: 'parentId', root: 0 } },
        properties: { parentId: { type: 'integer', 'x-ref': 'gadget' } },
      }),
      pointer: '/properties/parentId',
      message: /tree parent must have "x-ref": "widget"/,
    },
    {
      title: 'a tree parent of another type than the key',
      json: widgetJson({
        entity: { tree: { parent: 'parentId', root: 0 } },
        properties: { parentId: { type: 'string', 'x-ref': 'widget' } },
      }),
      pointer: '/properties/parentId',
      message: /must have the key's type \(integer\)/,
    },
    {
      title: 'a tree sequence that is not a property',
      json: widgetJson({
        entity: { tree: { parent: 'parentId', root: 0, sequence: 'position' } },
        properties: { parentId: { type: 'integer', 'x-ref': 'widget' } },
      }),
      pointer: '/x-entity/tree/sequence',
      message: /"position" is not a property/,
    },
    {
      title: 'a string tree root under an integer key',
      json: widgetJson({
        entity: { tree: { parent: 'parentId', root: '0' } },
        properties: { parentId: { type: 'integer', 'x-ref': 'widget' } },
      }),
      pointer: '/x-entity/tree/root',
      message: /must be a integer like the key/,
    },
    {
      title: 'an integer tree root under a string key',
      json: widgetJson({
        entity: { key: 'code', tree: { parent: 'parentCode', root: 0 } },
        properties: {
          id: undefined,
          code: { type: 'string' },
          parentCode: { type: 'string', 'x-ref': 'widget' },
        },
      }),
      pointer: '/x-entity/tree/root',
      message: /must be a string like the key/,
    },
    {
      title: 'x-secret on an integer',
      json: widgetJson({ properties: { pin: { type: 'integer', 'x-secret': true } } }),
      pointer: '/properties/pin',
      message: /x-secret needs a string field/,
    },
    {
      title: 'x-secret on an array',
      json: widgetJson({
        properties: { pins: { type: 'array', items: { type: 'string' }, 'x-secret': true } },
      }),
      pointer: '/properties/pins',
      message: /x-secret needs a string field/,
    },
    {
      title: 'x-unique on an array',
      json: widgetJson({
        properties: { tags: { type: 'array', items: { type: 'string' }, 'x-unique': true } },
      }),
      pointer: '/properties/tags',
      message: /x-unique needs a scalar field/,
    },
    {
      title: 'x-unique on an object',
      json: widgetJson({ properties: { meta: { type: 'object', 'x-unique': true } } }),
      pointer: '/properties/meta',
      message: /x-unique needs a scalar field/,
    },
    {
      title: 'x-ref on a boolean',
      json: widgetJson({ properties: { owner: { type: 'boolean', 'x-ref': 'widget' } } }),
      pointer: '/properties/owner',
      message: /x-ref needs an integer or string field/,
    },
    {
      title: 'x-ref on an array',
      json: widgetJson({
        properties: { owners: { type: 'array', items: { type: 'integer' }, 'x-ref': 'widget' } },
      }),
      pointer: '/properties/owners',
      message: /x-ref needs an integer or string field/,
    },
    {
      title: 'x-dict on an object',
      json: widgetJson({ properties: { meta: { type: 'object', 'x-dict': 'kinds' } } }),
      pointer: '/properties/meta',
      message: /x-dict cannot describe an object/,
    },
    {
      title: 'an array without items',
      json: widgetJson({ properties: { tags: { type: 'array' } } }),
      pointer: '/properties/tags',
      message: /array field needs "items"/,
    },
    {
      title: 'items on a string',
      json: widgetJson({ properties: { name: { type: 'string', items: { type: 'string' } } } }),
      pointer: '/properties/name/items',
      message: /only array fields have items/,
    },
    {
      title: 'a defaultSort field that is not a property',
      json: widgetJson({ entity: { defaultSort: 'name,-colour' } }),
      pointer: '/x-entity/defaultSort',
      message: /"colour" is not a property/,
    },
    {
      title: 'a defaultSort on a secret',
      json: widgetJson({
        entity: { defaultSort: 'pin' },
        properties: { pin: { type: 'string', 'x-secret': true } },
      }),
      pointer: '/x-entity/defaultSort',
      message: /cannot sort by "pin"/,
    },
    {
      title: 'a field name too long for a column',
      json: widgetJson({ properties: { [`a${'B'.repeat(40)}`]: { type: 'string' } } }),
      pointer: `/properties/a${'B'.repeat(40)}`,
      message: /column name .* longer than 63/,
    },
  ];

  it.each(cases)('rejects $title at $pointer', ({ json, name, pointer, message }) => {
    expectProblem(check(json, name), pointer, message);
  });

  it('accepts a defaultSort on declared and system fields', () => {
    expect(check(widgetJson({ entity: { defaultSort: '-createdAt,name,-id' } }))).toEqual([]);
  });

  it('accepts a string key supplied by the client with a string tree root', () => {
    const json = widgetJson({
      entity: { key: 'code', tree: { parent: 'parentCode', root: '0' } },
      properties: {
        id: undefined,
        code: { type: 'string' },
        parentCode: { type: 'string', 'x-ref': 'widget', default: '0' },
      },
    });
    expect(check(json)).toEqual([]);
  });

  it('accepts a tenantCode field only on a platform entity', () => {
    const declared = { tenantCode: { type: 'string' } };
    expect(check(widgetJson({ properties: declared, entity: { tenant: false } }))).toEqual([]);
    expectProblem(
      check(widgetJson({ properties: declared, entity: { tenant: true } })),
      '/properties/tenantCode',
      /added by the framework/,
    );
    expectProblem(
      check(widgetJson({ properties: declared })),
      '/properties/tenantCode',
      /added by the framework/,
    );
  });
});

describe('compileEntities: rules across files', () => {
  function source(name: string, json: Json): SchemaSource {
    return { file: `schemas/${name}.schema.json`, name, json };
  }
  const owner = (overrides: Parameters<typeof widgetJson>[0] = {}): Json =>
    widgetJson({ ...overrides, entity: { api: 'admin/owner', table: 'owner', ...overrides.entity } });

  function problemsOf(sources: SchemaSource[]): SchemaProblem[] {
    try {
      compileEntities(sources);
    } catch (error) {
      expect(error).toBeInstanceOf(SchemaFileError);
      return (error as SchemaFileError).problems;
    }
    throw new Error('compileEntities accepted the sources');
  }

  it('builds entities that refer to each other', () => {
    const entities = compileEntities([
      source('widget', widgetJson({ properties: { ownerId: { type: 'integer', 'x-ref': 'owner' } } })),
      source('owner', owner()),
    ]);
    expect(entities.map((e) => e.name)).toEqual(['widget', 'owner']);
    expect(entities[0]?.fieldsByName.get('ownerId')?.ref).toBe('owner');
  });

  it('rejects an x-ref to a missing entity', () => {
    const problems = problemsOf([
      source('widget', widgetJson({ properties: { ownerId: { type: 'integer', 'x-ref': 'owner' } } })),
    ]);
    expect(problems).toEqual([
      {
        file: 'schemas/widget.schema.json',
        pointer: '/properties/ownerId/x-ref',
        message: 'no entity named "owner"',
      },
    ]);
  });

  it('rejects an x-ref whose type differs from the target key', () => {
    const problems = problemsOf([
      source('widget', widgetJson({ properties: { ownerId: { type: 'string', 'x-ref': 'owner' } } })),
      source('owner', owner()),
    ]);
    expect(problems).toEqual([
      {
        file: 'schemas/widget.schema.json',
        pointer: '/properties/ownerId',
        message: 'refers to owner whose key is integer, but is string',
      },
    ]);
  });

  it('rejects an api used twice', () => {
    const problems = problemsOf([
      source('widget', widgetJson()),
      source('owner', owner({ entity: { api: 'admin/widget' } })),
    ]);
    expect(problems).toEqual([
      {
        file: 'schemas/owner.schema.json',
        pointer: '/x-entity/api',
        message: 'api "admin/widget" is already used by schemas/widget.schema.json',
      },
    ]);
  });

  it('rejects a table used twice', () => {
    const problems = problemsOf([
      source('widget', widgetJson()),
      source('owner', owner({ entity: { table: 'widget' } })),
    ]);
    expect(problems).toEqual([
      {
        file: 'schemas/owner.schema.json',
        pointer: '/x-entity/table',
        message: 'table "widget" is already used by schemas/widget.schema.json',
      },
    ]);
  });

  it('gathers the problems of every file into one error that names file and pointer', () => {
    const sources = [
      source('widget', widgetJson({ root: { 'x-foo': 1 } })),
      source('owner', owner({ properties: { tags: { type: 'array' } } })),
    ];
    let caught: unknown;
    try {
      compileEntities(sources);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SchemaFileError);
    const error = caught as SchemaFileError;
    expect(error.problems.map((p) => `${p.file} ${p.pointer}`)).toEqual([
      'schemas/widget.schema.json /x-foo',
      'schemas/owner.schema.json /properties/tags',
    ]);
    expect(error.message).toContain('schemas/widget.schema.json at /x-foo: unknown keyword "x-foo"');
    expect(error.message).toContain(
      'schemas/owner.schema.json at /properties/tags: an array field needs "items"',
    );
  });

  it('shows the root pointer as / in the message', () => {
    expect(
      new SchemaFileError([{ file: 'f.json', pointer: '', message: 'must be object' }]).message,
    ).toContain('f.json at /: must be object');
  });
});
