import type { FastifyInstance } from 'fastify';
import type { Feature } from '../../lib/feature.js';
import { crudRequestOf } from '../crud/index.js';
import { syncFormMenus } from './menus.js';
import { formRoutes } from './routes/designer.js';
import { formPreviewRoutes } from './routes/preview.js';
import { onlineImportRoutes } from './routes/published-import.js';
import { onlineRecycleRoutes } from './routes/published-recycle.js';
import { onlineEntityRoutes } from './routes/published.js';
import { formTableSpecs } from './tables.js';

async function formsRoutes(app: FastifyInstance): Promise<void> {
  await app.register(formRoutes);
  await app.register(formPreviewRoutes);
  await app.register(async (published) => {
    // A published form's API takes JSON bodies only, like every entity's (features/crud/routes/records.ts).
    published.removeContentTypeParser(['text/plain', 'application/x-www-form-urlencoded']);
    const crudRequest = crudRequestOf(published.ctx);
    // One route set under /api/online/:form resolves the form's entity per request.
    onlineEntityRoutes(published, crudRequest);
    onlineRecycleRoutes(published, crudRequest);
    await published.register(onlineImportRoutes, { crudRequest });
  });
}

/** The form designer, published forms (an entity each, under /api/online/<form>) and their menus. */
export const formsFeature: Feature = {
  name: 'forms',
  tables: () => formTableSpecs(),
  start: syncFormMenus,
  routes: formsRoutes,
};
