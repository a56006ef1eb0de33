import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import { stillPopconfirm } from './entity-driver.js';
import { chooseOption } from './select.js';
import { apiClient, signedIn, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * The demo chart gallery, the four big screens and the report designer (issue 18) in Chromium
 * against the real server: every page draws from the tenant's real data with no page error and
 * passes axe; the big screens are captured at 1920×1080 and in a small window; a report designed
 * on the page is previewed, saved as a menu page, opened from the sidebar and deleted.
 */

const CHARTS: [string, string[]][] = [
  ['/charts/line', ['chart-signins']],
  ['/charts/bar', ['chart-purchases-category', 'chart-users-org']],
  ['/charts/pie', ['chart-users-org', 'chart-notices-category']],
  ['/charts/mix', ['chart-purchases-month']],
];
const SCREENS = ['construction', 'electronic', 'maintenance', 'dataanalysis'];

/** Whether the chart's canvas has drawn something (pixels that are not the background). */
async function drawnPixels(page: Page, testId: string): Promise<number> {
  return page
    .getByTestId(testId)
    .first()
    .evaluate((box) => {
      const canvas = box.querySelector('canvas');
      const context = canvas?.getContext('2d');
      if (!canvas || !context || canvas.width === 0) return 0;
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      let count = 0;
      for (let i = 0; i < data.length; i += 16) if ((data[i + 3] ?? 0) > 0) count += 1;
      return count;
    });
}

async function until(what: string, test: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await test()) return;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  assert.fail(`timed out waiting for ${what}`);
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let admin: ApiClient;
  let context: BrowserContext | undefined;
  let page: Page;
  const problems: string[] = [];
  const url = (path: string): string => `${server.url}/admin${path}`;
  // after the charts' entry animation (about a second)
  const shot = async (name: string, fullPage = true): Promise<void> => {
    await page.waitForTimeout(1500);
    await page.screenshot({ path: `${screenshots}/demo-charts-${name}.png`, fullPage });
  };
  const visit = async (path: string): Promise<void> => {
    await page.goto(url(path));
    await page.getByTestId('page-title').first().waitFor();
  };
  const drawn = (testId: string) =>
    until(`${testId} to draw`, async () => (await drawnPixels(page, testId)) > 50);

  return [
    {
      name: 'signs the administrator in',
      run: async () => {
        admin = await apiClient(server.url, 'admin', server.adminPassword);
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
        }));
        page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
        page.on('console', (message) => {
          if (message.type() === 'error') problems.push(`console: ${message.text()}`);
        });
      },
    },
    {
      name: 'chart gallery: line, bar, pie and mixed charts draw the tenant’s figures, from the 组件示例 menu',
      run: async () => {
        await page.goto(url('/workbench'));
        await page.getByTestId('workbench').waitFor();
        const sidebar = page.locator('.ant-layout-sider');
        await sidebar.getByText('组件示例').click();
        await sidebar.getByText('图表', { exact: true }).click();
        await sidebar.getByText('折线图').click();
        await page.waitForURL(/\/admin\/charts\/line$/);
        for (const [path, charts] of CHARTS) {
          if (!page.url().endsWith(path)) await visit(path);
          for (const chart of charts) await drawn(chart);
          await shot(path.slice(1).replace('/', '-'));
          await expectNoAxeViolations(page, path);
        }
        const figures = await admin.get<{ totals: { purchases: number } }>('/api/demo/dashboard');
        assert.ok(figures.totals.purchases > 0, 'the seeded purchases are counted');
        assert.deepEqual(problems, []);
      },
    },
    {
      name: 'big screens: 1920×1080 dashboards scaled to the window, dark, with a gauge and live figures',
      run: async () => {
        const figures = await admin.get<{ totals: { purchases: number; notices: number } }>(
          '/api/demo/dashboard',
        );
        for (const name of SCREENS) {
          await visit(`/bigscreen/${name}`);
          const host = page.getByTestId(`bigscreen-${name}`);
          await host.waitFor();
          const charts = host.locator('.bigscreen-chart');
          await until(`${name}: every chart drawn`, async () => {
            const count = await charts.count();
            if (count < 4) return false;
            const pixels = await charts.evaluateAll((boxes) =>
              boxes.map((box) => {
                const canvas = box.querySelector('canvas');
                const ctx = canvas?.getContext('2d');
                if (!canvas || !ctx || canvas.width === 0) return 0;
                const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
                let n = 0;
                for (let i = 3; i < data.length; i += 64) if ((data[i] ?? 0) > 0) n += 1;
                return n;
              }),
            );
            return pixels.every((n) => n > 20);
          });
          // Scaled into the host: the stage is 1920 px wide at its scale.
          const fit = await host.evaluate((element) => {
            const stage = element.querySelector<HTMLElement>('.bigscreen-stage');
            const hostBox = element.getBoundingClientRect();
            const stageBox = stage?.getBoundingClientRect();
            return {
              host: hostBox.width,
              hostHeight: hostBox.height,
              stage: stageBox?.width ?? 0,
              stageHeight: stageBox?.height ?? 0,
            };
          });
          assert.ok(
            fit.stage <= fit.host + 1 && fit.stageHeight <= fit.hostHeight + 1,
            `${name} fits: ${JSON.stringify(fit)}`,
          );
          assert.ok(fit.stage > fit.host * 0.6, `${name} uses the width: ${JSON.stringify(fit)}`);
          const stats = await host.locator('.bigscreen-stat-value').allInnerTexts();
          assert.equal(stats.length, 4, `${name}: four figures`);
          if (name === 'construction')
            assert.equal(stats[0]?.replace(/,/g, ''), String(figures.totals.purchases));
          if (name === 'electronic')
            assert.equal(stats[0]?.replace(/,/g, ''), String(figures.totals.notices));
          await host.getByText(/数据更新于/).waitFor();
          // the gauge: a canvas of the gauge panel
          await host
            .locator('.bigscreen-panel')
            .filter({ hasText: /率|占全年比/ })
            .first()
            .locator('canvas')
            .waitFor();
          if (name === 'construction' || name === 'dataanalysis') {
            // the map of China: the provinces drawn, coloured by the purchases per province
            await host.getByText('采购项目分布（省份）').waitFor();
            await until(`${name}: map drawn`, async () => (await drawnPixels(page, 'bigscreen-map')) > 2000);
          }
          await page.waitForTimeout(1500);
          await host.screenshot({ path: `${screenshots}/demo-charts-bigscreen-${name}.png` });
          await expectNoAxeViolations(page, `bigscreen/${name}`);
        }
        // Nothing went to the error log: no red bug in the top bar (a resize notice is no error).
        assert.equal(await page.locator('.admin-bug').count(), 0, 'the error log stays empty');
        // The designed size: the stage at scale 1 in a 1920×1080 window, in full screen.
        await page.setViewportSize({ width: 1920, height: 1080 });
        await visit('/bigscreen/dataanalysis');
        const host = page.getByTestId('bigscreen-dataanalysis');
        await host.getByRole('button', { name: '全屏' }).click();
        await until(
          'full screen',
          async () => page.evaluate(() => document.fullscreenElement !== null),
          5_000,
        ).catch(() => undefined);
        await until(
          'charts drawn at full size',
          async () => (await drawnPixels(page, 'bigscreen-months')) > 50,
        );
        await until('map drawn at full size', async () => (await drawnPixels(page, 'bigscreen-map')) > 5000);
        await shot('bigscreen-fullscreen', false);
        await page.evaluate(() => (document.fullscreenElement ? document.exitFullscreen() : undefined));
        // A small window: the stage scales down, the map with it.
        await page.setViewportSize({ width: 1024, height: 640 });
        await visit('/bigscreen/construction');
        await until(
          'map drawn in a small window',
          async () => (await drawnPixels(page, 'bigscreen-map')) > 500,
        );
        await page.waitForTimeout(1000);
        await shot('bigscreen-small', false);
        await page.setViewportSize({ width: 1440, height: 900 });
        assert.deepEqual(problems, []);
      },
    },
    {
      name: 'report designer: purchases by category previewed, saved as a menu page, opened from the sidebar, deleted',
      run: async () => {
        await visit('/report/reportdesigner');
        const designer = page.getByTestId('report-designer');
        await designer.waitFor();
        // The purchases are the first entity picked; group by category, count and sum the budget.
        await chooseOption(page.locator('#report-dimensions'), '采购品类');
        await page.keyboard.press('Escape');
        await designer.getByRole('button', { name: '添加度量' }).click();
        // the new measure sums; its field is the number field picked here
        const second = designer.locator('.report-filter-row').nth(1);
        await second.getByText('求和').waitFor();
        await chooseOption(second.locator('.ant-select').nth(1), '预算金额');
        await designer.getByRole('button', { name: /预\s*览/ }).click();
        const result = page.getByTestId('report-result');
        await result.locator('tr.ant-table-row').first().waitFor();
        await drawn('report-chart');
        const rows = await result.locator('tr.ant-table-row').count();
        const expected = await admin.post<{ rows: unknown[] }>('/api/demo/reportdesigner/run', {
          entity: 'purchase',
          dimensions: ['category'],
          measures: ['count:*', 'sum:budget'],
        });
        assert.equal(rows, expected.rows.length);
        await shot('report-designer');
        await expectNoAxeViolations(page, 'report/reportdesigner');

        const name = `采购类别报表 ${Date.now() % 100000}`;
        await page.locator('#report-name').fill(name);
        await designer.getByRole('button', { name: '保存为菜单页面' }).click();
        await page.locator('.ant-message-success').first().waitFor();
        const sidebar = page.locator('.ant-layout-sider');
        await sidebar.getByText(name).click();
        await page.waitForURL(/\/admin\/report\/view\/\d+$/);
        const view = page.getByTestId('report-view');
        await view.locator('tr.ant-table-row').first().waitFor();
        await drawn('report-chart');
        assert.equal(await view.locator('tr.ant-table-row').count(), expected.rows.length);
        await shot('report-view');
        await expectNoAxeViolations(page, 'report/view');

        await visit('/report/reportdesigner');
        await chooseOption(page.locator('#report-saved'), name);
        await designer.getByRole('button', { name: '删除报表' }).click();
        const question = await stillPopconfirm(page);
        await question.getByRole('button', { name: /确\s*定|OK/ }).click();
        await page.locator('.ant-message-success').filter({ hasText: '报表已删除' }).waitFor();
        await until('the page left the sidebar', async () => (await sidebar.getByText(name).count()) === 0);

        // A dictionary field's filter value is picked from its items, not typed: the draft articles by type.
        await page.locator('.ant-select', { has: page.locator('#report-entity') }).click();
        await page.keyboard.type('文章');
        await chooseOption(page.locator('#report-entity'), '文章');
        await chooseOption(page.locator('#report-dimensions'), '类型');
        await page.keyboard.press('Escape');
        await designer.getByRole('button', { name: '添加筛选' }).click();
        const filter = designer.locator('.report-filter-row').last();
        await chooseOption(filter.getByLabel('筛选字段').first(), '状态');
        await chooseOption(filter.getByLabel('筛选值').first(), '草稿');
        await designer.getByRole('button', { name: /预\s*览/ }).click();
        const byType = (filters?: Record<string, string>) =>
          admin.post<{ rows: Record<string, unknown>[] }>('/api/demo/reportdesigner/run', {
            entity: 'article',
            dimensions: ['type'],
            measures: ['count:*'],
            ...(filters ? { filters } : {}),
          });
        const drafts = await byType({ status: 'draft' });
        const counted = (found: { rows: Record<string, unknown>[] }): number =>
          found.rows.reduce((sum, row) => sum + Number(row.m0 ?? 0), 0);
        assert.ok(
          counted(drafts) > 0 && counted(drafts) < counted(await byType()),
          'some articles are drafts',
        );
        await until(
          'the drafts by type',
          async () => (await result.locator('tr.ant-table-row').count()) === drafts.rows.length,
        );
        const shownCounts = await result.locator('tr.ant-table-row td:last-child').allInnerTexts();
        assert.equal(
          shownCounts.reduce((sum, text) => sum + Number(text.replace(/,/g, '')), 0),
          counted(drafts),
        );
        await shot('report-designer-dict-filter');
        await expectNoAxeViolations(page, 'report/reportdesigner with a dictionary filter');
        assert.deepEqual(problems, []);
        await context?.close();
      },
    },
  ];
}
