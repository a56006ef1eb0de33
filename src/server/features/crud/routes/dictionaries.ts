import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EntityInputError, serializedRecordOf } from '../../../../engine/index.js';
import { actorOf, ok } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { answer, arrayOf, object, text, typed } from '../../../lib/route-schema.js';
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
const SELF = { isSelfService: true };

/** GET …/sysdict/queryDictByDictType?dictType=x: the items of one dictionary, in sequence order. */
export async function dictRoutes(app: FastifyInstance): Promise<void> {
  const dict = app.ctx.registry.get('sysdict');
  if (!dict?.tree) return;
  const { parent, root, sequence } = dict.tree;
  // Records of the dictionary entity, every readable field (sysdict's schema file says which).
  const items = arrayOf(serializedRecordOf(dict), {
    description: "The dictionary's items (not its group row), in sequence order",
  });
  const itemsOf = async (request: FastifyRequest, dictType: string) => {
    const l10n = localizerFor(request);
    // reference data: every field of an item is read, whatever the dictionary screen hides
    const policy = openRecordPolicy(dict, l10n);
    const page = await queryRecords(
      {
        db: app.ctx.db,
        registry: app.ctx.registry,
        entity: dict,
        actor: actorOf(request),
        l10n,
        policy,
        modules: app.ctx.modules,
      },
      { dictType, pageSize: '10000', ...(sequence ? { sort: sequence } : {}) },
    );
    // the group row (at the root) names the dictionary; its items hang below it
    return page.records.filter((record) => record[parent] !== root && record.dictType === dictType);
  };
  const api = typed(app);
  api.get(
    `/api/${dict.api}/queryDictByDictType`,
    {
      config: SELF,
      schema: {
        tags: [dict.name],
        summary: 'The items of one dictionary',
        querystring: object({ dictType: text(64, { minLength: 1 }) }, ['dictType']),
        response: answer(items),
      },
    },
    async (request) => {
      const dictType = request.query.dictType.trim();
      // Blank is no dictionary type at all: the same answer as a missing one.
      if (dictType === '') {
        throw new EntityInputError([
          { field: '/dictType', message: localizerFor(request).t('validation.required') },
        ]);
      }
      return ok(await itemsOf(request, dictType));
    },
  );
  for (const endpoint of DICTIONARY_ENDPOINTS) {
    const entity = app.ctx.registry.get(endpoint.entity);
    const dictType = entity?.fieldsByName.get(endpoint.field)?.dict;
    if (!entity || !dictType) continue;
    api.get(
      `/api/${entity.api}/${endpoint.name}`,
      {
        config: SELF,
        schema: {
          tags: [entity.name],
          summary: `Items of the dictionary ${dictType} (${entity.name}.${endpoint.field})`,
          response: answer(items),
        },
      },
      async (request) => ok(await itemsOf(request, dictType)),
    );
  }
}
