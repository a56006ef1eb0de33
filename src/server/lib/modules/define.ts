import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import { EVENT_TYPES, type EventType, type OutboxEvent } from '../events/types.js';

/**
 * The typed API of a module's server part (docs/extending.md): `src/modules/<name>/server.ts`
 * (or `<MODULE_DIRS entry>/<name>/server.ts`) default-exports `defineModule({...})`. The framework
 * runs its own special cases on the same API (features/tenants/module.ts, features/sessions/module.ts).
 *
 * Nothing here keeps state: a module may be loaded as a separate copy of this file (the built
 * server loads modules' TypeScript apart from its bundle), so refusals are recognised by a brand,
 * not by their class.
 */

/** A record as the services read and write it: field name → value. */
export type Row = Record<string, unknown>;

/** JSON Schema, as route schemas and the OpenAPI document take it. */
export type JsonSchema = Record<string, unknown>;

/** The user a change is made for, in their tenant. */
export interface ModuleActor {
  userId: number | null;
  username: string;
  tenantCode: string;
}

/** A page of records, as an entity's query answers it. */
export interface RecordPage {
  records: Row[];
  total: number;
  currentPage: number;
  pageSize: number;
}

/**
 * The generated CRUD of any entity, in the transaction of the hook or endpoint that holds it:
 * what it writes is undone with the rest. Every write runs that entity's own checks and hooks
 * and is audited. In a hook it acts for the actor's tenant with every field open (the module's
 * own logic); in an endpoint it acts with the caller's permissions (field rights, row scopes).
 */
export interface EntityService {
  /** Adds a record (as POST …/add): the record as stored. */
  add(entity: string, record: Row): Promise<Row>;
  /** Updates a record (as PUT …/update): the key and `version` plus the fields to change. */
  update(entity: string, record: Row): Promise<Row>;
  /** Deletes records by key (as POST …/delete). */
  delete(entity: string, keys: readonly unknown[]): Promise<{ deleted: number }>;
  /** One record by key (404 when the tenant has none). */
  get(entity: string, key: unknown): Promise<Row>;
  /** A page of records (as GET …/query: filters by field name, currentPage, pageSize, sort). */
  query(entity: string, params?: Record<string, unknown>): Promise<RecordPage>;
}

/** A field refused: `field` is the field's name (or a JSON pointer such as `/lines/0/qty`). */
export interface Refusal {
  field: string;
  message: string;
}

const REFUSAL_BRAND = Symbol.for('ecobid.module.fieldRefusal');

/**
 * Thrown by a hook or an endpoint to refuse a write: the framework answers 400 with these field
 * errors (the error catalogue's `validation`), and the transaction is rolled back.
 */
export class FieldRefusal extends Error {
  readonly [REFUSAL_BRAND] = true;
  readonly refusals: Refusal[];
  constructor(refusals: Refusal[]) {
    super(refusals.map((item) => `${item.field}: ${item.message}`).join('; '));
    this.name = 'FieldRefusal';
    this.refusals = refusals;
  }
}

/** Whether an error is a FieldRefusal (of any copy of this file). */
export function isFieldRefusal(error: unknown): error is FieldRefusal {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[REFUSAL_BRAND] === true &&
    Array.isArray((error as { refusals?: unknown }).refusals)
  );
}

/** What a hook and an endpoint are given beside their own input. */
export interface ModuleServices {
  actor: ModuleActor;
  /** The tenant the change is made in (the actor's). */
  tenant: string;
  /** The generated CRUD of every entity, in this transaction. */
  entities: EntityService;
  /** A system parameter (sysparam) of the tenant, trimmed; undefined when unset or empty. */
  param(key: string): Promise<string | undefined>;
  /** A text of the module's `messages` in the caller's language (i18next interpolation: {{name}}). */
  t(key: string, params?: Record<string, unknown>): string;
  /** The caller's language. */
  language: 'zh' | 'tw' | 'en';
  /** The transaction itself, for queries the entity service does not cover (Kysely). */
  trx: Db;
  /** Throws a FieldRefusal of one field: 400 naming it, everything rolled back. */
  refuse(field: string, message: string): never;
}

/** What a write does; `restore`: a record brought back from its recycle bin (x-entity.softDelete). */
export type Operation = 'add' | 'update' | 'delete' | 'restore';

/** What a write hook is given. */
export interface HookArgs extends ModuleServices {
  /** The entity's name: the schema file's, or a published designed form's code (table online_<code>). */
  entity: string;
  operation: Operation;
  /** The write is one row of an import (an add). */
  isImport: boolean;
  /** The record as stored before the write; undefined on an add. */
  before: Row | undefined;
  /**
   * beforeValidate: the body as sent. beforeChange: the checked values to write (on an update
   * only the fields sent; read the others from `before`). afterChange: the record as written.
   * Delete hooks: the record deleted.
   */
  data: Row;
  /** afterChange: the fields the write assigned (on an add, those given; secret fields included). */
  changes: ReadonlySet<string>;
}

/** What afterRead is given: a record about to be answered. */
export interface ReadArgs {
  entity: string;
  actor: ModuleActor;
  tenant: string;
  data: Row;
}

type MaybePromise<T> = T | Promise<T>;

/**
 * An entity's hooks, each run in the write's transaction for the API's add, update and delete,
 * every row of an import, and the published designed forms (/api/online/<code>/…) alike. A throw
 * rolls everything back (a FieldRefusal answers 400 naming its fields).
 */
export interface EntityHooks {
  /** Before the schema's checks: may return the body to check instead (fill, normalise). */
  beforeValidate?: (args: HookArgs) => MaybePromise<Row | void>;
  /**
   * After the checks, before the write: may return the values to write instead, or refuse. Also
   * before a record comes back from the recycle bin (operation `restore`, `data` the record as
   * binned): it may refuse; what it returns is not written (a restore brings the record back as it was).
   */
  beforeChange?: (args: HookArgs) => MaybePromise<Row | void>;
  /**
   * After the write (and after a restore from the recycle bin, operation `restore`, with no field
   * in `changes`): may write other entities through `entities`. On an add or an update the
   * properties of an object it returns are added to the answer (declare them in `answerProperties`).
   */
  afterChange?: (args: HookArgs) => MaybePromise<Row | void>;
  /** Before a record is deleted (once per record): may refuse. */
  beforeDelete?: (args: HookArgs) => MaybePromise<void>;
  /** After a record is deleted (once per record), in the delete's transaction. */
  afterDelete?: (args: HookArgs) => MaybePromise<void>;
  /**
   * A record about to be answered (lists, trees, a detail read, a recycle bin's page, an add's
   * or update's answer): may return it with fields added or taken away (a tree keeps its key,
   * parent and sequence). Exports are not passed through it.
   */
  afterRead?: (args: ReadArgs) => MaybePromise<Row | void>;
}

export type EndpointMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What an endpoint's handler is given: the checked input and the services, in one transaction. */
export interface EndpointArgs extends ModuleServices {
  body: unknown;
  query: Record<string, unknown>;
  request: FastifyRequest;
}

/**
 * A route beside an entity's generated API, at /api/<x-entity.api>/<name>. It is under the one
 * permission policy (a signed-in caller whose roles are granted the URL; ROLE_ADMIN always),
 * runs in one transaction, and answers `{ code: 200, data: <what the handler returns> }`.
 */
export interface EndpointDef {
  method: EndpointMethod;
  /**
   * Who may call it: `granted` (the default) a caller whose roles are granted the URL, ROLE_ADMIN
   * always; `signedIn` every signed-in user (reference data every screen reads, such as a
   * dictionary's items: reading it grants nothing).
   */
  access?: 'granted' | 'signedIn';
  schema?: {
    summary?: string;
    description?: string;
    /** JSON Schema of the body (POST, PUT). */
    body?: JsonSchema;
    /** JSON Schema of the query string (an object schema). */
    querystring?: JsonSchema;
    /** JSON Schema of `data` in the answer. */
    response?: JsonSchema;
  };
  handler: (args: EndpointArgs) => MaybePromise<unknown>;
}

/**
 * What a module adds to an entity's schema: fields (a computed one, say) and cross-field rules.
 * It adds, never replaces: a property the schema already has is refused at boot.
 */
export interface SchemaPatch {
  properties?: Record<string, JsonSchema>;
  'x-rules'?: readonly JsonSchema[];
}

export interface EntityModule {
  /** Fields and rules added to the entity's schema before it is compiled (README "Computed fields"). */
  schema?: SchemaPatch;
  hooks?: EntityHooks;
  endpoints?: Record<string, EndpointDef>;
  /** Properties afterChange adds to the add's answer, by name (for the answer schema and OpenAPI). */
  answerProperties?: Record<string, JsonSchema>;
}

/**
 * A menu the module's pages open from, added at start in the default tenant when no menu has its
 * code (a menu an administrator moved, renamed or deleted buttons of is left as it is). ROLE_ADMIN
 * sees it and its buttons; other roles are granted it, button by button, on the role screen.
 */
export interface ModuleMenu {
  /** sys_menu.menu_code: a-z first, then letters, digits, _ and -. */
  code: string;
  /** Its name in the default language (zh); menu_meta.titles may carry the others. */
  name: string;
  path: string;
  /** The page it opens: a key of the admin part's `pages`, or entity/<name> for the generated list. */
  component: string;
  /** The per-action buttons (view, add, update, delete, export, import …) roles are granted one by one. */
  buttons: readonly string[];
  /** The menu_code of the menu it goes under; the top level when absent or not found. */
  parent?: string;
  sequence?: number;
  icon?: string;
  meta?: Record<string, unknown>;
}

/**
 * A subscription to the event stream (lib/events): `handle` runs in one server process after the
 * change committed (the process that dispatched the event), never inside the change's
 * transaction. A throw is logged; the event is not handed to it again.
 */
export interface EventSubscription {
  /** Event types ('record.added', 'workflow.taskAssigned', …); every type when absent. */
  types?: readonly EventType[];
  /** Entities the events are about; every entity when absent. */
  entities?: readonly string[];
  handle: (event: OutboxEvent) => MaybePromise<void>;
}

/** What a job's run is given. */
export interface JobArgs {
  /** The database (not a transaction: open one with inTransaction for writes that belong together). */
  db: Db;
  /** The name of an entity's table (schema-known identifiers only: never build one from data). */
  tableOf(entity: string): string;
  /** The moment the run was due and claimed. */
  now: Date;
  /** Aborted when the run is past its time budget (BUDGETS.jobs.runMs, at most everySeconds). */
  signal: AbortSignal;
  /** The server's log, naming the module and the job. */
  log: {
    info(details: Record<string, unknown>, message: string): void;
    warn(details: Record<string, unknown>, message: string): void;
  };
}

/**
 * A periodic job (docs/extending.md "Jobs"): run every `everySeconds` by exactly one server
 * process (a row per job in sys_module_job, claimed with FOR UPDATE SKIP LOCKED), within a time
 * budget; a throw or a run past its budget is logged and kept as the job's last error, never thrown.
 */
export interface ModuleJob {
  /** Letters, digits, _ and -; unique within the module. */
  name: string;
  /** Seconds between runs (a whole number, at least 1). */
  everySeconds: number;
  run: (args: JobArgs) => MaybePromise<void>;
}

/** A module's server part. */
export interface ModuleDefinition {
  /** The module's name (its folder's name by convention): letters, digits and -. */
  name: string;
  /** Custom form widgets its admin part registers: x-ui.widget accepts these names. */
  widgets?: readonly string[];
  /** Per entity name: hooks, endpoints. */
  entities?: Record<string, EntityModule>;
  /** Texts by language (zh, tw, en), read with `t(key)` in hooks and endpoints. */
  messages?: Partial<Record<'zh' | 'tw' | 'en', Record<string, unknown>>>;
  /** Menus of its pages, with their buttons, added at start when missing (ModuleMenu). */
  menus?: readonly ModuleMenu[];
  /** Events it hears after their change committed (docs/extending.md "Events"). */
  events?: readonly EventSubscription[];
  /** Periodic jobs, each run by one process at a time (docs/extending.md "Jobs"). */
  jobs?: readonly ModuleJob[];
  /** Anything else, with the app once its routes are mounted (encapsulated: routes). */
  setup?: (app: FastifyInstance) => MaybePromise<void>;
}

const MODULE_NAME = /^[a-z][a-z0-9-]{0,63}$/;
const ENDPOINT_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
const WIDGET_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
const MENU_CODE = /^[a-z][a-zA-Z0-9_-]{0,63}$/;
const BUTTON_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;
const HOOK_NAMES = new Set([
  'beforeValidate',
  'beforeChange',
  'afterChange',
  'beforeDelete',
  'afterDelete',
  'afterRead',
]);

/** Checks a module's shape at boot (a typo in a hook's name is an error, not a hook never run). */
export function defineModule(definition: ModuleDefinition): ModuleDefinition {
  const problems: string[] = [];
  if (!MODULE_NAME.test(definition.name))
    problems.push(`name must be lower-case letters, digits and -, got "${definition.name}"`);
  for (const widget of definition.widgets ?? [])
    if (!WIDGET_NAME.test(widget)) problems.push(`widget "${widget}" is not a valid name`);
  for (const menu of definition.menus ?? []) {
    if (!MENU_CODE.test(menu.code))
      problems.push(`menu code "${menu.code}" must start with a-z, then letters, digits, _ and -`);
    if (!Array.isArray(menu.buttons) || menu.buttons.some((button) => !BUTTON_NAME.test(String(button))))
      problems.push(`menu ${menu.code}: buttons must be names of letters, digits, _ and -`);
  }
  for (const [entity, part] of Object.entries(definition.entities ?? {})) {
    for (const hook of Object.keys(part.hooks ?? {}))
      if (!HOOK_NAMES.has(hook)) problems.push(`${entity}: unknown hook "${hook}"`);
    for (const [name, endpoint] of Object.entries(part.endpoints ?? {})) {
      if (!ENDPOINT_NAME.test(name)) problems.push(`${entity}: endpoint name "${name}" is not valid`);
      if (!['GET', 'POST', 'PUT', 'DELETE'].includes(endpoint.method))
        problems.push(`${entity}.${name}: method must be GET, POST, PUT or DELETE`);
      if (typeof endpoint.handler !== 'function') problems.push(`${entity}.${name}: handler missing`);
      if (endpoint.access !== undefined && !['granted', 'signedIn'].includes(endpoint.access))
        problems.push(`${entity}.${name}: access must be granted or signedIn`);
    }
  }
  for (const [index, subscription] of (definition.events ?? []).entries()) {
    if (typeof subscription.handle !== 'function') problems.push(`events[${index}]: handle missing`);
    for (const type of subscription.types ?? [])
      if (!(EVENT_TYPES as readonly string[]).includes(type))
        problems.push(`events[${index}]: unknown event type "${type}"`);
  }
  const jobNames = new Set<string>();
  for (const [index, job] of (definition.jobs ?? []).entries()) {
    if (!ENDPOINT_NAME.test(String(job.name)))
      problems.push(`jobs[${index}]: name "${job.name}" is not valid`);
    else if (jobNames.has(job.name)) problems.push(`jobs[${index}]: a second job named "${job.name}"`);
    jobNames.add(job.name);
    if (!Number.isInteger(job.everySeconds) || job.everySeconds < 1)
      problems.push(`jobs[${index}]: everySeconds must be a whole number of at least 1`);
    if (typeof job.run !== 'function') problems.push(`jobs[${index}]: run missing`);
  }
  if (problems.length > 0)
    throw new Error(`module "${definition.name}" is not valid:\n  ${problems.join('\n  ')}`);
  return definition;
}
