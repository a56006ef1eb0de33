import { sql } from 'kysely';
import { EntityInputError, isHashedSecret, prepareInput, type EntityDef } from '../../../engine/index.js';
import { hashSecret } from '../passwords.js';
import type { Db } from '../db/database.js';
import type { EntityRegistry } from '../registry.js';
import { column, insertRow, table, type Actor } from './toolkit.js';
import { writeDetailRows } from './detail-rows.js';

/**
 * Inserts many records at once (seeding, imports): each is validated against the entity's create
 * schema like an API call, but references and uniqueness are left to the caller. Returns the keys.
 */
export async function insertRecords({
  trx,
  registry,
  entity,
  actor,
  records,
}: {
  trx: Db;
  registry: EntityRegistry;
  entity: EntityDef;
  actor: Actor;
  records: Record<string, unknown>[];
}): Promise<unknown[]> {
  if (records.length === 0) return [];
  const validators = registry.validators(entity);
  const prepared = records.map((record, index) => {
    try {
      return prepareInput(entity, validators, record, 'create').values;
    } catch (error) {
      if (error instanceof EntityInputError) {
        throw new Error(
          `${entity.name} record ${index} (${JSON.stringify(record).slice(0, 120)}): ${error.message}`,
        );
      }
      throw error;
    }
  });
  for (const values of prepared) {
    for (const field of entity.fields) {
      const value = values[field.name];
      if (isHashedSecret(entity, field) && typeof value === 'string')
        values[field.name] = await hashSecret(value);
    }
  }
  const fields = entity.fields.filter(
    (field) => !field.detail && prepared.some((values) => values[field.name] !== undefined),
  );
  const columns = insertRow({ entity, values: {}, fields, actor }).columns;
  const keys: unknown[] = [];
  for (let start = 0; start < prepared.length; start += 500) {
    const rows = prepared
      .slice(start, start + 500)
      .map((values) => sql`(${sql.join(insertRow({ entity, values, fields, actor }).params)})`);
    const result = await sql<{
      key: unknown;
    }>`insert into ${table(entity)} (${sql.join(columns)}) values ${sql.join(rows)}
      returning ${column(entity.key)} as key`.execute(trx);
    keys.push(...result.rows.map((row) => row.key));
  }
  for (const [index, values] of prepared.entries())
    await writeDetailRows({ trx, entity, parentKey: keys[index], values, actor, isNew: true });
  return keys;
}
