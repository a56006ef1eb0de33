import { useDataProvider, type BaseRecord } from '@refinedev/core';
import { useCallback, useEffect, useMemo, useRef, useState, type Key } from 'react';
import { useTree } from '../lib/api.js';
import { useResources } from './resources.js';

/**
 * Trees at scale in the back-office. A tree endpoint answers a large tree one level at a time
 * (its top level, then the children of a node by parentId, each node with hasChildren; see the
 * server's features/crud/services/tree.ts); a small tree still comes whole and passes through unchanged.
 * The tree list expands such a node by loading its children; a tree select loads them through
 * antd's loadData.
 */

type DataProvider = ReturnType<ReturnType<typeof useDataProvider>>;

/** A node answered without its children, which are loaded on demand. */
export const isUnloaded = (record: BaseRecord): boolean =>
  record.hasChildren === true && !Array.isArray(record.children);

/** The children of one node (GET …/querySys<Name>Tree?parentId=…), through the data provider. */
async function readLevel(provider: DataProvider, resource: string, parentId: string): Promise<BaseRecord[]> {
  const answer = await provider.getList({
    resource,
    meta: { tree: true },
    filters: [{ field: 'parentId', operator: 'eq', value: parentId }],
  });
  return answer.data;
}

/**
 * The tree with the levels loaded so far in place: a loaded node gets its children, a node that
 * has children not yet loaded gets none ([]), which makes the table show its expand button.
 */
export function withLevels(
  nodes: readonly BaseRecord[],
  levels: ReadonlyMap<string, BaseRecord[]>,
  keyName: string,
): BaseRecord[] {
  return nodes.map((node) => {
    if (!isUnloaded(node)) return node;
    const children = levels.get(String(node[keyName]));
    return { ...node, children: children ? withLevels(children, levels, keyName) : [] };
  });
}

interface Levels {
  levels: ReadonlyMap<string, BaseRecord[]>;
  /** Loads the children of a node once (a node being loaded or loaded is not asked for again). */
  load: (key: string) => Promise<void>;
}

/** Levels loaded below the top, forgotten when the top level is read again (refresh, a write). */
function useLevels(resource: string, top: readonly BaseRecord[] | undefined): Levels {
  const dataProvider = useDataProvider();
  const [levels, setLevels] = useState<ReadonlyMap<string, BaseRecord[]>>(new Map());
  const asked = useRef(new Set<string>());
  useEffect(() => {
    asked.current = new Set();
    setLevels(new Map());
  }, [top]);
  const load = useCallback(
    async (key: string): Promise<void> => {
      if (asked.current.has(key)) return;
      asked.current.add(key);
      const asking = asked.current;
      try {
        const children = await readLevel(dataProvider(), resource, key);
        // A level read for a top level that has been replaced since is dropped.
        if (asked.current === asking) setLevels((loaded) => new Map(loaded).set(key, children));
      } catch (error) {
        asking.delete(key);
        throw error;
      }
    },
    [dataProvider, resource],
  );
  return { levels, load };
}

/**
 * The rows of a tree list: the tree as answered, with the children of every expanded node that
 * came without them loaded (expanded by a click, or remembered from earlier in the session).
 */
export function useLazyTreeRows(
  resource: string,
  keyName: string,
  top: readonly BaseRecord[] | undefined,
  expandedKeys: readonly Key[],
): BaseRecord[] {
  const { levels, load } = useLevels(resource, top);
  const rows = useMemo(() => withLevels(top ?? [], levels, keyName), [top, levels, keyName]);
  useEffect(() => {
    const expanded = new Set(expandedKeys.map(String));
    const visit = (nodes: readonly BaseRecord[]): void => {
      for (const node of nodes) {
        const key = String(node[keyName]);
        if (!expanded.has(key)) continue;
        if (node.hasChildren === true && !levels.has(key)) void load(key).catch(() => undefined);
        if (Array.isArray(node.children)) visit(node.children as BaseRecord[]);
      }
    };
    visit(rows);
  }, [rows, expandedKeys, levels, load, keyName]);
  return rows;
}

/**
 * A TreeSelect option of a tree answered by levels: isLeaf false while its children are not
 * loaded (antd calls loadData on expand), true when it has none (no expand button, no request).
 */
export interface LazyTreeOption {
  value: string | number;
  title: string;
  isLeaf?: boolean;
  children?: LazyTreeOption[];
}

/**
 * The options of a tree select over a tree entity: the whole tree when it is small, otherwise
 * its top level with each node's children loaded when the node is expanded (loadData).
 */
export function useLazyTreeOptions(ref: string): {
  options: LazyTreeOption[];
  /** Only for a tree answered by levels: with it, antd would take every childless node for unloaded. */
  loadData: ((node: { value?: unknown }) => Promise<void>) | undefined;
} {
  const resource = useResources()?.get(ref);
  const target = resource?.entity;
  const { data } = useTree<BaseRecord>(ref, resource?.treeEndpoint !== undefined);
  const { levels, load } = useLevels(ref, data);
  const options = useMemo(() => {
    if (!target) return [];
    const convert = (nodes: readonly BaseRecord[]): LazyTreeOption[] =>
      nodes.map((node) => {
        const value = node[target.key.name] as string | number;
        const label = node[target.label];
        const title = label === null || label === undefined ? String(value) : String(label);
        const loaded = isUnloaded(node) ? levels.get(String(value)) : (node.children as BaseRecord[]);
        if (isUnloaded(node) && !loaded) return { value, title, isLeaf: false };
        const children = Array.isArray(loaded) ? loaded : [];
        if (children.length > 0) return { value, title, children: convert(children) };
        return node.hasChildren === undefined ? { value, title } : { value, title, isLeaf: true };
      });
    return convert(data ?? []);
  }, [data, levels, target]);
  const loadData = useCallback(
    (node: { value?: unknown }): Promise<void> =>
      node.value === undefined || node.value === null ? Promise.resolve() : load(String(node.value)),
    [load],
  );
  const isByLevels = (data ?? []).some((node) => node.hasChildren !== undefined);
  return { options, loadData: isByLevels ? loadData : undefined };
}
