/** The columns of a designed sub-table (issue 14): edited in the property panel, kept in order. */
import { describe, expect, it } from 'vitest';
import { checkEntitySchema } from '../../src/engine/index.js';
import {
  modelToSchema,
  paletteSchema,
  schemaToModel,
  type DesignFieldSchema,
} from '../../src/admin/features/forms/designer/model.js';
import {
  addColumn,
  columnProblem,
  removeColumn,
  renameColumn,
  subtableColumns,
  typedColumn,
  updateColumn,
} from '../../src/admin/features/forms/designer/subtable.js';

describe('sub-table columns', () => {
  const start = paletteSchema('subtable', 'Lines');

  it('adds, renames, retypes, requires and removes columns in their order', () => {
    let schema = addColumn(addColumn(start));
    expect(subtableColumns(schema).map((column) => column.name)).toEqual(['name', 'column1', 'column2']);
    schema = renameColumn(schema, 'column1', 'qty');
    schema = updateColumn(schema, 'qty', {
      schema: typedColumn(subtableColumns(schema)[1]?.schema ?? { type: 'string' }, 'integer'),
      isRequired: true,
    });
    schema = updateColumn(schema, 'column2', {
      schema: typedColumn({ type: 'string', title: 'When' }, 'date'),
    });
    const columns = subtableColumns(schema);
    expect(columns.map((column) => [column.name, column.type, column.isRequired])).toEqual([
      ['name', 'string', true],
      ['qty', 'integer', true],
      ['column2', 'date', false],
    ]);
    expect(columns[2]?.schema).toEqual({ type: 'string', format: 'date', title: 'When' });
    schema = renameColumn(schema, 'name', 'item');
    expect(schema.items?.required).toEqual(['item', 'qty']);
    schema = removeColumn(schema, 'qty');
    expect(subtableColumns(schema).map((column) => column.name)).toEqual(['item', 'column2']);
    expect(schema.items?.required).toEqual(['item']);
    // the engine takes the designed field as a detail
    const entity = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      additionalProperties: false,
      title: 'Requisition',
      type: 'object',
      'x-entity': { api: 'form/req', table: 'form_req', key: 'id', label: 'id' },
      properties: { id: { type: 'integer', readOnly: true }, lines: schema },
    };
    expect(checkEntitySchema('req', 'req', entity)).toEqual([]);
  });

  it('refuses names that are not identifiers, are columns of every child table, or are taken', () => {
    const schema = addColumn(start);
    expect(columnProblem(schema, 'column1', 'Bad name')).toBe('invalid');
    expect(columnProblem(schema, 'column1', 'parentId')).toBe('reserved');
    expect(columnProblem(schema, 'column1', 'name')).toBe('taken');
    expect(columnProblem(schema, 'column1', 'qty')).toBeUndefined();
    expect(renameColumn(schema, 'column1', 'name')).toBe(schema);
    // the last column stays
    expect(removeColumn(start, 'name')).toBe(start);
  });

  it("reserves an adopted child table's own columns, and keeps its x-detail through the designer", () => {
    const adopted = {
      ...start,
      'x-detail': { table: 'order_line', parentColumn: 'order_id', seq: null },
    } as DesignFieldSchema;
    const schema = addColumn(adopted);
    expect(columnProblem(schema, 'column1', 'orderId')).toBe('reserved');
    expect(columnProblem(schema, 'column1', 'id')).toBe('reserved');
    // Not this table's columns: an adopted table without a position column may have a "seq" of its own.
    expect(columnProblem(schema, 'column1', 'seq')).toBeUndefined();
    expect(columnProblem(schema, 'column1', 'parentId')).toBeUndefined();
    const form = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      title: 'Orders',
      type: 'object' as const,
      'x-entity': { api: 'online/orders', table: 'orders', key: 'id', label: 'orderNo', adopt: true },
      required: [],
      additionalProperties: false as const,
      properties: {
        id: { type: 'integer' as const, title: 'ID', readOnly: true },
        orderNo: { type: 'string' as const, title: 'Order no', maxLength: 20 },
        orderLine: schema,
      },
    };
    const again = modelToSchema(schemaToModel(form));
    expect(again.properties.orderLine?.['x-detail']).toEqual({
      table: 'order_line',
      parentColumn: 'order_id',
      seq: null,
    });
    expect(checkEntitySchema('orders', 'orders', again)).toEqual([]);
  });
});
