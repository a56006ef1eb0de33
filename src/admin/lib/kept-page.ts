import { createContext, useContext, useEffect, useRef } from 'react';

/**
 * Whether a page kept alive by the tags view (layout/KeepAliveOutlet.tsx) is the one shown: a
 * page that is not kept is always shown. Lists read again when their page shows again, so what
 * was done elsewhere meanwhile (a task completed, a process deployed) is never shown stale.
 */
export const KeptPageShown = createContext(true);

/** Calls `onReturn` each time the page shows again after another page was shown. */
export function useOnReturn(onReturn: () => void): void {
  const isShown = useContext(KeptPageShown);
  const wasShown = useRef(isShown);
  const latest = useRef(onReturn);
  latest.current = onReturn;
  useEffect(() => {
    if (isShown && !wasShown.current) latest.current();
    wasShown.current = isShown;
  }, [isShown]);
}
