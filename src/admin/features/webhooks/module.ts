import { lazy } from 'react';
import { defineAdminModule } from '../../lib/modules.js';

/** Webhooks of the tenant (系统管理 › Webhook). */
export default defineAdminModule({
  pages: { 'admin/syswebhook': lazy(() => import('./Webhooks.js')) },
});
