import { expect } from 'vitest';
import { fileFieldUse, type EntityDef, type FieldDef, type FieldSchema } from '../../src/engine/index.js';
import { data, type Api, type Page, type Row } from './api.js';
import { sampleString, token, type StringSchema } from './sample-values.js';
import { fileUpload } from './multipart.js';

export { sampleString, TAG, token } from './sample-values.js';

/** A one-pixel PNG: a real picture the upload sniffs as png (accepted as image and attachment). */
const ONE_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

let counter = 0;
/** Record numbers are unique in the whole test process, so unique fields never clash by accident. */
export const nextNumber = (): number => ++counter;

/**
 * Builds valid records for any entity from its schema alone. References point at existing
 * records found through the API (one is created when the target has none), dictionary fields
 * take values of their dictionary as the API lists it.
 */
export class Samples {
  constructor(readonly api: Api) {}

  private get registry() {
    return this.api.t.app.ctx.registry;
  }

  /** Values of a dictionary type, in sequence order, through queryDictByDictType. */
  async dictValues(dictType: string): Promise<string[]> {
    const dict = this.registry.require('sysdict');
    const response = await this.api.get(`/api/${dict.api}/queryDictByDictType`, { dictType });
    expect(response.statusCode, response.body).toBe(200);
    return data<Row[]>(response).map((row) => String(row.dictValue));
  }

  /** The values a field may take when the schema restricts them (enum, dictionary, or both). */
  async options(schema: Pick<FieldSchema, 'enum' | 'x-dict'>): Promise<unknown[] | undefined> {
    const dict = schema['x-dict'] ? await this.dictValues(schema['x-dict']) : undefined;
    if (schema.enum && dict) return schema.enum.filter((value) => dict.includes(String(value)));
    return schema.enum ?? dict;
  }

  /** The key of an existing record of the field's target; a tree with no records takes its root. */
  async existingKey(entity: EntityDef, field: FieldDef): Promise<unknown> {
    const target = this.registry.require(field.ref ?? '');
    const response = await this.api.query(target, { pageSize: '1' });
    expect(response.statusCode, response.body).toBe(200);
    const found = data<Page>(response).records[0];
    if (found) return found[target.key.name];
    if (target === entity && entity.tree) return entity.tree.root;
    const created = await this.create(target);
    return created[target.key.name];
  }

  /** Uploads a small picture through the file API (as the forms do) and answers its id. */
  async uploadedFileId(use: 'image' | 'attachment', n: number): Promise<number> {
    const form = fileUpload(`sample-${n}.png`, ONE_PIXEL_PNG, { type: 'image/png' });
    const response = await this.api.call({
      method: 'POST',
      url: `/api/file/file/upload?use=${use}`,
      headers: form.headers,
      payload: form.payload,
    });
    expect(response.statusCode, `upload a sample file: ${response.body}`).toBe(200);
    return data<{ id: number }>(response).id;
  }

  async fieldValue(entity: EntityDef, field: FieldDef, n: number): Promise<unknown> {
    const schema = field.schema;
    if (field.detail) {
      // Detail rows: two (or minItems) rows, every column filled like a field of its own.
      const count = Math.max(2, schema.minItems ?? 0);
      const rows: Row[] = [];
      for (let index = 0; index < count; index += 1) {
        const row: Row = {};
        for (const column of field.detail.fields)
          row[column.name] = await this.fieldValue(entity, column, n + index);
        rows.push(row);
      }
      return rows;
    }
    if (field.ref) return this.existingKey(entity, field);
    const fileUse = fileFieldUse(field);
    if (fileUse) {
      const id = await this.uploadedFileId(fileUse, n);
      return schema.type === 'array' ? [id] : id;
    }
    if (schema.type === 'array') {
      const items = schema.items ?? { type: 'string' };
      const count = Math.max(1, schema.minItems ?? 0);
      const options = await this.options({
        ...(items.enum ? { enum: items.enum } : {}),
        ...(schema['x-dict'] ? { 'x-dict': schema['x-dict'] } : {}),
      });
      if (options) {
        expect(options.length, `options of ${entity.name}.${field.name}`).toBeGreaterThanOrEqual(count);
        return Array.from({ length: count }, (_, index) =>
          convert(items.type, options[(n + index) % options.length]),
        );
      }
      return Array.from({ length: count }, (_, index) =>
        scalarValue(items.type, items, n + index, field.name),
      );
    }
    const options = await this.options(schema);
    if (options) {
      expect(options.length, `options of ${entity.name}.${field.name}`).toBeGreaterThan(0);
      return convert(schema.type, options[n % options.length]);
    }
    if (schema.type === 'object') return { sample: token(n) };
    return scalarValue(schema.type, schema, n, field.name);
  }

  /** A valid add body with every writable field set (optional ones too, for coverage). */
  async record(entity: EntityDef, overrides: Row = {}): Promise<Row> {
    const n = nextNumber();
    const record: Row = {};
    for (const field of entity.fields) {
      if (field.isReadOnly) continue;
      record[field.name] = await this.fieldValue(entity, field, n);
    }
    return { ...record, ...overrides };
  }

  /** Adds a sample record through the API and returns what the API answered. */
  async create(entity: EntityDef, overrides: Row = {}): Promise<Row> {
    const response = await this.api.add(entity, await this.record(entity, overrides));
    expect(response.statusCode, `add ${entity.name}: ${response.body}`).toBe(200);
    return data(response);
  }
}

function convert(type: string, value: unknown): unknown {
  if (type === 'integer' || type === 'number') return Number(value);
  if (type === 'boolean') return value === true || value === 'true' || value === '1';
  return value;
}

function scalarValue(
  type: string,
  schema: StringSchema & Pick<FieldSchema, 'minimum' | 'maximum'>,
  n: number,
  name: string,
): unknown {
  switch (type) {
    case 'integer':
    case 'number': {
      const value = (schema.minimum ?? 1) + n + (type === 'number' ? 0.5 : 0);
      return schema.maximum !== undefined ? Math.min(value, schema.maximum) : value;
    }
    case 'boolean':
      return n % 2 === 0;
    default:
      return sampleString(schema, n, name);
  }
}

/** The query-string value that makes a field's filter match a record with this value. */
export function filterValue(field: FieldDef, value: unknown): string | undefined {
  if (!field.filter || value === null || value === undefined) return undefined;
  if (Array.isArray(value)) return value.length > 0 ? String(value[0]) : undefined;
  if (typeof value === 'object') return undefined;
  if (field.filter === 'dateRange') {
    // as a date picker sends it: whole days, from the day before to the day after (time zones)
    const day = new Date(String(value)).getTime();
    const dayOf = (time: number): string => new Date(time).toISOString().slice(0, 10);
    return `${dayOf(day - 86_400_000)},${dayOf(day + 86_400_000)}`;
  }
  return String(value);
}

/** Compares what the API returns with what was sent: timestamps may come back in another notation. */
export function sameValue(field: FieldDef, sent: unknown, returned: unknown): boolean {
  if (field.sqlType === 'timestamptz' && typeof sent === 'string' && typeof returned === 'string') {
    return new Date(sent).getTime() === new Date(returned).getTime();
  }
  return JSON.stringify(sent) === JSON.stringify(returned);
}
