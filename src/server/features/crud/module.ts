import type { AppContext } from '../../lib/context.js';
import { defineModule, type ModuleDefinition } from '../../lib/modules/index.js';
import { purgeExpiredRecords } from './services/recycle.js';

/** How often records past their tenant's recycleBinDays are purged (also when a bin is listed). */
export const PURGE_EVERY_SECONDS = 60 * 60;

/**
 * The recycle bins' housekeeping, a job on the module API (docs/extending.md "Jobs"): every hour,
 * in one server process, what has been in a bin longer than its tenant's recycleBinDays is purged.
 */
export function recycleBinModule(registry: AppContext['registry']): ModuleDefinition {
  return defineModule({
    name: 'recycle-bin',
    jobs: [
      {
        name: 'purge',
        everySeconds: PURGE_EVERY_SECONDS,
        run: async ({ db, now, log }) => {
          const purged = await purgeExpiredRecords({ db, registry, now });
          if (purged > 0) log.info({ purged }, 'recycle bins purged');
        },
      },
    ],
  });
}
