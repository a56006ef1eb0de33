import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import { checkTemplate, HELPER_NAMES, type TemplateProblem } from '../../../../../generators/engine.js';
import {
  builtInTemplates,
  GeneratorTemplateError,
  TEMPLATE_ITEMS,
} from '../../../../../generators/forward.js';
import type { TemplateCheck, TemplateRecord, TemplateVersion } from '../../../../engine/api-types.js';
import { entityModel } from '../../../../../generators/model.js';
import { writeAudit } from '../../../lib/audit.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { isOtherTenantsForm } from '../../forms/index.js';
import { renderInWorker } from '../render/render.js';

/**
 * Generator templates of a tenant (generatortemplate): the built-in template of each item, or the
 * tenant's saved version of it. Saving checks the template (handlebars compile errors with line
 * and column) and keeps every content as a numbered version.
 */

export interface TemplateInput {
  templateType: string;
  templateItem: string;
  templateName?: string | null | undefined;
  content: string;
}

let builtIns: Map<string, string> | undefined;

/** generators/templates beside locales/ (both at the project root, bundled server or not). */
export function templatesDir(ctx: AppContext): string {
  return join(dirname(ctx.config.localesDir), 'generators', 'templates');
}

function builtInsOf(ctx: AppContext): Map<string, string> {
  builtIns ??= builtInTemplates(templatesDir(ctx));
  return builtIns;
}

interface Row {
  id: number | string;
  template_type: string;
  template_item: string;
  template_name: string | null;
  content: string;
  version: number | string;
  updated_at: Date | string | null;
  updated_by: string | null;
}

const toRecord = (row: Row): TemplateRecord => ({
  id: Number(row.id),
  templateType: row.template_type,
  templateItem: row.template_item,
  templateName: row.template_name,
  content: row.content,
  version: Number(row.version),
  isBuiltIn: false,
  updatedAt: row.updated_at === null ? null : new Date(row.updated_at).toISOString(),
  updatedBy: row.updated_by,
});

async function savedRows(db: Db, tenantCode: string): Promise<Row[]> {
  const result =
    await sql<Row>`select id, template_type, template_item, template_name, content, version, updated_at, updated_by
    from gen_template where tenant_code = ${tenantCode} order by id`.execute(db);
  return result.rows;
}

/** Every template item of the tenant: its saved template, or the built-in one. */
/** Who works on the templates: the app and the caller (the tenant's templates are theirs). */
export interface TemplateCall {
  ctx: AppContext;
  actor: Actor;
}

export async function queryTemplates({
  ctx,
  actor,
  filter = {},
}: TemplateCall & {
  filter?: { templateType?: string | undefined; templateItem?: string | undefined };
}): Promise<TemplateRecord[]> {
  const saved = new Map((await savedRows(ctx.db, actor.tenantCode)).map((row) => [row.template_item, row]));
  return TEMPLATE_ITEMS.filter(
    (item) =>
      (!filter.templateType || item.type === filter.templateType) &&
      (!filter.templateItem || item.item === filter.templateItem),
  ).map((item) => {
    const row = saved.get(item.item);
    if (row) return toRecord(row);
    return {
      id: null,
      templateType: item.type,
      templateItem: item.item,
      templateName: null,
      content: builtInsOf(ctx).get(item.item) ?? '',
      version: 0,
      isBuiltIn: true,
      updatedAt: null,
      updatedBy: null,
    };
  });
}

/** The templates the forward generator uses for the tenant: saved ones over the built-ins. */
export async function templatesFor(ctx: AppContext, tenantCode: string): Promise<Map<string, string>> {
  const templates = new Map(builtInsOf(ctx));
  for (const row of await savedRows(ctx.db, tenantCode)) templates.set(row.template_item, row.content);
  return templates;
}

/** Handlebars' token names, as a template's author writes them. */
const TOKENS: Readonly<Record<string, string>> = {
  CLOSE: '}}',
  CLOSE_UNESCAPED: '}}}',
  CLOSE_RAW_BLOCK: '}}}}',
  OPEN: '{{',
  OPEN_UNESCAPED: '{{{',
  OPEN_BLOCK: '{{#',
  OPEN_ENDBLOCK: '{{/',
  OPEN_INVERSE: '{{^',
  OPEN_INVERSE_CHAIN: '{{else …',
  INVERSE: '{{else}}',
  OPEN_PARTIAL: '{{>',
  OPEN_SEXPR: '(',
  CLOSE_SEXPR: ')',
  OPEN_BLOCK_PARAMS: 'as |',
  CLOSE_BLOCK_PARAMS: '|',
  SEP: '.',
  EQUALS: '=',
};

/**
 * A Handlebars parser message ("Expecting 'ID', 'STRING', … got 'INVALID'", "if doesn't match
 * each", "You specified knownHelpersOnly, but used the unknown helper exec") as a sentence in
 * the reader's language (codegen.template.problem.*); its line and column stay beside it. A
 * message of another kind stays as it is. Braces reach the texts as parameters (i18next reads
 * {{…}} in a text as a parameter).
 */
export function readableProblem(problem: TemplateProblem, l10n: Localizer): TemplateProblem {
  const say = (key: string, params: Record<string, unknown> = {}): TemplateProblem => ({
    ...problem,
    message: l10n.t(`codegen.template.problem.${key}`, {
      opening: '{{',
      closing: '}}',
      endTag: '{{/each}}',
      comment: '{{!-- … --}}',
      ...params,
    }),
  });
  const message = problem.message;
  const expecting = /^Expecting (.+), got '(\w+)'$/.exec(message);
  if (expecting) {
    const expected = [...(expecting[1] ?? '').matchAll(/'(\w+)'/g)].map((match) => match[1] ?? '');
    const got = expecting[2] ?? '';
    if (got === 'EOF') return say('unclosed');
    if (got === 'INVALID' && expected.some((token) => token.startsWith('CLOSE'))) return say('unclosedTag');
    if (got === 'INVALID') return say('invalidName');
    return say('unexpected', { token: TOKENS[got] ?? got });
  }
  const mismatch = /^(\S+) doesn't match (\S+)$/.exec(message);
  if (mismatch)
    return say('mismatch', { open: `{{#${mismatch[1] ?? ''}}}`, close: `{{/${mismatch[2] ?? ''}}}` });
  const helper = /unknown helper (\S+)$/.exec(message) ?? /^Missing helper: "?([^"\s]+)"?/.exec(message);
  if (helper)
    return say('unknownHelper', {
      name: helper[1] ?? '',
      helpers: [...HELPER_NAMES, 'if', 'unless', 'each', 'with', 'lookup'].join(', '),
    });
  if (/^Lexical error/.test(message)) return say('lexical');
  return problem;
}

const problemText = (problem: TemplateProblem): string =>
  problem.line === undefined ? problem.message : `${problem.line}:${problem.column ?? 1} ${problem.message}`;

/** 400 naming the field: an unknown item, an item of another type, a template that does not compile. */
function assertValid(input: TemplateInput, l10n: Localizer): void {
  const item = TEMPLATE_ITEMS.find((candidate) => candidate.item === input.templateItem);
  if (!item)
    throw new AppError('validation', {}, [
      { field: '/templateItem', message: `unknown template item ${input.templateItem}` },
    ]);
  if (item.type !== input.templateType)
    throw new AppError('validation', {}, [
      { field: '/templateType', message: `${item.item} is a ${item.type} template` },
    ]);
  const problems = checkTemplate(input.content);
  if (problems.length > 0)
    throw new AppError(
      'validation',
      {},
      problems.map((problem) => ({
        field: '/content',
        message: problemText(readableProblem(problem, l10n)),
      })),
    );
}

async function addVersion(trx: Db, actor: Actor, templateId: number, version: number, content: string) {
  await sql`insert into gen_template_version (tenant_code, template_id, version, content, created_by)
    values (${actor.tenantCode}, ${templateId}, ${version}, ${content}, ${actor.username})`.execute(trx);
}

export async function addTemplate({
  ctx,
  actor,
  input,
  l10n,
}: TemplateCall & { input: TemplateInput; l10n: Localizer }): Promise<TemplateRecord> {
  assertValid(input, l10n);
  return inTransaction(
    ctx.db,
    async (trx) => {
      const inserted = await sql<Row>`insert into gen_template
        (tenant_code, template_type, template_item, template_name, content, created_by, updated_by)
        values (${actor.tenantCode}, ${input.templateType}, ${input.templateItem}, ${input.templateName ?? null},
          ${input.content}, ${actor.username}, ${actor.username})
        returning id, template_type, template_item, template_name, content, version, updated_at, updated_by`.execute(
        trx,
      );
      const row = inserted.rows[0];
      if (!row) throw new Error('insert returned no row');
      const record = toRecord(row);
      await addVersion(trx, actor, record.id ?? 0, 1, input.content);
      await writeAudit({
        trx,
        actor,
        entries: [
          {
            entity: 'generatortemplate',
            recordKey: record.id,
            action: 'add',
            before: null,
            after: { ...record },
          },
        ],
      });
      return record;
    },
    { clashSubject: input.templateItem },
  );
}

async function lockedRow(trx: Db, actor: Actor, id: number): Promise<Row> {
  const found =
    await sql<Row>`select id, template_type, template_item, template_name, content, version, updated_at, updated_by
    from gen_template where id = ${id} and tenant_code = ${actor.tenantCode} for update`.execute(trx);
  const row = found.rows[0];
  if (!row) throw new AppError('notFound');
  return row;
}

/** Saves a new content as the next version; `version` is the one read (409 when it changed meanwhile). */
export async function updateTemplate({
  ctx,
  actor,
  input,
  l10n,
}: TemplateCall & {
  input: TemplateInput & { id: number; version: number };
  l10n: Localizer;
}): Promise<TemplateRecord> {
  assertValid(input, l10n);
  return inTransaction(ctx.db, async (trx) => {
    const before = await lockedRow(trx, actor, input.id);
    if (Number(before.version) !== input.version) throw new AppError('staleVersion');
    if (before.template_item !== input.templateItem)
      throw new AppError('validation', {}, [
        { field: '/templateItem', message: `template ${input.id} is the ${before.template_item} template` },
      ]);
    const next = input.version + 1;
    const updated = await sql<Row>`update gen_template set content = ${input.content},
        template_name = ${input.templateName ?? null}, version = ${next}, updated_at = now(), updated_by = ${actor.username}
      where id = ${input.id}
      returning id, template_type, template_item, template_name, content, version, updated_at, updated_by`.execute(
      trx,
    );
    const row = updated.rows[0];
    if (!row) throw new AppError('notFound');
    await addVersion(trx, actor, input.id, next, input.content);
    const record = toRecord(row);
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'generatortemplate',
          recordKey: input.id,
          action: 'update',
          before: { ...toRecord(before) },
          after: { ...record },
        },
      ],
    });
    return record;
  });
}

/** Deletes the tenant's template (and its versions): the built-in one applies again. */
export async function deleteTemplate({
  ctx,
  actor,
  id,
}: TemplateCall & { id: number }): Promise<{ deleted: number }> {
  return inTransaction(ctx.db, async (trx) => {
    const before = await lockedRow(trx, actor, id);
    await sql`delete from gen_template where id = ${id} and tenant_code = ${actor.tenantCode}`.execute(trx);
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'generatortemplate',
          recordKey: id,
          action: 'delete',
          before: { ...toRecord(before) },
          after: null,
        },
      ],
    });
    return { deleted: 1 };
  });
}

/** Every saved version of one of the tenant's templates, newest first. */
export async function templateVersions({
  ctx,
  actor,
  id,
}: TemplateCall & { id: number }): Promise<TemplateVersion[]> {
  const rows = await sql<{
    version: number | string;
    content: string;
    created_at: Date | string;
    created_by: string | null;
  }>`
    select version, content, created_at, created_by from gen_template_version
    where template_id = ${id} and tenant_code = ${actor.tenantCode} order by version desc`.execute(ctx.db);
  return rows.rows.map((row) => ({
    version: Number(row.version),
    content: row.content,
    createdAt: new Date(row.created_at).toISOString(),
    createdBy: row.created_by,
  }));
}

/**
 * Compiles a template and renders it for a sample entity of the registry (a dry run), in the
 * template worker within BUDGETS.templates (422 templateBudget past one).
 */
export async function checkTemplateText({
  ctx,
  actor,
  input,
  l10n,
}: TemplateCall & {
  input: { content: string; sampleEntity?: string | undefined };
  l10n: Localizer;
}): Promise<TemplateCheck> {
  const problems = checkTemplate(input.content);
  if (problems.length > 0)
    return { isValid: false, problems: problems.map((problem) => readableProblem(problem, l10n)) };
  const name = input.sampleEntity ?? 'sysregion';
  const entity = ctx.registry.get(name);
  // Another tenant's published form is unknown here, as in the forward generator.
  if (!entity || isOtherTenantsForm(ctx, entity, actor.tenantCode))
    throw new AppError('validation', {}, [{ field: '/sampleEntity', message: `no entity named ${name}` }]);
  const model = await entityModel(
    { name: entity.name, schema: entity.schema },
    { serviceName: 'sample', packageName: 'sample', srcRoot: '../../..' },
  );
  try {
    const [output = ''] = await renderInWorker([{ item: 'check', source: input.content, model }]);
    return { isValid: true, problems: [], output };
  } catch (error) {
    if (error instanceof GeneratorTemplateError)
      return { isValid: false, problems: [readableProblem(error.problem, l10n)] };
    throw error;
  }
}
