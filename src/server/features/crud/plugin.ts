import type { FastifyInstance } from 'fastify';
import type { Feature } from '../../lib/feature.js';
import { dictRoutes } from './routes/dictionaries.js';
import { crudRoutes, type CrudRoutesOptions } from './routes/records.js';
import { recycleRoutes } from './routes/recycle.js';

/**
 * The generated API of every entity of schemas/ (query, add, update, delete, export, tree,
 * import), the recycle bins and version restores, and the dictionary lookups. `afterAdd` adds work to an entity's add (app.ts: a new
 * tenant is provisioned in the add's transaction).
 */
export function crudFeature(options: CrudRoutesOptions): Feature {
  return {
    name: 'crud',
    routes: async (app: FastifyInstance) => {
      await app.register(crudRoutes, options);
      await app.register(dictRoutes);
      await app.register(recycleRoutes);
    },
  };
}
