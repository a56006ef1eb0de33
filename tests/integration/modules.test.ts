/**
 * Modules (issue 34, docs/extending.md): the real app booted with MODULE_DIRS pointing at the
 * fixture modules. purchase-extras (tests/fixtures/modules/purchase-extras/server.ts, the
 * example of docs/extending.md) refuses a budget above a system parameter, posts a notice when a
 * purchase is published and adds POST /api/notification/purchase/close; test-hooks
 * (tests/fixtures/modules-test) fails a later step of an add and hooks a designed form.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareDecimal } from '../../src/engine/decimal.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { fileUpload } from '../support/multipart.js';
import { createUserWithRole } from '../support/users.js';
import { runDueJobs } from '../../src/server/features/modules/jobs.js';
import purchaseExtras, {
  BUDGET_LIMIT_PARAM,
  openPurchases,
} from '../fixtures/modules/purchase-extras/server.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { MODULE_DIRS: 'tests/fixtures/modules, tests/fixtures/modules-test' } });
  const param = await call('POST', '/api/admin/sysparam/add', {
    paramName: 'Highest purchase budget',
    paramKey: BUDGET_LIMIT_PARAM,
    paramValue: '1000000.00',
  });
  expect(param.statusCode, param.body).toBe(200);
});

afterAll(async () => {
  await t?.close();
});

type Json = Record<string, unknown>;
const dataOf = <T = Json>(response: LightMyRequestResponse): T => (response.json() as { data: T }).data;
const errorsOf = (response: LightMyRequestResponse): { field: string; message: string }[] =>
  (response.json() as { errors?: { field: string; message: string }[] }).errors ?? [];

/** A call as the seeded administrator, in English (or the token's caller). */
const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, token?: string) =>
  t.request({
    method,
    url,
    headers: {
      authorization: token ? `Bearer ${token}` : t.auth.authorization,
      'accept-language': 'en',
    },
    ...(payload === undefined ? {} : { payload: payload as Json }),
  });

const PURCHASE = '/api/notification/purchase';
const purchasesTitled = async (title: string): Promise<Json[]> =>
  t.sql('select id, budget, deadline from portal_purchase where title = $1', [title]);
const noticesTitled = async (title: string): Promise<Json[]> =>
  t.sql('select id from portal_notice where title = $1', [title]);

const csv = (rows: (string | number)[][]): Buffer =>
  Buffer.from(rows.map((row) => row.map((cell) => `"${String(cell)}"`).join(',')).join('\n'));

const importFile = (url: string, bytes: Buffer): Promise<LightMyRequestResponse> => {
  const form = fileUpload('rows.csv', bytes);
  return t.request({
    method: 'POST',
    url,
    payload: form.payload,
    headers: { ...form.headers, ...t.auth, 'accept-language': 'en' },
  });
};

describe('modules', () => {
  it('loads the fixture: its name and widget, as the admin build will read them', () => {
    expect(purchaseExtras.name).toBe('purchase-extras');
    expect(t.app.ctx.modules.widgets()).toEqual(['budgetMeter']);
    expect(t.app.ctx.modules.definitions.map((module) => module.name)).toEqual([
      'sessions',
      'rbac',
      'tenants',
      'dictionaries',
      'recycle-bin',
      'event-retention',
      'purchase-extras',
      'test-hooks',
    ]);
  });

  it('a beforeChange hook refuses a budget above the parameter: 400 naming budget, nothing written', async () => {
    const over = await call('POST', `${PURCHASE}/add`, {
      title: 'Over budget',
      buyerName: 'City works',
      budget: '1000000.01',
    });
    expect(over.statusCode, over.body).toBe(400);
    expect(errorsOf(over)).toEqual([
      { field: '/budget', message: 'The budget may not exceed 1000000.00 yuan' },
    ]);
    expect(await purchasesTitled('Over budget')).toEqual([]);

    // Exactly the limit is allowed (compared as decimals: 1000000 = 1000000.00).
    const atLimit = await call('POST', `${PURCHASE}/add`, {
      title: 'At the limit',
      buyerName: 'City works',
      budget: '1000000',
    });
    expect(atLimit.statusCode, atLimit.body).toBe(200);
    const added = dataOf(atLimit);

    // An update raising it is refused too, in Chinese for a Chinese caller; the record keeps its budget.
    const raised = await t.request({
      method: 'PUT',
      url: `${PURCHASE}/update`,
      headers: t.auth,
      payload: { id: added.id, version: added.version, budget: '99999999.00' },
    });
    expect(raised.statusCode, raised.body).toBe(400);
    expect(errorsOf(raised)).toEqual([{ field: '/budget', message: '预算不能超过 1000000.00 元' }]);
    const [kept] = await purchasesTitled('At the limit');
    expect(compareDecimal(String(kept?.budget), '1000000')).toBe(0);
  });

  it('the schema patch adds a stored computed field (list, sort, export) and a cross-field rule', async () => {
    const added = await call('POST', `${PURCHASE}/add`, {
      title: 'Module computed',
      buyerName: 'Buyer',
      budget: '1000.50',
      publishTime: '2026-12-01T08:00:00Z',
      deadline: '2026-12-20T08:00:00Z',
    });
    expect(added.statusCode, added.body).toBe(200);
    // 1000.50 × 1.13 = 1130.565, rounded half away from zero to the field's two places
    expect(dataOf(added)).toMatchObject({ budgetWithTax: '1130.57' });
    const listed = await call('GET', `${PURCHASE}/query?title=Module computed&sort=-budgetWithTax`);
    expect(listed.statusCode, listed.body).toBe(200);
    expect(dataOf<{ records: Json[] }>(listed).records[0]).toMatchObject({ budgetWithTax: '1130.57' });
    const exported = await call('POST', `${PURCHASE}/export`, { title: 'Module computed' });
    expect(exported.statusCode).toBe(200);
    const id = dataOf<{ id: number }>(added).id;
    const version = dataOf<{ version: number }>(added).version;
    const updated = await call('PUT', `${PURCHASE}/update`, { id, version, budget: '2000.00' });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(
      await t.sql('select budget_with_tax::text as tax from portal_purchase where id = $1', [id]),
    ).toEqual([{ tax: '2260.00' }]);
    // The rule: a deadline before the publish time is refused on the deadline, in the caller's language.
    const early = await call('PUT', `${PURCHASE}/update`, {
      id,
      version: version + 1,
      deadline: '2026-11-30T08:00:00Z',
    });
    expect(early.statusCode).toBe(400);
    expect(errorsOf(early)).toContainEqual({
      field: '/deadline',
      message: 'The bid deadline may not be before the publish time',
    });
  });

  it('an afterChange hook writes another entity in the transaction; a later failing step undoes both', async () => {
    const published = await call('POST', `${PURCHASE}/add`, {
      title: 'Bridge repair',
      buyerName: 'City works',
      budget: '5000.00',
      published: true,
    });
    expect(published.statusCode, published.body).toBe(200);
    expect(await noticesTitled('Purchase published: Bridge repair')).toHaveLength(1);

    // purchase-extras writes its notice, then test-hooks' afterChange fails: nothing is left.
    const failed = await call('POST', `${PURCHASE}/add`, {
      title: 'FAIL road repair',
      buyerName: 'City works',
      budget: '5000.00',
      published: true,
    });
    expect(failed.statusCode).toBe(500);
    expect(await purchasesTitled('FAIL road repair')).toEqual([]);
    expect(await noticesTitled('Purchase published: FAIL road repair')).toEqual([]);
  });

  it('a restore from the recycle bin runs beforeChange (which may refuse) and afterChange, in its transaction', async () => {
    const added = await call('POST', `${PURCHASE}/add`, {
      title: 'Binned works',
      buyerName: 'City works',
      budget: '900000.00',
    });
    expect(added.statusCode, added.body).toBe(200);
    const id = String(dataOf(added).id);
    const deleted = await call('POST', `${PURCHASE}/delete?id=${id}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    const param = t.app.ctx.registry.require('sysparam');
    const setLimit = (limit: string) =>
      t.sql(`update ${param.table} set param_value = $1 where param_key = $2`, [limit, BUDGET_LIMIT_PARAM]);
    const inBin = async (): Promise<boolean> =>
      (await t.sql('select deleted_at from portal_purchase where id = $1', [Number(id)]))[0]?.deleted_at !==
      null;
    const restoredNotices = () => noticesTitled('Restored: Binned works (was Binned works, 0 changed)');
    try {
      // the limit went down while it was in the bin: purchase-extras' beforeChange refuses the restore
      await setLimit('500000.00');
      const refused = await call('POST', `${PURCHASE}/recycle/restore?id=${id}`);
      expect(refused.statusCode, refused.body).toBe(400);
      expect(errorsOf(refused)).toEqual([
        { field: '/budget', message: 'The budget may not exceed 500000.00 yuan' },
      ]);
      expect(await inBin()).toBe(true);
      expect(await restoredNotices()).toEqual([]);
    } finally {
      await setLimit('1000000.00');
    }
    const restored = await call('POST', `${PURCHASE}/recycle/restore?id=${id}`);
    expect(restored.statusCode, restored.body).toBe(200);
    expect(await inBin()).toBe(false);
    // test-hooks' afterChange ran with operation 'restore', the binned record as `before`
    expect(await restoredNotices()).toHaveLength(1);
  });

  it('the close endpoint closes a purchase, refuses one already closed, and is in the API document', async () => {
    const added = dataOf(
      await call('POST', `${PURCHASE}/add`, {
        title: 'To close',
        buyerName: 'City works',
        deadline: new Date(Date.now() + 10 * 86_400_000).toISOString(),
      }),
    );
    const before = Date.now();
    const closed = await call('POST', `${PURCHASE}/close`, { id: added.id });
    expect(closed.statusCode, closed.body).toBe(200);
    const answer = dataOf<{ id: number; deadline: string }>(closed);
    expect(answer.id).toBe(added.id);
    expect(Date.parse(answer.deadline)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(answer.deadline)).toBeLessThanOrEqual(Date.now());
    const [stored] = await purchasesTitled('To close');
    expect((stored?.deadline as Date).getTime()).toBe(Date.parse(answer.deadline));

    const again = await call('POST', `${PURCHASE}/close`, { id: added.id });
    expect(again.statusCode).toBe(400);
    expect(errorsOf(again)).toEqual([{ field: '/id', message: 'This purchase is already closed' }]);
    const badBody = await call('POST', `${PURCHASE}/close`, { id: 'x' });
    expect(badBody.statusCode).toBe(400);
    expect(errorsOf(badBody).map((error) => error.field)).toEqual(['/id']);
    const missing = await call('POST', `${PURCHASE}/close`, { id: 999_999 });
    expect(missing.statusCode).toBe(404);

    const document = (
      await t.request({ method: 'GET', url: '/api/openapi.json', headers: t.auth })
    ).json() as {
      paths: Record<string, Record<string, { summary?: string; requestBody?: unknown }>>;
    };
    const route = document.paths[`${PURCHASE}/close`]?.post;
    expect(route?.summary).toBe("Closes a purchase's bidding now (its deadline becomes the present moment)");
    expect(route?.requestBody).toBeDefined();
  });

  it('the endpoint is under the one permission policy: refused without the URL grant, allowed with it', async () => {
    const role = await call('POST', '/api/admin/sysrole/add', {
      roleCode: 'ROLE_CLOSER',
      roleName: 'Closer',
    });
    expect(role.statusCode, role.body).toBe(200);
    const closer = await createUserWithRole(t, 'closer1', 'ROLE_CLOSER');
    const added = dataOf(
      await call('POST', `${PURCHASE}/add`, {
        title: 'Closed by a closer',
        buyerName: 'City works',
        deadline: new Date(Date.now() + 86_400_000).toISOString(),
      }),
    );
    const refused = await call('POST', `${PURCHASE}/close`, { id: added.id }, closer.token);
    expect(refused.statusCode).toBe(403);

    const url = await call('POST', '/api/admin/sysurl/add', {
      url: `${PURCHASE}/**`,
      description: 'purchases',
    });
    expect(url.statusCode, url.body).toBe(200);
    const granted = await call('POST', '/api/admin/sysurl/authorizeRoleToUrl', {
      urlId: dataOf(url).id,
      roleIds: [dataOf(role).id],
    });
    expect(granted.statusCode, granted.body).toBe(200);
    const allowed = await call('POST', `${PURCHASE}/close`, { id: added.id }, closer.token);
    expect(allowed.statusCode, allowed.body).toBe(200);
  });

  it('hooks run for every row of an import: a refused row names its field, nothing is written', async () => {
    const refused = await importFile(
      `${PURCHASE}/import`,
      csv([
        ['title', 'buyerName', 'budget', 'published'],
        ['Imported one', 'Port authority', '100.00', 'true'],
        ['Imported two', 'Port authority', '2000000.00', 'true'],
      ]),
    );
    expect(refused.statusCode, refused.body).toBe(400);
    // an import's problem starts with the field's title (the hook's message after it)
    expect(errorsOf(refused)).toEqual([
      { field: '/3/budget', message: 'Budget: The budget may not exceed 1000000.00 yuan' },
    ]);
    expect(await purchasesTitled('Imported one')).toEqual([]);

    // A dry run checks with the hooks and writes nothing, not even what afterChange would write.
    const dryRun = await importFile(
      `${PURCHASE}/import?dryRun=true`,
      csv([
        ['title', 'buyerName', 'budget', 'published'],
        ['Imported one', 'Port authority', '100.00', 'true'],
        ['Imported two', 'Port authority', '2000000.00', 'true'],
      ]),
    );
    expect(dryRun.statusCode, dryRun.body).toBe(200);
    expect(dataOf<{ problems: { row: number; field: string }[] }>(dryRun).problems).toEqual([
      expect.objectContaining({ row: 3, field: 'budget' }),
    ]);

    const imported = await importFile(
      `${PURCHASE}/import`,
      csv([
        ['title', 'buyerName', 'budget', 'published'],
        ['Imported one', 'Port authority', '100.00', 'true'],
        ['Imported two', 'Port authority', '1000000.00', 'true'],
      ]),
    );
    expect(imported.statusCode, imported.body).toBe(200);
    expect(dataOf(imported)).toMatchObject({ imported: 2 });
    // afterChange ran per row, in the import's transaction.
    expect(await noticesTitled('Purchase published: Imported one')).toHaveLength(1);
    expect(await noticesTitled('Purchase published: Imported two')).toHaveLength(1);
  });

  it("hooks run for a published designed form's add, update, delete and import", async () => {
    const form = await call('POST', '/api/generator/form/add', {
      formCode: 'trip',
      formName: 'Business trip',
      formContent: {
        title: 'Business trip',
        type: 'object',
        required: ['traveller'],
        properties: {
          traveller: { type: 'string', title: 'Traveller', maxLength: 40 },
          days: { type: 'integer', title: 'Days', minimum: 1 },
          code: { type: 'string', title: 'Code', maxLength: 60 },
        },
      },
    });
    expect(form.statusCode, form.body).toBe(200);
    // x-ui.widget accepts the widget purchase-extras registers; an unknown name is still refused.
    const withWidget = (widget: string) =>
      call('POST', '/api/generator/form/check', {
        id: dataOf(form).id,
        formContent: {
          type: 'object',
          properties: { budget: { type: 'string', title: 'Budget', 'x-ui': { widget } } },
        },
      });
    expect(dataOf(await withWidget('budgetMeter'))).toMatchObject({ isValid: true, errors: [] });
    expect(dataOf<{ errors: { field: string }[] }>(await withWidget('noSuchWidget')).errors).toEqual([
      expect.objectContaining({ field: '/formContent/properties/budget/x-ui/widget' }),
    ]);
    const published = await call('POST', '/api/generator/form/publish', {
      id: dataOf(form).id,
      menuParent: 'formgenerator',
      icon: 'car',
      roles: [],
    });
    expect(published.statusCode, published.body).toBe(200);

    const tooLong = await call('POST', '/api/online/trip/add', { traveller: 'ann', days: 11 });
    expect(tooLong.statusCode, tooLong.body).toBe(400);
    expect(errorsOf(tooLong)).toEqual([{ field: '/days', message: 'At most 10 days' }]);
    const added = await call('POST', '/api/online/trip/add', { traveller: 'ann', days: 3 });
    expect(added.statusCode, added.body).toBe(200);
    expect(dataOf(added)).toMatchObject({ traveller: 'ann', days: 3, code: 'T-ANN' });
    const longer = await call('PUT', '/api/online/trip/update', {
      id: dataOf(added).id,
      version: dataOf(added).version,
      days: 12,
    });
    expect(longer.statusCode).toBe(400);
    expect(errorsOf(longer).map((error) => error.field)).toEqual(['/days']);

    const kept = dataOf(await call('POST', '/api/online/trip/add', { traveller: 'keep', days: 1 }));
    const deleteKept = await call('POST', `/api/online/trip/delete?id=${String(kept.id)}`);
    expect(deleteKept.statusCode).toBe(400);
    expect(await t.sql('select id from online_trip where id = $1', [kept.id])).toHaveLength(1);

    const imported = await importFile(
      '/api/online/trip/import',
      csv([
        ['traveller', 'days'],
        ['bob', '2'],
        ['cy', '14'],
      ]),
    );
    expect(imported.statusCode).toBe(400);
    expect(errorsOf(imported)).toEqual([{ field: '/3/days', message: 'Days: At most 10 days' }]);
    const good = await importFile(
      '/api/online/trip/import',
      csv([
        ['traveller', 'days'],
        ['bob', '2'],
      ]),
    );
    expect(good.statusCode, good.body).toBe(200);
    expect(await t.sql('select code from online_trip where traveller = $1', ['bob'])).toEqual([
      { code: 'T-BOB' },
    ]);
  });

  it("the modules' jobs run when due, each by one round at a time; a throw or a run past its budget is logged and kept, not thrown", async () => {
    const title = `Job count ${Date.now()}`;
    const added = await call('POST', `${PURCHASE}/add`, {
      title,
      buyerName: 'Buyer',
      deadline: '2099-01-01T10:00:00Z',
    });
    expect(added.statusCode, added.body).toBe(200);
    const now = new Date();
    const log = t.app.log;
    const ran = await runDueJobs({ ctx: t.app.ctx, log, now });
    // the framework's own jobs (the events' and the recycle bins' purges) and the fixtures'
    const keys = [
      'event-retention:purge',
      'purchase-extras:count-open',
      'recycle-bin:purge',
      'test-hooks:fails',
      'test-hooks:slow',
    ];
    expect(ran.sort()).toEqual(keys);
    // the fixture's job counted the default tenant's open purchases, the new one among them
    const [counted] = await t.sql(
      'select count(*)::int as open from portal_purchase where tenant_code = $1 and deadline > $2 and deleted_at is null',
      ['default', now],
    );
    expect(counted?.open).toBeGreaterThanOrEqual(1);
    expect(openPurchases.get('default')).toBe(counted?.open);
    const jobs = async (): Promise<Json[]> =>
      t.sql('select job_key, runs, last_error from sys_module_job order by job_key');
    expect(await jobs()).toEqual([
      { job_key: 'event-retention:purge', runs: 1, last_error: null },
      { job_key: 'purchase-extras:count-open', runs: 1, last_error: null },
      { job_key: 'recycle-bin:purge', runs: 1, last_error: null },
      { job_key: 'test-hooks:fails', runs: 1, last_error: 'the job failed on purpose' },
      { job_key: 'test-hooks:slow', runs: 1, last_error: 'the run took longer than its budget of 1000 ms' },
    ]);

    // not due again before its everySeconds
    expect(await runDueJobs({ ctx: t.app.ctx, log, now: new Date(now.getTime() + 500) })).toEqual([]);
    // two rounds at once (two processes): each due job is run by one of them
    const later = new Date(now.getTime() + 301_000);
    const rounds = await Promise.all([
      runDueJobs({ ctx: t.app.ctx, log, now: later }),
      runDueJobs({ ctx: t.app.ctx, log, now: later }),
    ]);
    // (the purges are due every hour: not yet)
    expect(rounds.flat().sort()).toEqual(keys.filter((key) => !key.endsWith(':purge')));
    expect((await jobs()).map((job) => job.runs)).toEqual([1, 2, 1, 2, 2]);
  });
});
