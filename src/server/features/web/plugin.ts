import type { Feature } from '../../lib/feature.js';
import { webRoutes } from './routes.js';

/** The back-office and portal pages themselves (the built front-ends), with their first data. */
export const webFeature: Feature = { name: 'web', routes: webRoutes };
