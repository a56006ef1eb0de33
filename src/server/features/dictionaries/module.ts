import { EntityInputError, serializedRecordOf, type EntityDef } from '../../../engine/index.js';
import { actorOf } from '../../lib/http.js';
import { localizerFor } from '../../lib/i18n.js';
import { DICTIONARY_ENTITY } from '../../lib/dictionaries.js';
import {
  defineModule,
  type EndpointArgs,
  type EndpointDef,
  type EntityModule,
  type ModuleDefinition,
} from '../../lib/modules/index.js';
import type { EntityRegistry } from '../../lib/registry.js';
import { arrayOf, object, text } from '../../lib/route-schema.js';
import { queryRecords } from '../crud/index.js';
import { openRecordPolicy } from '../rbac/index.js';

/**
 * The option endpoints of docs/product.md §7 that read one dictionary, on the module API
 * (lib/modules): GET …/sysdict/queryDictByDictType?dictType=x, and GET <base>/<name> → the items
 * of the dictionary an entity's field names with x-dict (queryOrgType, queryRegionType, the
 * notification type and priority lists, the menu buttons of queryMenuButtonCheckbox). Every
 * signed-in user reads them: list labels, filters and form options of every screen they may open
 * come from them (reading reference data grants nothing).
 */
const DICTIONARY_ENDPOINTS: { entity: string; name: string; field: string }[] = [
  { entity: 'sysorg', name: 'queryOrgType', field: 'orgType' },
  { entity: 'sysregion', name: 'queryRegionType', field: 'regionType' },
  { entity: 'notification', name: 'queryNotificationType', field: 'type' },
  { entity: 'notification', name: 'queryNotificationPriority', field: 'priority' },
  { entity: 'sysmenu', name: 'queryMenuButtonCheckbox', field: 'menuButton' },
];

/** The items of one dictionary (not its group row), in sequence order, every field of each. */
async function itemsOf(dict: EntityDef, { request, trx }: EndpointArgs, dictType: string) {
  const tree = dict.tree;
  if (!tree) return [];
  const { ctx } = request.server;
  const l10n = localizerFor(request);
  const page = await queryRecords(
    {
      db: trx,
      registry: ctx.registry,
      entity: dict,
      actor: actorOf(request),
      l10n,
      // reference data: every field of an item is read, whatever the dictionary screen hides
      policy: openRecordPolicy(dict, l10n),
      modules: ctx.modules,
    },
    { dictType, pageSize: '10000', ...(tree.sequence ? { sort: tree.sequence } : {}) },
  );
  // the group row (at the root) names the dictionary; its items hang below it
  return page.records.filter((record) => record[tree.parent] !== tree.root && record.dictType === dictType);
}

export function dictionariesModule(registry: EntityRegistry): ModuleDefinition {
  const dict = registry.get(DICTIONARY_ENTITY);
  const entities: Record<string, EntityModule> = {};
  const endpoint = (entity: string, name: string, def: EndpointDef): void => {
    const part = (entities[entity] ??= {});
    part.endpoints = { ...part.endpoints, [name]: def };
  };
  if (dict?.tree) {
    // Records of the dictionary entity, every readable field (sysdict's schema file says which).
    const items = arrayOf(serializedRecordOf(dict), {
      description: "The dictionary's items (not its group row), in sequence order",
    });
    endpoint(dict.name, 'queryDictByDictType', {
      method: 'GET',
      access: 'signedIn',
      schema: {
        summary: 'The items of one dictionary',
        querystring: object({ dictType: text(64, { minLength: 1 }) }, ['dictType']),
        response: items,
      },
      handler: (args) => {
        const dictType = String(args.query.dictType ?? '').trim();
        // Blank is no dictionary type at all: the same answer as a missing one.
        if (dictType === '')
          throw new EntityInputError([
            { field: '/dictType', message: localizerFor(args.request).t('validation.required') },
          ]);
        return itemsOf(dict, args, dictType);
      },
    });
    for (const { entity: entityName, name, field } of DICTIONARY_ENDPOINTS) {
      const entity = registry.get(entityName);
      const dictType = entity?.fieldsByName.get(field)?.dict;
      if (!entity || !dictType) continue;
      endpoint(entity.name, name, {
        method: 'GET',
        access: 'signedIn',
        schema: { summary: `Items of the dictionary ${dictType} (${entity.name}.${field})`, response: items },
        handler: (args) => itemsOf(dict, args, dictType),
      });
    }
  }
  return defineModule({ name: 'dictionaries', entities });
}
