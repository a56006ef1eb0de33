import { useDataProvider } from '@refinedev/core';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ImportJob } from '../../engine/api-types.js';

/** How often the import dialog asks for a running job's progress. */
const POLL_MS = 1_000;

/**
 * The jobs seen running whose end no dialog has shown yet (kept for the browser tab): a dialog
 * left during an import and reopened after it ended shows the result, not only a summary line.
 */
const UNSEEN_KEY = 'ecobid.import.unseenEnds';

function unseenEnds(): Set<number> {
  try {
    const stored: unknown = JSON.parse(sessionStorage.getItem(UNSEEN_KEY) ?? '[]');
    return new Set(Array.isArray(stored) ? stored.filter((id): id is number => typeof id === 'number') : []);
  } catch {
    return new Set();
  }
}

function markUnseen(id: number, unseen: boolean): void {
  const ids = unseenEnds();
  if (unseen) ids.add(id);
  else ids.delete(id);
  try {
    sessionStorage.setItem(UNSEEN_KEY, JSON.stringify([...ids].slice(-20)));
  } catch {
    // storage refused (private mode): the dialog shows the summary line instead
  }
}

/**
 * The caller's import job of one entity, followed while it runs: `follow(job)` starts polling it
 * (GET /api/import/job), and on opening, the latest job of the entity (GET /api/import/jobs) is
 * picked up, running or ended, so that a dialog closed during an import shows it when reopened.
 * `endUnseen` says that the job ended while no dialog showed it: its result is still news.
 */
export function useImportJob(entityName: string | undefined): {
  job: ImportJob | undefined;
  loaded: boolean;
  endUnseen: boolean;
  follow: (job: ImportJob) => void;
  forget: () => void;
} {
  const dataProvider = useDataProvider();
  const [job, setJob] = useState<ImportJob | undefined>();
  const [loaded, setLoaded] = useState(false);
  const [endUnseen, setEndUnseen] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const alive = useRef(true);

  const get = useCallback(
    async <T>(url: string): Promise<T> => {
      const call = dataProvider().custom;
      if (!call) throw new Error('The data provider has no custom method');
      const answer = await call({ url, method: 'get', meta: { silent: true } });
      return answer.data as unknown as T;
    },
    [dataProvider],
  );

  const poll = useCallback(
    (id: number): void => {
      clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        void get<ImportJob>(`/api/import/job?id=${id}`)
          .then((next) => {
            if (!alive.current) return;
            setJob(next);
            if (next.status === 'running') poll(id);
            else markUnseen(id, false);
          })
          .catch(() => {
            if (alive.current) poll(id);
          });
      }, POLL_MS);
    },
    [get],
  );

  useEffect(() => {
    alive.current = true;
    void get<ImportJob[]>('/api/import/jobs')
      .then((jobs) => {
        if (!alive.current) return;
        const latest = jobs.find((item) => item.entity === entityName);
        if (latest) {
          setJob(latest);
          if (latest.status === 'running') {
            markUnseen(latest.id, true);
            poll(latest.id);
          } else if (unseenEnds().has(latest.id)) {
            setEndUnseen(true);
            markUnseen(latest.id, false);
          }
        }
      })
      .catch(() => undefined)
      .finally(() => {
        if (alive.current) setLoaded(true);
      });
    return () => {
      alive.current = false;
      clearTimeout(timer.current);
    };
  }, [entityName, get, poll]);

  const follow = useCallback(
    (next: ImportJob): void => {
      setJob(next);
      if (next.status === 'running') {
        markUnseen(next.id, true);
        poll(next.id);
      }
    },
    [poll],
  );
  const forget = useCallback((): void => {
    clearTimeout(timer.current);
    setJob(undefined);
    setEndUnseen(false);
  }, []);
  return { job, loaded, endUnseen, follow, forget };
}
