import { useCustom } from '@refinedev/core';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';

/** Open tasks of the caller for the badges of the sidebar and the workbench. */
export interface OpenCounts {
  personal: number;
  candidate: number;
}

const COUNTS_URL = '/api/activiti/task/countOpen';
const REFRESH_MS = 60_000;

export function useOpenTaskCounts(enabled: boolean): OpenCounts | undefined {
  const { query } = useCustom<OpenCounts>({
    url: COUNTS_URL,
    method: 'get',
    // a badge that cannot be read stays away quietly
    meta: { silent: true },
    queryOptions: { enabled, retry: false, refetchInterval: REFRESH_MS },
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

/** The menu paths that carry a badge (badgeOf). */
export const BADGE_PATHS: ReadonlySet<string> = new Set(['/assigneetask', '/candidatetask', '/oa']);

/** Which badge a menu path carries. */
export function badgeOf(path: string, counts: OpenCounts | undefined): number {
  if (!counts) return 0;
  if (path === '/assigneetask') return counts.personal;
  if (path === '/candidatetask') return counts.candidate;
  if (path === '/oa') return counts.personal + counts.candidate;
  return 0;
}
