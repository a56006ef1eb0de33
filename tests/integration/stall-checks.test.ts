import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGETS } from '../../src/server/lib/budgets.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { measureStall, PING_BUDGET_MS, stallReport } from '../support/stall.js';

/**
 * Bounded work (issue 31, findings 2, 3 and 6): while a hostile template or form is checked, a
 * second client's simple request is still answered within PING_BUDGET_MS, and the hostile
 * request gets its 4xx within its budget. Each line printed names the budget and the times.
 */
const NESTED_EACH = `${'{{#each @root.fields}}'.repeat(6)}{{name}}${'{{/each}}'.repeat(6)}`;
/** A form check is refused before anything compiles the content: well under a second. */
const CHECK_BUDGET_MS = 1_000;

describe('stall checks: templates and schemas', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    // The template worker started once (from the TypeScript sources it takes about a second).
    const warm = await t.request({
      method: 'POST',
      url: '/api/generator/template/check',
      headers: t.auth,
      payload: { content: '{{pascal}}' },
    });
    expect(warm.statusCode, warm.body).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  const formCheck = (formContent: unknown) => () =>
    t.request({
      method: 'POST',
      url: '/api/generator/form/check',
      headers: t.auth,
      payload: { formCode: 'stall', formContent },
    });
  const form = (property: Record<string, unknown>) => ({
    title: 'Stall',
    type: 'object',
    properties: { name: { type: 'string', maxLength: 40 }, probe: property },
  });

  it('six nested {{#each @root.fields}} (finding 2): 422 past a template budget, pings answered meanwhile', async () => {
    const measure = await measureStall(t, () =>
      t.request({
        method: 'POST',
        url: '/api/generator/template/check',
        headers: t.auth,
        payload: { content: NESTED_EACH, sampleEntity: 'sysuser' },
      }),
    );
    console.log(stallReport('template bomb', `templates.renderMs ${BUDGETS.templates.renderMs} ms`, measure));
    expect(measure.hostile.status, measure.hostile.body).toBe(422);
    // its time, its heap or its output: whichever it passes first, named
    expect(measure.hostile.body).toMatch(/templates\.(renderMs|heapMb|outputBytes)/);
    // The budget and the worker's end (a new one starts with the next render).
    expect(measure.hostile.ms).toBeLessThan(BUDGETS.templates.renderMs + 1_000);
    expect(measure.worstPingMs).toBeLessThan(PING_BUDGET_MS);
  }, 30_000);

  it('an enum of 20,000 values (finding 6): 400 naming schemas.enumValues at once', async () => {
    const values = Array.from({ length: 20_000 }, (_unused, index) => `value${index}`);
    const measure = await measureStall(t, formCheck(form({ type: 'string', enum: values })), {
      firstPingAfterMs: 0,
    });
    console.log(stallReport('enum bomb', `schemas.enumValues ${BUDGETS.schemas.enumValues} values`, measure));
    expect(measure.hostile.status, measure.hostile.body).toBe(400);
    expect(measure.hostile.body).toMatch(/schemas\.enumValues/);
    expect(measure.hostile.ms).toBeLessThan(CHECK_BUDGET_MS);
    expect(measure.worstPingMs).toBeLessThan(PING_BUDGET_MS);
  });

  it('"pattern": "^(a+)+$" (finding 3): 400 naming schemas.pattern at once', async () => {
    const measure = await measureStall(t, formCheck(form({ type: 'string', pattern: '^(a+)+$' })), {
      firstPingAfterMs: 0,
    });
    console.log(stallReport('pattern bomb', 'schemas.pattern (no nested quantifiers)', measure));
    expect(measure.hostile.status, measure.hostile.body).toBe(400);
    expect(measure.hostile.body).toMatch(/schemas\.pattern/);
    expect(measure.hostile.ms).toBeLessThan(CHECK_BUDGET_MS);
    expect(measure.worstPingMs).toBeLessThan(PING_BUDGET_MS);
  });
});
