import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import { apiClient, signedIn, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * The monitoring pages (issue 17) in Chromium against the real server, after some traffic: the
 * metrics dashboard draws every chart, the database, flow-control and config pages show real
 * figures, the API reference calls an endpoint with the signed-in token, the log search finds a
 * request by its id, and the audit trail shows an update's diff, also from a list's record action.
 */

const VIEWPORT = { width: 1360, height: 900 };
const SHOTS = '/tmp/shots-monitor';
const FIGURES = ['rps', 'latency', 'errorRate', 'heapMb', 'loopLagMs', 'dbAvgMs', 'activeSessions', 'pool'];

/** Pixels of the chart's canvas in echarts' first series colour (#5470c6): a drawn line. */
async function seriesPixels(page: Page, testId: string): Promise<number> {
  return page.getByTestId(testId).evaluate((box) => {
    const canvas = box.querySelector('canvas');
    const context = canvas?.getContext('2d');
    if (!canvas || !context) return 0;
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    let count = 0;
    for (let i = 0; i < data.length; i += 4) {
      const [r = 0, g = 0, b = 0] = [data[i], data[i + 1], data[i + 2]];
      if (Math.abs(r - 84) < 24 && Math.abs(g - 112) < 24 && Math.abs(b - 198) < 24) count += 1;
    }
    return count;
  });
}

async function until(what: string, test: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await test()) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  assert.fail(`timed out waiting for ${what}`);
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let admin: ApiClient;
  let context: BrowserContext | undefined;
  let page: Page;
  const problems: string[] = [];
  const requestId = `e2e-monitor-${Date.now()}`;
  const failedId = `e2e-monitor-failed-${Date.now()}`;
  let paramId = 0;
  const url = (path: string): string => `${server.url}/admin${path}`;
  const shot = async (name: string): Promise<void> => {
    const path = `${screenshots}/monitor-${name}.png`;
    await page.screenshot({ path, fullPage: true });
    mkdirSync(SHOTS, { recursive: true });
    copyFileSync(path, `${SHOTS}/${name}.png`);
  };
  const visit = async (path: string): Promise<void> => {
    await page.goto(url(path));
    await page.getByTestId('page-title').first().waitFor();
  };

  return [
    {
      name: 'makes some traffic and signs the administrator in',
      run: async () => {
        admin = await apiClient(server.url, 'admin', server.adminPassword);
        for (let i = 0; i < 12; i += 1) {
          await admin.get('/api/admin/sysuser/query?currentPage=1&pageSize=10');
          await admin.get('/api/admin/sysrole/query');
          await admin.get('/api/admin/sysdict/query');
        }
        const added = await admin.post<{ id: number; version: number }>('/api/admin/sysparam/add', {
          paramName: 'E2E 监控参数',
          paramKey: 'e2eMonitorParam',
          paramValue: '旧值',
        });
        paramId = added.id;
        const updated = await fetch(`${server.url}/api/admin/sysparam/update`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            id: added.id,
            version: added.version,
            paramName: 'E2E 监控参数',
            paramKey: 'e2eMonitorParam',
            paramValue: '新值',
          }),
        });
        assert.equal(updated.status, 200);
        const traced = await fetch(`${server.url}/api/admin/sysmenu/query`, {
          headers: { authorization: `Bearer ${admin.token}`, 'x-request-id': requestId },
        });
        assert.equal(traced.headers.get('x-request-id'), requestId);
        const failed = await fetch(`${server.url}/api/monitor/logs/query?status=999`, {
          headers: { authorization: `Bearer ${admin.token}`, 'x-request-id': failedId },
        });
        assert.equal(failed.status, 400);
        await fetch(`${server.url}/api/monitor/settings`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'slowQueryMs', value: 1 }),
        });
        await admin.get('/api/admin/sysuser/query?currentPage=1&pageSize=10');
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: VIEWPORT,
        }));
        page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
        page.on('console', (message) => {
          if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text()))
            problems.push(`CSP: ${message.text()}`);
        });
      },
    },
    {
      name: 'metrics dashboard: every chart draws its series; routes sorted by p95',
      run: async () => {
        await visit('/monitor/metrics');
        // A stored sample (every 5 s) and the live point make a line.
        for (const figure of FIGURES) {
          await until(
            `chart ${figure} to draw`,
            async () => (await seriesPixels(page, `chart-${figure}`)) > 20,
          );
        }
        const rows = page.getByTestId('metrics-routes').locator('tr.ant-table-row');
        await rows.first().waitFor();
        assert.ok((await rows.count()) > 3, 'several routes listed');
        const p95 = await rows.evaluateAll((trs) =>
          trs.slice(0, 5).map((tr) => Number(tr.querySelectorAll('td')[5]?.textContent ?? 'NaN')),
        );
        assert.deepEqual(
          p95,
          [...p95].sort((a, b) => b - a),
          `sorted by p95: ${p95.join(', ')}`,
        );
        assert.ok(p95[0] !== undefined && p95[0] > 0);
        // The two error counts say what they count: server errors only, every failed answer.
        await page.locator('.ant-statistic-title').filter({ hasText: '服务端错误率（5xx）' }).waitFor();
        await page
          .getByTestId('metrics-routes')
          .getByRole('columnheader', { name: '失败数（≥400）' })
          .waitFor();
        // The instance selector: every live process, this one marked; choosing it keeps its routes.
        const selector = page.getByTestId('metrics-instance');
        await selector.getByText(/全部实例 \(1\)/).waitFor();
        await selector.click();
        await page.locator('.ant-select-item-option').filter({ hasText: '本实例' }).click();
        await page.getByTestId('metrics-routes').locator('tr.ant-table-row').first().waitFor();
        await shot('metrics');
        await expectNoAxeViolations(page, 'monitor/metrics');
      },
    },
    {
      name: 'database monitor: table sizes and rows, slow statements',
      run: async () => {
        await visit('/monitor/database');
        const tables = page.getByTestId('db-tables');
        await tables.locator('tr.ant-table-row').first().waitFor();
        assert.ok((await tables.locator('tr.ant-table-row').count()) > 0);
        await page.getByTestId('db-slow').locator('tr.ant-table-row').first().waitFor();
        await shot('database');
        await expectNoAxeViolations(page, 'monitor/database');
      },
    },
    {
      name: 'flow control: every rule listed; a limit edited on the page is in force',
      run: async () => {
        // Counted per client address (a one-minute window) on the page.
        for (let i = 0; i < 3; i += 1) await fetch(`${server.url}/api/account/captcha/getCharCaptcha`);
        await visit('/monitor/flowcontrol');
        const rows = page.getByTestId('flow-rules').locator('tr.ant-table-row');
        await rows.first().waitFor();
        assert.equal(await rows.count(), 5);
        const input = page.getByTestId('limit-captcha');
        await input.fill('25');
        await page.getByTestId('save-captcha').click();
        await page.locator('.ant-message-success').first().waitFor();
        const rules = await admin.get<{ name: string; limit: number; source: string }[]>(
          '/api/monitor/flowcontrol/rules',
        );
        assert.deepEqual(
          rules.find((rule) => rule.name === 'captcha'),
          { ...rules.find((rule) => rule.name === 'captcha'), limit: 25, source: 'param' },
        );
        // The live counter of this machine's address for the captcha calls, against the new limit.
        const counter = page
          .getByTestId('flow-counters')
          .locator('tr.ant-table-row')
          .filter({ hasText: '/api/account/captcha/getCharCaptcha' })
          .filter({ hasText: '127.0.0.1' });
        await until('the captcha counter with the new limit', async () =>
          /\b\d+ \/ 25\b/.test(
            (await counter
              .first()
              .textContent()
              .catch(() => '')) ?? '',
          ),
        );
        await counter.first().getByText('验证码、短信、注册、找回').waitFor();
        await shot('flowcontrol');
        await expectNoAxeViolations(page, 'monitor/flowcontrol');
        await fetch(`${server.url}/api/monitor/flowcontrol/rule`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'captcha', limit: 30 }),
        });
      },
    },
    {
      name: 'config centre: params with history, effective configuration with sources',
      run: async () => {
        await visit('/monitor/configcenter');
        await page.getByTestId('config-params').locator('tr.ant-table-row').first().waitFor();
        // The params the monitoring pages make are named through the locales (Chinese here).
        await page.getByTestId('config-params').getByText('监控：慢语句阈值（毫秒）').waitFor();
        const made = await admin.get<{ records: { paramName: string }[] }>(
          '/api/admin/sysparam/query?paramKey=rateLimit.captcha',
        );
        assert.equal(made.records[0]?.paramName, '限流：验证码、短信、注册、找回（次/分钟/地址）');
        await page.getByTestId('history-e2eMonitorParam').click();
        const history = page.getByTestId('audit-history');
        await history.getByText('新值').waitFor();
        await history.getByText('旧值').first().waitFor();
        await shot('configcenter-history');
        await page.locator('.ant-drawer-close').click();
        await page.locator('.ant-tabs-tab').nth(2).click();
        const effective = page.getByTestId('config-effective');
        await effective.getByText('DATABASE_URL').waitFor();
        await effective.getByText('PRODUCT').waitFor();
        await shot('configcenter');
        await expectNoAxeViolations(page, 'monitor/configcenter');
      },
    },
    {
      name: 'API reference: loads the document and "try it" calls getSysUser with the token',
      run: async () => {
        await visit('/monitor/apidoc');
        await page.locator('#operations-tag-auth').click({ timeout: 60_000 });
        // Swagger UI breaks long paths with <wbr>: the path is read from its data-path.
        const block = page.locator('.opblock:has([data-path="/api/uaa/users/getSysUser"])').first();
        await block.waitFor({ timeout: 60_000 });
        await block.locator('.opblock-summary-control').first().click();
        const tryIt = block.getByRole('button', { name: /try it out/i });
        if ((await tryIt.count()) > 0) await tryIt.click();
        await block.getByRole('button', { name: /execute/i }).click();
        const status = block.locator('.live-responses-table tr.response .response-col_status').first();
        await status.waitFor();
        assert.equal((await status.textContent())?.trim().slice(0, 3), '200');
        await block.locator('.live-responses-table').getByText('"username": "admin"').first().waitFor();
        await shot('apidoc');
      },
    },
    {
      name: 'log search: a request id finds its line; live tail shows new requests',
      run: async () => {
        await visit('/distributedlog/elk');
        await page.getByTestId('log-rows').locator('tr.ant-table-row').first().waitFor();
        await page.getByTestId('log-request-id').fill(requestId);
        await page.getByTestId('log-search').click();
        const rows = page.getByTestId('log-rows').locator('tr.ant-table-row');
        await until('the one traced line', async () => (await rows.count()) === 1);
        await rows.first().getByText('/api/admin/sysmenu/query').waitFor();
        // A failed request keeps the error's text in the message column.
        await page.getByTestId('log-request-id').fill(failedId);
        await page.getByTestId('log-search').click();
        await until(
          'the failed line',
          async () =>
            (await rows.count()) === 1 && (await rows.first().textContent())?.includes('400') === true,
        );
        await rows
          .first()
          .getByText(/\/status/)
          .waitFor();
        await shot('logs-error');
        await page.getByTestId('log-request-id').fill('');
        await page.getByTestId('log-search').click();
        await page.getByTestId('log-tail').click();
        await admin.get('/api/admin/syspost/query');
        await page.getByTestId('log-rows').getByText('/api/admin/syspost/query').first().waitFor();
        await page.getByTestId('log-tail').click();
        await shot('logs');
        await expectNoAxeViolations(page, 'distributedlog/elk');
      },
    },
    {
      name: 'audit trail: filters by entity and record and shows the diff; a list opens a record history',
      run: async () => {
        await visit(`/monitor/audit?entity=sysparam&recordKey=${paramId}`);
        const rows = page.getByTestId('audit-rows').locator('tr.ant-table-row');
        await until('two audit rows', async () => (await rows.count()) === 2);
        await rows.first().locator('.ant-table-row-expand-icon').click();
        await page.getByTestId('audit-rows').getByText('新值').waitFor();
        await shot('audit');
        await expectNoAxeViolations(page, 'monitor/audit');
        await visit('/sysparam');
        const row = page
          .getByTestId('entity-table')
          .locator('tr.ant-table-row')
          .filter({ hasText: 'e2eMonitorParam' });
        await row.first().waitFor();
        await row.first().locator('.ant-checkbox-input').first().check();
        await page.getByTestId('entity-action-history').click();
        const drawer = page.locator('.ant-drawer-content');
        await drawer.getByTestId('audit-history').getByText('新值').waitFor();
        await shot('record-history');
        assert.deepEqual(problems, []);
        await context?.close();
      },
    },
  ];
}
