import type { AdminModule } from '../lib/modules.js';
import { GENERATED_PAGES } from '../lib/generated-pages.js';
import accounts from './accounts/module.js';
import apikeys from './apikeys/module.js';
import demo from './demo/module.js';
import files from './files/module.js';
import forms from './forms/module.js';
import generator from './generator/module.js';
import monitor from './monitor/module.js';
import notifications from './notifications/module.js';
import oidc from './oidc/module.js';
import rbac from './rbac/module.js';
import sessions from './sessions/module.js';
import webhooks from './webhooks/module.js';
import workbench from './workbench/module.js';
import workflow from './workflow/module.js';

/**
 * The framework's own admin modules, registered before the project's (src/modules/<name>/admin.tsx):
 * the menu pages and record actions the back-office ships with. Each names its screens lazily, so
 * this list adds no screen to the first load.
 */
export const FRAMEWORK_MODULES: Readonly<Record<string, AdminModule>> = {
  'ecobid:workbench': workbench,
  'ecobid:accounts': accounts,
  'ecobid:rbac': rbac,
  'ecobid:sessions': sessions,
  'ecobid:apikeys': apikeys,
  'ecobid:webhooks': webhooks,
  'ecobid:oidc': oidc,
  'ecobid:notifications': notifications,
  'ecobid:files': files,
  'ecobid:forms': forms,
  'ecobid:workflow': workflow,
  'ecobid:generator': generator,
  'ecobid:monitor': monitor,
  'ecobid:demo': demo,
  // A generated module's list (src/modules/<package>/<entity>/), mounted by its menu.sql's component.
  'ecobid:generated': { pages: GENERATED_PAGES },
};
