import type { FastifyInstance } from 'fastify';
import { EVENT_TYPES } from '../../../lib/events/index.js';
import { ok, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import {
  answer,
  arrayOf,
  bool,
  dictionary,
  id,
  integer,
  object,
  oneOf,
  separatedIds,
  text,
  typed,
  anyJson,
} from '../../../lib/route-schema.js';
import type { AddressGuard } from '../../../lib/address-guard.js';
import {
  addWebhook,
  deleteWebhooks,
  listWebhooks,
  redeliver,
  updateWebhook,
  webhookDeliveries,
} from '../services/webhooks.js';

const tags = ['syswebhook'];
const BASE = '/api/admin/syswebhook';

const dateTime = { type: 'string', format: 'date-time' };
const nullable = (type: string) => ({ type: [type, 'null'] });
const strings = { type: 'array', items: { type: 'string' } };
const conditionSchema = dictionary(
  anyJson({
    anyOf: [
      { type: 'string', maxLength: 200 },
      { type: 'array', items: { type: 'string', maxLength: 200 }, maxItems: 50 },
    ],
  }),
  {
    description: "the list filters of the one entity named (its list's query parameters)",
    maxProperties: 20,
  },
);

/** A webhook as the screens show it: never its secret. */
const WEBHOOK = object(
  {
    id: { type: 'integer' },
    name: { type: 'string' },
    url: { type: 'string' },
    eventTypes: strings,
    entities: strings,
    condition: conditionSchema,
    isEnabled: { type: 'boolean' },
    disabledReason: nullable('string'),
    failures: { type: 'integer' },
    createdBy: { type: 'string' },
    createdAt: dateTime,
  },
  [
    'id',
    'name',
    'url',
    'eventTypes',
    'entities',
    'condition',
    'isEnabled',
    'disabledReason',
    'failures',
    'createdBy',
    'createdAt',
  ],
);

const DELIVERY = object(
  {
    id: { type: 'integer' },
    eventId: { type: 'integer' },
    eventType: { type: 'string' },
    entity: nullable('string'),
    recordKey: nullable('string'),
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    attempts: { type: 'integer' },
    nextAt: dateTime,
    lastAt: { type: ['string', 'null'], format: 'date-time' },
    lastStatus: nullable('integer'),
    lastAnswer: nullable('string'),
    lastError: nullable('string'),
    createdAt: dateTime,
  },
  [
    'id',
    'eventId',
    'eventType',
    'entity',
    'recordKey',
    'status',
    'attempts',
    'nextAt',
    'lastAt',
    'lastStatus',
    'lastAnswer',
    'lastError',
    'createdAt',
  ],
);

const INPUT = {
  name: text(64, { minLength: 1 }),
  url: text(2000, { minLength: 1 }),
  eventTypes: arrayOf(oneOf(EVENT_TYPES), { maxItems: EVENT_TYPES.length }),
  entities: arrayOf(text(64, { minLength: 1 }), { maxItems: 100 }),
  condition: conditionSchema,
  secret: text(200, { minLength: 16, description: 'signs every delivery; write-only (never answered)' }),
  isEnabled: bool(),
};

/**
 * Webhooks of the caller's tenant (permission: the URL grants, as every admin route): list, add,
 * update, delete, each one's delivery log and 重发 of a delivery.
 */
export function webhookRoutes(guard: AddressGuard) {
  return async (app: FastifyInstance): Promise<void> => {
    const { ctx } = app;
    const api = typed(app);

    api.get(
      `${BASE}/query`,
      {
        schema: {
          tags,
          summary: "The tenant's webhooks",
          response: answer({ type: 'array', items: WEBHOOK }),
        },
      },
      async (request) => ok(await listWebhooks(ctx, requireAuth(request).tenantCode)),
    );

    api.get(
      `${BASE}/eventTypes`,
      {
        schema: {
          tags,
          summary: 'The event types a webhook may hear',
          response: answer(strings),
        },
      },
      async (request) => {
        requireAuth(request);
        return ok([...EVENT_TYPES]);
      },
    );

    api.post(
      `${BASE}/add`,
      {
        schema: {
          tags,
          summary: 'Adds a webhook to the tenant',
          body: object(INPUT, ['name', 'url', 'secret'], { additionalProperties: false }),
          response: answer(WEBHOOK),
        },
      },
      async (request) => {
        const auth = requireAuth(request);
        return ok(await addWebhook({ ctx, guard, auth, l10n: localizerFor(request), input: request.body }));
      },
    );

    api.put(
      `${BASE}/update`,
      {
        schema: {
          tags,
          summary: 'Changes a webhook of the tenant (a secret left out is kept)',
          body: object({ id: id('the webhook'), ...INPUT }, ['id'], { additionalProperties: false }),
          response: answer(WEBHOOK),
        },
      },
      async (request) => {
        const auth = requireAuth(request);
        const { id: webhookId, ...input } = request.body;
        return ok(
          await updateWebhook({ ctx, guard, auth, l10n: localizerFor(request), id: webhookId, input }),
        );
      },
    );

    api.delete(
      `${BASE}/delete`,
      {
        schema: {
          tags,
          summary: 'Deletes webhooks of the tenant (id repeatable) with their delivery logs',
          querystring: object({ id: separatedIds(100, 'webhook ids', 1) }, ['id']),
          response: answer(object({ deleted: { type: 'integer' } }, ['deleted'])),
        },
      },
      async (request) => {
        const auth = requireAuth(request);
        const l10n = localizerFor(request);
        const ids = request.query.id;
        return ok({ deleted: await deleteWebhooks({ ctx, auth, l10n, ids }) });
      },
    );

    api.get(
      `${BASE}/queryDeliveries`,
      {
        schema: {
          tags,
          summary: "A webhook's deliveries, newest first",
          querystring: object(
            { id: id('the webhook'), currentPage: integer(1, 1_000_000), pageSize: integer(1, 500) },
            ['id'],
          ),
          response: answer(
            object(
              {
                records: { type: 'array', items: DELIVERY },
                total: { type: 'integer' },
                currentPage: { type: 'integer' },
                pageSize: { type: 'integer' },
              },
              ['records', 'total', 'currentPage', 'pageSize'],
            ),
          ),
        },
      },
      async (request) => {
        const auth = requireAuth(request);
        const { id: webhookId, currentPage = 1, pageSize = 20 } = request.query;
        return ok(
          await webhookDeliveries({
            ctx,
            auth,
            l10n: localizerFor(request),
            id: webhookId,
            currentPage,
            pageSize,
          }),
        );
      },
    );

    api.post(
      `${BASE}/redeliver`,
      {
        schema: {
          tags,
          summary: "Sends a delivery's event again (a new delivery, due now)",
          body: object({ id: id('the delivery') }, ['id'], { additionalProperties: false }),
          response: answer(object({ id: { type: 'integer' } }, ['id'])),
        },
      },
      async (request) => {
        const auth = requireAuth(request);
        return ok(await redeliver({ ctx, auth, l10n: localizerFor(request), deliveryId: request.body.id }));
      },
    );
  };
}
