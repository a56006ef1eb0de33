import type { Feature } from '../../lib/feature.js';
import { portalRoutes } from './routes/index.js';

/** The public portal's reads and the portal users' own calls. */
export const portalFeature: Feature = { name: 'portal', routes: portalRoutes };
