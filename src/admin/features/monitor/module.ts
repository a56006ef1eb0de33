import { lazy } from 'react';
import { defineAdminModule } from '../../lib/modules.js';

/** The monitor pages; the audit trail is also the constant route /monitor/audit. */
export default defineAdminModule({
  pages: {
    'monitor/metrics': lazy(() => import('./MetricsDashboard.js')),
    'monitor/database': lazy(() => import('./DatabaseMonitor.js')),
    'monitor/flowcontrol': lazy(() => import('./FlowControl.js')),
    'monitor/configcenter': lazy(() => import('./ConfigCenter.js')),
    'monitor/apidoc': lazy(() => import('./ApiDoc.js')),
    'monitor/audit': lazy(() => import('./AuditTrail.js')),
    'distributedlog/elk': lazy(() => import('./LogSearch.js')),
  },
});
