import { useDataProvider, type BaseRecord } from '@refinedev/core';
import { useQueries } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { ListColumn } from '../../engine/index.js';
import { useT, type Translate } from '../i18n.js';
import type { ResourceApi } from '../providers/resources.js';
import type { LabelLookup } from './labels.js';
import { takeWarmDict, takeWarmRefs } from '../providers/warm.js';
import { useResources } from './resources.js';

/** At most this many ids are asked for by key; above it the target is read whole (roles, orgs). */
const MAX_IDS = 200;

type Labels = Map<string, string>;
type DataProvider = ReturnType<ReturnType<typeof useDataProvider>>;

interface DictItem {
  dictValue?: unknown;
  dictName?: string | null;
}

async function dictLabels(
  provider: DataProvider,
  sysdict: ResourceApi | undefined,
  dict: string,
  t: Translate,
): Promise<Labels> {
  const answer = await provider.custom?.({
    url: `/api/${sysdict?.base ?? 'admin/sysdict'}/queryDictByDictType`,
    method: 'get',
    query: { dictType: dict },
  });
  return dictItemLabels(answer?.data, dict, t);
}

function dictItemLabels(data: unknown, dict: string, t: Translate): Labels {
  const items = (Array.isArray(data) ? data : []) as DictItem[];
  return new Map(
    items.map((item) => {
      const value = String(item.dictValue);
      return [value, t(`dicts.${dict}.${value}`, { defaultValue: item.dictName ?? value })];
    }),
  );
}

async function refLabels(provider: DataProvider, target: ResourceApi, ids: string[]): Promise<Labels> {
  if (!target.entity || ids.length === 0) return new Map();
  const records: BaseRecord[] =
    ids.length > MAX_IDS
      ? (await provider.getList({ resource: target.name, pagination: { currentPage: 1, pageSize: 10_000 } }))
          .data
      : ((await provider.getMany?.({ resource: target.name, ids }))?.data ?? []);
  return recordLabels(target, records);
}

function recordLabels(target: ResourceApi, records: readonly BaseRecord[]): Labels {
  const entity = target.entity;
  if (!entity) return new Map();
  return new Map(
    records.map((record) => [
      String(record[entity.key.name]),
      String(record[entity.label] ?? record[entity.key.name]),
    ]),
  );
}

/**
 * The labels of the dictionary and reference columns of a page: one request per dictionary and
 * per referenced entity (by the ids on the page), cached by Refine's query client.
 */
export function useLabelLookups(
  columns: readonly ListColumn[],
  records: readonly BaseRecord[],
): ReadonlyMap<string, LabelLookup> {
  const t = useT();
  const resources = useResources();
  const provider = useDataProvider()();
  const wanted = useMemo(
    () =>
      columns
        .filter((column) => column.dict || column.ref)
        .map((column) => {
          const ids = column.ref
            ? [
                ...new Set(
                  records
                    .flatMap((record) => {
                      const value = record[column.field];
                      return Array.isArray(value) ? value : [value];
                    })
                    .filter((value) => value !== null && value !== undefined && value !== '')
                    .map(String),
                ),
              ].sort()
            : [];
          return { column, ids };
        }),
    [columns, records],
  );
  const results = useQueries({
    queries: wanted.map(({ column, ids }) => ({
      queryKey: column.dict
        ? ['admin', 'dictLabels', column.dict, t('admin.title')]
        : ['admin', 'refLabels', column.ref, ids],
      queryFn: (): Promise<Labels> => {
        if (column.dict) return dictLabels(provider, resources?.get('sysdict'), column.dict, t);
        const target = resources?.get(column.ref ?? '');
        return target ? refLabels(provider, target, ids) : Promise.resolve(new Map());
      },
      enabled: resources !== undefined && (column.dict !== undefined || ids.length > 0),
      staleTime: 60_000,
      // asked for at boot with the list's first page (providers/warm.ts): shown in the first render
      initialData: (): Labels | undefined => {
        if (column.dict) {
          const warm = takeWarmDict(column.dict);
          return warm && dictItemLabels(warm.value, column.dict, t);
        }
        const target = resources?.get(column.ref ?? '');
        const warm = target ? takeWarmRefs(target.name, ids) : undefined;
        return target && warm && recordLabels(target, warm.value);
      },
    })),
  });
  // The lookups change when a query's answer does, not on every render.
  const version = results.map((result) => result.dataUpdatedAt).join(',');
  return useMemo(() => {
    const lookups = new Map<string, LabelLookup>();
    wanted.forEach(({ column }, index) => {
      const labels = results[index]?.data;
      lookups.set(column.field, (value) => labels?.get(String(value)));
    });
    return lookups;
  }, [wanted, version]);
}
