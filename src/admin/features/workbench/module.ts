import { lazy } from 'react';
import { defineAdminModule } from '../../lib/modules.js';

/** The workbench (docs/product.md §2.3 constant route /workbench). */
export default defineAdminModule({
  pages: { workbench: lazy(() => import('./Workbench.js')) },
});
