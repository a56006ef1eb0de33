import { sql } from 'kysely';
import {
  entityTableSpecs,
  isTimeZone,
  planTableMigration,
  type EntitySchema,
} from '../../../../engine/index.js';
import type { AdoptAnswer } from '../../../../engine/api-types.js';
import type { AuthContext } from '../../../lib/auth.js';
import type { AppContext } from '../../../lib/context.js';
import { ensureTrigram, readExistingTables, startIndexBuild } from '../../../lib/db/migrate.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { writeAudit } from '../../../lib/audit.js';
import { addForm, compileForm, normalizeContent, onlineApiOf } from '../../forms/index.js';
import { entityNameOf } from '../../../../../generators/reverse.js';
import { adoptedTables, reverseSchema } from './database-tables.js';

/**
 * Adopting an existing table (reverse generation → the form designer → publishing): the table's
 * schema becomes a designed form whose entity has x-entity.adopt, so the engine keeps the
 * table's column types and the columns the schema leaves out, and adds only the bookkeeping
 * columns it needs (tenant, created/updated, version) and the engine's non-unique lookup and list
 * indexes (IF NOT EXISTS, never a unique index or a foreign key). Those statements are shown first
 * and run only once the admin confirms; the designed form is then reviewed and published as any other.
 */

export interface AdoptInput {
  tableName: string;
  /** The designed form's code (its entity name); the table's letters and digits when absent. */
  formCode?: string;
  /** false: only say what adopting would do; true: do it. */
  confirm: boolean;
  /** The zone of the table's timestamp without time zone columns (x-entity.timeZone). */
  timeZone?: string;
}

/** POST generator/reverse/adopt: the plan of adopting a table, or (confirmed) the adoption. */
export async function adoptTable({
  ctx,
  actor,
  auth,
  l10n,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  /** The caller (the platform administrator: the route is platform-only). */
  auth: AuthContext;
  l10n: Localizer;
  input: AdoptInput;
}): Promise<AdoptAnswer> {
  const refuseAdopted = async (db: AppContext['db']): Promise<void> => {
    const by = (await adoptedTables(db)).get(input.tableName);
    if (by)
      throw new AppError('tableAdopted', { table: input.tableName, form: by.formCode }, [
        {
          field: '/tableName',
          message: `already adopted by the designed form ${by.formCode} (id ${by.formId})`,
        },
      ]);
  };
  if (input.timeZone !== undefined && !isTimeZone(input.timeZone))
    throw new AppError('validation', {}, [{ field: '/timeZone', message: l10n.t('validation.invalid') }]);
  await refuseAdopted(ctx.db);
  const { schema: reversed, details } = await reverseSchema(ctx, input.tableName);
  const formCode = input.formCode ?? entityNameOf(input.tableName);
  const content = normalizeContent({
    formCode,
    formName: reversed.title,
    content: {
      ...reversed,
      // The columns' order as the form's layout: a jsonb column (PostgreSQL) keeps no key order.
      'x-ui': { ...reversed['x-ui'], items: Object.keys(reversed.properties) },
      'x-entity': {
        ...reversed['x-entity'],
        api: onlineApiOf(formCode),
        adopt: true,
        ...(input.timeZone !== undefined ? { timeZone: input.timeZone } : {}),
      },
    },
  }) as EntitySchema;
  const compiled = compileForm({ registry: ctx.registry, formCode, content });
  if (!compiled.entity) throw new AppError('validation', {}, compiled.errors);
  // The table and the child tables of its details (kept as they are: they plan nothing, or problems).
  const specs = entityTableSpecs(compiled.entity);
  const hasTrigram = await ensureTrigram(ctx.db);
  // PostgreSQL: the engine's indexes are built concurrently once the columns are in, so a large
  // table keeps taking writes; PGlite (one connection) builds them in the transaction.
  const isConcurrent = ctx.dbKind === 'postgres';
  const planOf = async (db: AppContext['db']): Promise<{ statements: string[]; indexes: string[] }> => {
    const existing = await readExistingTables(db);
    const plans = specs.map((spec) =>
      planTableMigration(spec, existing.get(spec.name), { hasTrigram, isConcurrent }),
    );
    const problems = plans.flatMap((plan) => plan.problems);
    if (problems.length > 0)
      throw new AppError(
        'validation',
        {},
        problems.map((message) => ({ field: '/tableName', message })),
      );
    return {
      statements: plans.flatMap((plan) => plan.statements),
      indexes: plans.flatMap((plan) => plan.concurrentStatements ?? []),
    };
  };
  const planned = await planOf(ctx.db);
  if (!input.confirm)
    return { formCode, schema: content, statements: [...planned.statements, ...planned.indexes], details };
  // The form first: a taken code refuses the adoption before the table is touched.
  const form = await addForm({
    ctx,
    actor,
    auth,
    l10n,
    input: {
      formCode,
      formName: content.title,
      formDescription: content.description ?? '',
      formContent: content as unknown as Record<string, unknown>,
    },
  });
  const now = await ctx.db.transaction().execute(async (trx) => {
    // Planned again inside the transaction: the table may have changed since it was shown.
    const plan = await planOf(trx);
    for (const statement of plan.statements) await sql.raw(statement).execute(trx);
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'sysform',
          recordKey: form.id,
          action: 'update',
          before: null,
          after: {
            adoptedTable: input.tableName,
            detailTables: details,
            statements: [...plan.statements, ...plan.indexes],
          },
        },
      ],
    });
    return plan;
  });
  // CREATE INDEX CONCURRENTLY IF NOT EXISTS runs outside a transaction; one that fails leaves an
  // invalid index that the periodic check (startIndexRepair) or the next start builds again.
  if (now.indexes.length > 0) await startIndexBuild(ctx.db, now.indexes).done;
  return { formCode, schema: content, statements: [...now.statements, ...now.indexes], details, form };
}
