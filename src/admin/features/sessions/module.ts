import { lazy } from 'react';
import { defineAdminModule } from '../../lib/modules.js';

export default defineAdminModule({
  pages: { 'admin/onlinesysuser': lazy(() => import('./OnlineUsers.js')) },
});
