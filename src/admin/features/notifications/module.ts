import { lazy } from 'react';
import { defineAdminModule } from '../../lib/modules.js';

export default defineAdminModule({
  pages: { mynotification: lazy(() => import('./MyNotification.js')) },
});
