import { sql } from 'kysely';
import type { Ajv } from 'ajv';
import { boundedSchema, type DetailDef, type EntityDef, type FieldDef } from '../../../../engine/index.js';
import type { ImpactItem, ImpactReport } from '../../../../engine/api-types.js';
import type { Db } from '../../../lib/db/database.js';

/*
 * What a new version of a published form would do to the rows already in its tables (its own
 * and the child table of each detail field). A change is safe when no existing row breaks it;
 * anything else is refused, never applied by dropping or converting data.
 */

const FIRST_KEYS = 5;

type Row = Record<string, unknown>;

/** A value as the API would give it (timestamps as ISO text, whole numbers as numbers). */
function apiValue(field: FieldDef, value: unknown): unknown {
  if (value instanceof Date) {
    const iso = value.toISOString();
    return field.schema.format === 'date' ? iso.slice(0, 10) : iso;
  }
  if (field.type === 'integer' && typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  return value;
}

const declaredFields = (entity: EntityDef): FieldDef[] => entity.fields.filter((field) => !field.isSystem);

const hasValue = (row: Row, field: FieldDef): boolean =>
  row[field.column] !== null && row[field.column] !== undefined;

/** Collects the items of one comparison; keys are given per row by the table's reader. */
class Findings {
  readonly items: ImpactItem[] = [];
  /** Whether a required field's default fills the rows without a value (以默认值回填现有记录). */
  constructor(readonly isBackfill: boolean) {}
  report(
    field: string,
    rule: string,
    broken: readonly Row[],
    keyOf: (row: Row) => unknown,
    canBackfill = false,
  ): void {
    // A drop or a type change is never applied; a tighter rule is when no row breaks it (or, a
    // new required rule, when the field's default fills those rows and the publish asks for it).
    const isSafe =
      rule === 'added' ||
      (rule !== 'dropped' && rule !== 'type' && (broken.length === 0 || (canBackfill && this.isBackfill)));
    const keys: unknown[] = [];
    for (const row of broken) {
      const key = keyOf(row);
      if (!keys.some((known) => String(known) === String(key))) keys.push(key);
      if (keys.length === FIRST_KEYS) break;
    }
    this.items.push({
      field,
      rule,
      rows: broken.length,
      keys,
      isSafe,
      ...(canBackfill ? { canBackfill } : {}),
    });
  }
}

/** A field's rules to compile on their own: ajv's strict mode refuses a default at a schema's root (a 500 before). */
function rulesOf(schema: FieldDef['schema']): FieldDef['schema'] {
  const { default: _default, ...rules } = schema;
  return rules;
}

/** A scalar default that the field's own schema accepts: it may fill the rows a new required rule finds empty. */
export function backfillValue(ajv: Ajv, field: FieldDef): string | number | boolean | undefined {
  const value = field.schema.default;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  if (field.detail || field.type === 'array' || field.type === 'object') return undefined;
  return ajv.compile(boundedSchema(rulesOf(field.schema)))(value) ? value : undefined;
}

/**
 * Compares the columns of one table (the entity's own, or a detail's child table) before and
 * after, against its rows: dropped and retyped columns, new required ones, new unique ones, and
 * every stored value against a changed field schema.
 */
function compareColumns(
  ajv: Ajv,
  findings: Findings,
  scope: { prefix: string; rows: readonly Row[]; keyOf: (row: Row) => unknown },
  before: readonly FieldDef[],
  after: readonly FieldDef[],
): void {
  const { prefix, rows, keyOf } = scope;
  const afterFields = new Map(after.map((field) => [field.name, field]));
  const beforeFields = new Map(before.map((field) => [field.name, field]));
  const report = (name: string, rule: string, broken: readonly Row[], canBackfill = false): void =>
    findings.report(`${prefix}${name}`, rule, broken, keyOf, canBackfill && broken.length > 0);
  const hasDefault = (field: FieldDef): boolean => backfillValue(ajv, field) !== undefined;
  for (const [name, field] of beforeFields) {
    const next = afterFields.get(name);
    if (!next || next.column !== field.column) {
      report(
        name,
        'dropped',
        rows.filter((row) => hasValue(row, field)),
      );
      continue;
    }
    if (next.sqlType !== field.sqlType)
      report(
        name,
        'type',
        rows.filter((row) => hasValue(row, field)),
      );
  }
  for (const [name, field] of afterFields) {
    const previous = beforeFields.get(name);
    if (previous && previous.sqlType !== field.sqlType) continue;
    if (!previous) {
      // A new column starts empty in every existing row.
      if (field.isRequired && !field.isReadOnly) report(name, 'required', rows, hasDefault(field));
      else report(name, 'added', []);
      continue;
    }
    if (field.isRequired && !previous.isRequired && !field.isReadOnly)
      report(
        name,
        'required',
        rows.filter((row) => !hasValue(row, field)),
        hasDefault(field),
      );
    if (field.isUnique && !previous.isUnique) {
      const seen = new Map<string, number>();
      const clashing: Row[] = [];
      for (const row of rows) {
        if (!hasValue(row, field)) continue;
        const value = `${String(row.tenant_code)}\u0000${JSON.stringify(apiValue(field, row[field.column]))}`;
        const count = (seen.get(value) ?? 0) + 1;
        seen.set(value, count);
        if (count > 1) clashing.push(row);
      }
      if (clashing.length > 0) report(name, 'unique', clashing);
    }
    if (JSON.stringify(previous.schema) === JSON.stringify(field.schema)) continue;
    // A tighter rule: every stored value is checked against the field's new schema.
    const validate = ajv.compile(boundedSchema(rulesOf(field.schema)));
    const byRule = new Map<string, Row[]>();
    for (const row of rows) {
      if (!hasValue(row, field)) continue;
      if (validate(apiValue(field, row[field.column]))) continue;
      const rule = validate.errors?.[0]?.keyword ?? 'invalid';
      const list = byRule.get(rule) ?? [];
      list.push(row);
      byRule.set(rule, list);
    }
    for (const [rule, broken] of byRule) report(name, rule, broken);
  }
}

async function childRows(db: Db, detail: DetailDef): Promise<Row[]> {
  return (await sql<Row>`select * from ${sql.table(detail.table)} order by parent_id, seq`.execute(db)).rows;
}

/** The array's own bounds (minItems, maxItems) against the number of rows each parent holds. */
function countBreaks(
  field: FieldDef,
  parents: readonly Row[],
  counts: ReadonlyMap<string, number>,
  keyColumn: string,
): Map<string, Row[]> {
  const min = typeof field.schema.minItems === 'number' ? field.schema.minItems : 0;
  const max = typeof field.schema.maxItems === 'number' ? field.schema.maxItems : Infinity;
  const broken = new Map<string, Row[]>();
  for (const parent of parents) {
    const count = counts.get(String(parent[keyColumn])) ?? 0;
    const rule = count < min ? 'minItems' : count > max ? 'maxItems' : undefined;
    if (rule) broken.set(rule, [...(broken.get(rule) ?? []), parent]);
  }
  return broken;
}

/** The impact of replacing `before` (live) by `after` on the rows of its tables. */
export async function impactOf({
  db,
  ajv,
  before,
  after,
  isBackfill = false,
}: {
  db: Db;
  /** The registry's ajv (its formats and vocabulary): the rows are checked against the new schema with it. */
  ajv: Ajv;
  before: EntityDef;
  after: EntityDef;
  /** 以默认值回填现有记录: a new required rule whose field has a default is safe (publish fills the rows). */
  isBackfill?: boolean;
}): Promise<ImpactReport> {
  const findings = new Findings(isBackfill);
  const key = before.key;
  const rows = (
    await sql<Row>`select * from ${sql.table(before.table)} order by ${sql.ref(key.column)}`.execute(db)
  ).rows;
  const keyOf = (row: Row): unknown => apiValue(key, row[key.column]);
  const parentKeyOf = (row: Row): unknown => apiValue(key, row.parent_id);
  const beforeAll = declaredFields(before);
  const afterAll = declaredFields(after);
  // A field that turns into a detail or back is a type change, reported with the details below.
  const isDetailIn = (fields: readonly FieldDef[], name: string): boolean =>
    fields.some((field) => field.name === name && field.detail !== undefined);
  compareColumns(
    ajv,
    findings,
    { prefix: '', rows, keyOf },
    beforeAll.filter((field) => !field.detail && !isDetailIn(afterAll, field.name)),
    afterAll.filter((field) => !field.detail && !isDetailIn(beforeAll, field.name)),
  );

  // Detail fields: the child table as a whole, then its columns against its rows.
  const afterByName = new Map(afterAll.map((field) => [field.name, field]));
  for (const field of beforeAll) {
    if (!field.detail) continue;
    const next = afterByName.get(field.name);
    const children = await childRows(db, field.detail);
    if (!next?.detail || next.detail.table !== field.detail.table) {
      findings.report(field.name, next && !next.detail ? 'type' : 'dropped', children, parentKeyOf);
      continue;
    }
    compareColumns(
      ajv,
      findings,
      { prefix: `${field.name}.`, rows: children, keyOf: parentKeyOf },
      field.detail.fields,
      next.detail.fields,
    );
    if (
      JSON.stringify({ ...field.schema, items: null }) !== JSON.stringify({ ...next.schema, items: null })
    ) {
      const counts = new Map<string, number>();
      for (const child of children) {
        const parent = String(child.parent_id);
        counts.set(parent, (counts.get(parent) ?? 0) + 1);
      }
      for (const [rule, broken] of countBreaks(next, rows, counts, key.column))
        findings.report(field.name, rule, broken, keyOf);
    }
  }
  for (const field of afterAll) {
    if (!field.detail) continue;
    const previous = beforeAll.find((b) => b.name === field.name);
    if (previous?.detail) continue;
    if (previous) {
      // A plain field turned into a detail: its values would have no place to go.
      findings.report(
        field.name,
        'type',
        rows.filter((row) => hasValue(row, previous)),
        keyOf,
      );
      continue;
    }
    // A new child table: no parent has rows in it yet.
    const broken = countBreaks(field, rows, new Map(), key.column).get('minItems') ?? [];
    findings.report(field.name, broken.length > 0 ? 'minItems' : 'added', broken, keyOf);
  }
  return { isSafe: findings.items.every((item) => item.isSafe), items: findings.items };
}
