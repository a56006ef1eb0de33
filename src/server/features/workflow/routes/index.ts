import type { FastifyInstance } from 'fastify';
import type { FeatureHookOptions } from '../../../lib/feature.js';
import { startJobPoller, type JobPoller } from '../services/jobs.js';
import { workflowDefinitionRoutes } from './definitions.js';
import { workflowExternalTaskRoutes } from './external-tasks.js';
import { workflowHistoryRoutes } from './history.js';
import { workflowInstanceRoutes } from './instances.js';
import { workflowModelRoutes } from './models.js';
import { workflowOfficeRoutes } from './office.js';
import { workflowRecordRoutes } from './records.js';
import { workflowTaskRoutes } from './tasks.js';

/**
 * The workflow engine's API under /api/activiti: models and deployments, process
 * definitions, instances, tasks and history. Administrators' calls are granted by URL like
 * every admin call; the personal-office calls (start, my tasks and their actions) are
 * self-service, checked per task and instance by the services.
 */
export async function workflowRoutes(app: FastifyInstance, { database }: FeatureHookOptions): Promise<void> {
  // Jobs (boundary timers, timer starts, connector and mail calls) are polled by every server
  // process once it listens (an app that only answers injected requests, as in tests, runs due
  // jobs when told: runDueJobs).
  let poller: JobPoller | undefined;
  app.addHook('onListen', async () => {
    poller ??= await startJobPoller({
      ctx: app.ctx,
      database,
      onError: (error) => app.log.warn({ err: error }, 'workflow jobs failed'),
    });
  });
  app.addHook('onClose', async () => {
    await poller?.stop();
  });
  await app.register(workflowModelRoutes);
  await app.register(workflowDefinitionRoutes);
  await app.register(workflowInstanceRoutes);
  await app.register(workflowTaskRoutes);
  await app.register(workflowHistoryRoutes);
  await app.register(workflowOfficeRoutes);
  await app.register(workflowRecordRoutes);
  await app.register(workflowExternalTaskRoutes);
}
