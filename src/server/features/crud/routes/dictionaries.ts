import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EntityInputError } from '../../../../engine/index.js';
import { ok, queryOf } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { actorOf } from '../../../lib/http.js';
import { queryRecords } from '../services/crud.js';
import { openRecordPolicy } from '../../rbac/index.js';

/**
 * The option endpoints of docs/product.md §7 that read one dictionary: GET <base>/<name> → its items.
 * queryOrgType, queryRegionType, the notification type and priority lists and the menu buttons
 * (queryMenuButtonCheckbox) are the dictionaries their entities' fields name with x-dict.
 */
const DICTIONARY_ENDPOINTS: { entity: string; name: string; field: string }[] = [
  { entity: 'sysorg', name: 'queryOrgType', field: 'orgType' },
  { entity: 'sysregion', name: 'queryRegionType', field: 'regionType' },
  { entity: 'notification', name: 'queryNotificationType', field: 'type' },
  { entity: 'notification', name: 'queryNotificationPriority', field: 'priority' },
  { entity: 'sysmenu', name: 'queryMenuButtonCheckbox', field: 'menuButton' },
];

/**
 * Every signed-in user reads dictionaries: list labels, filters and form options of every screen
 * they may open come from them (reading reference data grants nothing).
 */
const SELF = { config: { isSelfService: true } };

/** GET …/sysdict/queryDictByDictType?dictType=x: the items of one dictionary, in sequence order. */
export async function dictRoutes(app: FastifyInstance): Promise<void> {
  const dict = app.ctx.registry.get('sysdict');
  if (!dict?.tree) return;
  const { parent, root, sequence } = dict.tree;
  const itemsOf = async (request: FastifyRequest, dictType: string) => {
    const l10n = localizerFor(request);
    // reference data: every field of an item is read, whatever the dictionary screen hides
    const policy = openRecordPolicy(dict, l10n);
    const page = await queryRecords(
      { db: app.ctx.db, registry: app.ctx.registry, entity: dict, actor: actorOf(request), l10n, policy },
      { dictType, pageSize: '10000', ...(sequence ? { sort: sequence } : {}) },
    );
    // the group row (at the root) names the dictionary; its items hang below it
    return page.records.filter((record) => record[parent] !== root && record.dictType === dictType);
  };
  app.get(`/api/${dict.api}/queryDictByDictType`, SELF, async (request) => {
    const dictType = queryOf(request).dictType;
    if (typeof dictType !== 'string' || dictType.trim() === '') {
      throw new EntityInputError([
        { field: '/dictType', message: localizerFor(request).t('validation.required') },
      ]);
    }
    return ok(await itemsOf(request, dictType.trim()));
  });
  for (const endpoint of DICTIONARY_ENDPOINTS) {
    const entity = app.ctx.registry.get(endpoint.entity);
    const dictType = entity?.fieldsByName.get(endpoint.field)?.dict;
    if (!entity || !dictType) continue;
    app.get(`/api/${entity.api}/${endpoint.name}`, SELF, async (request) =>
      ok(await itemsOf(request, dictType)),
    );
  }
}
