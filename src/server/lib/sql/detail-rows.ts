import { sql } from 'kysely';
import { detailFields, type DetailDef, type EntityDef, type FieldDef } from '../../../engine/index.js';
import type { Db } from '../db/database.js';
import { column, readColumn, toDbValue, type Actor } from './toolkit.js';

/**
 * The rows of detail (x-detail) fields, in their child tables (engine ddl.ts detailTableSpec).
 * Rows belong to the parent's key and the caller's tenant; a write replaces a parent's whole set.
 */
export type DetailRow = Record<string, unknown>;

const childTable = (detail: DetailDef) => sql.table(detail.table);

/**
 * A parent's rows are the caller's tenant's only (a shared parent's rows carry the writer's
 * tenant). An adopted child table has no tenant_code: its rows are scoped by their parent.
 */
function rowScope({ entity, detail, actor }: { entity: EntityDef; detail: DetailDef; actor: Actor }) {
  return entity.isTenantScoped && !detail.isAdopted ? sql` and tenant_code = ${actor.tenantCode}` : sql``;
}

const parentRef = (detail: DetailDef) => sql.ref(detail.parentColumn);

/** The rows' saved order: by position, or by the child table's key when it has no position column. */
const orderRef = (detail: DetailDef) => sql.ref(detail.seqColumn ?? detail.keyColumn);

/** Inserts rows of one detail field for one parent, numbered 1, 2, … in the given order. */
async function insertRows({
  trx,
  detail,
  parentKey,
  rows,
  actor,
}: {
  trx: Db;
  detail: DetailDef;
  parentKey: unknown;
  rows: readonly DetailRow[];
  actor: Actor;
}): Promise<void> {
  if (rows.length === 0) return;
  const fields = detail.fields.filter((field) => rows.some((row) => row[field.name] !== undefined));
  // An adopted child table: its own parent and position columns (the latter maybe none), no tenant.
  const hasSeq = detail.seqColumn !== null;
  const columns = [
    parentRef(detail),
    ...(detail.seqColumn === null ? [] : [sql.ref(detail.seqColumn)]),
    ...(detail.isAdopted ? [] : [sql.ref('tenant_code')]),
    ...fields.map(column),
  ];
  // Without a position column the order is the key the table generates: one VALUES list is
  // inserted row after row, so the keys follow the given order.
  const tuples = rows.map(
    (row, index) =>
      sql`(${sql.join([
        parentKey,
        ...(hasSeq ? [index + 1] : []),
        ...(detail.isAdopted ? [] : [actor.tenantCode]),
        ...fields.map((field) => toDbValue(field, row[field.name] ?? null)),
      ])})`,
  );
  await sql`insert into ${childTable(detail)} (${sql.join(columns)}) values ${sql.join(tuples)}`.execute(trx);
}

/**
 * Writes the detail fields present in `values` for one parent: each given set replaces the
 * parent's rows of that field (a field named in `cleared` empties it); fields not sent keep
 * their rows. Runs in the caller's transaction, after the parent row is written.
 */
export async function writeDetailRows({
  trx,
  entity,
  parentKey,
  values,
  actor,
  isNew,
  cleared,
}: {
  trx: Db;
  entity: EntityDef;
  parentKey: unknown;
  values: Readonly<Record<string, unknown>>;
  actor: Actor;
  /** A parent just inserted has no rows to replace. */
  isNew: boolean;
  cleared?: readonly string[];
}): Promise<void> {
  for (const field of detailFields(entity)) {
    const given = values[field.name];
    const isCleared = cleared?.includes(field.name) === true;
    if (given === undefined && !isCleared) continue;
    if (!isNew) {
      await sql`delete from ${childTable(field.detail)} where ${parentRef(field.detail)} = ${parentKey}${rowScope({ entity, detail: field.detail, actor })}`.execute(
        trx,
      );
    }
    await insertRows({
      trx,
      detail: field.detail,
      parentKey,
      rows: Array.isArray(given) ? (given as DetailRow[]) : [],
      actor,
    });
  }
}

/** A row read back: its columns under their API names, empty ones left out (as a form sends them). */
function rowOf(fields: readonly FieldDef[], raw: Record<string, unknown>): DetailRow {
  const row: DetailRow = {};
  for (const field of fields) {
    const value = raw[field.name];
    if (value !== null && value !== undefined) row[field.name] = value;
  }
  return row;
}

/** The detail rows of some parents, by field then parent key, each list in its saved order. */
export async function readDetailRows({
  db,
  entity,
  parentKeys,
  actor,
}: {
  db: Db;
  entity: EntityDef;
  parentKeys: readonly unknown[];
  actor: Actor;
}): Promise<Map<string, Map<unknown, DetailRow[]>>> {
  const result = new Map<string, Map<unknown, DetailRow[]>>();
  if (parentKeys.length === 0) return result;
  for (const field of detailFields(entity)) {
    const byParent = new Map<unknown, DetailRow[]>(parentKeys.map((key) => [key, []]));
    const fields = field.detail.fields;
    const select = [
      sql`${parentRef(field.detail)} as ${sql.id('__parent')}`,
      ...fields.map((item) => sql`${readColumn(item)} as ${sql.id(item.name)}`),
    ];
    const rows = await sql<
      Record<string, unknown>
    >`select ${sql.join(select)} from ${childTable(field.detail)}
      where ${parentRef(field.detail)} in (${sql.join([...parentKeys])})${rowScope({ entity, detail: field.detail, actor })}
      order by ${parentRef(field.detail)}, ${orderRef(field.detail)}`.execute(db);
    for (const raw of rows.rows) {
      // bigint keys come back as numbers or strings depending on the driver: match by text
      const parent = parentKeys.find((key) => String(key) === String(raw.__parent));
      byParent.get(parent)?.push(rowOf(fields, raw));
    }
    result.set(field.name, byParent);
  }
  return result;
}

/**
 * Deletes the rows of a parent's adopted child tables (x-detail.parentColumn), before the parent:
 * their own foreign key may not cascade. The engine's child tables cascade by themselves.
 */
export async function deleteAdoptedDetailRows({
  trx,
  entity,
  parentKeys,
}: {
  trx: Db;
  entity: EntityDef;
  parentKeys: readonly unknown[];
}): Promise<void> {
  if (parentKeys.length === 0) return;
  for (const field of detailFields(entity)) {
    if (!field.detail.isAdopted) continue;
    await sql`delete from ${childTable(field.detail)} where ${parentRef(field.detail)} in (${sql.join([...parentKeys])})`.execute(
      trx,
    );
  }
}
