import { sql } from 'kysely';
import type { EntityDef, FieldDef } from '../../engine/index.js';
import type { Db } from './db/database.js';
import type { EntityRegistry } from './registry.js';
import { column, scopeCondition, table, whereClause, type Actor } from './sql/toolkit.js';

/**
 * The dictionary entity (schemas/sysdict.schema.json) as the framework reads it: the items an
 * x-dict field names by their dictType, each a value and its stored name. The one place that
 * names it: the checks, exports and imports of every entity ask here.
 */
export const DICTIONARY_ENTITY = 'sysdict';

export interface DictionaryTable {
  entity: EntityDef;
  type: FieldDef;
  value: FieldDef;
  name: FieldDef;
  sequence: FieldDef | undefined;
}

/** The dictionary entity and its fields; undefined when the schemas have none. */
export function dictionaryTable(registry: EntityRegistry): DictionaryTable | undefined {
  const entity = registry.get(DICTIONARY_ENTITY);
  const type = entity?.fieldsByName.get('dictType');
  const value = entity?.fieldsByName.get('dictValue');
  const name = entity?.fieldsByName.get('dictName');
  if (!entity || !type || !value || !name) return undefined;
  return { entity, type, value, name, sequence: entity.fieldsByName.get('dictSequence') };
}

/**
 * The items of one dictionary (value and stored name), in sequence order: of the actor's tenant
 * when an actor is given, only those of `values` when given.
 */
export async function dictionaryItems({
  db,
  dict,
  dictType,
  actor,
  values,
}: {
  db: Db;
  dict: DictionaryTable;
  dictType: string;
  actor?: Actor;
  values?: readonly string[];
}): Promise<{ value: string; name: string | null }[]> {
  const conditions = [
    sql`${column(dict.type)} = ${dictType}`,
    values ? sql`${column(dict.value)} in (${sql.join(values)})` : sql`${column(dict.value)} is not null`,
    ...(actor ? scopeCondition(dict.entity, actor) : []),
  ];
  const order = dict.sequence ? sql`order by ${column(dict.sequence)}` : sql``;
  const rows = await sql<{ value: string; name: string | null }>`select ${column(dict.value)} as value,
    ${column(dict.name)} as name from ${table(dict.entity)} ${whereClause(conditions)} ${order}`.execute(db);
  return rows.rows;
}
