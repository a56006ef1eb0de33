import type { Feature } from '../../lib/feature.js';
import { notificationRoutes } from './routes.js';
import { notificationTableSpecs } from './tables.js';

/** The notification inbox: what a user received and read. */
export const notificationsFeature: Feature = {
  name: 'notifications',
  tables: notificationTableSpecs,
  routes: notificationRoutes,
};
