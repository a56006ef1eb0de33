import type { FastifyInstance } from 'fastify';
import type { Feature } from '../../lib/feature.js';
import { dictRoutes } from './routes/dictionaries.js';
import { crudRoutes } from './routes/records.js';
import { recycleRoutes } from './routes/recycle.js';

/**
 * The generated API of every entity of schemas/ (query, add, update, delete, export, tree,
 * import), the recycle bins and version restores, and the dictionary lookups. What an entity
 * does beyond its schema comes from the modules' hooks (lib/modules), which the services run.
 */
export const crudFeature: Feature = {
  name: 'crud',
  routes: async (app: FastifyInstance) => {
    await app.register(crudRoutes);
    await app.register(dictRoutes);
    await app.register(recycleRoutes);
  },
};
