import type { FastifyInstance } from 'fastify';
import { workflowDefinitionRoutes } from './definitions.js';
import { workflowHistoryRoutes } from './history.js';
import { workflowInstanceRoutes } from './instances.js';
import { workflowModelRoutes } from './models.js';
import { workflowTaskRoutes } from './tasks.js';

/**
 * The workflow engine's API under /api/activiti (issue 12): models and deployments, process
 * definitions, instances, tasks and history. Administrators' calls are granted by URL like
 * every admin call; the personal-office calls (start, my tasks and their actions) are
 * self-service, checked per task and instance by the services.
 */
export async function workflowRoutes(app: FastifyInstance): Promise<void> {
  await app.register(workflowModelRoutes);
  await app.register(workflowDefinitionRoutes);
  await app.register(workflowInstanceRoutes);
  await app.register(workflowTaskRoutes);
  await app.register(workflowHistoryRoutes);
}
