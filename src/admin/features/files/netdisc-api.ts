import { useMemo } from 'react';
import type {
  FolderNode,
  NetdiscFolder,
  NetdiscItemRef,
  NetdiscTargetType,
  ShareTarget,
} from '../../../engine/api-types.js';
import { useApiWrite, withQuery } from '../../lib/api.js';

/** The netdisc's base path; the reads go through useApiGet with these urls. */
export const NETDISC_API = '/api/file/netdisc';

const SILENT = { silent: true };

export interface NetdiscWrites {
  createFolder(name: string, parentId: number | null): Promise<NetdiscFolder>;
  rename(item: NetdiscItemRef, name: string): Promise<unknown>;
  move(items: NetdiscItemRef[], targetFolderId: number | null): Promise<{ moved: number }>;
  trash(items: NetdiscItemRef[]): Promise<{ deleted: number }>;
  restore(items: NetdiscItemRef[]): Promise<{ restored: number }>;
  purge(items: NetdiscItemRef[]): Promise<{ purged: number }>;
  share(item: NetdiscItemRef, targets: { type: NetdiscTargetType; id: number }[]): Promise<ShareTarget[]>;
  isSending: boolean;
}

/** The netdisc's writes through the data provider (the back-office reaches the API only so). */
export function useNetdiscWrites(): NetdiscWrites {
  const { send, isSending } = useApiWrite();
  return useMemo(
    () => ({
      // Every caller shows a failure itself (under a dialog's field, or useSubmit's message).
      createFolder: (name, parentId) =>
        send<NetdiscFolder>('post', `${NETDISC_API}/folder/create`, { name, parentId }, SILENT),
      rename: (item, name) => send('post', `${NETDISC_API}/rename`, { ...item, name }, SILENT),
      move: (items, targetFolderId) => send('post', `${NETDISC_API}/move`, { items, targetFolderId }, SILENT),
      trash: (items) => send('post', `${NETDISC_API}/delete`, { items }, SILENT),
      restore: (items) => send('post', `${NETDISC_API}/restore`, { items }, SILENT),
      purge: (items) => send('post', `${NETDISC_API}/purge`, { items }, SILENT),
      share: (item, targets) => send('post', `${NETDISC_API}/share`, { ...item, targets }, SILENT),
      isSending,
    }),
    [send, isSending],
  );
}

/** The url of a folder's listing (null: the caller's root). */
export function listUrl(folderId: number | null): string {
  return withQuery(`${NETDISC_API}/list`, { folderId: folderId ?? undefined });
}

/** Ids of a folder and every folder below it (a folder cannot move into these). */
export function subtreeIds(nodes: readonly FolderNode[], id: number): Set<number> {
  const found = new Set<number>();
  const walk = (list: readonly FolderNode[], isInside: boolean): void => {
    for (const node of list) {
      const isHere = isInside || node.id === id;
      if (isHere) found.add(node.id);
      walk(node.children, isHere);
    }
  };
  walk(nodes, false);
  return found;
}

/** The key of an item in lists and drag data: "folder:3", "file:12". */
export function itemKey(item: NetdiscItemRef): string {
  return `${item.type}:${item.id}`;
}

export function itemOfKey(key: string): NetdiscItemRef | undefined {
  const match = /^(file|folder):(\d+)$/.exec(key);
  return match ? { type: match[1] as NetdiscItemRef['type'], id: Number(match[2]) } : undefined;
}

/** The MIME type of dragged netdisc items (their keys, comma separated). */
export const DRAG_TYPE = 'application/x-ecobid-netdisc';

export { formatBytes } from '../../../web/format.js';
