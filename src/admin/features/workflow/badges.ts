import { useCustom, useSubscription } from '@refinedev/core';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef } from 'react';
import type { WfOpenCounts } from '../../../engine/api-types.js';
import { TASKS_CHANNEL } from '../../providers/live.js';

/** Open tasks of the caller for the badges of the sidebar and the workbench. */
export type OpenCounts = WfOpenCounts;

const COUNTS_URL = '/api/activiti/task/countOpen';

export function useOpenTaskCounts(enabled: boolean): OpenCounts | undefined {
  const { query } = useCustom<OpenCounts>({
    url: COUNTS_URL,
    method: 'get',
    // a badge that cannot be read stays away quietly
    meta: { silent: true },
    queryOptions: { enabled, retry: false },
  });
  // No polling: a task of the caller created, assigned or completed (on any server process)
  // arrives on the live provider's tasks channel, and the badge counts again.
  const recount = useRecountTasks();
  const latest = useRef(recount);
  latest.current = recount;
  useSubscription({
    channel: TASKS_CHANNEL,
    types: ['updated', 'reset'],
    enabled,
    onLiveEvent: () => latest.current(),
  });
  return enabled ? query.data?.data : undefined;
}

/** After a task action: the badges count again. */
export function useRecountTasks(): () => void {
  const client = useQueryClient();
  return useCallback(
    () =>
      void client.invalidateQueries({
        predicate: (query) => JSON.stringify(query.queryKey).includes(COUNTS_URL),
      }),
    [client],
  );
}

/** The count each badged menu path shows: the personal office's open tasks. */
const BADGES: ReadonlyMap<string, (counts: OpenCounts) => number> = new Map([
  ['/assigneetask', (counts: OpenCounts) => counts.personal],
  ['/candidatetask', (counts: OpenCounts) => counts.candidate],
  ['/oa', (counts: OpenCounts) => counts.personal + counts.candidate],
]);

/** The menu paths that carry a badge. */
export const BADGE_PATHS: ReadonlySet<string> = new Set(BADGES.keys());

/** Which badge a menu path carries. */
export function badgeOf(path: string, counts: OpenCounts | undefined): number {
  const count = BADGES.get(path);
  return counts && count ? count(counts) : 0;
}
