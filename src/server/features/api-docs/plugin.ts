import type { Feature } from '../../lib/feature.js';
import { docsRoutes } from './routes.js';

/** The OpenAPI document and its reference page. */
export const apiDocsFeature: Feature = { name: 'api-docs', routes: docsRoutes };
