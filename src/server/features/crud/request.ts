import type { FastifyRequest } from 'fastify';
import { isTimeZone, type EntityDef } from '../../../engine/index.js';
import type { AppContext } from '../../lib/context.js';
import { actorOf, requireAuth } from '../../lib/http.js';
import { localizerFor } from '../../lib/i18n.js';
import { recordPolicy, type RecordAccessMode } from '../rbac/index.js';
import type { CrudRequest } from './services/crud.js';

/** The service call of one request on an entity, with the caller's permission policy on it. */
export type CrudRequestOf = (
  request: FastifyRequest,
  entity: EntityDef,
  mode?: RecordAccessMode,
) => Promise<CrudRequest>;

/**
 * How the routes of entities (features/crud/routes) and of published forms
 * (features/forms/routes/published.ts) turn a request into a service call: actor, localizer and
 * the policy of the caller's roles on the entity.
 */
/** The caller's time zone from the X-Time-Zone header, when it names a known IANA zone. */
export function timeZoneOf(request: FastifyRequest): { timeZone?: string } {
  const value = request.headers['x-time-zone'];
  const zone = typeof value === 'string' ? value.trim() : '';
  return zone !== '' && zone.length <= 64 && isTimeZone(zone) ? { timeZone: zone } : {};
}

export function crudRequestOf(ctx: AppContext): CrudRequestOf {
  return async (request, entity, mode = 'read') => {
    const l10n = localizerFor(request);
    const auth = requireAuth(request);
    const policy = await recordPolicy({ ctx, auth, entity, mode, l10n });
    return {
      db: ctx.db,
      registry: ctx.registry,
      entity,
      actor: actorOf(request),
      l10n,
      policy,
      roles: auth.roles,
      countPolicy: {
        ...ctx.config.listCount,
        hasStatementTimeout: ctx.dbKind === 'postgres',
        // a row data scope's count is capped (CountPolicy.visitLimit)
        ...(policy.rowConditions?.length ? { visitLimit: ctx.config.listCount.scopedLimit } : {}),
      },
      modules: ctx.modules,
      ...timeZoneOf(request),
    };
  };
}
