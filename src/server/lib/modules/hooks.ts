import { sql } from 'kysely';
import { EntityInputError } from '../../../engine/index.js';
import type { Db } from '../db/database.js';
import type { EntityRegistry } from '../registry.js';
import type { OutboxEvent } from '../events/types.js';
import {
  FieldRefusal,
  isFieldRefusal,
  type EndpointDef,
  type EntityHooks,
  type EventSubscription,
  type HookArgs,
  type JsonSchema,
  type ModuleDefinition,
  type ModuleServices,
  type ReadArgs,
  type ModuleJob,
  type Row,
} from './define.js';

/** One endpoint of a module, with the entity it sits beside. */
export interface ModuleEndpoint {
  module: ModuleDefinition;
  entity: string;
  name: string;
  endpoint: EndpointDef;
}

/**
 * The modules of the app in the order they were loaded (the framework's own first, then those
 * discovered): hooks of one entity run in that order.
 */
export class ModuleSet {
  readonly definitions: readonly ModuleDefinition[];
  private readonly byEntity = new Map<string, { module: ModuleDefinition; hooks: EntityHooks }[]>();

  constructor(definitions: readonly ModuleDefinition[]) {
    this.definitions = definitions;
    for (const module of definitions) {
      for (const [entity, part] of Object.entries(module.entities ?? {})) {
        if (!part.hooks) continue;
        const list = this.byEntity.get(entity) ?? [];
        list.push({ module, hooks: part.hooks });
        this.byEntity.set(entity, list);
      }
    }
  }

  /** The hooks of an entity, module by module. */
  hooksOf(entity: string): readonly { module: ModuleDefinition; hooks: EntityHooks }[] {
    return this.byEntity.get(entity) ?? [];
  }

  /** Whether any module hooks this entity with `name`. */
  has(entity: string, name: keyof EntityHooks): boolean {
    return this.hooksOf(entity).some(({ hooks }) => hooks[name] !== undefined);
  }

  /** Whether any module hooks writes of this entity (an import then writes row by row). */
  hasWriteHooks(entity: string): boolean {
    return this.hooksOf(entity).some(
      ({ hooks }) =>
        hooks.beforeValidate !== undefined ||
        hooks.beforeChange !== undefined ||
        hooks.afterChange !== undefined,
    );
  }

  endpoints(): ModuleEndpoint[] {
    return this.definitions.flatMap((module) =>
      Object.entries(module.entities ?? {}).flatMap(([entity, part]) =>
        Object.entries(part.endpoints ?? {}).map(([name, endpoint]) => ({ module, entity, name, endpoint })),
      ),
    );
  }

  /** What afterChange hooks add to an entity's add answer, for its answer schema. */
  answerPropertiesOf(entity: string): Record<string, JsonSchema> {
    return Object.assign(
      {},
      ...this.definitions.map((module) => module.entities?.[entity]?.answerProperties),
    );
  }

  /**
   * The modules' texts (`messages`) by language, as the locales hold them: modules.<name>.<key>
   * (the back-office reads them beside the schemas: a rule's message may name one).
   */
  messages(): Record<string, { modules: Record<string, unknown> }> {
    const byLanguage: Record<string, { modules: Record<string, unknown> }> = {};
    for (const module of this.definitions)
      for (const [language, texts] of Object.entries(module.messages ?? {}))
        (byLanguage[language] ??= { modules: {} }).modules[module.name] = texts;
    return byLanguage;
  }

  /** The modules' subscriptions that hear this event, in load order, with their module's name. */
  subscribersOf(event: OutboxEvent): { module: string; subscription: EventSubscription }[] {
    return this.definitions.flatMap((module) =>
      (module.events ?? [])
        .filter(
          (subscription) =>
            (!subscription.types || subscription.types.includes(event.type)) &&
            (!subscription.entities ||
              (event.entity !== null && subscription.entities.includes(event.entity))),
        )
        .map((subscription) => ({ module: module.name, subscription })),
    );
  }

  /** Every module's jobs, each with its key `<module>:<job>` (sys_module_job.job_key). */
  jobs(): { key: string; module: string; job: ModuleJob }[] {
    return this.definitions.flatMap((module) =>
      (module.jobs ?? []).map((job) => ({ key: `${module.name}:${job.name}`, module: module.name, job })),
    );
  }

  /** Whether any module subscribes to events. */
  get hasSubscriptions(): boolean {
    return this.definitions.some((module) => (module.events ?? []).length > 0);
  }

  /** Every custom widget a module registers, once each. */
  widgets(): string[] {
    return [...new Set(this.definitions.flatMap((module) => module.widgets ?? []))];
  }
}

/** What a hook or endpoint is given apart from `t` and `refuse`, which are the module's own. */
export type SharedServices = Omit<ModuleServices, 't' | 'refuse'> & {
  /** The caller's translator (the app's keys). */
  translate: (key: string, params?: Record<string, unknown>) => string;
};

const refuse = (field: string, message: string): never => {
  throw new FieldRefusal([{ field, message }]);
};

/** The services as one module sees them: its texts under modules.<name>.*. */
export function servicesFor(module: ModuleDefinition, shared: SharedServices): ModuleServices {
  const { translate, ...services } = shared;
  return { ...services, t: (key, params) => translate(`modules.${module.name}.${key}`, params), refuse };
}

/** A refusal as the engine's field errors (pointers), which the error catalogue answers as 400. */
function asInputError(error: FieldRefusal): EntityInputError {
  return new EntityInputError(
    error.refusals.map((item) => ({
      field: item.field.startsWith('/') ? item.field : `/${item.field}`,
      message: item.message,
    })),
  );
}

/** Runs a hook or handler; a FieldRefusal of any copy of define.ts becomes the engine's input error. */
export async function refusalsAsInputErrors<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isFieldRefusal(error)) throw asInputError(error);
    throw error;
  }
}

type WriteHook = 'beforeValidate' | 'beforeChange' | 'afterChange' | 'beforeDelete' | 'afterDelete';

/** A write hook's input without the services. */
export type WriteHookInput = Omit<HookArgs, keyof ModuleServices>;

/**
 * Runs one write hook of every module on the entity, in order. beforeValidate and beforeChange
 * pass their data along (a hook's returned object replaces it) and answer the last; afterChange
 * answers what the hooks returned, merged (properties for the answer).
 */
export async function runWriteHooks(
  set: ModuleSet,
  name: WriteHook,
  input: WriteHookInput,
  shared: SharedServices,
): Promise<Row> {
  let data = input.data;
  let added: Row = {};
  for (const { module, hooks } of set.hooksOf(input.entity)) {
    const hook = hooks[name];
    if (!hook) continue;
    const result = await refusalsAsInputErrors(() =>
      hook({ ...input, data, ...servicesFor(module, shared) }),
    );
    if (result && typeof result === 'object') {
      if (name === 'afterChange') added = { ...added, ...result };
      else if (name === 'beforeValidate' || name === 'beforeChange') data = result;
    }
  }
  return name === 'afterChange' ? added : data;
}

/** Passes a record to be answered through every afterRead hook of its entity. */
export async function runAfterRead(set: ModuleSet, args: ReadArgs): Promise<Row> {
  let data = args.data;
  for (const { hooks } of set.hooksOf(args.entity)) {
    if (!hooks.afterRead) continue;
    const result = await hooks.afterRead({ ...args, data });
    if (result && typeof result === 'object') data = result;
  }
  return data;
}

/** A system parameter of a tenant (sysparam), trimmed; undefined when unset or empty. */
export async function readParam({
  trx,
  registry,
  tenant,
  key,
}: {
  trx: Db;
  registry: EntityRegistry;
  tenant: string;
  key: string;
}): Promise<string | undefined> {
  const entity = registry.get('sysparam');
  const keyField = entity?.fieldsByName.get('paramKey');
  const valueField = entity?.fieldsByName.get('paramValue');
  if (!entity || !keyField || !valueField) return undefined;
  const scope = entity.isTenantScoped ? sql`tenant_code = ${tenant} and` : sql``;
  const found = await sql<{ value: string | null }>`select ${sql.ref(valueField.column)} as value
    from ${sql.table(entity.table)} where ${scope} ${sql.ref(keyField.column)} = ${key} limit 1`.execute(trx);
  const value = found.rows[0]?.value?.trim();
  return value ? value : undefined;
}
