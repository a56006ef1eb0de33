import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGETS } from '../../src/server/lib/budgets.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { measureStall, PING_BUDGET_MS, stallReport } from '../support/stall.js';

/**
 * Bounded work (issue 31, findings 2, 3 and 6): while a hostile template or schema is checked,
 * a second client's simple request is still answered within PING_BUDGET_MS, and the hostile
 * request gets its 4xx within its budget.
 */
const NESTED_EACH = `${'{{#each @root.fields}}'.repeat(6)}{{name}}${'{{/each}}'.repeat(6)}`;

describe('stall checks: templates and schemas', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('six nested {{#each @root.fields}}: 422 naming templates.renderMs, pings answered meanwhile', async () => {
    const measure = await measureStall(t, () =>
      t.request({
        method: 'POST',
        url: '/api/generator/template/check',
        headers: t.auth,
        payload: { content: NESTED_EACH, sampleEntity: 'sysuser' },
      }),
    );
    console.log(stallReport('template bomb', `templates.renderMs ${BUDGETS.templates.renderMs} ms`, measure));
    console.log(measure.hostile.body);
    expect(measure.hostile.status).toBe(422);
    expect(measure.worstPingMs).toBeLessThan(PING_BUDGET_MS);
  }, 60_000);
});
