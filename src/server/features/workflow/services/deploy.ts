import { sql } from 'kysely';
import type { WfDeployAnswer } from '../../../../engine/api-types.js';
import type { FieldError } from '../../../../engine/index.js';
import { writeAudit } from '../../../lib/audit.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { BUDGETS } from '../../../lib/budgets.js';
import { AppError, ERRORS } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { workflowNow } from './clock.js';
import { assertTenantForm } from './forms.js';
import type { ProcessGraph } from './graph.js';
import { parseBpmn, scanBpmnSize, type Finding, type ParseOptions } from './parse.js';
import { existingUsernames, groupHoldersOf, groupKey, holderOfGroup } from './people.js';
import { rememberGraph } from './store.js';
import { firstDue } from './elements/timers.js';

/** Deployments and process definitions: a BPMN file becomes the next version of its key. */

export const findingsAsErrors = (findings: Finding[], l10n: Localizer): FieldError[] =>
  findings.map((finding) => ({
    field: finding.field,
    message: l10n.t(`workflow.problems.${finding.key}`, {
      ...finding.params,
      // An ignored setting is named in the reader's language beside its attribute.
      ...(typeof finding.params?.setting === 'string'
        ? { setting: l10n.t(`workflow.settings.${finding.params.setting}`) }
        : {}),
    }),
  }));

/**
 * A file past the budgets of its size, refused (400 naming what was too large) before the parse,
 * whose cost grows with every element and every level of nesting.
 */
function checkSize(xml: string, l10n: Localizer): void {
  const { bpmnDepth, bpmnXmlDepth, bpmnElements } = BUDGETS.workflow;
  const size = scanBpmnSize(xml, { depth: bpmnDepth, xmlDepth: bpmnXmlDepth, elements: bpmnElements });
  const refusal =
    size.depth > bpmnDepth
      ? { code: 'wfProcessTooDeep' as const, limit: bpmnDepth }
      : size.xmlDepth > bpmnXmlDepth
        ? { code: 'wfProcessXmlTooDeep' as const, limit: bpmnXmlDepth }
        : size.elements > bpmnElements
          ? { code: 'wfProcessTooLarge' as const, limit: bpmnElements }
          : undefined;
  if (!refusal) return;
  const params = { limit: refusal.limit };
  throw new AppError(refusal.code, params, [
    { field: 'xml', message: l10n.t(`errors.${ERRORS[refusal.code].key}`, params) },
  ]);
}

/**
 * Parses a file and refuses it with 400 listing the problems per element (or naming its size).
 * Answers its executable processes' graphs, the first being the one a model stands for; a diagram
 * of non-executable processes only is refused too, unless `keepsDiagram` (a model is saved): then
 * no graph, and the refusal's word as a warning.
 */
export async function checkedGraph(
  xml: string,
  l10n: Localizer,
  { keepsDiagram = false, ...options }: ParseOptions & { keepsDiagram?: boolean } = {},
): Promise<{ graphs: ProcessGraph[]; warnings: FieldError[] }> {
  checkSize(xml, l10n);
  const outcome = await parseBpmn(xml, options);
  if (keepsDiagram && outcome.isDiagramOnly)
    return { graphs: [], warnings: findingsAsErrors([...outcome.warnings, ...outcome.problems], l10n) };
  if (!outcome.graphs) throw new AppError('wfBadProcess', {}, findingsAsErrors(outcome.problems, l10n));
  return { graphs: outcome.graphs, warnings: findingsAsErrors(outcome.warnings, l10n) };
}

const isLiteral = (text: string): boolean => !text.includes('${') && !text.includes('#{');

/**
 * The people of a process's user tasks read against the tenant: each group name written in the
 * file becomes the role, post or organisation holding it (holderOfGroup: "management" is the role
 * ROLE_MANAGEMENT or the role named management …). A group nobody can hold stays ROLE_<NAME> (an
 * administrator may create that role) and a user name the tenant does not have stays as it is:
 * a warning each, naming the task, so that no assignment is lost without a word. Expressions are
 * read when a task is made.
 */
export async function mapPeople({
  ctx,
  db,
  tenantCode,
  graph,
}: {
  ctx: AppContext;
  db: Db;
  tenantCode: string;
  graph: ProcessGraph;
}): Promise<{ graph: ProcessGraph; findings: Finding[] }> {
  const tasks = Object.values(graph.nodes).filter((node) => node.type === 'userTask');
  // The process's candidate starters are read as a task's candidates are.
  const starters = {
    id: graph.key,
    candidateUsers: graph.candidateStarterUsers,
    candidateGroups: graph.candidateStarterGroups,
  };
  const groups = [...tasks, starters].flatMap((node) => (node.candidateGroups ?? []).filter(isLiteral));
  const names = [
    ...new Set(
      [...tasks, { ...starters, assignee: undefined }].flatMap((node) =>
        [node.assignee ?? '', ...(node.candidateUsers ?? [])].filter(isLiteral),
      ),
    ),
  ].filter((name) => name !== '');
  if (groups.length === 0 && names.length === 0) return { graph, findings: [] };
  const [holders, users] = await Promise.all([
    groups.length > 0 ? groupHoldersOf({ ctx, db, tenantCode }) : undefined,
    existingUsernames({ ctx, db, tenantCode, usernames: names }),
  ]);
  const findings: Finding[] = [];
  const nodes = { ...graph.nodes };
  for (const node of tasks) {
    for (const username of [node.assignee ?? '', ...(node.candidateUsers ?? [])]) {
      if (username !== '' && isLiteral(username) && !users.has(username))
        findings.push({ field: node.id, key: 'unknownUser', params: { id: node.id, username } });
    }
    if (!node.candidateGroups || !holders) continue;
    const mapped = node.candidateGroups.map((group) => {
      if (!isLiteral(group)) return group;
      const holder = holderOfGroup(group, holders);
      if (holder) return holder;
      const fallback = groupKey(group);
      findings.push({ field: node.id, key: 'unmappedGroup', params: { id: node.id, group, fallback } });
      return fallback;
    });
    nodes[node.id] = { ...node, candidateGroups: [...new Set(mapped)] };
  }
  const mappedGraph: ProcessGraph = { ...graph, nodes };
  for (const username of starters.candidateUsers ?? []) {
    if (isLiteral(username) && !users.has(username))
      findings.push({ field: graph.key, key: 'unknownUser', params: { id: graph.key, username } });
  }
  if (starters.candidateGroups && holders)
    mappedGraph.candidateStarterGroups = [
      ...new Set(
        starters.candidateGroups.map((group) => {
          const holder = isLiteral(group) ? holderOfGroup(group, holders) : undefined;
          if (holder) return holder;
          const fallback = groupKey(group);
          findings.push({
            field: graph.key,
            key: 'unmappedGroup',
            params: { id: graph.key, group, fallback },
          });
          return fallback;
        }),
      ),
    ];
  return { graph: mappedGraph, findings };
}

/**
 * A file's problems refused (400) and its warnings, with those of its people in the tenant
 * (mapPeople): what saving or importing a model answers, as deploying it would.
 */
export async function checkedModel({
  ctx,
  db,
  tenantCode,
  xml,
  l10n,
}: {
  ctx: AppContext;
  db: Db;
  tenantCode: string;
  xml: string;
  l10n: Localizer;
}): Promise<{ warnings: FieldError[] }> {
  // A diagram of non-executable processes is kept as a model, with a word that it deploys nothing.
  const { graphs, warnings } = await checkedGraph(xml, l10n, { keepsDiagram: true });
  const findings: Finding[] = [];
  for (const graph of graphs) findings.push(...(await mapPeople({ ctx, db, tenantCode, graph })).findings);
  return { warnings: [...warnings, ...findingsAsErrors(findings, l10n)] };
}

/**
 * The graph with `form` as its start event's form, unless that event names its own
 * (camunda:formKey and its Activiti and Flowable spellings win). The form is checked again here:
 * it may have been unpublished since the model named it (400 naming /usedForm).
 */
async function withStartForm({
  ctx,
  trx,
  tenantCode,
  l10n,
  graph,
  form,
}: {
  ctx: AppContext;
  trx: Db;
  tenantCode: string;
  l10n: Localizer;
  graph: ProcessGraph;
  form: string | undefined;
}): Promise<ProcessGraph> {
  const start = graph.nodes[graph.startId];
  if (!form || !start || start.formKey) return graph;
  await assertTenantForm({ ctx, db: trx, tenantCode, code: form, l10n });
  return { ...graph, nodes: { ...graph.nodes, [start.id]: { ...start, formKey: form } } };
}

/** Deploys a file in the caller's transaction (model/deploy and deployment/deployXml). */
export async function deployIn({
  ctx,
  trx,
  actor,
  l10n,
  input,
}: {
  ctx: AppContext;
  trx: Db;
  actor: Actor;
  l10n: Localizer;
  input: {
    xml: string;
    name?: string | undefined;
    category?: string | undefined;
    modelId?: number;
    /** The model's form (usedForm): the start event's form when it names none itself. */
    startForm?: string | undefined;
    /** Java code and scripts deployed as external tasks (ParseOptions), not refused. */
    codeAsExternalTasks?: boolean | undefined;
  };
}): Promise<WfDeployAnswer> {
  const checked = await checkedGraph(input.xml, l10n, {
    codeAsExternalTasks: input.codeAsExternalTasks === true,
  });
  // The people of every process read against the tenant; the model's form is its first process's.
  const findings: Finding[] = [];
  const mapped: ProcessGraph[] = [];
  for (const graph of checked.graphs) {
    const people = await mapPeople({ ctx, db: trx, tenantCode: actor.tenantCode, graph });
    findings.push(...people.findings);
    mapped.push(people.graph);
  }
  const [first, ...others] = mapped;
  if (!first) throw new Error('a checked file has an executable process');
  const main = await withStartForm({
    ctx,
    trx,
    tenantCode: actor.tenantCode,
    l10n,
    graph: first,
    form: input.startForm,
  });
  const graphs = [main, ...others];
  const warnings = [...checked.warnings, ...findingsAsErrors(findings, l10n)];
  const resourceName = `${main.key}.bpmn20.xml`;
  const deployment = await sql<{ id: number }>`insert into wf_deployment
      (tenant_code, name, category, resource_name, xml, model_id, deployed_by, warnings)
    values (${actor.tenantCode}, ${input.name ?? main.name ?? main.key}, ${input.category ?? null}, ${resourceName},
      ${input.xml}, ${input.modelId ?? null}, ${actor.username}, ${JSON.stringify(warnings)}::jsonb)
    returning id`.execute(trx);
  const deploymentId = deployment.rows[0]?.id ?? 0;
  // Each key's versions are counted under a per-tenant-and-key lock, so two deployments at once
  // get versions n and n+1; a file's keys are locked in one order, so that two files naming the
  // same keys in other orders wait for each other instead of deadlocking.
  for (const key of [...new Set(graphs.map((graph) => graph.key))].sort())
    await sql`select pg_advisory_xact_lock(hashtext(${`wf:${actor.tenantCode}:${key}`}))`.execute(trx);
  const definitions: WfDeployAnswer['definitions'] = [];
  for (const graph of graphs)
    definitions.push(
      await defineProcess({ ctx, trx, actor, deploymentId, resourceName, graph, category: input.category }),
    );
  const [own] = definitions;
  if (!own) throw new Error('a deployment defines its first process');
  return { deploymentId, ...own, definitions, warnings };
}

/** One process of a deployment made the next version of its key's definition. */
async function defineProcess({
  ctx,
  trx,
  actor,
  deploymentId,
  resourceName,
  graph,
  category,
}: {
  ctx: AppContext;
  trx: Db;
  actor: Actor;
  deploymentId: number;
  resourceName: string;
  graph: ProcessGraph;
  category: string | undefined;
}): Promise<WfDeployAnswer['definitions'][number]> {
  // Under the key's lock (deployIn).
  const latest = await sql<{ version: number | null }>`select max(version) as version from wf_definition
    where tenant_code = ${actor.tenantCode} and process_key = ${graph.key}`.execute(trx);
  const version = (latest.rows[0]?.version ?? 0) + 1;
  const definition = await sql<{ id: number }>`insert into wf_definition
      (tenant_code, deployment_id, process_key, name, category, version, resource_name, graph)
    values (${actor.tenantCode}, ${deploymentId}, ${graph.key}, ${graph.name ?? graph.key}, ${category ?? null},
      ${version}, ${resourceName}, ${JSON.stringify(graph)}::jsonb)
    returning id`.execute(trx);
  const processDefinitionId = definition.rows[0]?.id ?? 0;
  rememberGraph({ ctx, definitionId: processDefinitionId, graph });
  await scheduleStartTimer(ctx, trx, actor.tenantCode, processDefinitionId, graph);
  await writeAudit({
    trx,
    actor,
    entries: [
      {
        entity: 'wfDeployment',
        recordKey: deploymentId,
        action: 'add',
        before: null,
        after: { key: graph.key, version, processDefinitionId, resourceName },
      },
    ],
  });
  return { processDefinitionId, key: graph.key, version };
}

/**
 * A new version of a key replaces the timer start of the earlier ones; a timer start event of the
 * new one schedules its first start.
 */
async function scheduleStartTimer(
  ctx: AppContext,
  trx: Db,
  tenantCode: string,
  definitionId: number,
  graph: ProcessGraph,
): Promise<void> {
  await sql`delete from wf_start_timer where tenant_code = ${tenantCode} and process_key = ${graph.key}`.execute(
    trx,
  );
  const timer = graph.nodes[graph.startId]?.timer;
  const due = timer ? firstDue(timer, workflowNow(ctx)) : undefined;
  if (!timer || !due) return;
  await sql`insert into wf_start_timer (tenant_code, definition_id, process_key, due_at, cycle)
    values (${tenantCode}, ${definitionId}, ${graph.key}, ${due}, ${timer.cycle ?? null})`.execute(trx);
}

export async function deployXml({
  ctx,
  actor,
  l10n,
  input,
}: {
  ctx: AppContext;
  actor: Actor;
  l10n: Localizer;
  input: {
    xml: string;
    name?: string | undefined;
    category?: string | undefined;
    codeAsExternalTasks?: boolean | undefined;
  };
}): Promise<WfDeployAnswer> {
  return inTransaction(ctx.db, (trx) => deployIn({ ctx, trx, actor, l10n, input }));
}

/** Deletes a deployment and its definitions; 409 while an instance of them runs. */
export async function deleteDeployment({
  ctx,
  actor,
  id,
}: {
  ctx: AppContext;
  actor: Actor;
  id: number;
}): Promise<{ deleted: number }> {
  return inTransaction(ctx.db, async (trx) => {
    const rows = await sql<{ id: number; name: string }>`select id, name from wf_deployment
      where id = ${id} and tenant_code = ${actor.tenantCode} for update`.execute(trx);
    const deployment = rows.rows[0];
    if (!deployment) throw new AppError('notFound', { entity: 'deployment', key: id });
    const running = await sql<{ count: number }>`select count(*)::int as count from wf_instance i
      join wf_definition d on d.id = i.definition_id
      where d.deployment_id = ${id} and i.end_time is null`.execute(trx);
    const count = running.rows[0]?.count ?? 0;
    if (count > 0) throw new AppError('wfDeploymentInUse', { count });
    await sql`delete from wf_deployment where id = ${id}`.execute(trx);
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'wfDeployment',
          recordKey: id,
          action: 'delete',
          before: { name: deployment.name },
          after: null,
        },
      ],
    });
    return { deleted: 1 };
  });
}

/** Suspends or activates a definition: a suspended one refuses new instances (409). */
export async function setDefinitionSuspended({
  ctx,
  actor,
  id,
  suspended,
  withInstances = false,
}: {
  ctx: AppContext;
  actor: Actor;
  id: number;
  suspended: boolean;
  /** Its running instances too (挂起: 同时挂起运行中的流程实例), each with a comment in its history. */
  withInstances?: boolean;
}): Promise<{ id: number; suspended: boolean; instances: number }> {
  return inTransaction(ctx.db, async (trx) => {
    const rows = await sql<{ id: number }>`update wf_definition set suspended = ${suspended}
      where id = ${id} and tenant_code = ${actor.tenantCode} returning id`.execute(trx);
    if (rows.rows.length === 0) throw new AppError('notFound', { entity: 'processDefinition', key: id });
    // One statement for all of them (however many run): the instances change and say so in their history.
    const changed = withInstances
      ? await sql<{ count: string }>`with changed as (update wf_instance set suspended = ${suspended},
            row_version = row_version + 1
          where definition_id = ${id} and tenant_code = ${actor.tenantCode} and end_time is null
            and suspended <> ${suspended} returning id),
        comments as (insert into wf_comment (tenant_code, instance_id, task_id, username, action, message)
          select ${actor.tenantCode}, id, null, ${actor.username}, ${suspended ? 'suspend' : 'activate'}, ''
          from changed)
        select count(*) as count from changed`.execute(trx)
      : { rows: [{ count: '0' }] };
    const instances = Number(changed.rows[0]?.count ?? 0);
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: 'wfDefinition',
          recordKey: id,
          action: 'update',
          before: { suspended: !suspended },
          after: { suspended, ...(withInstances ? { instances } : {}) },
        },
      ],
    });
    return { id, suspended, instances };
  });
}
