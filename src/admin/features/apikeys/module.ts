import { lazy } from 'react';
import { defineAdminModule } from '../../lib/modules.js';

/** API keys for integrations (系统管理 › API 密钥). */
export default defineAdminModule({
  pages: { 'admin/sysapikey': lazy(() => import('./ApiKeys.js')) },
});
