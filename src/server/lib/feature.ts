import type { FastifyPluginAsync } from 'fastify';
import type { TableSpec } from '../../engine/index.js';
import type { AppContext } from './context.js';
import type { DatabaseHandle } from './db/database.js';
import type { I18n } from './i18n.js';
import type { EntityRegistry } from './registry.js';

/**
 * What a feature (src/server/features/<name>/plugin.ts) gives the app: buildApp creates its
 * tables, runs its start-up step and mounts its hooks and routes, feature by feature in the
 * order of app.ts. Every part is optional; a feature reaches another only through that
 * feature's index.ts (docs/architecture.md).
 */
/** What buildApp hands every feature's hooks beyond the app's context. */
export interface FeatureHookOptions {
  /** The open database itself (its query observer and pool figures, for monitoring). */
  database: DatabaseHandle;
}

export interface Feature {
  name: string;
  /** Tables beyond the entities' own, in the order they are created (after every entity table). */
  tables?: (registry: EntityRegistry) => TableSpec[];
  /** Brings its data in line after the tables (seed rows, menus, dictionaries, triggers); idempotent. */
  start?: (ctx: AppContext, i18n: I18n) => Promise<void>;
  /**
   * Request hooks for the whole app (wrapped with fastify-plugin), mounted before any route in
   * the features' order: monitoring first, then authentication, then the permission check.
   */
  hooks?: FastifyPluginAsync<FeatureHookOptions>;
  /** The feature's routes and background jobs, encapsulated. */
  routes?: FastifyPluginAsync<FeatureHookOptions>;
}
