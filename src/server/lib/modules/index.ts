/**
 * What a module's server part imports (docs/extending.md):
 *   import { defineModule, FieldRefusal } from '<path to>/src/server/lib/modules/index.js';
 */
export {
  defineModule,
  FieldRefusal,
  isFieldRefusal,
  type EndpointArgs,
  type EndpointDef,
  type EndpointMethod,
  type EntityHooks,
  type EntityModule,
  type EntityService,
  type EventSubscription,
  type HookArgs,
  type JobArgs,
  type JsonSchema,
  type ModuleActor,
  type ModuleDefinition,
  type ModuleJob,
  type ModuleMenu,
  type ModuleServices,
  type Operation,
  type ReadArgs,
  type RecordPage,
  type Refusal,
  type Row,
} from './define.js';
export { EVENT_TYPES, type EventType, type OutboxEvent } from '../events/types.js';
export { discoverModules, moduleFiles, type DiscoveredModule } from './load.js';
export {
  ModuleSet,
  readParam,
  refusalsAsInputErrors,
  runAfterRead,
  runWriteHooks,
  servicesFor,
  type ModuleEndpoint,
  type SharedServices,
  type WriteHookInput,
} from './hooks.js';
