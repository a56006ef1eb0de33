import { sql } from 'kysely';
import type { EntityDef, FieldError } from '../../../../engine/index.js';
import type { Db } from '../../../lib/db/database.js';
import { AppError } from '../../../lib/errors.js';
import type { EntityRegistry } from '../../../lib/registry.js';
import type { Localizer } from '../../../lib/i18n.js';
import { dictionaryItems, dictionaryTable } from '../../../lib/dictionaries.js';
import { entityTitle, fieldTitle } from '../../../lib/titles.js';
import { column, scopeCondition, table, whereClause, type Actor } from '../../../lib/sql/toolkit.js';

export interface CheckContext {
  trx: Db;
  entity: EntityDef;
  registry: EntityRegistry;
  actor: Actor;
  l10n: Localizer;
  /** The caller's roles (file fields: an administrator may use every file of the tenant). */
  roles?: readonly string[];
}

/** References (x-ref) must point at existing records the caller can see; a tree root needs no record. */
export async function checkReferences(
  ctx: CheckContext,
  values: Record<string, unknown>,
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const field of ctx.entity.fields) {
    const value = values[field.name];
    if (!field.ref || value === undefined || value === null) continue;
    if (ctx.entity.tree?.parent === field.name && value === ctx.entity.tree.root) continue;
    const target = ctx.registry.require(field.ref);
    const conditions = [sql`${column(target.key)} = ${value}`, ...scopeCondition(target, ctx.actor)];
    const found = await sql`select 1 from ${table(target)} ${whereClause(conditions)} limit 1`.execute(
      ctx.trx,
    );
    if (found.rows.length === 0) {
      errors.push({
        field: `/${field.name}`,
        message: ctx.l10n.t('errors.refMissing', { entity: entityTitle(ctx.l10n, target), key: value }),
      });
    }
  }
  return errors;
}

/** Dictionary fields (x-dict) take only values of their dictionary. */
export async function checkDictionaries(
  ctx: CheckContext,
  values: Record<string, unknown>,
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  const dict = dictionaryTable(ctx.registry);
  if (!dict) return errors;
  for (const field of ctx.entity.fields) {
    const value = values[field.name];
    if (!field.dict || value === undefined || value === null) continue;
    const wanted = (Array.isArray(value) ? value : [value]).map(String);
    if (wanted.length === 0) continue;
    const found = await dictionaryItems({
      db: ctx.trx,
      dict,
      dictType: field.dict,
      actor: ctx.actor,
      values: wanted,
    });
    const known = new Set(found.map((row) => row.value));
    const missing = wanted.find((item) => !known.has(item));
    if (missing !== undefined) {
      errors.push({
        field: `/${field.name}`,
        message: ctx.l10n.t('errors.dictMissing', { dict: field.dict, value: missing }),
      });
    }
  }
  return errors;
}

/** Unique fields (x-unique, and a client-supplied key) clash with another record of the tenant: 409 naming each field. */
export async function checkUnique({
  values,
  ownKey,
  ...ctx
}: CheckContext & {
  values: Record<string, unknown>;
  /** The key of the record being updated (it does not clash with itself); absent for an add. */
  ownKey?: unknown;
}): Promise<void> {
  const errors: FieldError[] = [];
  const clashes: string[] = [];
  for (const field of ctx.entity.fields) {
    const value = values[field.name];
    // A key the client supplies (region codes) is unique too; a generated key never reaches here.
    if (!(field.isUnique || field.isKey) || value === undefined || value === null) continue;
    const conditions = [sql`${column(field)} = ${value}`, ...scopeCondition(ctx.entity, ctx.actor)];
    if (ownKey !== undefined) conditions.push(sql`${column(ctx.entity.key)} <> ${ownKey}`);
    const found = await sql`select 1 from ${table(ctx.entity)} ${whereClause(conditions)} limit 1`.execute(
      ctx.trx,
    );
    if (found.rows.length > 0) {
      const shown = `${fieldTitle({ l10n: ctx.l10n, entity: ctx.entity, field })} “${String(value)}”`;
      clashes.push(shown);
      errors.push({ field: `/${field.name}`, message: ctx.l10n.t('errors.uniqueClash', { value: shown }) });
    }
  }
  if (errors.length > 0) throw new AppError('uniqueClash', { value: clashes.join(', ') }, errors);
}

/** A tree node cannot move under itself or one of its descendants. */
export async function checkTreeMove({
  key,
  newParent,
  ...ctx
}: CheckContext & { key: unknown; newParent: unknown }): Promise<FieldError[]> {
  const tree = ctx.entity.tree;
  if (!tree || newParent === undefined || newParent === null || newParent === tree.root) return [];
  const parentField = ctx.entity.fieldsByName.get(tree.parent);
  if (!parentField) return [];
  const seen = new Set<unknown>();
  let current: unknown = newParent;
  while (current !== undefined && current !== null && current !== tree.root && !seen.has(current)) {
    if (current === key) return [{ field: `/${tree.parent}`, message: ctx.l10n.t('errors.treeCycle') }];
    seen.add(current);
    const conditions = [
      sql`${column(ctx.entity.key)} = ${current}`,
      ...scopeCondition(ctx.entity, ctx.actor),
    ];
    const row = await sql<{
      parent: unknown;
    }>`select ${column(parentField)} as parent from ${table(ctx.entity)} ${whereClause(conditions)}`.execute(
      ctx.trx,
    );
    current = row.rows[0]?.parent;
  }
  return [];
}
