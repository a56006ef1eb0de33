import type { Feature } from '../../lib/feature.js';
import { syncGeneratorDicts } from './dicts.js';
import { generatorRoutes } from './routes.js';
import { generatorTableSpecs } from './tables.js';

/** The code generator: modules from entities (forward), entities from tables (reverse, adopt). */
export const generatorFeature: Feature = {
  name: 'generator',
  tables: () => generatorTableSpecs(),
  start: syncGeneratorDicts,
  routes: generatorRoutes,
};
