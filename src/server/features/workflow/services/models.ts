import { sql } from 'kysely';
import type {
  WfDeployAnswer,
  WfImportedModel,
  WfModel,
  WfModelWithXml,
  WfSavedModel,
} from '../../../../engine/api-types.js';
import { writeAudit } from '../../../lib/audit.js';
import type { AppContext } from '../../../lib/context.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import { tenantIds, type Actor } from '../../../lib/sql/toolkit.js';
import type { Db } from '../../../lib/db/database.js';
import { assertAllFound, assertOwnReferences } from '../../rbac/index.js';
import { checkedModel, deployIn } from './deploy.js';
import { assertTenantForm } from './forms.js';
import { containing, optional, pageOf, when, type Paged, type PageParams } from './paging.js';

/** Process models: what the designer edits, saved as BPMN XML and deployed from there. */

export interface ModelInput {
  name: string;
  key: string;
  category?: string | null | undefined;
  description?: string | null | undefined;
  orgId?: number | null | undefined;
  referGroup?: string | null | undefined;
  referUsers?: string[] | undefined;
  usedForm?: string | null | undefined;
}

const MODEL_COLUMNS = sql`id, name, model_key as key, category, description, version, revision, org_id as "orgId",
  refer_group as "referGroup", refer_users as "referUsers", used_form as "usedForm", deployment_id as "deploymentId",
  deployed_at as "deploymentTime", created_at as "createTime", updated_at as "updateTime", xml is not null as "hasXml"`;

export async function queryModels({
  ctx,
  actor,
  params,
}: {
  ctx: AppContext;
  actor: Actor;
  params: PageParams & { name?: string | undefined; key?: string | undefined; category?: string | undefined };
}): Promise<Paged<WfModel>> {
  const where = sql`tenant_code = ${actor.tenantCode}
    and ${when(params.name, sql`name ilike ${containing(params.name ?? '')}`)}
    and ${when(params.key, sql`model_key = ${optional(params.key)}`)}
    and ${when(params.category, sql`category = ${optional(params.category)}`)}`;
  return pageOf({
    db: ctx.db,
    select: sql`select ${MODEL_COLUMNS} from wf_model where ${where}`,
    order: sql`"updateTime" desc, id desc`,
    params,
  });
}

async function modelRow(db: AppContext['db'], actor: Actor, id: number): Promise<WfModel> {
  const rows = await sql<WfModel>`select ${MODEL_COLUMNS} from wf_model
    where id = ${id} and tenant_code = ${actor.tenantCode}`.execute(db);
  const row = rows.rows[0];
  if (!row) throw new AppError('notFound', { entity: 'model', key: id });
  return row;
}

/** The model's organisation is one of the caller's tenant (400 naming /orgId otherwise). */
async function assertModelOrg(
  trx: Db,
  ctx: AppContext,
  actor: Actor,
  l10n: Localizer,
  orgId: number | null | undefined,
): Promise<void> {
  if (orgId === null || orgId === undefined) return;
  await assertOwnReferences({
    db: trx,
    entity: ctx.registry.require('sysorg'),
    tenantCode: actor.tenantCode,
    keys: [orgId],
    l10n,
    field: '/orgId',
  });
}

/** A model's form: an empty one is none. */
const usedFormOf = (input: ModelInput): string | null => input.usedForm || null;

/** The model's organisation and form are the caller's tenant's (400 naming the field otherwise). */
async function assertModelReferences(
  trx: Db,
  ctx: AppContext,
  actor: Actor,
  l10n: Localizer,
  input: ModelInput,
): Promise<void> {
  await assertModelOrg(trx, ctx, actor, l10n, input.orgId);
  await assertTenantForm({ ctx, db: trx, tenantCode: actor.tenantCode, code: usedFormOf(input), l10n });
}

/** The ids among `ids` of models of the tenant: queryModelOrgUserTree's check. */
export async function tenantModelIds({
  ctx,
  tenantCode,
  ids,
}: {
  ctx: AppContext;
  tenantCode: string;
  ids: number[];
}): Promise<number[]> {
  return tenantIds({ db: ctx.db, tableName: 'wf_model', tenantCode, ids });
}

export async function addModel({
  ctx,
  actor,
  l10n,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  l10n: Localizer;
  input: ModelInput;
}): Promise<WfModel> {
  return inTransaction(
    ctx.db,
    async (trx) => {
      await assertModelReferences(trx, ctx, actor, l10n, input);
      const rows = await sql<{
        id: number;
      }>`insert into wf_model (tenant_code, name, model_key, category, description, org_id,
          refer_group, refer_users, used_form, updated_at)
        values (${actor.tenantCode}, ${input.name}, ${input.key}, ${input.category ?? null}, ${input.description ?? null},
          ${input.orgId ?? null}, ${input.referGroup ?? null}, ${JSON.stringify(input.referUsers ?? [])}::jsonb,
          ${usedFormOf(input)}, now())
        returning id`.execute(trx);
      const id = rows.rows[0]?.id ?? 0;
      const row = await modelRow(trx, actor, id);
      await writeAudit({
        trx,
        actor,
        entries: [{ entity: 'wfModel', recordKey: id, action: 'add', before: null, after: row }],
      });
      return row;
    },
    { clashSubject: input.key },
  );
}

export async function updateModel({
  ctx,
  actor,
  l10n,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  l10n: Localizer;
  input: ModelInput & { id: number; revision?: number | undefined };
}): Promise<WfModel> {
  return inTransaction(
    ctx.db,
    async (trx) => {
      const before = await modelRow(trx, actor, input.id);
      await assertModelReferences(trx, ctx, actor, l10n, input);
      if (input.revision !== undefined && input.revision !== before.revision)
        throw new AppError('staleVersion');
      await sql`update wf_model set name = ${input.name}, model_key = ${input.key}, category = ${input.category ?? null},
          description = ${input.description ?? null}, org_id = ${input.orgId ?? null}, refer_group = ${input.referGroup ?? null},
          refer_users = ${JSON.stringify(input.referUsers ?? [])}::jsonb, used_form = ${usedFormOf(input)},
          revision = revision + 1, updated_at = now()
        where id = ${input.id}`.execute(trx);
      const after = await modelRow(trx, actor, input.id);
      await writeAudit({
        trx,
        actor,
        entries: [{ entity: 'wfModel', recordKey: input.id, action: 'update', before, after }],
      });
      return after;
    },
    { clashSubject: input.key },
  );
}

export async function deleteModels({
  ctx,
  actor,
  ids,
}: {
  ctx: AppContext;
  actor: Actor;
  ids: number[];
}): Promise<{ deleted: number }> {
  return inTransaction(ctx.db, async (trx) => {
    const rows = await sql<{ id: number }>`delete from wf_model
      where tenant_code = ${actor.tenantCode} and id in (${sql.join(ids.length > 0 ? ids : [0])}) returning id`.execute(
      trx,
    );
    // another tenant's model (or none) is a 404 and deletes nothing
    assertAllFound({ ids, found: rows.rows.map((row) => row.id), subject: 'model' });
    await writeAudit({
      trx,
      actor,
      entries: rows.rows.map((row) => ({
        entity: 'wfModel',
        recordKey: row.id,
        action: 'delete' as const,
        before: null,
        after: null,
      })),
    });
    return { deleted: rows.rows.length };
  });
}

/** Stores a model's diagram; a file with problems is refused with 400 listing them per element. */
export async function saveModelXml({
  ctx,
  actor,
  l10n,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  l10n: Localizer;
  input: { id: number; xml: string };
}): Promise<WfSavedModel> {
  const { warnings } = await checkedModel({
    ctx,
    db: ctx.db,
    tenantCode: actor.tenantCode,
    xml: input.xml,
    l10n,
  });
  return inTransaction(ctx.db, async (trx) => {
    await modelRow(trx, actor, input.id);
    await sql`update wf_model set xml = ${input.xml}, revision = revision + 1, updated_at = now()
      where id = ${input.id}`.execute(trx);
    const after = await modelRow(trx, actor, input.id);
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'wfModel',
          recordKey: input.id,
          action: 'update',
          before: null,
          after: { revision: after.revision },
        },
      ],
    });
    return { ...after, warnings };
  });
}

/** One model with its diagram (the designer's one read). */
export async function getModel({
  ctx,
  actor,
  id,
}: {
  ctx: AppContext;
  actor: Actor;
  id: number;
}): Promise<WfModelWithXml> {
  const row = await modelRow(ctx.db, actor, id);
  const { xml } = await modelXml({ ctx, actor, id });
  return { ...row, xml };
}

/**
 * A model created with its diagram in one transaction (import, copy): a refused file leaves no
 * empty model behind. A key already taken answers 409 wfModelKeyExists, unless `replace`: then
 * that model gets the diagram (and the name given).
 */
export async function importModel({
  ctx,
  actor,
  l10n,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  l10n: Localizer;
  input: ModelInput & { xml: string; replace?: boolean | undefined };
}): Promise<WfImportedModel> {
  const { warnings } = await checkedModel({
    ctx,
    db: ctx.db,
    tenantCode: actor.tenantCode,
    xml: input.xml,
    l10n,
  });
  return inTransaction(
    ctx.db,
    async (trx) => {
      await assertModelReferences(trx, ctx, actor, l10n, input);
      const found = await sql<{ id: number }>`select id from wf_model
        where tenant_code = ${actor.tenantCode} and model_key = ${input.key} for update`.execute(trx);
      const existing = found.rows[0]?.id;
      if (existing !== undefined && !input.replace)
        throw new AppError('wfModelKeyExists', { key: input.key });
      if (existing !== undefined) {
        const before = await modelRow(trx, actor, existing);
        await sql`update wf_model set xml = ${input.xml}, name = ${input.name}, revision = revision + 1,
            updated_at = now() where id = ${existing}`.execute(trx);
        const after = await modelRow(trx, actor, existing);
        await writeAudit({
          trx,
          actor,
          entries: [{ entity: 'wfModel', recordKey: existing, action: 'update', before, after }],
        });
        return { ...after, warnings, replaced: true };
      }
      const rows = await sql<{ id: number }>`insert into wf_model (tenant_code, name, model_key, category,
          description, org_id, refer_group, refer_users, used_form, xml, updated_at)
        values (${actor.tenantCode}, ${input.name}, ${input.key}, ${input.category ?? null}, ${input.description ?? null},
          ${input.orgId ?? null}, ${input.referGroup ?? null}, ${JSON.stringify(input.referUsers ?? [])}::jsonb,
          ${usedFormOf(input)}, ${input.xml}, now())
        returning id`.execute(trx);
      const id = rows.rows[0]?.id ?? 0;
      const row = await modelRow(trx, actor, id);
      await writeAudit({
        trx,
        actor,
        entries: [{ entity: 'wfModel', recordKey: id, action: 'add', before: null, after: row }],
      });
      return { ...row, warnings, replaced: false };
    },
    { clashSubject: input.key },
  );
}

export async function modelXml({
  ctx,
  actor,
  id,
}: {
  ctx: AppContext;
  actor: Actor;
  id: number;
}): Promise<{ id: number; xml: string | null }> {
  const rows = await sql<{ xml: string | null }>`select xml from wf_model
    where id = ${id} and tenant_code = ${actor.tenantCode}`.execute(ctx.db);
  const row = rows.rows[0];
  if (!row) throw new AppError('notFound', { entity: 'model', key: id });
  return { id, xml: row.xml };
}

/**
 * Deploys a model's saved diagram as the next version of its process; the model's form (usedForm)
 * is the start form when the start event names none.
 */
export async function deployModel({
  ctx,
  actor,
  l10n,
  id,
}: {
  ctx: AppContext;
  actor: Actor;
  l10n: Localizer;
  id: number;
}): Promise<WfDeployAnswer> {
  return inTransaction(ctx.db, async (trx) => {
    const rows = await sql<{
      xml: string | null;
      name: string;
      category: string | null;
      usedForm: string | null;
    }>`select xml, name, category, used_form as "usedForm"
      from wf_model where id = ${id} and tenant_code = ${actor.tenantCode} for update`.execute(trx);
    const model = rows.rows[0];
    if (!model) throw new AppError('notFound', { entity: 'model', key: id });
    if (!model.xml) throw new AppError('wfModelEmpty', { id });
    const answer = await deployIn({
      ctx,
      trx,
      actor,
      l10n,
      input: {
        xml: model.xml,
        name: model.name,
        category: model.category ?? undefined,
        modelId: id,
        startForm: model.usedForm ?? undefined,
      },
    });
    await sql`update wf_model set deployment_id = ${answer.deploymentId}, deployed_at = now(), version = ${answer.version}
      where id = ${id}`.execute(trx);
    return answer;
  });
}
