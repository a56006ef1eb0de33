import { lazy } from 'react';
import { defineAdminModule } from '../../lib/modules.js';

/** The file manager and the netdisc. */
export default defineAdminModule({
  pages: {
    'file/upload-download': lazy(() => import('./FileManager.js')),
    'file/netdisc': lazy(() => import('./Netdisc.js')),
  },
});
