import { lazy } from 'react';
import { defineAdminModule } from '../../lib/modules.js';

/** OpenID Connect providers of the tenant (系统管理 › 单点登录). */
export default defineAdminModule({
  pages: { 'admin/sysoidc': lazy(() => import('./OidcProviders.js')) },
});
