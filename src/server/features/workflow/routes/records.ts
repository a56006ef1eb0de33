import type { FastifyInstance } from 'fastify';
import { workflowOf, type EntityDef } from '../../../../engine/index.js';
import { AppError } from '../../../lib/errors.js';
import { ok, queryOf, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { answer, dictionary, id, integer, MAX_KEY, object, text, typed } from '../../../lib/route-schema.js';
import { crudRequestOf } from '../../crud/index.js';
import { isOtherTenantsForm, onlineApiOf } from '../../forms/index.js';
import { recordOfInstance, submitRecord, updateRecordOfTask } from '../services/records.js';
import { APPROVAL_RECORD, APPROVED_RECORD, SUBMITTED } from './answers.js';
import { actorOf, assertTakesPart, BASE, byId, candidateLater, SELF, TAGS as tags } from './shared.js';

/**
 * Approval of records (x-entity.workflow): <api>/submitApproval (提交审批, granted with the
 * entity's 编辑 button), the business record of an instance for its task and instance screens,
 * and the task screen's edit of the fields its task may change.
 */
export async function workflowRecordRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const api = typed(app);
  const crudRequest = crudRequestOf(ctx);

  for (const entity of ctx.registry.all) {
    // A published form's entity has no route of its own here (its routes are resolved per request).
    if (!workflowOf(entity) || ctx.registry.isRuntime(entity.name)) continue;
    const keyName = entity.key.name;
    const keySchema = entity.key.type === 'integer' ? integer(0, MAX_KEY) : text(200, { minLength: 1 });
    api.post(
      `/api/${entity.api}/submitApproval`,
      {
        schema: {
          tags: [entity.name],
          summary: `Submits a ${entity.title} record for approval (提交审批): starts its process with the business key ${entity.name}:<key>; 409 when it is under approval or approved`,
          querystring: {
            type: 'object',
            properties: { [keyName]: keySchema },
            required: [keyName],
            additionalProperties: false,
          },
          response: answer(SUBMITTED),
        },
      },
      async (request) => {
        const auth = requireAuth(request);
        // read and bounded by the querystring schema: a whole number or a text
        const raw = queryOf(request)[keyName];
        const key = typeof raw === 'number' ? raw : String(raw);
        return ok(
          await submitRecord({
            ctx,
            request: await crudRequest(request, entity, 'write'),
            user: { userId: auth.userId, username: auth.username, tenantCode: auth.tenantCode },
            starter: candidateLater(request),
            key,
          }),
        );
      },
    );
  }

  // 提交审批 of a published designed form that names a process (x-entity.workflow, chosen in the
  // designer): its entity is looked up per request, as the form's other routes (a publish applies
  // at once); a form of another tenant, unknown or without a process answers 404.
  api.post(
    '/api/online/:form/submitApproval',
    {
      schema: {
        tags: ['online'],
        summary:
          'Submits a record of a published form with an approval process (x-entity.workflow) for approval (提交审批, ?id=): starts the process with the business key <form>:<key>; 409 when it is under approval or approved',
        params: object({ form: text(40, { pattern: '^[a-z][a-z0-9]{1,39}$' }) }, ['form']),
        querystring: dictionary(text(200), {
          description: 'the key of the record, by the name of its key field (id)',
        }),
        response: answer(SUBMITTED),
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const entity = ctx.registry.byApi(onlineApiOf(request.params.form));
      if (
        !entity ||
        !ctx.registry.isRuntime(entity.name) ||
        isOtherTenantsForm(ctx, entity, auth.tenantCode) ||
        !workflowOf(entity)
      )
        throw new AppError('routeNotFound', { path: request.url.split('?')[0] ?? '' });
      const given = (request.query[entity.key.name] ?? '').trim();
      const key = entity.key.type !== 'integer' ? given : /^\d{1,15}$/.test(given) ? Number(given) : '';
      if (key === '')
        throw new AppError('validation', {}, [
          { field: `/${entity.key.name}`, message: localizerFor(request).t('validation.required') },
        ]);
      return ok(
        await submitRecord({
          ctx,
          request: await crudRequest(request, entity, 'write'),
          user: { userId: auth.userId, username: auth.username, tenantCode: auth.tenantCode },
          starter: candidateLater(request),
          key,
        }),
      );
    },
  );

  const requestFor =
    (request: Parameters<typeof crudRequest>[0], mode: 'read' | 'write') => (entity: EntityDef) =>
      crudRequest(request, entity, mode);

  api.get(
    `${BASE}/processinstance/record`,
    {
      config: SELF,
      schema: {
        tags,
        summary:
          "The business record an instance approves (x-entity.workflow), through the caller's field rights and row scope (404 outside it), with the fields the caller's open task may edit",
        querystring: byId('The instance'),
        response: answer(APPROVED_RECORD),
      },
    },
    async (request) => {
      await assertTakesPart(request, request.query.id);
      return ok(
        await recordOfInstance({
          ctx,
          actor: actorOf(request),
          instanceId: request.query.id,
          requestFor: requestFor(request, 'read'),
        }),
      );
    },
  );

  api.post(
    `${BASE}/task/updateRecord`,
    {
      config: SELF,
      schema: {
        tags,
        summary:
          "The task's assignee changes the business record under approval: only the fields x-entity.workflow.edit gives the task (403 naming another); send the record's version",
        body: object(
          {
            id: id('The task'),
            record: dictionary(undefined, {
              maxProperties: 500,
              description: "The fields changed and the record's version",
            }),
          },
          ['id', 'record'],
        ),
        response: answer(APPROVAL_RECORD),
      },
    },
    async (request) =>
      ok(
        await updateRecordOfTask({
          ctx,
          actor: actorOf(request),
          taskId: request.body.id,
          body: request.body.record,
          requestFor: requestFor(request, 'write'),
        }),
      ),
  );
}
