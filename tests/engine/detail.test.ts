import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';
import { describe, expect, it } from 'vitest';
import {
  checkEntitySchema,
  compileEntities,
  compileValidators,
  createAjv,
  EntityInputError,
  entityTableSpec,
  entityTableSpecs,
  formSchemaOf,
  planTableMigration,
  prepareInput,
  readableFields,
  recordSchemaOf,
  SchemaFileError,
  uiSchemaOf,
  type EntityDef,
  type ExistingTable,
  type SchemaSource,
} from '../../src/engine/index.js';
import { readSchemaSources } from '../../src/server/lib/registry.js';

type Json = Record<string, unknown>;

const SCHEMAS = fileURLToPath(new URL('../../schemas', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/schemas/bizorder.schema.json', import.meta.url));
const FILE = 'schemas/bizorder.schema.json';
const orderJson = (): Json & { properties: Record<string, Json> } =>
  JSON.parse(readFileSync(FIXTURE, 'utf8')) as Json & { properties: Record<string, Json> };
const linesOf = (
  json: ReturnType<typeof orderJson>,
): Json & { items: Json & { properties: Record<string, Json> } } =>
  json.properties.lines as Json & { items: Json & { properties: Record<string, Json> } };

function compileWith(json: Json): EntityDef[] {
  const sources: SchemaSource[] = [...readSchemaSources(SCHEMAS), { file: FILE, name: 'bizorder', json }];
  return compileEntities(sources);
}

const order = (): EntityDef => {
  const found = compileWith(orderJson()).find((entity) => entity.name === 'bizorder');
  if (!found) throw new Error('bizorder did not compile');
  return found;
};

function problemsOf(mutate: (json: ReturnType<typeof orderJson>) => void): string[] {
  const json = orderJson();
  mutate(json);
  return checkEntitySchema(FILE, 'bizorder', json).map((problem) => `${problem.pointer}: ${problem.message}`);
}

describe('the x-detail vocabulary', () => {
  it('accepts an array of objects marked x-detail', () => {
    expect(problemsOf(() => {})).toEqual([]);
  });

  it('refuses a detail inside a detail row, and an array of objects without x-detail', () => {
    expect(
      problemsOf((json) => {
        linesOf(json).items.properties.parts = {
          type: 'array',
          'x-detail': {},
          items: { type: 'object', properties: { name: { type: 'string' } } },
        };
      }),
    ).toContainEqual('/properties/lines/items/properties/parts: a detail row cannot hold another detail');
    expect(
      problemsOf((json) => {
        delete linesOf(json)['x-detail'];
      }),
    ).toEqual(['/properties/lines/items: an array of objects is a detail: it needs "x-detail"']);
  });

  it('refuses detail columns the child table owns, secrets, and unknown keywords in rows', () => {
    const problems = problemsOf((json) => {
      const items = linesOf(json).items;
      items.properties.seq = { type: 'integer' };
      items.properties.pin = { type: 'string', 'x-secret': true };
      (items.properties.qty as Json)['x-colour'] = 'red';
    });
    expect(problems).toEqual(
      expect.arrayContaining(['/properties/lines/items/properties/qty/x-colour: unknown keyword "x-colour"']),
    );
    const valid = problemsOf((json) => {
      const items = linesOf(json).items;
      items.properties.seq = { type: 'integer' };
      items.properties.pin = { type: 'string', 'x-secret': true };
    });
    expect(valid).toEqual([
      '/properties/lines/items/properties/seq: "seq" is a column of every detail table and cannot be declared',
      '/properties/lines/items/properties/pin/x-secret: a detail column cannot have x-secret',
    ]);
  });

  it('checks references inside rows and clashes of the child table with other tables', () => {
    const badRef = orderJson();
    (linesOf(badRef).items.properties.buyerId as Json)['x-ref'] = 'nosuchentity';
    expect(() => compileWith(badRef)).toThrow(
      /bizorder\.schema\.json at \/properties\/lines\/items\/properties\/buyerId\/x-ref: no entity named "nosuchentity"/,
    );
    const clash = orderJson();
    linesOf(clash)['x-detail'] = { table: 'sys_user' };
    const error = (() => {
      try {
        compileWith(clash);
        return undefined;
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(SchemaFileError);
    expect((error as Error).message).toMatch(/x-detail: table "sys_user" is already used/);
  });
});

describe('a compiled detail field', () => {
  it('has its child table and row fields, and no column in the parent table', () => {
    const entity = order();
    const lines = entity.fieldsByName.get('lines');
    expect(lines?.detail?.table).toBe('biz_order_lines');
    expect(lines?.detail?.fields.map((field) => [field.name, field.column, field.isRequired])).toEqual([
      ['productName', 'product_name', true],
      ['qty', 'qty', true],
      ['price', 'price', false],
      ['status', 'status', false],
      ['buyerId', 'buyer_id', false],
      ['deliveryDate', 'delivery_date', false],
    ]);
    expect(lines?.detail?.fieldsByName.get('buyerId')?.ref).toBe('sysuser');
    expect(lines?.detail?.fieldsByName.get('status')?.dict).toBe('user_status');
    expect(readableFields(entity).map((field) => field.name)).not.toContain('lines');
    expect(entityTableSpec(entity).columns.map((column) => column.name)).not.toContain('lines');
  });

  it('creates the child table with a cascading foreign key to the parent', () => {
    const [parent, child] = entityTableSpecs(order());
    expect(parent?.name).toBe('biz_order');
    expect(child).toMatchObject({
      name: 'biz_order_lines',
      primaryKey: ['id'],
      foreignKeys: [
        {
          columns: ['parent_id'],
          refTable: 'biz_order',
          refColumns: ['id'],
          onDelete: 'cascade',
        },
      ],
    });
    if (!child) throw new Error('no child table');
    const plan = planTableMigration(child, undefined);
    expect(plan.problems).toEqual([]);
    expect(plan.statements[0]).toMatch(
      /create table "biz_order_lines" \(\s+"id" bigint generated by default as identity not null,\s+"parent_id" bigint not null,\s+"seq" integer not null,\s+"tenant_code" text not null,\s+"product_name" text,/,
    );
    expect(plan.statements.join('\n')).toMatch(
      /alter table "biz_order_lines" add constraint "biz_order_lines_parent_id_fk" foreign key \("parent_id"\) references "biz_order" \("id"\) on delete cascade/,
    );
  });

  it('applies the safe-change rules to the child table, naming table and column', () => {
    const [, child] = entityTableSpecs(order());
    if (!child) throw new Error('no child table');
    const existing: ExistingTable = {
      columns: new Map([
        ['id', 'bigint'],
        ['parent_id', 'bigint'],
        ['seq', 'integer'],
        ['tenant_code', 'text'],
        ['product_name', 'text'],
        ['qty', 'text'],
        ['price', 'double precision'],
        ['status', 'text'],
        ['buyer_id', 'bigint'],
        ['colour', 'text'],
      ]),
      indexes: new Set(child.indexes.map((index) => index.name)),
      constraints: new Set(child.foreignKeys.map((fk) => fk.name)),
    };
    const plan = planTableMigration(child, existing);
    expect(plan.statements).toEqual(['alter table "biz_order_lines" add column "delivery_date" date']);
    expect(plan.problems).toEqual([
      expect.stringMatching(
        /^Table biz_order_lines, column qty: the database has text but the schema wants bigint/,
      ),
      expect.stringMatching(/^Table biz_order_lines, column colour: the schema no longer has this field/),
    ]);
  });
});

describe('an adopted child table (x-detail.parentColumn)', () => {
  const adopted = (options: Json = { table: 'order_line', parentColumn: 'order_id', seq: null }) => {
    const json = orderJson();
    linesOf(json)['x-detail'] = options;
    return json;
  };
  const adoptedOrder = (options?: Json): EntityDef => {
    const found = compileWith(adopted(options)).find((entity) => entity.name === 'bizorder');
    if (!found) throw new Error('bizorder did not compile');
    return found;
  };
  const problemsWith = (options: Json, extra?: (items: Record<string, Json>) => void): string[] => {
    const json = adopted(options);
    extra?.(linesOf(json).items.properties);
    return checkEntitySchema(FILE, 'bizorder', json).map(
      (problem) => `${problem.pointer}: ${problem.message}`,
    );
  };

  it('names its own parent, position and key columns; the defaults stay parent_id, seq and id', () => {
    expect(order().fieldsByName.get('lines')?.detail).toMatchObject({
      parentColumn: 'parent_id',
      seqColumn: 'seq',
      keyColumn: 'id',
      isAdopted: false,
    });
    expect(adoptedOrder().fieldsByName.get('lines')?.detail).toMatchObject({
      table: 'order_line',
      parentColumn: 'order_id',
      seqColumn: null,
      keyColumn: 'id',
      isAdopted: true,
    });
    expect(
      adoptedOrder({ parentColumn: 'order_id', seq: 'line_no', key: 'line_id' }).fieldsByName.get('lines')
        ?.detail,
    ).toMatchObject({
      parentColumn: 'order_id',
      seqColumn: 'line_no',
      keyColumn: 'line_id',
      isAdopted: true,
    });
  });

  it('refuses seq or key without parentColumn, one column for two roles, and an item on a bookkeeping column', () => {
    expect(problemsWith({ table: 'order_line', parentColumn: 'order_id', seq: null })).toEqual([]);
    expect(problemsWith({ seq: 'line_no', key: 'line_id' })).toEqual([
      '/properties/lines/x-detail/seq: seq needs parentColumn (an adopted child table)',
      '/properties/lines/x-detail/key: key needs parentColumn (an adopted child table)',
    ]);
    expect(problemsWith({ parentColumn: 'order_id', seq: 'order_id' })).toEqual([
      '/properties/lines/x-detail: parentColumn, seq and key must be different columns',
    ]);
    expect(problemsWith({ parentColumn: 'Order-Id' })[0]).toMatch(
      /^\/properties\/lines\/x-detail\/parentColumn: /,
    );
    expect(
      problemsWith({ parentColumn: 'order_id', seq: null }, (items) => {
        items.orderId = { type: 'integer' };
        // Without a position column, a column named seq is the row's own.
        items.seq = { type: 'integer' };
      }),
    ).toEqual([
      '/properties/lines/items/properties/orderId: "orderId" is the child table\'s parent column and cannot be declared',
    ]);
  });

  it('creates a missing child table with its own columns and no tenant_code', () => {
    const [, child] = entityTableSpecs(adoptedOrder());
    if (!child) throw new Error('no child table');
    expect(child).toMatchObject({
      name: 'order_line',
      primaryKey: ['id'],
      isAdopted: true,
      isKeptAsIs: true,
    });
    const plan = planTableMigration(child, undefined);
    expect(plan.problems).toEqual([]);
    expect(plan.statements[0]).toMatch(
      /create table "order_line" \(\s+"id" bigint generated by default as identity not null,\s+"order_id" bigint not null,\s+"product_name" text,/,
    );
    expect(plan.statements[0]).not.toMatch(/"seq"|"tenant_code"/);
    expect(plan.statements).toContain(
      'create index if not exists "order_line_order_id_id_idx" on "order_line" ("order_id", "id")',
    );
  });

  it('never alters an existing child table: no column, index or key added; a missing column is a problem', () => {
    const [, child] = entityTableSpecs(adoptedOrder());
    if (!child) throw new Error('no child table');
    const legacy = (): ExistingTable => ({
      columns: new Map([
        ['id', 'integer'],
        ['order_id', 'integer'],
        ['product_name', 'character varying'],
        ['qty', 'integer'],
        ['price', 'numeric'],
        ['status', 'character'],
        ['buyer_id', 'integer'],
        ['delivery_date', 'date'],
        ['legacy_flag', 'bytea'],
      ]),
      indexes: new Set(['order_line_pkey']),
      constraints: new Set(['order_line_order_id_fkey']),
    });
    expect(planTableMigration(child, legacy(), { hasTrigram: true, isConcurrent: true })).toEqual({
      statements: [],
      concurrentStatements: [],
      problems: [],
    });
    const lacking = legacy();
    lacking.columns.delete('delivery_date');
    lacking.columns.set('qty', 'text');
    const plan = planTableMigration(child, lacking);
    expect(plan.statements).toEqual([]);
    expect(plan.problems).toEqual([
      expect.stringMatching(
        /^Table order_line, column qty: the database has text, which the field's schema \(bigint\) cannot/,
      ),
      expect.stringMatching(
        /^Table order_line has no column delivery_date: it is adopted as it is and never altered/,
      ),
    ]);
  });
});

describe('validating detail rows', () => {
  const entity = order();
  const validators = compileValidators(createAjv(), entity);
  const fieldsOf = (body: Json, mode: 'create' | 'update' = 'create'): string[] => {
    try {
      prepareInput(entity, validators, body, mode);
      return [];
    } catch (error) {
      if (!(error instanceof EntityInputError)) throw error;
      return error.errors.map((item) => item.field).sort();
    }
  };

  it('validates each row with the row schema, errors naming the row and the column', () => {
    expect(fieldsOf({ orderNo: 'A', lines: [{ productName: 'x', qty: 1 }] })).toEqual([]);
    expect(
      fieldsOf({
        orderNo: 'A',
        lines: [
          { productName: 'x', qty: 1 },
          { productName: 'y', qty: 1, price: -1 },
          { productName: 'z', qty: 0, deliveryDate: 'soon', extra: true },
        ],
      }),
    ).toEqual(['/lines/1/price', '/lines/2/deliveryDate', '/lines/2/extra', '/lines/2/qty']);
    expect(fieldsOf({ orderNo: 'A', lines: [{}] })).toEqual(['/lines/0/productName', '/lines/0/qty']);
    expect(fieldsOf({ orderNo: 'A', lines: 'many' })).toEqual(['/lines']);
    expect(fieldsOf({ id: 1, version: 1, lines: [{ productName: 'x', qty: 2.5 }] }, 'update')).toEqual([
      '/lines/0/qty',
    ]);
  });

  it('reads an empty cell as a column without a value', () => {
    const { values } = prepareInput(
      entity,
      validators,
      { orderNo: 'A', lines: [{ productName: 'x', qty: 1, price: null, status: '' }] },
      'create',
    );
    expect(values.lines).toEqual([{ productName: 'x', qty: 1 }]);
  });
});

describe('documents and forms of a detail field', () => {
  const entity = order();

  it('puts the rows in the record schema and the generated TypeScript type', async () => {
    const record = recordSchemaOf(entity) as { properties: Record<string, Json>; required: string[] };
    expect(record.properties.lines).toMatchObject({
      type: 'array',
      items: { type: 'object', required: ['productName', 'qty'] },
    });
    // answered by a detail read only: not a required property of every record
    expect(record.required).not.toContain('lines');
    // titles become doc comments, as `npm run gen` writes them (scripts/generate.ts)
    const untitled = JSON.parse(JSON.stringify(record), (key, value: unknown) =>
      key === 'title' ? undefined : value,
    ) as Parameters<typeof compile>[0];
    const types = await compile(untitled, 'BizorderRecord', {
      bannerComment: '',
      additionalProperties: false,
    });
    expect(types).toMatch(/lines\?: \{\s+productName: string;\s+qty: number;\s+price\?: number;/);
  });

  it('is an editable table in the form, with the rows validated by the form schema', () => {
    const schema = formSchemaOf(entity, 'create') as { properties: Record<string, Json> };
    expect(schema.properties.lines).toMatchObject({
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['productName', 'qty'] },
    });
    const ui = uiSchemaOf(entity, 'create') as Record<string, Json>;
    expect(ui.lines).toMatchObject({
      'ui:field': 'detailTable',
      'ui:options': {
        span: 24,
        columns: expect.arrayContaining([
          expect.objectContaining({
            name: 'status',
            widget: 'dictSelect',
            options: expect.objectContaining({ dict: 'user_status' }),
          }),
          expect.objectContaining({ name: 'buyerId', widget: 'refSelect' }),
          expect.objectContaining({ name: 'qty', widget: 'updown', isRequired: true }),
        ]),
      },
    });
  });
});
