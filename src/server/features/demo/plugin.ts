import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../lib/context.js';
import type { Feature } from '../../lib/feature.js';
import type { I18n } from '../../lib/i18n.js';
import { demoDashboardRoutes } from './routes/dashboard.js';
import { demoMockRoutes } from './routes/mocks.js';
import { demoReportRoutes } from './routes/report.js';
import { demoUserMockRoutes } from './routes/user-mocks.js';
import { seedDemo } from './seed.js';
import { installReportMenuSync } from './services/report-menu-sync.js';

async function demoRoutes(app: FastifyInstance): Promise<void> {
  await app.register(demoMockRoutes);
  // docs/product.md §7: the template's user mocks are development-only
  if (app.ctx.config.isDevMocks) await app.register(demoUserMockRoutes);
  await app.register(demoDashboardRoutes);
  await app.register(demoReportRoutes);
}

async function startDemo(ctx: AppContext, i18n: I18n): Promise<void> {
  await seedDemo(ctx, i18n);
  await installReportMenuSync(ctx.db, ctx.registry);
}

/** The template's demo pages (组件示例): charts, big screens, the report designer, mocks. */
export const demoFeature: Feature = { name: 'demo', start: startDemo, routes: demoRoutes };
