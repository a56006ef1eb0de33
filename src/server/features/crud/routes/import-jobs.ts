import type { FastifyInstance, FastifyRequest } from 'fastify';
import { actorOf, ok } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { answer, arrayOf, id, object, typed } from '../../../lib/route-schema.js';
import { IMPORT_JOB } from '../import/job-schema.js';
import { listImportJobs, readImportJob } from '../import/jobs.js';

const SELF = { isSelfService: true };

/**
 * The caller's own import jobs (POST …/import?background=true): one by id, and the latest ones.
 * Another user's or another tenant's job is a 404.
 */
export async function importJobRoutes(app: FastifyInstance): Promise<void> {
  const api = typed(app);
  const callerOf = (request: FastifyRequest) => ({
    db: app.ctx.db,
    l10n: localizerFor(request),
    actor: actorOf(request),
  });
  api.get(
    '/api/import/job',
    {
      config: SELF,
      schema: {
        tags: ['import'],
        summary:
          'One of the caller’s import jobs: its progress (rows done of total) and, once ended, its result',
        querystring: object({ id: id('the job') }, ['id']),
        response: answer(IMPORT_JOB),
      },
    },
    async (request) => ok(await readImportJob(callerOf(request), request.query.id)),
  );
  api.get(
    '/api/import/jobs',
    {
      config: SELF,
      schema: {
        tags: ['import'],
        summary: 'The caller’s latest import jobs, newest first',
        response: answer(arrayOf(IMPORT_JOB)),
      },
    },
    async (request) => ok(await listImportJobs(callerOf(request))),
  );
}
