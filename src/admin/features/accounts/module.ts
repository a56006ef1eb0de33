import { lazy } from 'react';
import { defineAdminModule } from '../../lib/modules.js';

/** The user's own profile (constant route /profile/index). */
export default defineAdminModule({
  pages: { profile: lazy(() => import('./Profile.js')) },
});
