import type { Feature } from '../../lib/feature.js';
import { rbacHook } from './permission-hook.js';
import { rbacRoutes } from './routes/index.js';
import { rbacTableSpecs } from './tables.js';

/** Roles and what they are granted (URLs, menus, buttons, data fields), posts, the org-user tree. */
export const rbacFeature: Feature = {
  name: 'rbac',
  tables: rbacTableSpecs,
  hooks: rbacHook,
  routes: rbacRoutes,
};
