import { useQuery } from '@tanstack/react-query';
import type { EntityDef } from '../../engine/index.js';
import { loadResources, peekResources, type ResourceApi } from '../providers/resources.js';

/** The resource table of the running server's schemas (loaded once per page load). */
export function useResources(): Map<string, ResourceApi> | undefined {
  const query = useQuery({
    queryKey: ['admin', 'resources'],
    queryFn: loadResources,
    staleTime: Number.POSITIVE_INFINITY,
    // loaded at boot already: the first render has it
    initialData: peekResources,
  });
  return query.data;
}

export function useEntity(name: string | undefined): EntityDef | undefined {
  const resources = useResources();
  return name ? resources?.get(name)?.entity : undefined;
}
