/**
 * The tenant matrix (docs/product.md "Tenants"): generated from the route table as
 * permissions.test.ts walks it for roles. For every route that names a resource (a path
 * parameter, an id, ids or code in the query or the body, at any depth), tenant B's administrator
 * names tenant A's resource there (B's own resources in every other such place) and must be
 * refused (404 or 403), or answered nothing (an empty list); afterwards A's administrator reads the
 * resource and finds it as it was. A route without such an input is called plainly and its answer
 * must carry none of A's marks.
 *
 * Nothing lists the routes: a new route joins by being registered. What the matrix needs is how
 * to make one resource of each kind in a tenant (the entities of the registry make theirs from
 * their schema; the other features' kinds are the table KINDS below) and which kind an input names
 * (its name, or for `id` the route's prefix). A route with a resource input the matrix cannot
 * resolve is uncovered, and the test fails unless the route is in SKIPPED with its reason.
 * A route declared platform-only (config.isPlatformOnly) must answer B 403 whatever it sends, and
 * no request may cause a 5xx.
 *
 * A refusal is 403, 404, or a 400 whose errors name the very place that held A's resource (a
 * reference to a record the tenant does not have). MATRIX_VERBOSE=1 prints every request's answer.
 */
import ExcelJS from 'exceljs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityDef } from '../../src/engine/index.js';
import { Api, withQuery, type Row } from '../support/api.js';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/app.js';
import { Samples } from '../support/samples.js';
import { bpmn, flow } from '../support/workflow.js';
import { fileUpload } from '../support/multipart.js';

type Json = Record<string, unknown>;
type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  minimum?: number;
  minItems?: number;
  minLength?: number;
  minProperties?: number;
  additionalProperties?: Schema | boolean;
  pattern?: string;
};
type Value = string | number;

let t: TestApp;

interface Tenant {
  name: 'A' | 'B';
  code: string;
  headers: { authorization: string };
  api: Api;
  samples: Samples;
}
let tenantA: Tenant;
let tenantB: Tenant;

/** A resource of one kind in each tenant, and how A's administrator reads A's. */
interface Made {
  A: Value;
  B: Value;
  /** A row of a shared or platform entity: B may read it (shared ones), never change it. */
  isShared?: boolean;
  /** What A's administrator sees of A's resource; compared before and after B's requests. */
  read(): Promise<unknown>;
}

/**
 * Inputs whose names look like a resource's (id, …Id, …Code, …Key) but name none, with why: the
 * matrix gives them a plain sample value.
 */
const NOT_RESOURCES: Record<string, string> = {
  afterId: 'a page cursor of the log list',
  requestId: 'a request id filter of the log list (the log is the platform’s)',
  countryCode: 'a telephone country code',
  recordKey: 'a filter of the audit list (the list itself is checked for A’s marks)',
  templateType: 'a kind of template, not a template',
  activityId: 'a BPMN element of the task’s own process (the task is the resource)',
  clientId: 'the client’s identifier at an OpenID provider (a setting of the provider, no record here)',
  workerId: 'the name an external-task worker gives itself (no record)',
  errorCode:
    'the BPMN error code a worker reports at its external task (boundary events catch it by name; no record)',
};

/**
 * Routes the matrix does not cover, each with its reason. A route with a resource input that is
 * neither resolved nor listed here fails the test.
 */
const SKIPPED: Record<string, string> = {
  'PUT /api/vue-element-admin/role/:key':
    'a mock of the template’s role page: roles kept in the process’s memory, no tenant data',
  'DELETE /api/vue-element-admin/role/:key':
    'a mock of the template’s role page: roles kept in the process’s memory, no tenant data',
  'GET /api/article/detail': 'a mock of the template’s article page (fixed generated articles)',
  'POST /api/vue-element-admin/role':
    'a mock of the template’s role page: roles kept in the process’s memory, no tenant data',
};

/**
 * Inputs naming a code unique in the whole database rather than per tenant, with the reason and
 * the other places a refusal may name. B naming A's code is refused by the clash itself: a 409
 * naming the input, or a 400 naming what the code makes. It says that the code is taken, never by
 * which tenant, and changes nothing.
 */
const GLOBAL_CODES: Record<string, { reason: string; alsoNamed: string[] }> = {
  formCode: {
    reason:
      'a designed form’s code names its entity, its table online_<code> and its API path: one of each per database (README "Roles, posts and tenants")',
    alsoNamed: ['/formContent/x-entity/table'],
  },
};

const SESSION_OF_CALLER = 'ends the caller’s own session: it names nothing';

/** Routes skipped by what they are, with the reason: a new route of the kind is skipped alike. */
const SKIPPED_LIKE: [RegExp, string][] = [
  [
    /^POST \/api\/.+\/import$/,
    'an import only adds rows to the caller’s tenant, from a workbook whose reference cells are looked up by label in that tenant (import.test.ts); it names no record',
  ],
  [/^POST \/api\/uaa\/oauth\/logout$/, SESSION_OF_CALLER],
];

const skipReason = (route: string): string | undefined =>
  SKIPPED[route] ?? SKIPPED_LIKE.find(([pattern]) => pattern.test(route))?.[1];

/** Kinds an input name names, whatever the route (ids of the other features by name). */
const KIND_OF_NAME: Record<string, string> = {
  userId: 'sysuser',
  userIds: 'sysuser',
  roleId: 'sysrole',
  roleIds: 'sysrole',
  roleCode: 'roleCode',
  urlId: 'sysurl',
  urlIds: 'sysurl',
  postId: 'syspost',
  postCode: 'postCode',
  orgId: 'sysorg',
  orgIds: 'sysorg',
  menuId: 'shared:menu',
  menuIds: 'shared:menu',
  menuCode: 'shared:menuCode',
  modelId: 'model',
  folderId: 'folder',
  targetFolderId: 'folder',
  fileId: 'file',
  processInstanceId: 'instance',
  rootProcessInstanceId: 'instance',
  processDefinitionId: 'procdef',
  processDefinitionKey: 'procdefKey',
  businessKey: 'businessKey',
  formCode: 'formCode',
  form: 'formCode',
  versionId: 'formVersion',
  usedForm: 'formCode',
  startUserId: 'sysuser',
  auditId: 'audit',
  providerId: 'oidcprovider',
  newUserOrgId: 'sysorg',
};

/**
 * Kinds by route prefix, for `id` (and the few names whose meaning is the route's): the longest
 * prefix that matches wins. The generated entity routes resolve `id` to their entity without
 * this table.
 */
const KIND_BY_PREFIX: [string, string, string][] = [
  ['/api/admin/sysuser/forceLogout', 'id', 'session'],
  ['/api/admin/sysmenu/deleteDataField', 'id', 'datafield'],
  ['/api/admin/sysapikey/', 'id', 'apikey'],
  ['/api/admin/syswebhook/', 'id', 'webhook'],
  ['/api/admin/syswebhook/', 'entities', 'shared:entityName'],
  ['/api/admin/syswebhook/redeliver', 'id', 'delivery'],
  ['/api/admin/sysoidc/', 'id', 'oidcprovider'],
  ['/api/import/job', 'id', 'importJob'],
  ['/api/account/sysuserdetail/', 'id', 'sysuser'],
  ['/api/account/sysuserdetail/queryCurrentAuthority', 'parentId', 'shared:menu'],
  ['/api/admin/notification/markNotificationRead', 'id', 'notification'],
  ['/api/generator/form/', 'id', 'form'],
  ['/api/generator/template/', 'id', 'template'],
  ['/api/activiti/model/', 'id', 'model'],
  ['/api/activiti/model/', 'key', 'own'],
  ['/api/activiti/deployment/', 'id', 'deployment'],
  ['/api/activiti/processdefinition/', 'id', 'procdef'],
  ['/api/activiti/processdefinition/', 'key', 'procdefKey'],
  ['/api/activiti/processinstance/', 'id', 'instance'],
  ['/api/activiti/history/processinstance/', 'id', 'instance'],
  ['/api/activiti/task/', 'id', 'task'],
  ['/api/activiti/history/taskinstance/', 'id', 'task'],
  ['/api/activiti/externalTask/', 'id', 'externalTask'],
  ['/api/file/file/', 'id', 'file'],
  ['/api/file/netdisc/', 'parentId', 'folder'],
  ['/api/demo/reportdesigner/', 'id', 'report'],
  ['/api/demo/reportdesigner/', 'entity', 'entityName'],
  ['/api/generator/forward/', 'entities', 'entityName'],
  ['/api/monitor/audit/', 'entity', 'shared:entityName'],
  ['/api/online/:form/:endpoint', 'endpoint', 'own'],
  ['/api/generator/reverse/', 'tableName', 'tableName'],
  ['/api/generator/reverse/', 'formCode', 'own'],
  ['/api/activiti/processinstance/start', 'businessKey', 'own'],
];

/** The kinds of {type, id} items (netdisc items, share targets). */
const TYPED_KINDS: Record<string, string> = {
  file: 'file',
  folder: 'folder',
  user: 'sysuser',
  role: 'sysrole',
  org: 'sysorg',
};

const RESOURCE_NAME = /^(id|ids|key|form|endpoint|entity|entities|tableName)$|[a-z](Id|Ids|Code|Codes|Key)$/;

/** One place of a request that names something: where, the path to it, and the kind it names. */
interface Slot {
  part: 'params' | 'query' | 'body';
  path: (string | number)[];
  kind: string;
  schema: Schema;
  /** Required where it stands: another place's request fills it with B's own resource. */
  isRequired: boolean;
}

interface Plan {
  route: string;
  method: string;
  url: string;
  schemas: Partial<Record<'params' | 'query' | 'body', Schema>>;
  /** An upload: the request carries a small file as multipart/form-data. */
  isMultipart: boolean;
  /** Declared platform-only beside the route: tenant B's administrator gets 403, whatever it sends. */
  isPlatformOnly: boolean;
  slots: Slot[];
  uncovered: string[];
  /** The generated add and update of an entity: bodies built from the entity's fields. */
  entity?: { def: EntityDef; action: 'add' | 'update' };
}

/** A tenant's entity is a resource of its own; a shared or platform entity's rows are everyone's. */
const kindOfEntity = (def: EntityDef | undefined): string | undefined =>
  def === undefined ? undefined : def.isTenantScoped ? def.name : `shared:${def.name}`;

function kindOf(
  url: string,
  name: string,
  entities: Map<string, EntityDef>,
  sibling?: Schema,
): string | undefined {
  if (NOT_RESOURCES[name]) return 'none';
  // {type, id} items (netdisc items, share targets): the kind is the type's
  if (name === 'id' && sibling?.enum) return `typed:${(sibling.enum as string[]).join('|')}`;
  let best: [string, string] | undefined;
  for (const [prefix, input, kind] of KIND_BY_PREFIX) {
    if (input === name && url.startsWith(prefix) && (!best || prefix.length > best[0].length))
      best = [prefix, kind];
  }
  if (best) return best[1];
  for (const [api, def] of entities) {
    if (!url.startsWith(`/api/${api}/`)) continue;
    if (name === 'id' || name === 'ids' || name === def.key.name) return kindOfEntity(def);
    const field = def.fields.find((item) => item.name === name);
    if (field?.ref)
      return kindOfEntity(
        entities.get(field.ref) ?? [...entities.values()].find((item) => item.name === field.ref),
      );
    // the entity's own fields are filters of its lists, not other resources
    if (field) return 'none';
  }
  if (name === 'parentId') {
    for (const [api, def] of entities) if (url.startsWith(`/api/${api}/`)) return kindOfEntity(def);
  }
  return KIND_OF_NAME[name];
}

function slotsOf(
  url: string,
  part: Slot['part'],
  schema: Schema | undefined,
  entities: Map<string, EntityDef>,
  path: (string | number)[] = [],
  uncovered: string[] = [],
): Slot[] {
  const out: Slot[] = [];
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    const here = [...path, name];
    const item = property.items;
    if (item?.properties) {
      out.push(...slotsOf(url, part, item, entities, [...here, 0], uncovered));
      continue;
    }
    if (!RESOURCE_NAME.test(name) && name !== 'parentId') continue;
    const kind = kindOf(url, name, entities, schema?.properties?.type);
    if (kind === undefined) uncovered.push(`${part} /${here.join('/')}`);
    else if (kind !== 'none' && kind !== 'own')
      out.push({
        part,
        path: here,
        kind,
        schema: property,
        isRequired: (schema?.required ?? []).includes(name) || part === 'params',
      });
  }
  return out;
}

const REASONABLE_TEXT = 'mx';

/** Inputs a plain sample would fail before the resource is looked at (a BPMN file, a measure). */
const SAMPLE_BY_NAME: Record<string, unknown> = {
  xml: bpmn('mxbsaved', `<startEvent id="s"/>${flow('f1', 's', 'e')}<endEvent id="e"/>`),
  measures: ['count:*'],
  // an API key's expiry must lie ahead for the user it names to be looked at
  expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
  // an OpenID provider's issuer must be an https address for the references beside it to be looked at
  issuer: 'https://sso.invalid',
};

/** A value a schema accepts, for inputs that name nothing. */
function sample(schema: Schema, name = ''): unknown {
  if (SAMPLE_BY_NAME[name] !== undefined) return SAMPLE_BY_NAME[name];
  if (schema.enum) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((item) => item !== 'null') : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items ?? { type: 'string' }));
    case 'object': {
      const out: Json = {};
      for (const name of schema.required ?? []) out[name] = sample(schema.properties?.[name] ?? {}, name);
      // a map that must hold entries (variables by name) gets them under names of its own
      const values = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : {};
      for (let index = Object.keys(out).length; index < (schema.minProperties ?? 0); index += 1)
        out[`${REASONABLE_TEXT}${index}`] = sample(values);
      return out;
    }
    default:
      return REASONABLE_TEXT.padEnd(schema.minLength ?? 1, 'x');
  }
}

function setAt(target: Json, path: (string | number)[], value: unknown): void {
  let here: Json | unknown[] = target;
  for (const [index, key] of path.entries()) {
    const last = index === path.length - 1;
    const next = path[index + 1];
    const container = here as Record<string | number, unknown>;
    if (last) container[key] = value;
    else {
      container[key] ??= typeof next === 'number' ? [] : {};
      here = container[key] as Json;
    }
  }
}

/** Fills the required inputs of a part that name nothing, and the objects of item arrays. */
function baseOf(schema: Schema | undefined, slots: Slot[]): Json {
  const out: Json = {};
  for (const name of schema?.required ?? []) {
    const property = schema?.properties?.[name] ?? {};
    if (property.items?.properties) out[name] = [sample(property.items)];
    else out[name] = sample(property, name);
  }
  // an optional item array some slot lives in still needs its one item
  for (const slot of slots) {
    const [first] = slot.path;
    if (typeof first === 'string' && typeof slot.path[1] === 'number' && out[first] === undefined) {
      const items = schema?.properties?.[first]?.items;
      out[first] = [items ? sample(items) : {}];
    }
  }
  return out;
}

const UPLOAD = fileUpload('matrix.txt', 'matrix', { type: 'text/plain' });

let resources: Map<string, Made>;
/** Texts only tenant A has: no answer to B may carry one. */
const marksOfA = new Set<string>();
const MARK = /qzx\d+x|mxa[a-z0-9]+/g;

function collectMarks(value: unknown): void {
  for (const match of JSON.stringify(value).matchAll(MARK)) marksOfA.add(match[0]);
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function ok(response: LightMyRequestResponse, what: string): Promise<Json> {
  expect(response.statusCode, `${what}: ${response.body.slice(0, 400)}`).toBe(200);
  return response.json<{ data: Json }>().data;
}

/** Makes one resource of every kind in a tenant; answers the values by kind. */
async function makeAll(tenant: Tenant, entities: EntityDef[]): Promise<Map<string, Value>> {
  const made = new Map<string, Value>();
  const { api, samples } = tenant;
  const lower = tenant.name.toLowerCase();
  for (const entity of entities) {
    const record = await samples.create(entity);
    made.set(entity.name, record[entity.key.name] as Value);
    if (tenant.name === 'A') collectMarks(record);
    if (entity.name === 'sysrole') made.set('roleCode', String(record.roleCode));
    if (entity.name === 'syspost') made.set('postCode', String(record.postCode));
  }
  // a second session of the tenant's administrator, for forced logout
  const second = await t.signIn('admin', tenant.name === 'A' ? ADMIN_PASSWORD : tenantBPassword, tenant.code);
  const secondToken = String(second.json().access_token);
  const me = await ok(await api.get('/api/uaa/users/getSysUser', {}), 'me');
  // an API key of the tenant, for its administrator
  const apiKey = await ok(
    await api.post('/api/admin/sysapikey/add', {
      name: `mx${lower}key`,
      userId: Number(me.id),
      roles: ['ROLE_ADMIN'],
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    }),
    'api key',
  );
  made.set('apikey', Number((apiKey.record as Row).id));
  // a webhook of the tenant (a public address: never posted to, its delivery is already over)
  const webhook = await ok(
    await api.post('/api/admin/syswebhook/add', {
      name: `mx${lower}hook`,
      url: 'http://93.184.215.14/hook',
      secret: `mx${lower}-secret-of-the-webhook`,
      entities: ['sysparam'],
    }),
    'webhook',
  );
  made.set('webhook', Number(webhook.id));
  const [delivery] = await t.sql<{ id: number }>(
    `insert into sys_webhook_delivery (tenant_code, webhook_id, event_id, event_type, status, next_at)
      values ($1, $2, 0, 'record.added', 'failed', now()) returning id`,
    [tenant.code, Number(webhook.id)],
  );
  made.set('delivery', Number(delivery?.id));
  // an OpenID Connect provider of the tenant (never reached: the matrix starts no sign-in with it)
  const oidcProvider = await ok(
    await api.post('/api/admin/sysoidc/add', {
      name: `mx${lower}sso`,
      issuer: `https://sso-${lower}.invalid`,
      clientId: `mx${lower}client`,
      clientSecret: `mx${lower}secret`,
    }),
    'oidc provider',
  );
  made.set('oidcprovider', Number(oidcProvider.id));
  const online = await ok(
    await api.get('/api/admin/sysuser/queryOnlineSysUser', { pageSize: '100' }),
    'online users',
  );
  const sessions = (online.records as Row[]).map((row) => Number(row.id));
  made.set('session', Math.max(...sessions));
  void secondToken;
  // an audit entry of the tenant (修改历史 of its post): restoreVersion names it
  const [audit] = await t.sql<{ id: number }>(
    "select id from sys_audit_log where tenant_code = $1 and entity = 'syspost' and record_key = $2 and action = 'add'",
    [tenant.code, String(made.get('syspost'))],
  );
  expect(audit, `an audit entry of ${tenant.name}'s post`).toBeDefined();
  made.set('audit', Number(audit?.id));
  // a data-field row of the tenant's role
  await ok(
    await api.post('/api/admin/sysmenu/authorizeMenuDataToRole', {
      menuCode: 'sysuser',
      rows: [{ roleCode: made.get('roleCode'), dataFields: ['email'] }],
    }),
    'data fields',
  );
  const fields = await ok(
    await api.get('/api/admin/sysmenu/queryDataFieldByMenuCode', { menuCode: 'sysuser' }),
    'data field rows',
  );
  const field = (fields as unknown as Row[]).find((row) => row.roleCode === made.get('roleCode'));
  made.set('datafield', Number(field?.id));
  // a designed form, published
  const formCode = `mx${lower}form`;
  const form = await ok(
    await api.post('/api/generator/form/add', {
      formCode,
      formName: `mx${lower} form`,
      formContent: {
        title: `mx${lower} form`,
        type: 'object',
        properties: { applicant: { type: 'string', title: 'Applicant', maxLength: 40 } },
      },
    }),
    'form',
  );
  await ok(
    await api.post('/api/generator/form/publish', { id: form.id, menuParent: 'formgenerator', roles: [] }),
    'publish',
  );
  await ok(await api.post(`/api/online/${formCode}/add`, { applicant: `mx${lower}applicant` }), 'form row');
  made.set('form', Number(form.id));
  // its published version's row (what 恢复为草稿 restores)
  const versions = await ok(
    await api.get('/api/generator/form/versions', { id: String(form.id) }),
    'versions',
  );
  made.set('formVersion', Number((versions as unknown as Row[])[0]?.id));
  made.set('formCode', formCode);
  made.set('entityName', formCode);
  const [table] = await t.sql<{ table_name: string }>(
    'select table_name from information_schema.tables where table_name like $1 and table_schema = current_schema()',
    [`%${formCode}`],
  );
  made.set('tableName', String(table?.table_name));
  // workflow: a model, a deployment with its definition, an instance with its open task
  const model = await ok(
    await api.post('/api/activiti/model/add', { name: `mx${lower} model`, key: `mx${lower}model` }),
    'model',
  );
  made.set('model', Number(model.id));
  const key = `mx${lower}flow`;
  const xml = bpmn(
    key,
    `<startEvent id="s"/>${flow('f1', 's', 'u')}<userTask id="u" name="Check" camunda:assignee="admin"/>${flow('f2', 'u', 'e')}<endEvent id="e"/>`,
  );
  const deployed = await ok(await api.post('/api/activiti/deployment/deployXml', { xml }), 'deploy');
  made.set('deployment', Number(deployed.deploymentId));
  made.set('procdef', Number(deployed.processDefinitionId));
  made.set('procdefKey', key);
  const started = await ok(
    await api.post('/api/activiti/processinstance/start', {
      processDefinitionKey: key,
      businessKey: `mx${lower}bk`,
      description: `mx${lower} instance`,
    }),
    'start',
  );
  made.set('instance', Number(started.id));
  made.set('businessKey', `mx${lower}bk`);
  const tasks = await ok(await api.get('/api/activiti/task/queryPersonalTask', {}), 'tasks');
  const task = (tasks.records as Row[]).find((row) => Number(row.processInstanceId) === Number(started.id));
  made.set('task', Number(task?.id));
  // an open external task (a service task of camunda:type="external" its worker has not fetched)
  const externalKey = `mx${lower}external`;
  await ok(
    await api.post('/api/activiti/deployment/deployXml', {
      xml: bpmn(
        externalKey,
        `<startEvent id="s"/>${flow('f1', 's', 'x')}<serviceTask id="x" camunda:type="external" camunda:topic="mx${lower}topic"/>${flow('f2', 'x', 'e')}<endEvent id="e"/>`,
      ),
    }),
    'deploy external',
  );
  await ok(
    await api.post('/api/activiti/processinstance/start', {
      processDefinitionKey: externalKey,
      description: `mx${lower} external`,
    }),
    'start external',
  );
  const externals = await ok(
    await api.get('/api/activiti/externalTask/query', { topicName: `mx${lower}topic` }),
    'external tasks',
  );
  made.set('externalTask', Number((externals.records as Row[])[0]?.id));
  // files: an uploaded file and a netdisc folder
  const uploaded = await t.request({
    method: 'POST',
    url: '/api/file/netdisc/upload',
    headers: { ...tenant.headers, ...UPLOAD.headers },
    payload: UPLOAD.payload,
  });
  made.set('file', Number((await ok(uploaded, 'netdisc upload')).id));
  const folder = await ok(
    await api.post('/api/file/netdisc/folder/create', { name: `mx${lower}folder`, parentId: null }),
    'folder',
  );
  made.set('folder', Number(folder.id));
  // an import job of the tenant's administrator (a background import of one post)
  const importFile = fileUpload(
    `mx${lower}import.csv`,
    `postCode,postName\nmx${lower}imp,mx${lower} imported\n`,
    {
      type: 'text/csv',
    },
  );
  const job = await ok(
    await t.request({
      method: 'POST',
      url: '/api/admin/syspost/import?background=true',
      headers: { ...tenant.headers, ...importFile.headers },
      payload: importFile.payload,
    }),
    'import job',
  );
  made.set('importJob', Number(job.id));
  if (tenant.name === 'A') collectMarks({ fileName: job.fileName });
  // a generator template of the tenant
  const template = await ok(
    await api.post('/api/generator/template/add', {
      templateType: 'sql',
      templateItem: 'ddl',
      content: `-- mx${lower}template {{table}}\n{{ddl}}\n`,
    }),
    'template',
  );
  made.set('template', Number(template.id));
  if (tenant.name === 'A') {
    for (const text of [
      'mxaform',
      'mxaapplicant',
      'mxamodel',
      'mxaflow',
      'mxabk',
      'mxafolder',
      'mxatemplate',
      'mxakey',
      'mxasso',
      'mxaclient',
    ])
      marksOfA.add(text);
  }
  return made;
}

let tenantBPassword = '';

/** How A's administrator reads A's resource of a kind. */
function readerOf(kind: string, value: Value, entities: Map<string, EntityDef>): () => Promise<unknown> {
  const a = tenantA.api;
  const body = async (url: string, query: Record<string, string> = {}) => {
    const response = await a.get(url, query);
    return { status: response.statusCode, data: response.json<{ data: unknown }>().data };
  };
  const byName = [...entities.values()].find((def) => def.name === kind);
  if (byName) return () => body(`/api/${byName.api}/query`, { [byName.key.name]: String(value) });
  const v = String(value);
  switch (kind) {
    case 'roleCode':
      return () => body('/api/admin/sysmenu/queryMenuButtonByRoleCode', { roleCode: v });
    case 'postCode':
      return () => body('/api/admin/syspost/query', { postCode: v });
    case 'session':
      return async () =>
        (
          (await body('/api/admin/sysuser/queryOnlineSysUser', { pageSize: '100' })).data as {
            records: Row[];
          }
        ).records.some((row) => String(row.id) === v);
    case 'datafield':
      return () => body('/api/admin/sysmenu/queryDataFieldByMenuCode', { menuCode: 'sysuser' });
    case 'audit':
      // the record the entry is about, and the entry itself: neither changes
      return async () => [
        await body('/api/admin/syspost/query', { id: String(resources.get('syspost')?.A) }),
        await t.sql('select id, action, before, after from sys_audit_log where id = $1', [Number(value)]),
      ];
    case 'form':
      return () => body('/api/generator/form/versions', { id: v });
    case 'formVersion':
      // the versions of the form the row belongs to: a restore would add one, and a draft
      return async () => [
        await body('/api/generator/form/versions', { id: String(resources.get('form')?.A) }),
        await body('/api/generator/form/query', { id: String(resources.get('form')?.A) }),
      ];
    case 'formCode':
    case 'entityName':
    case 'tableName':
      return () => body(`/api/online/${String(resources.get('formCode')?.A)}/query`);
    case 'model':
      return () => body('/api/activiti/model/get', { id: v });
    case 'deployment':
      return async () =>
        (
          (await body('/api/activiti/deployment/query', { pageSize: '100' })).data as { records: Row[] }
        ).records.find((row) => String(row.id) === v) ?? null;
    case 'procdef':
    case 'procdefKey':
      return () => body('/api/activiti/processdefinition/query', { pageSize: '100' });
    case 'instance':
    case 'businessKey':
      return () => body('/api/activiti/processinstance/detail', { id: String(resources.get('instance')?.A) });
    case 'task':
      return () => body('/api/activiti/task/detail', { id: v });
    case 'externalTask':
      return async () =>
        (
          (await body('/api/activiti/externalTask/query', { pageSize: '100' })).data as { records: Row[] }
        ).records.find((row) => String(row.id) === v) ?? null;
    case 'file':
      return () => body('/api/file/file/info', { id: v });
    case 'folder':
      return () => body('/api/file/netdisc/list', { folderId: v });
    case 'template':
      return () => body('/api/generator/template/versions', { id: v });
    case 'webhook':
      return async () =>
        ((await body('/api/admin/syswebhook/query', {})).data as Row[]).find((row) => String(row.id) === v) ??
        null;
    case 'delivery':
      return async () =>
        (
          (
            await body('/api/admin/syswebhook/queryDeliveries', {
              id: String(resources.get('webhook')?.A),
              pageSize: '500',
            })
          ).data as { records: Row[] }
        ).records.find((row) => String(row.id) === v) ?? null;
    case 'oidcprovider':
      return async () =>
        ((await body('/api/admin/sysoidc/query', {})).data as Row[]).find((row) => String(row.id) === v) ??
        null;
    case 'importJob':
      return async () => {
        const job = await body('/api/import/job', { id: v });
        // the job's progress may move on while B's requests run: what must stay is whose it is
        const { id, entity, fileName } = (job.data ?? {}) as Row;
        return { status: job.status, id, entity, fileName };
      };
    case 'apikey':
      return async () =>
        (
          (await body('/api/admin/sysapikey/query', { pageSize: '500' })).data as { records: Row[] }
        ).records.find((row) => String(row.id) === v) ?? null;
    default:
      throw new Error(`no reader for ${kind}`);
  }
}

/** The platform-only flag of a route's config (config.isPlatformOnly), where the app declares it. */
const isPlatformOnlyConfig = (config: object): boolean =>
  'isPlatformOnly' in config && config.isPlatformOnly === true;

/** Whether an answer B got is empty: no rows, no tree, nothing. */
async function isEmptyAnswer(response: LightMyRequestResponse): Promise<boolean> {
  const type = String(response.headers['content-type'] ?? '');
  if (type.includes('spreadsheetml')) {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(response.rawPayload as unknown as ArrayBuffer);
    return workbook.worksheets.every((sheet) => sheet.actualRowCount <= 1);
  }
  if (!type.startsWith('application/json')) return false;
  const data = response.json<{ data: unknown }>().data;
  const empty = (value: unknown): boolean => {
    if (value === null || value === undefined || value === false || value === 0 || value === '') return true;
    if (Array.isArray(value)) return value.length === 0;
    if (typeof value === 'object') {
      const object = value as Json;
      if (Array.isArray(object.records)) return object.records.length === 0;
      return Object.values(object).every(empty);
    }
    return false;
  };
  return empty(data);
}

const marksIn = (text: string): string[] => [...marksOfA].filter((mark) => text.includes(mark));

beforeAll(async () => {
  t = await startTestApp();
  const created = await t.request({
    method: 'POST',
    url: '/api/admin/systenant/add',
    headers: t.auth,
    payload: { tenantCode: 'tenantb', tenantName: 'Tenant B' },
  });
  expect(created.statusCode, created.body).toBe(200);
  tenantBPassword = String(created.json().data.admin.initialPassword);
  const signedIn = await t.signIn('admin', tenantBPassword, 'tenantb');
  expect(signedIn.statusCode, signedIn.body).toBe(200);
  const headersB = bearer(String(signedIn.json().access_token));
  const apiA = new Api(t);
  const apiB = new Api(t, headersB);
  tenantA = { name: 'A', code: 'default', headers: t.auth, api: apiA, samples: new Samples(apiA) };
  tenantB = { name: 'B', code: 'tenantb', headers: headersB, api: apiB, samples: new Samples(apiB) };
}, 300_000);
afterAll(async () => {
  await t.close();
});

describe('the tenant matrix, generated from the route table', () => {
  it(
    'refuses tenant B’s administrator every resource of tenant A and changes none of them',
    { timeout: 600_000 },
    async () => {
      const registry = t.app.ctx.registry;
      const entities = new Map(registry.all.map((def) => [def.api, def]));
      const scoped = registry.all.filter((def) => def.isTenantScoped);
      const madeA = await makeAll(tenantA, scoped);
      const madeB = await makeAll(tenantB, scoped);
      resources = new Map();
      for (const [kind, value] of madeA) {
        const other = madeB.get(kind);
        if (other === undefined) continue;
        const made: Made = { A: value, B: other, read: async () => undefined };
        resources.set(kind, made);
        made.read = readerOf(kind, value, entities);
      }
      for (const def of registry.all.filter((item) => !item.isTenantScoped)) {
        const [row] = await tenantA.api.records(def, { pageSize: '1' });
        if (!row) continue;
        const key = row[def.key.name] as Value;
        const made: Made = { A: key, B: key, isShared: true, read: async () => undefined };
        made.read = readerOf(def.name, key, entities);
        resources.set(`shared:${def.name}`, made);
      }
      const sharedMenu = (
        await t.sql<{ id: number; menu_code: string }>(
          "select id, menu_code from sys_menu where menu_code = 'sysuser'",
        )
      )[0];
      const sharedValue = (kind: string): Value | undefined =>
        kind === 'shared:menu'
          ? sharedMenu?.id
          : kind === 'shared:menuCode'
            ? sharedMenu?.menu_code
            : kind === 'shared:entityName'
              ? 'sysuser'
              : undefined;

      const baseline = new Map<string, string>();
      for (const [kind, made] of resources) baseline.set(kind, JSON.stringify(await made.read()));
      const initial = new Map(baseline);

      const entryOf = (route: { url: string; method: string }) =>
        t.app.routeTable.find((item) => item.url === route.url && item.method === route.method);
      const routes = t.app.routeSchemas.filter((route) => {
        const entry = t.app.routeTable.find((item) => item.url === route.url && item.method === route.method);
        return (
          route.url.startsWith('/api/') &&
          entry &&
          entry.config.isPublic !== true &&
          skipReason(`${route.method} ${route.url}`) !== SESSION_OF_CALLER
        );
      });
      const plans: Plan[] = routes.map((route) => {
        const schema = route.schema as {
          params?: Schema;
          querystring?: Schema;
          body?: Schema;
          consumes?: string[];
        };
        const uncovered: string[] = [];
        const slots = [
          ...slotsOf(route.url, 'params', schema.params, entities, [], uncovered),
          ...slotsOf(route.url, 'query', schema.querystring, entities, [], uncovered),
          ...slotsOf(route.url, 'body', schema.body, entities, [], uncovered),
        ];
        const plan: Plan = {
          route: `${route.method} ${route.url}`,
          method: route.method,
          url: route.url,
          schemas: { params: schema.params, query: schema.querystring, body: schema.body },
          isMultipart: (schema.consumes ?? []).includes('multipart/form-data'),
          isPlatformOnly: isPlatformOnlyConfig(entryOf(route)?.config ?? {}),
          slots,
          uncovered,
        };
        const entity = [...entities.entries()].find(
          ([api]) => route.url === `/api/${api}/add` || route.url === `/api/${api}/update`,
        );
        if (entity && entity[1].isTenantScoped) {
          const def = entity[1];
          plan.entity = { def, action: route.url.endsWith('/add') ? 'add' : 'update' };
          const refs = def.fields.filter((field) => field.ref && registry.require(field.ref).isTenantScoped);
          plan.slots = [
            ...(plan.entity.action === 'update'
              ? [
                  {
                    part: 'body' as const,
                    path: [def.key.name],
                    kind: def.name,
                    schema: {},
                    isRequired: true,
                  },
                ]
              : []),
            ...refs.map((field) => ({
              part: 'body' as const,
              path: [field.name],
              kind: field.ref ?? '',
              schema: {},
              isRequired: true,
            })),
          ];
        }
        return plan;
      });

      const uncovered = plans
        .filter(
          (plan) =>
            plan.uncovered.length > 0 ||
            plan.slots.some(
              (slot) =>
                !resources.has(slot.kind) &&
                sharedValue(slot.kind) === undefined &&
                !slot.kind.startsWith('typed:'),
            ),
        )
        .map((plan) => plan.route)
        .filter((route) => skipReason(route) === undefined);
      const leaks: string[] = [];
      let requests = 0;
      let covered = 0;

      const valueOf = (slot: Slot, tenant: 'A' | 'B'): Value | undefined =>
        resources.get(slot.kind)?.[tenant] ?? sharedValue(slot.kind);

      for (const plan of plans) {
        if (skipReason(plan.route) !== undefined || uncovered.includes(plan.route)) continue;
        covered += 1;
        const entityBase: Json = {};
        if (plan.entity) {
          const { def, action } = plan.entity;
          if (action === 'add') Object.assign(entityBase, await tenantB.samples.record(def));
          else {
            const own = (
              await tenantB.api.records(def, { [def.key.name]: String(resources.get(def.name)?.B) })
            )[0];
            entityBase.version = own?.version;
          }
        }
        // one request per resource place (A's there, B's elsewhere); a plain one when there is none
        const variants: (Slot | undefined)[] = plan.slots.filter(
          (slot) => resources.has(slot.kind) || slot.kind.startsWith('typed:'),
        );
        if (variants.length === 0) variants.push(undefined);
        for (const target of variants) {
          const typedKinds = target?.kind.startsWith('typed:')
            ? target.kind.slice(6).split('|')
            : [undefined];
          for (const typed of typedKinds) {
            const typedKind = typed === undefined ? undefined : TYPED_KINDS[typed];
            if (typed !== undefined && (!typedKind || !resources.has(typedKind))) continue;
            const parts: Record<Slot['part'], Json> = {
              params: baseOf(plan.schemas.params, []),
              query: baseOf(
                plan.schemas.query,
                plan.slots.filter((slot) => slot.part === 'query'),
              ),
              body: plan.entity
                ? { ...entityBase }
                : baseOf(
                    plan.schemas.body,
                    plan.slots.filter((slot) => slot.part === 'body'),
                  ),
            };
            for (const slot of plan.slots) {
              if (slot.kind.startsWith('typed:')) {
                const own = slot.kind.slice(6).split('|')[0] ?? '';
                const kind = slot === target ? typedKind : TYPED_KINDS[own];
                const typePath = [...slot.path.slice(0, -1), 'type'];
                setAt(parts[slot.part], typePath, slot === target ? typed : own);
                setAt(parts[slot.part], slot.path, resources.get(kind ?? '')?.[slot === target ? 'A' : 'B']);
                continue;
              }
              if (slot !== target && !slot.isRequired && !plan.entity) continue;
              const value = valueOf(slot, slot === target ? 'A' : 'B');
              if (value === undefined) continue;
              const isArray = /Ids$|^ids$|^entities$/.test(String(slot.path.at(-1)));
              setAt(parts[slot.part], slot.path, isArray ? [value] : value);
            }
            if (plan.entity?.action === 'update' && target?.kind === plan.entity.def.name) {
              const own = (
                await tenantA.api.records(plan.entity.def, {
                  [plan.entity.def.key.name]: String(target && valueOf(target, 'A')),
                })
              )[0];
              parts.body.version = own?.version;
            }
            let url = plan.url;
            for (const [name, value] of Object.entries(parts.params))
              url = url.replace(`:${name}`, encodeURIComponent(String(value)));
            const query: Record<string, string | string[]> = {};
            for (const [name, value] of Object.entries(parts.query))
              query[name] = Array.isArray(value) ? value.map(String) : String(value);
            const hasBody =
              plan.method !== 'GET' && plan.method !== 'DELETE' && plan.schemas.body !== undefined;
            const response = await t.request({
              method: plan.method as 'GET',
              url: withQuery(url, query),
              headers: plan.isMultipart ? { ...tenantB.headers, ...UPLOAD.headers } : tenantB.headers,
              ...(plan.isMultipart
                ? { payload: UPLOAD.payload }
                : hasBody
                  ? { payload: parts.body as Record<string, string> }
                  : {}),
            });
            requests += 1;
            const what = `${plan.route}${target ? ` with A's ${target.kind}${typed ? `:${typed}` : ''} at ${target.part} /${target.path.join('/')}` : ''}`;
            // an answer may repeat what B sent (a 404 naming the form code): that is no leak
            const sent = target
              ? String(typed === undefined ? valueOf(target, 'A') : resources.get(typedKind ?? '')?.A)
              : '';
            const marks = marksIn(response.body).filter((mark) => !sent.includes(mark));
            const named = `/${target?.path.join('/') ?? ''}`;
            const fields =
              response.statusCode === 400 || response.statusCode === 409
                ? (response.json<{ errors?: { field: string }[] }>().errors ?? []).map((error) => error.field)
                : [];
            const globalCode = GLOBAL_CODES[target?.path.at(-1) ?? ''];
            const refused =
              response.statusCode === 403 ||
              response.statusCode === 404 ||
              (response.statusCode === 400 &&
                fields.some(
                  (field) =>
                    field === named ||
                    field === named.replace(/\/[^/]+$/, '') ||
                    field.startsWith(`${named}/`),
                )) ||
              (globalCode !== undefined &&
                fields.some((field) => field === named || globalCode.alsoNamed.includes(field)));
            if (process.env.MATRIX_VERBOSE)
              console.log(`${what} → ${response.statusCode} ${response.body.slice(0, 120)}`);
            if (response.statusCode >= 500)
              leaks.push(`${what}: ${response.statusCode} ${response.body.slice(0, 160)}`);
            else if (plan.isPlatformOnly && response.statusCode !== 403)
              leaks.push(`${what}: a platform-only route answered ${response.statusCode}, not 403`);
            else if (marks.length > 0)
              leaks.push(`${what}: answer carries A's ${marks.join(', ')} (${response.statusCode})`);
            else if (target && !refused) {
              // only a read may answer "nothing"; a change of another tenant's resource is refused
              const isRead = plan.method === 'GET' || plan.url.endsWith('/export');
              const isSharedRead = isRead && resources.get(target.kind)?.isShared === true;
              const isEmpty = isRead && response.statusCode === 200 && (await isEmptyAnswer(response));
              if (!isEmpty && !isSharedRead)
                leaks.push(`${what}: ${response.statusCode} ${response.body.slice(0, 160)}`);
            }
            if (plan.method !== 'GET') {
              const kinds = target ? [typedKind ?? target.kind] : [];
              for (const kind of kinds) {
                const made = resources.get(kind);
                if (!made) continue;
                const now = JSON.stringify(await made.read());
                if (now !== baseline.get(kind)) {
                  leaks.push(`${what}: A's ${kind} changed`);
                  baseline.set(kind, now);
                }
              }
            }
          }
        }
      }
      // and nothing of A changed on the way, whatever request it was
      for (const [kind, made] of resources) {
        const now = JSON.stringify(await made.read());
        if (now !== initial.get(kind) && !leaks.some((leak) => leak.endsWith(`A's ${kind} changed`)))
          leaks.push(`A's ${kind} changed during the matrix`);
      }
      console.log(
        `tenant matrix: ${covered} routes covered, ${requests} requests made, ${leaks.length} leaks, ${uncovered.length} uncovered`,
      );
      expect(leaks).toEqual([]);
      expect(
        uncovered,
        'routes naming a resource the matrix cannot make (add a kind, or a reason to SKIPPED)',
      ).toEqual([]);
    },
  );
});
