import type { Feature } from '../../lib/feature.js';
import { monitoring } from './monitoring-hook.js';
import { monitorRoutes } from './routes.js';
import { monitorTableSpecs } from './tables.js';

/** Metrics, request logs, slow statements, audit trail, flow control and configuration pages. */
export const monitorFeature: Feature = {
  name: 'monitor',
  tables: monitorTableSpecs,
  hooks: monitoring,
  routes: monitorRoutes,
};
