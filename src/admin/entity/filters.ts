import type { CrudFilters } from '@refinedev/core';
import type { ListFilter } from '../../engine/index.js';

export type FilterValues = Record<string, unknown>;

/** The filter bar's values as Refine filters: text contains, date ranges between, others equal. */
export function filtersOf(filters: readonly ListFilter[], values: FilterValues): CrudFilters {
  const result: CrudFilters = [];
  for (const filter of filters) {
    const value = values[filter.field];
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value) && value.length === 0) continue;
    const operator = filter.kind === 'text' ? 'contains' : filter.kind === 'dateRange' ? 'between' : 'eq';
    result.push({ field: filter.field, operator, value: typeof value === 'string' ? value.trim() : value });
  }
  return result;
}
