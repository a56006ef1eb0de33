import { defineConfig } from 'vitest/config';

/**
 * Tests that need PostgreSQL and Redis running beside the suite: collected with the suite on
 * PostgreSQL (TEST_DATABASE_URL, as .ci/run sets it), not part of `npm test` on a fresh machine.
 */
const NEEDS_SERVERS = [
  'tests/integration/two-processes.test.ts',
  'tests/integration/shared-store-redis.test.ts',
  'tests/integration/forms-two-processes.test.ts',
  'tests/integration/webhooks-two-processes.test.ts',
  'tests/integration/index-build.test.ts',
  'tests/integration/workflow-lock-wait.test.ts',
  'tests/integration/db-listener.test.ts',
];

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'src/**/*.test.ts'],
    exclude: ['tests/e2e/**', 'node_modules/**', ...(process.env.TEST_DATABASE_URL ? [] : NEEDS_SERVERS)],
    pool: 'forks',
    maxWorkers: 2,
    // A worker keeps its modules from one test file to the next: importing the server afresh for
    // every file took a third of `npm test` (841 s against 494 s, both cores). Each test boots its
    // own app, and an app's state hangs off its context or its database (the import jobs a
    // process holds are kept per database); what stays in a module is shared on purpose (caches
    // keyed by what they hold, widgets a module declares, worker pools).
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
