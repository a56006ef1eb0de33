import type { EntityDef } from '../../../../engine/index.js';
import { treeEndpointName, workflowOf } from '../../../../engine/index.js';
import { matchesUrlPattern } from './url-pattern.js';

/**
 * What a menu's screens call, so that granting a menu to a role grants those calls (the
 * permission policy, policy.ts) without URL rows typed by hand. A call is 'METHOD /api/path',
 * the path a URL pattern (url-pattern.ts: * one segment, a final ** the rest).
 *
 * A generated entity page (menu component `entity/<name>`, or a generated module's
 * `<package>/<name>`) calls its entity's API (the schema's x-entity.api): its list, tree and the
 * lists of the entities it references are read with the menu; add (with import), update,
 * delete and export only with the menu's button of that name. The hand-written pages declare
 * their calls below, by menu component, in the same shape. A menu grants nothing else: the
 * role-authorisation calls belong to the role page (权限管理), never to the user or menu page.
 */

/** Calls of a screen: read with the menu, the others only with the named button. */
export interface MenuCalls {
  read: readonly string[];
  buttons?: Readonly<Record<string, readonly string[]>>;
}

/** A menu as the policy sees it: its component and the buttons the caller's roles hold on it. */
export interface GrantedMenu {
  component: string;
  buttons: ReadonlySet<string>;
}

const activiti = (path: string): string => `/api/activiti/${path}`;

/** The file calls of a form with file, image or rich-text fields (src/admin/entity/file-api.ts). */
const FILE_READS = ['GET /api/file/file/info', 'GET /api/file/file/download'];
const FILE_WRITES = ['POST /api/file/file/upload'];

/** The demo article entity's API (demo/article), behind the template's example and table pages. */
const ARTICLE = '/api/demo/article';
const ARTICLE_READS = [`GET ${ARTICLE}/query`, `POST ${ARTICLE}/export`];
const ARTICLE_WRITES = [`POST ${ARTICLE}/add`, `PUT ${ARTICLE}/update`, `POST ${ARTICLE}/delete`];
const DASHBOARD = ['GET /api/demo/dashboard'];

/** Hand-written pages by menu component (src/admin: the screens the menu component opens). */
const PAGE_CALLS: Readonly<Record<string, MenuCalls>> = {
  layout: { read: [] },
  workbench: { read: [] },
  mynotification: { read: [] },
  profile: { read: [] },
  'authority/datapermission': {
    read: [
      'GET /api/admin/sysrole/query',
      'GET /api/admin/sysmenu/querySysMenuTree',
      'GET /api/admin/sysmenu/queryDataFieldByMenuCode',
      'GET /api/admin/sysrole/queryDataScopeByRoleId',
    ],
    buttons: {
      add: [
        'POST /api/admin/sysmenu/authorizeMenuDataToRole',
        'POST /api/admin/sysrole/authorizeDataScopeToRole',
      ],
      update: [
        'POST /api/admin/sysmenu/authorizeMenuDataToRole',
        'POST /api/admin/sysrole/authorizeDataScopeToRole',
      ],
      delete: ['POST /api/admin/sysmenu/deleteDataField'],
    },
  },
  'admin/onlinesysuser': {
    read: ['GET /api/admin/sysuser/queryOnlineSysUser'],
    buttons: { kickout: ['POST /api/admin/sysuser/forceLogout'] },
  },
  // The personal office (oa/*) calls self-service routes only: every signed-in user's own tasks.
  'oa/startprocess': { read: [] },
  'oa/myprocess': { read: [] },
  'oa/myprocessdetails': { read: [] },
  'oa/candidatetask': { read: [] },
  'oa/assigneetask': { read: [] },
  'oa/finishedtask': { read: [] },
  'oa/copytask': { read: [] },
  'oa/mytaskdetails': { read: [] },
  'workflow/model': {
    read: [`GET ${activiti('model/query')}`, `GET ${activiti('model/get')}`, `GET ${activiti('model/xml')}`],
    buttons: {
      add: [`POST ${activiti('model/add')}`, `POST ${activiti('model/import')}`],
      update: [`PUT ${activiti('model/update')}`],
      delete: [`POST ${activiti('model/delete')}`],
      design: [`PUT ${activiti('model/saveXml')}`],
      deploy: [`POST ${activiti('model/deploy')}`],
    },
  },
  // The designer is opened from 模型管理 for one model: saving the diagram is what the page is for.
  'workflow/processdesign': {
    read: [
      `GET ${activiti('model/get')}`,
      `GET ${activiti('model/xml')}`,
      `PUT ${activiti('model/saveXml')}`,
    ],
  },
  'workflow/deployment': {
    read: [`GET ${activiti('deployment/query')}`, `GET ${activiti('processdefinition/xml')}`],
    buttons: {
      add: [`POST ${activiti('deployment/deployXml')}`],
      delete: [`POST ${activiti('deployment/delete')}`],
    },
  },
  'workflow/processdefinition': {
    read: [`GET ${activiti('processdefinition/xml')}`],
    buttons: {
      suspend: [`POST ${activiti('processdefinition/suspend')}`],
      activate: [`POST ${activiti('processdefinition/activate')}`],
      delete: [`POST ${activiti('processdefinition/delete')}`],
    },
  },
  'workflow/processinstance': {
    read: [`GET ${activiti('processinstance/query')}`, `GET ${activiti('processinstance/executions')}`],
    buttons: {
      suspend: [`POST ${activiti('processinstance/suspend')}`],
      activate: [`POST ${activiti('processinstance/activate')}`],
      // Who may end an instance may also run its incident again, set its variables, and send it
      // messages and signals.
      terminate: [
        `POST ${activiti('processinstance/terminate')}`,
        `POST ${activiti('processinstance/retry')}`,
        `POST ${activiti('processinstance/variables')}`,
        `POST ${activiti('processinstance/message')}`,
        `POST ${activiti('processinstance/signal')}`,
      ],
      delete: [`POST ${activiti('processinstance/delete')}`],
    },
  },
  'workflow/execution': { read: [`GET ${activiti('processinstance/executions')}`] },
  'workflow/task': {
    read: [`GET ${activiti('task/query')}`],
    buttons: { delegate: [`POST ${activiti('task/assignTask')}`] },
  },
  'workflow/taskdetails': { read: [`GET ${activiti('task/query')}`] },
  'workflow/historicprocessinstance': {
    read: [`GET ${activiti('history/processinstance/query')}`],
    buttons: { delete: [`POST ${activiti('history/processinstance/delete')}`] },
  },
  'workflow/historicactivityinstance': { read: [`GET ${activiti('history/activityinstance/query')}`] },
  'workflow/historicdetail': { read: [`GET ${activiti('history/detail/query')}`] },
  'workflow/historicvariableinstance': { read: [`GET ${activiti('history/variableinstance/query')}`] },
  'workflow/historictaskinstance': {
    read: [`GET ${activiti('history/taskinstance/query')}`],
    buttons: { delete: [`POST ${activiti('history/taskinstance/delete')}`] },
  },
  'workflow/historictaskdetails': {
    read: [
      `GET ${activiti('history/taskinstance/query')}`,
      `GET ${activiti('history/detail/query')}`,
      `GET ${activiti('history/variableinstance/query')}`,
    ],
  },
  'file/upload-download': {
    read: ['GET /api/file/file/query', ...FILE_READS],
    buttons: { upload: FILE_WRITES, delete: ['POST /api/file/file/delete'] },
  },
  // 网盘 is each user's own space: every call acts on the caller's own files only.
  'file/netdisc': { read: ['GET /api/file/netdisc/**', 'POST /api/file/netdisc/**'] },
  'devtool/generatortemplate': {
    read: ['GET /api/generator/template/query', 'GET /api/generator/template/versions'],
    buttons: {
      add: ['POST /api/generator/template/add', 'POST /api/generator/template/check'],
      update: ['PUT /api/generator/template/update', 'POST /api/generator/template/check'],
      delete: ['POST /api/generator/template/delete'],
    },
  },
  'devtool/forwardgenerator': {
    read: ['GET /api/generator/template/query'],
    buttons: {
      preview: ['POST /api/generator/forward/preview'],
      generate: ['POST /api/generator/forward/download'],
    },
  },
  'devtool/formdesign': {
    read: [
      'GET /api/generator/form/query',
      'GET /api/generator/form/versions',
      'GET /api/generator/form/dictionaries',
      'POST /api/generator/form/validator',
    ],
    buttons: {
      add: ['POST /api/generator/form/add', 'POST /api/generator/form/check'],
      update: [
        'PUT /api/generator/form/update',
        'POST /api/generator/form/check',
        'POST /api/generator/form/restore',
      ],
    },
  },
  'devtool/generatorform': {
    read: [
      'GET /api/generator/form/query',
      'GET /api/generator/form/versions',
      'GET /api/generator/form/dictionaries',
      'POST /api/generator/form/validator',
    ],
    buttons: {
      add: ['POST /api/generator/form/add', 'POST /api/generator/form/check'],
      update: [
        'PUT /api/generator/form/update',
        'POST /api/generator/form/check',
        'POST /api/generator/form/restore',
      ],
      delete: ['POST /api/generator/form/delete'],
      generate: ['POST /api/generator/form/publish', 'POST /api/generator/form/unpublish'],
    },
  },
  'distributedlog/elk': { read: ['GET /api/monitor/logs/query'] },
  'monitor/apidoc': { read: [] },
  'monitor/audit': { read: ['GET /api/monitor/audit/query'] },
  'report/view': { read: ['GET /api/demo/reportdesigner/view', 'POST /api/demo/reportdesigner/xlsx'] },
  'demo/report/reportdesigner': {
    read: [
      'GET /api/demo/reportdesigner/entities',
      'POST /api/demo/reportdesigner/run',
      'POST /api/demo/reportdesigner/xlsx',
      'GET /api/demo/reportdesigner/view',
      'POST /api/demo/reportdesigner/save',
      'POST /api/demo/reportdesigner/remove',
      'GET /api/demo/report/query',
    ],
  },
  'demo/example/list': { read: [...ARTICLE_READS, `POST ${ARTICLE}/delete`] },
  'demo/example/create': { read: [...ARTICLE_READS, `POST ${ARTICLE}/add`, ...FILE_READS, ...FILE_WRITES] },
  'demo/example/edit': { read: [...ARTICLE_READS, `PUT ${ARTICLE}/update`, ...FILE_READS, ...FILE_WRITES] },
  'demo/table/dynamic': { read: ARTICLE_READS },
  'demo/table/drag': { read: [...ARTICLE_READS, `PUT ${ARTICLE}/update`] },
  'demo/table/inline-edit': { read: [...ARTICLE_READS, `PUT ${ARTICLE}/update`] },
  'demo/table/complex': { read: [...ARTICLE_READS, ...ARTICLE_WRITES] },
  'demo/excel/export': { read: ARTICLE_READS },
  'demo/excel/selected': { read: ARTICLE_READS },
  'demo/excel/merge-header': { read: ARTICLE_READS },
  'demo/excel/upload': { read: [] },
  'demo/zip': { read: ARTICLE_READS },
  'demo/pdf': { read: ARTICLE_READS },
  'demo/tab': { read: ARTICLE_READS },
  'demo/nested': { read: [] },
  'democ/demoupload': { read: [...FILE_READS, ...FILE_WRITES] },
  'democ/demorichtext': { read: [...FILE_READS, ...FILE_WRITES] },
  'democ/demoavatarupload': { read: [...FILE_READS, ...FILE_WRITES] },
};

/** Chart and big-screen pages (demo/charts/*, demo/bigscreen/*) read the demo dashboard. */
const DASHBOARD_PAGE = /^demo\/(charts|bigscreen)\//;
/** The other template demo components (democ/*: icons, clipboard, …) call nothing of their own. */
const STATIC_DEMO = /^democ\//;

/** The entity whose generated page a menu component opens, if it opens one. */
export function entityOfComponent(
  component: string,
  entityNamed: (name: string) => EntityDef | undefined,
): EntityDef | undefined {
  if (PAGE_CALLS[component]) return undefined;
  const match = /^(?:entity|[a-z0-9_-]+)\/([A-Za-z0-9_]+)$/.exec(component);
  return match?.[1] ? entityNamed(match[1]) : undefined;
}

const FILE_WIDGETS = new Set(['image', 'richtext', 'upload']);

/** The calls of an entity's generated page (module comment). */
export function entityCalls(
  entity: EntityDef,
  entityNamed: (name: string) => EntityDef | undefined,
): MenuCalls {
  const base = `/api/${entity.api}`;
  const read = [`GET ${base}/query`];
  if (entity.tree) read.push(`GET ${base}/${treeEndpointName(entity.name)}`);
  // Referenced entities are read for the labels, selects and filters of the page.
  for (const field of entity.fields) {
    const target = field.ref ? entityNamed(field.ref) : undefined;
    if (!target) continue;
    read.push(`GET /api/${target.api}/query`);
    if (target.tree) read.push(`GET /api/${target.api}/${treeEndpointName(target.name)}`);
  }
  const hasFiles = entity.fields.some((field) => FILE_WIDGETS.has(field.schema['x-ui']?.widget ?? ''));
  if (hasFiles) read.push(...FILE_READS);
  const files = hasFiles ? FILE_WRITES : [];
  const extra = ENTITY_EXTRAS[entity.name];
  return {
    read: [...read, ...(extra?.read ?? [])],
    buttons: {
      add: [
        `POST ${base}/add`,
        `POST ${base}/import`,
        `GET ${base}/importTemplate`,
        ...files,
        ...(extra?.buttons?.add ?? []),
      ],
      // 提交审批 (x-entity.workflow) changes the record's status: it goes with 编辑.
      update: [
        `PUT ${base}/update`,
        ...(workflowOf(entity) ? [`POST ${base}/submitApproval`] : []),
        ...files,
        ...(extra?.buttons?.update ?? []),
      ],
      delete: [`POST ${base}/delete`],
      export: [`POST ${base}/export`],
    },
  };
}

/**
 * The record actions of generated pages (src/admin/entity/extensions.ts) that call more than the
 * entity's API. Assigning roles (to users, URLs, posts) stays with the role page: it is not here.
 */
const ENTITY_EXTRAS: Readonly<Record<string, MenuCalls>> = {
  sysuser: {
    // the workbench's sign-in chart and the user's posts drawer
    read: ['GET /api/admin/sysuser/querySignInsPerDay', 'GET /api/admin/sysuserpost/querySysUserPostTree'],
    buttons: { update: ['POST /api/admin/sysuserpost/authorizePostToUser'] },
  },
  sysorg: { read: ['GET /api/admin/sysorg/queryOrgUserTree'] },
  sysrole: {
    read: [],
    buttons: {
      update: [
        'GET /api/admin/sysmenu/querySysMenuTree',
        'GET /api/admin/sysmenu/queryMenuIdByRoleId',
        'POST /api/admin/sysmenu/authorizeMenuToRole',
        'GET /api/admin/sysmenu/querySysMenuButtonTree',
        'GET /api/admin/sysmenu/queryMenuButtonByRoleCode',
        'POST /api/admin/sysmenu/authorizeMenuButtonToRole',
        'GET /api/admin/sysurl/query',
        'GET /api/admin/sysurl/queryUrlIdByRoleId',
        'POST /api/admin/sysurl/authorizeUrlToRole',
        'GET /api/admin/sysrole/queryDataScopeByRoleId',
        'POST /api/admin/sysrole/authorizeDataScopeToRole',
        'GET /api/admin/sysorg/queryOrgUserTree',
        'GET /api/admin/sysrole/queryUserIdByRoleId',
        'POST /api/admin/sysrole/authorizeUserToRole',
      ],
    },
  },
};

/**
 * The calls of the screen a menu component opens: a declared page, a generated entity page, or
 * undefined for a component this server knows nothing of (its menu grants nothing and is not shown).
 */
export function menuCallsOf(
  component: string,
  entityNamed: (name: string) => EntityDef | undefined,
): MenuCalls | undefined {
  const declared = PAGE_CALLS[component];
  if (declared) return declared;
  if (DASHBOARD_PAGE.test(component)) return { read: DASHBOARD };
  if (STATIC_DEMO.test(component)) return { read: [] };
  const entity = entityOfComponent(component, entityNamed);
  return entity ? entityCalls(entity, entityNamed) : undefined;
}

/** The calls a menu grants to a role holding the given buttons on it. */
export function grantedCallsOf(calls: MenuCalls, buttons: ReadonlySet<string>): string[] {
  const granted = [...calls.read];
  for (const [button, list] of Object.entries(calls.buttons ?? {}))
    if (buttons.has(button)) granted.push(...list);
  return granted;
}

/** Whether a call ('METHOD /api/…') covers a request. */
export function matchesCall(call: string, method: string, path: string): boolean {
  const space = call.indexOf(' ');
  return call.slice(0, space) === method.toUpperCase() && matchesUrlPattern(call.slice(space + 1), path);
}
