import { useList, useMany, type BaseRecord } from '@refinedev/core';
import { useEffect, useMemo, useState } from 'react';
import type { EntityDef } from '../../engine/index.js';
import { useT } from '../i18n.js';
import { useApiGet, useTree } from '../lib/api.js';
import { useResources } from './resources.js';

export interface Option {
  value: string | number;
  label: string;
}

interface DictItem {
  dictValue?: string | number | null;
  dictName?: string | null;
}

/**
 * The options of a dictionary (GET …/sysdict/queryDictByDictType): the seeded ones translated
 * (dicts.<type>.<value>), the ones admins added by their own name.
 */
export function useDictOptions(dict: string | undefined): Option[] {
  const t = useT();
  const base = useResources()?.get('sysdict')?.base ?? 'admin/sysdict';
  const { data } = useApiGet<DictItem[]>(
    `/api/${base}/queryDictByDictType`,
    { dictType: dict ?? '' },
    dict !== undefined,
  );
  return useMemo(
    () =>
      (data ?? [])
        .filter((item) => item.dictValue !== null && item.dictValue !== undefined)
        .map((item) => {
          const value = item.dictValue as string | number;
          const name = item.dictName ?? String(value);
          return { value, label: t(`dicts.${dict ?? ''}.${String(value)}`, { defaultValue: name }) };
        }),
    [data, dict, t],
  );
}

function optionOf(entity: EntityDef, record: BaseRecord): Option {
  const value = record[entity.key.name] as string | number;
  const label = record[entity.label];
  return { value, label: label === null || label === undefined ? String(value) : String(label) };
}

/** Options of a reference select: the first 20 records whose label contains the search text. */
export function useRefOptions(ref: string, search: string, selected: readonly unknown[]): Option[] {
  const target = useResources()?.get(ref)?.entity;
  const found = useList({
    resource: ref,
    pagination: { currentPage: 1, pageSize: 20 },
    filters: target && search ? [{ field: target.label, operator: 'contains', value: search }] : [],
    queryOptions: { enabled: target !== undefined },
  });
  const chosen = useMany({
    resource: ref,
    ids: selected.filter((id) => id !== null && id !== undefined).map(String),
    queryOptions: { enabled: target !== undefined && selected.length > 0 },
  });
  return useMemo(() => {
    if (!target) return [];
    const options = new Map<string, Option>();
    for (const record of [...(chosen.result.data ?? []), ...(found.result.data ?? [])]) {
      const option = optionOf(target, record);
      options.set(String(option.value), option);
    }
    return [...options.values()];
  }, [chosen.result.data, found.result.data, target]);
}

export interface TreeOption {
  value: string | number;
  title: string;
  children?: TreeOption[];
}

/** The tree of a tree entity (GET …/querySys<Name>Tree) as TreeSelect options. */
export function useTreeOptions(ref: string): TreeOption[] {
  const resource = useResources()?.get(ref);
  const target = resource?.entity;
  const { data } = useTree<BaseRecord>(ref, resource?.treeEndpoint !== undefined);
  return useMemo(() => {
    if (!target) return [];
    const convert = (nodes: readonly BaseRecord[]): TreeOption[] =>
      nodes.map((node) => {
        const { value, label } = optionOf(target, node);
        const children = Array.isArray(node.children) ? (node.children as BaseRecord[]) : [];
        return { value, title: label, ...(children.length > 0 ? { children: convert(children) } : {}) };
      });
    return convert(data ?? []);
  }, [data, target]);
}

/** antd selects compare option values with the field's value: both as strings. */
export function stringOptions(options: readonly Option[]): { value: string; label: string }[] {
  return options.map((option) => ({ value: String(option.value), label: option.label }));
}

/** What the user typed into a searchable select, handed on once they pause (one request, not one per key). */
export function useDebouncedSearch(delayMs = 300): [search: string, type: (text: string) => void] {
  const [typed, setTyped] = useState('');
  const [search, setSearch] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setSearch(typed), delayMs);
    return () => clearTimeout(timer);
  }, [typed, delayMs]);
  return [search, setTyped];
}
