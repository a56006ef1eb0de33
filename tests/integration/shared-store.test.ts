/**
 * The database store keeps the promises of tests/support/store-contract.ts; the Redis store keeps
 * the same ones in shared-store-redis.test.ts (run with the suite on PostgreSQL and Redis).
 */
import { expect } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { storeContract } from '../support/store-contract.js';

let app: TestApp | undefined;
storeContract('the database store', async () => {
  app = await startTestApp();
  expect(app.app.ctx.store.kind).toBe('database');
  return { store: app.app.ctx.store, close: () => app?.close() ?? Promise.resolve() };
});
