import type { FastifyInstance } from 'fastify';
import { EntityInputError } from '../../engine/index.js';
import { ok, queryOf } from '../http.js';
import { localizerFor } from '../i18n/index.js';
import { actorOf } from '../http.js';
import { queryRecords } from './service.js';

/** GET …/sysdict/queryDictByDictType?dictType=x: the items of one dictionary, in sequence order. */
export async function dictRoutes(app: FastifyInstance): Promise<void> {
  const dict = app.ctx.registry.get('sysdict');
  if (!dict?.tree) return;
  const { parent, root, sequence } = dict.tree;
  app.get(`/api/${dict.api}/queryDictByDictType`, async (request) => {
    const l10n = localizerFor(request);
    const dictType = queryOf(request).dictType;
    if (typeof dictType !== 'string' || dictType.trim() === '') {
      throw new EntityInputError([{ field: '/dictType', message: l10n.t('validation.required') }]);
    }
    const page = await queryRecords(
      { db: app.ctx.db, registry: app.ctx.registry, entity: dict, actor: actorOf(request), l10n },
      { dictType: dictType.trim(), pageSize: '10000', ...(sequence ? { sort: sequence } : {}) },
    );
    // the group row (at the root) names the dictionary; its items hang below it
    return ok(
      page.records.filter((record) => record[parent] !== root && record.dictType === dictType.trim()),
    );
  });
}
