import { useSubscription, type LiveEvent } from '@refinedev/core';
import { useCallback, useRef, useState } from 'react';
import { resourceChannel } from '../providers/live.js';

/** What others changed in an entity since the list was last loaded. */
export interface LiveChanges {
  /** Records added by someone else. */
  added: number;
  /** Records changed or deleted by someone else. */
  changed: number;
  /** The stream could not replay everything missed: the list may be out of date. */
  isStale: boolean;
  /** The list was loaded again: nothing new since. */
  clear: () => void;
}

/**
 * Counts the records of an entity others add or change while a list shows it (the live provider's
 * `resources/<entity>` channel), for its "N 条新记录，刷新" notice. One's own saves are not counted:
 * the screen that made them reloads anyway.
 */
export function useLiveChanges(entity: string): LiveChanges {
  const [added, setAdded] = useState<ReadonlySet<string>>(new Set());
  const [changed, setChanged] = useState<ReadonlySet<string>>(new Set());
  const [isStale, setStale] = useState(false);
  const onEvent = useRef<(event: LiveEvent) => void>(() => undefined);
  onEvent.current = (event: LiveEvent) => {
    if (event.type === 'reset') {
      setStale(true);
      return;
    }
    if (event.payload.isMine === true) return;
    const keys = (event.payload.ids ?? []).map(String);
    if (event.type === 'created') setAdded((before) => new Set([...before, ...keys]));
    else setChanged((before) => new Set([...before, ...keys]));
  };
  useSubscription({
    channel: resourceChannel(entity),
    types: ['created', 'updated', 'deleted', 'reset'],
    onLiveEvent: (event) => onEvent.current(event),
  });
  const clear = useCallback(() => {
    setAdded(new Set());
    setChanged(new Set());
    setStale(false);
  }, []);
  // A record added and then changed by others counts once, as added.
  const changedOnly = [...changed].filter((key) => !added.has(key)).length;
  return { added: added.size, changed: changedOnly, isStale, clear };
}

/**
 * Calls `onSaved` when someone else saves (or deletes) the record `key` of `entity` after the
 * version the form loaded: the edit form's 编辑期间他人已保存 warning.
 */
export function useSavedByOther(
  entity: string,
  key: string | undefined,
  version: number | undefined,
  onSaved: (kind: 'updated' | 'deleted') => void,
): void {
  // Refine subscribes once (while enabled): what the callback reads is kept current here.
  const latest = useRef({ key, version, onSaved });
  latest.current = { key, version, onSaved };
  useSubscription({
    channel: resourceChannel(entity),
    types: ['updated', 'deleted'],
    enabled: key !== undefined,
    onLiveEvent: (event) => {
      const current = latest.current;
      if (event.payload.isMine === true || current.key === undefined) return;
      if (!(event.payload.ids ?? []).map(String).includes(current.key)) return;
      const saved = event.payload.version as number | null | undefined;
      if (
        event.type === 'updated' &&
        current.version !== undefined &&
        typeof saved === 'number' &&
        saved <= current.version
      )
        return;
      current.onSaved(event.type === 'deleted' ? 'deleted' : 'updated');
    },
  });
}
