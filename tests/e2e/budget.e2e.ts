import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { newContext, passwordToken, type Check, type E2eContext } from './support.js';

/** Issue 4 and 6 budgets: first-load JavaScript, gzip. */
const ADMIN_BUDGET_KB = 600;
const PORTAL_BUDGET_KB = 150;

interface Loaded {
  /** Gzipped kilobytes of every script the page loaded, by file. */
  files: Map<string, number>;
  totalKb: number;
}

/**
 * Opens a page in a fresh browser and adds up the JavaScript it loads until the network is idle,
 * each file gzipped here (the server sends them uncompressed; a front proxy compresses).
 */
async function firstLoad(
  browser: Browser,
  url: string,
  ready: string,
  cookie?: { name: string; value: string },
): Promise<Loaded> {
  const context = await newContext(browser);
  if (cookie) await context.addCookies([{ ...cookie, url }]);
  const page = await context.newPage();
  const pending: Promise<void>[] = [];
  const files = new Map<string, number>();
  page.on('response', (response) => {
    if (response.request().resourceType() !== 'script') return;
    pending.push(
      response.body().then(
        (body) => void files.set(new URL(response.url()).pathname, gzipSync(body).length / 1024),
        () => undefined,
      ),
    );
  });
  await page.goto(url);
  await page.locator(ready).first().waitFor();
  await page.waitForLoadState('networkidle');
  await Promise.all(pending);
  await context.close();
  const totalKb = [...files.values()].reduce((sum, size) => sum + size, 0);
  return { files, totalKb };
}

const kb = (value: number): string => `${value.toFixed(1)} KB`;
const chartsKb = (loaded: Loaded): number =>
  [...loaded.files].filter(([name]) => /\/charts-/.test(name)).reduce((sum, [, size]) => sum + size, 0);

export function checks({ server, browser }: E2eContext): Check[] {
  return [
    {
      name: `portal first-load JavaScript (home) is at most ${PORTAL_BUDGET_KB} KB gzip, without admin libraries`,
      run: async () => {
        const home = await firstLoad(browser, `${server.url}/ecobid`, '.portal-footer');
        console.log(`    portal home: ${kb(home.totalKb)} gzip in ${home.files.size} scripts`);
        assert.ok(home.totalKb <= PORTAL_BUDGET_KB, kb(home.totalKb));
        for (const name of home.files.keys())
          assert.doesNotMatch(name, /refine|rjsf|bpmn|echarts|charts-|qrcode/i);
      },
    },
    {
      name: `admin first-load JavaScript (sign-in page, workbench) is at most ${ADMIN_BUDGET_KB} KB gzip; echarts comes on demand`,
      run: async () => {
        const login = await firstLoad(browser, `${server.url}/admin/login`, '[data-testid="login-form"]');
        const token = await passwordToken(server.url, 'admin', server.adminPassword);
        const workbench = await firstLoad(
          browser,
          `${server.url}/admin/workbench`,
          '[data-testid="chart-counts"] canvas',
          { name: 'token', value: token },
        );
        const charts = chartsKb(workbench);
        console.log(
          `    admin sign-in page: ${kb(login.totalKb)}; workbench: ${kb(workbench.totalKb - charts)}` +
            ` + echarts chunk ${kb(charts)} loaded after first paint (gzip)`,
        );
        assert.ok(login.totalKb <= ADMIN_BUDGET_KB, kb(login.totalKb));
        assert.ok(workbench.totalKb - charts <= ADMIN_BUDGET_KB, kb(workbench.totalKb - charts));
        assert.equal(chartsKb(login), 0, 'the sign-in page loads no echarts');
      },
    },
  ];
}
