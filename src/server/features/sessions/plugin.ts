import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Feature } from '../../lib/feature.js';
import { authHook } from './auth-hook.js';
import { onlineRoutes } from './routes/online-users.js';
import { authRoutes } from './routes/sign-in.js';
import { sessionSettleHook } from './services/watch.js';
import { sessionTableSpecs } from './tables.js';

async function sessionHooks(app: FastifyInstance): Promise<void> {
  await app.register(authHook);
  await app.register(sessionSettleHook);
}

async function sessionRoutes(app: FastifyInstance): Promise<void> {
  await app.register(authRoutes);
  await app.register(onlineRoutes);
}

/** Sign-in (tokens), sessions kept exact across processes, the online-user list. */
export const sessionsFeature: Feature = {
  name: 'sessions',
  tables: sessionTableSpecs,
  hooks: fp(sessionHooks, { name: 'session-hooks' }),
  routes: sessionRoutes,
};
