import type { EntityDef } from '../../../../engine/index.js';
import type { Db, Row } from '../../../lib/db/database.js';
import type { EntityRegistry } from '../../../lib/registry.js';
import {
  readParam,
  runAfterRead,
  runWriteHooks,
  type EntityService,
  type SharedServices,
  type WriteHookInput,
} from '../../../lib/modules/index.js';
import { openRecordPolicy } from '../../rbac/index.js';
import type { CrudRequest } from './crud.js';
import { addRecord, deleteRecords, getRecord, queryRecords, updateRecord } from './crud.js';

/**
 * The modules' hooks (lib/modules) as the generic services run them: in the write's
 * transaction, with the generated CRUD of every entity bound to it.
 */

/** How a service call on another entity is made inside a transaction (a read, or a write). */
export type CrudRequestFor = (
  entity: EntityDef,
  mode: 'read' | 'write',
) => CrudRequest | Promise<CrudRequest>;

/** The generated CRUD of every entity through `requestFor` (its transaction, its policy). */
export function entityService(registry: EntityRegistry, requestFor: CrudRequestFor): EntityService {
  const of = async (name: string, mode: 'read' | 'write' = 'write'): Promise<CrudRequest> =>
    requestFor(registry.require(name), mode);
  return {
    add: async (name, record) => addRecord(await of(name), record),
    update: async (name, record) => updateRecord(await of(name), record),
    delete: async (name, keys) => deleteRecords(await of(name), [...keys]),
    get: async (name, key) => getRecord(await of(name, 'read'), key),
    query: async (name, params = {}) => {
      const page = await queryRecords(await of(name, 'read'), params);
      return {
        records: page.records,
        total: page.total,
        currentPage: page.currentPage,
        pageSize: page.pageSize,
      };
    },
  };
}

/**
 * What a hook of `request` gets beside its input: the actor's tenant, and every entity's CRUD in
 * `trx` with all fields open (a hook is the module's own logic, not the caller's request).
 */
export function hookServices(request: CrudRequest, trx: Db): SharedServices {
  const { actor, l10n, registry } = request;
  const system = (entity: EntityDef): CrudRequest => ({
    db: trx,
    registry,
    entity,
    actor,
    l10n,
    policy: openRecordPolicy(entity, l10n),
    modules: request.modules,
    ...(request.roles ? { roles: request.roles } : {}),
  });
  return {
    actor,
    tenant: actor.tenantCode,
    entities: entityService(registry, system),
    param: (key) => readParam({ trx, registry, tenant: actor.tenantCode, key }),
    translate: l10n.t,
    language: l10n.language,
    trx,
  };
}

/** Runs a write hook of the request's entity (nothing when no module hooks it). */
export async function writeHook(
  request: CrudRequest,
  trx: Db,
  name: 'beforeValidate' | 'beforeChange' | 'afterChange' | 'beforeDelete' | 'afterDelete',
  input: Omit<WriteHookInput, 'entity' | 'isImport' | 'changes'> &
    Partial<Pick<WriteHookInput, 'isImport' | 'changes'>>,
): Promise<Row> {
  const { entity, modules } = request;
  if (!modules.has(entity.name, name)) return name === 'afterChange' ? {} : input.data;
  return runWriteHooks(
    modules,
    name,
    { isImport: false, changes: new Set(), ...input, entity: entity.name },
    hookServices(request, trx),
  );
}

/** The records to answer, through the entity's afterRead hooks. */
export async function readHook<T extends Row>(request: CrudRequest, rows: T[]): Promise<T[]> {
  const { entity, modules, actor } = request;
  if (!modules.has(entity.name, 'afterRead')) return rows;
  const shown: T[] = [];
  for (const row of rows)
    shown.push(
      (await runAfterRead(modules, {
        entity: entity.name,
        actor,
        tenant: actor.tenantCode,
        data: row,
      })) as T,
    );
  return shown;
}
