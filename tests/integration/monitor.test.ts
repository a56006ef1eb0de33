import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneMonitorRows } from '../../src/server/features/monitor/services/request-log.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';

const METRICS_TOKEN = 'scraper-token-0123456789abcdef';
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { METRICS_TOKEN } });
});
afterAll(async () => {
  await t.close();
});

describe('metrics', () => {
  it('serves Prometheus text that counts a request made here, by route pattern', async () => {
    const countOf = async (): Promise<number> => {
      const answer = await t.request({
        method: 'GET',
        url: '/api/metrics',
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.headers['content-type']).toContain('text/plain');
      const families = parsePrometheusTextFormat(answer.body);
      expect(families.map((family) => family.name)).toEqual(
        expect.arrayContaining([
          'process_cpu_user_seconds_total',
          'nodejs_eventloop_lag_seconds',
          'http_request_duration_seconds',
          'db_query_duration_seconds',
          'active_sessions',
        ]),
      );
      const requests = families.find((family) => family.name === 'http_requests_total');
      const sample = requests?.metrics.find(
        (metric) =>
          metric.labels?.route === '/api/admin/sysuser/query' &&
          metric.labels.method === 'GET' &&
          metric.labels.status === '200',
      );
      return Number(sample?.value ?? 0);
    };
    const before = await countOf();
    const listed = await t.request({
      method: 'GET',
      url: '/api/admin/sysuser/query?currentPage=1&pageSize=5',
      headers: t.auth,
    });
    expect(listed.statusCode).toBe(200);
    expect(await countOf()).toBe(before + 1);
  });

  it('refuses a wrong scraper token and a user without the URL grant, and takes the admin', async () => {
    const wrong = await t.request({
      method: 'GET',
      url: '/api/metrics',
      headers: { authorization: 'Bearer wrong-token-0123456789abcdef' },
    });
    expect(wrong.statusCode).toBe(401);
    const buyer = await createUserWithRole(t, 'metricsbuyer', 'ROLE_SYS_BUYER');
    const refused = await t.request({
      method: 'GET',
      url: '/api/metrics',
      headers: { authorization: `Bearer ${buyer.token}` },
    });
    expect(refused.statusCode).toBe(403);
    const admin = await t.request({ method: 'GET', url: '/api/metrics', headers: t.auth });
    expect(admin.statusCode).toBe(200);
  });

  it('gives the dashboard the current interval and per-route percentiles', async () => {
    const answer = await t.request({
      method: 'GET',
      url: '/api/monitor/metrics/samples?minutes=5',
      headers: t.auth,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const data = answer.json().data as {
      current: { requests: number };
      routes: { route: string; p95: number; count: number }[];
    };
    expect(data.current.requests).toBeGreaterThan(0);
    const route = data.routes.find((candidate) => candidate.route === '/api/admin/sysuser/query');
    expect(route?.count).toBeGreaterThan(0);
    expect(route?.p95).toBeGreaterThan(0);
  });
});

describe('request logs', () => {
  it('echoes X-Request-Id and finds the log line of that id', async () => {
    const listed = await t.request({ method: 'GET', url: '/api/admin/sysrole/query', headers: t.auth });
    const requestId = listed.headers['x-request-id'];
    expect(typeof requestId).toBe('string');
    const found = await t.request({
      method: 'GET',
      url: `/api/monitor/logs/query?requestId=${String(requestId)}`,
      headers: t.auth,
    });
    expect(found.statusCode, found.body).toBe(200);
    const rows = found.json().data as Record<string, unknown>[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      requestId,
      username: 'admin',
      tenantCode: 'default',
      route: '/api/admin/sysrole/query',
      method: 'GET',
      status: 200,
      level: 'info',
    });
  });

  it('searches by status and text, and refuses a bad status naming the field', async () => {
    await t.request({ method: 'GET', url: '/api/admin/sysuser/query?sort=nosuchfield', headers: t.auth });
    const found = await t.request({
      method: 'GET',
      url: '/api/monitor/logs/query?status=400&text=sysuser',
      headers: t.auth,
    });
    const rows = found.json().data as { status: number; level: string; path: string }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(
      rows.every((row) => row.status === 400 && row.level === 'warn' && row.path.includes('sysuser')),
    ).toBe(true);
    const bad = await t.request({
      method: 'GET',
      url: '/api/monitor/logs/query?status=abc',
      headers: t.auth,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('status');
  });

  it('prunes rows older than the retention param in batches', async () => {
    const setting = await t.request({
      method: 'PUT',
      url: '/api/monitor/settings',
      headers: t.auth,
      payload: { name: 'logRetentionDays', value: 2 },
    });
    expect(setting.statusCode, setting.body).toBe(200);
    await t.sql(`insert into sys_request_log (at, level, instance, request_id, method, path, status, duration_ms)
      select now() - interval '3 days', 'info', 'old', 'old-' || n, 'GET', '/api/old', 200, 1 from generate_series(1, 25) n`);
    await t.sql(`insert into sys_request_log (at, level, instance, request_id, method, path, status, duration_ms)
      values (now() - interval '1 day', 'info', 'recent', 'recent-1', 'GET', '/api/recent', 200, 1)`);
    const pruned = await pruneMonitorRows({ ctx: t.app.ctx, batchSize: 10 });
    expect(pruned.logs).toBe(25);
    const left = await t.sql<{ instance: string }>(
      `select instance from sys_request_log where instance in ('old', 'recent')`,
    );
    expect(left).toEqual([{ instance: 'recent' }]);
  });
});

describe('audit trail', () => {
  it('returns the fields an update changed, before and after', async () => {
    const added = await t.request({
      method: 'POST',
      url: '/api/admin/sysparam/add',
      headers: t.auth,
      payload: { paramName: 'Audited', paramKey: 'auditedParam', paramValue: 'one' },
    });
    expect(added.statusCode, added.body).toBe(200);
    const record = added.json().data as { id: number; version: number };
    const updated = await t.request({
      method: 'PUT',
      url: '/api/admin/sysparam/update',
      headers: t.auth,
      payload: {
        id: record.id,
        version: record.version,
        paramName: 'Audited',
        paramKey: 'auditedParam',
        paramValue: 'two',
      },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    const history = await t.request({
      method: 'GET',
      url: `/api/monitor/audit/query?entity=sysparam&recordKey=${record.id}`,
      headers: t.auth,
    });
    expect(history.statusCode, history.body).toBe(200);
    const rows = history.json().data.records as { action: string; username: string; changes: unknown[] }[];
    expect(rows.map((row) => row.action)).toEqual(['update', 'add']);
    expect(rows[0]?.username).toBe('admin');
    expect(rows[0]?.changes).toEqual([{ field: 'paramValue', before: 'one', after: 'two' }]);
  });
});

describe('flow control and database', () => {
  it('lists every rule with its limit and applies an edit on the next request', async () => {
    const edited = await t.request({
      method: 'PUT',
      url: '/api/monitor/flowcontrol/rule',
      headers: t.auth,
      payload: { name: 'captcha', limit: 2 },
    });
    expect(edited.statusCode, edited.body).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const answer = await t.request({
        method: 'GET',
        url: '/api/account/captcha/getCharCaptcha',
        remoteAddress: '10.9.8.7',
      });
      statuses.push(answer.statusCode);
    }
    expect(statuses).toEqual([200, 200, 429]);
    const rules = await t.request({ method: 'GET', url: '/api/monitor/flowcontrol/rules', headers: t.auth });
    const list = rules.json().data as {
      name: string;
      limit: number;
      source: string;
      rejections: number;
      rejectionsPerMinute: number;
    }[];
    expect(list.map((rule) => rule.name)).toEqual([
      'token',
      'captcha',
      'signInFailures',
      'smsDaily',
      'smsInterval',
    ]);
    expect(list.find((rule) => rule.name === 'captcha')).toMatchObject({
      limit: 2,
      source: 'param',
      rejections: 1,
      rejectionsPerMinute: 1,
    });
    const bad = await t.request({
      method: 'PUT',
      url: '/api/monitor/flowcontrol/rule',
      headers: t.auth,
      payload: { name: 'captcha', limit: 0 },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('limit');
  });

  it('goes back to the default limit on null (issue 39 point 10)', async () => {
    const listed = async (): Promise<{ limit: number; source: string } | undefined> => {
      const rules = await t.request({
        method: 'GET',
        url: '/api/monitor/flowcontrol/rules',
        headers: t.auth,
      });
      return (rules.json().data as { name: string; limit: number; source: string }[]).find(
        (rule) => rule.name === 'captcha',
      );
    };
    const put = (limit: number | null) =>
      t.request({
        method: 'PUT',
        url: '/api/monitor/flowcontrol/rule',
        headers: t.auth,
        payload: { name: 'captcha', limit },
      });
    expect((await put(null)).statusCode).toBe(200);
    const byDefault = await listed();
    expect(byDefault?.source).toBe('environment');
    expect((await put(7)).statusCode).toBe(200);
    expect(await listed()).toMatchObject({ limit: 7, source: 'param' });
    const reset = await put(null);
    expect(reset.statusCode, reset.body).toBe(200);
    expect(reset.json().data).toEqual({ name: 'captcha', limit: byDefault?.limit });
    expect(await listed()).toMatchObject({ limit: byDefault?.limit, source: 'environment' });
  });

  it('reports table sizes and the statements slower than the threshold, without values', async () => {
    await t.request({
      method: 'PUT',
      url: '/api/monitor/settings',
      headers: t.auth,
      payload: { name: 'slowQueryMs', value: 1 },
    });
    // A statement of at least 1 ms: on an idle machine one user query may take less, so the
    // whole region tree (hundreds of rows) is read too, a few times if need be.
    await t.request({ method: 'GET', url: '/api/admin/sysuser/query?username=admin', headers: t.auth });
    let answer = await t.request({ method: 'GET', url: '/api/monitor/database', headers: t.auth });
    for (let attempt = 0; attempt < 10 && answer.json().data.slowStatements.length === 0; attempt += 1) {
      await t.request({ method: 'GET', url: '/api/admin/sysregion/querySysRegionTree', headers: t.auth });
      answer = await t.request({ method: 'GET', url: '/api/monitor/database', headers: t.auth });
    }
    expect(answer.statusCode, answer.body).toBe(200);
    const report = answer.json().data as {
      kind: string;
      tables: { table: string; bytes: number }[];
      slowStatements: { sql: string; parameters: string }[];
      activity: unknown[];
    };
    expect(report.kind).toBe(process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite');
    expect(report.tables.find((table) => table.table === 'sys_user')?.bytes).toBeGreaterThan(0);
    expect(report.slowStatements.length).toBeGreaterThan(0);
    expect(JSON.stringify(report.slowStatements)).not.toContain("'admin'");
    if (report.kind === 'postgres') expect(report.activity.length).toBeGreaterThan(0);
  });

  it('names the known params of the tenant by the name they are stored under, not those added by hand', async () => {
    const added = await t.request({
      method: 'POST',
      url: '/api/admin/sysparam/add',
      headers: t.auth,
      payload: { paramKey: 'custom.handMade', paramName: '我的参数 My param', paramValue: '1' },
    });
    expect(added.statusCode, added.body).toBe(200);
    // A hand-added key that is a group of the locales (params.rateLimit) is no known param either.
    const group = await t.request({
      method: 'POST',
      url: '/api/admin/sysparam/add',
      headers: t.auth,
      payload: { paramKey: 'rateLimit', paramName: 'Group-named', paramValue: '1' },
    });
    expect(group.statusCode, group.body).toBe(200);
    const answer = await t.request({ method: 'GET', url: '/api/monitor/config', headers: t.auth });
    const names = answer.json().data.paramNames as Record<string, string>;
    const [seeded] = await t.sql<{ name: string }>(
      `select param_name as name from sys_param where param_key = 'hotline' and tenant_code = 'default'`,
    );
    expect(names.hotline).toBe(seeded?.name);
    expect(names.hotline).toBe('服务热线');
    expect(names).not.toHaveProperty(['custom.handMade']);
    expect(names).not.toHaveProperty('rateLimit');
  });

  it('shows the effective configuration with secrets masked', async () => {
    const answer = await t.request({ method: 'GET', url: '/api/monitor/config', headers: t.auth });
    const entries = answer.json().data.entries as { name: string; value: string; source: string }[];
    expect(entries.find((entry) => entry.name === 'METRICS_TOKEN')).toMatchObject({ value: '******' });
    expect(answer.body).not.toContain(METRICS_TOKEN);
  });
});
