import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { untilStill } from './entity-driver.js';
import { signedIn, startServer, type Check, type E2eContext, type RunningServer } from './support.js';

/**
 * Issue 34, the admin half of a module: the fixture module tests/fixtures/modules/purchase-extras
 * (outside src/, found through MODULE_DIRS) is built into the back-office and gives the purchase
 * form's budget its own widget (budgetMeter) and the form designer's palette a module widget. The
 * project's normal build (dist/web, what the other browser tests use) has no fixture module: this
 * file builds its own, into a tree beside the project whose other entries link to the project's.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MODULE_DIRS = 'tests/fixtures/modules';
const run = promisify(execFile);

type Manifest = Record<string, { file: string; isDynamicEntry?: boolean; imports?: string[] }>;

/** The manifest keys the admin page loads first: the scripts it names and what they import statically. */
function firstLoadOf(web: string, manifest: Manifest): Set<string> {
  const html = readFileSync(join(web, 'admin', 'index.html'), 'utf8');
  const scripts = new Set([...html.matchAll(/"\/(assets\/[^"]+\.js)"/g)].map((match) => match[1]));
  const loaded = new Set<string>();
  const visit = (key: string): void => {
    if (loaded.has(key)) return;
    loaded.add(key);
    for (const imported of manifest[key]?.imports ?? []) visit(imported);
  };
  for (const [key, chunk] of Object.entries(manifest)) if (scripts.has(chunk.file)) visit(key);
  return loaded;
}

export function checks({ browser, screenshots }: E2eContext): Check[] {
  const tree = join(ROOT, '.tmp', `e2e-modules-${randomBytes(4).toString('hex')}`);
  let server: RunningServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  const shot = (name: string) => page.screenshot({ path: `${screenshots}/modules-${name}.png` });
  const dialog = () => page.locator('.entity-form-modal .ant-modal-content');
  return [
    {
      name: 'a build with MODULE_DIRS has the fixture module as a lazy chunk of its own; the normal build has none',
      run: async () => {
        // the project itself, linked, with a build of its own in dist/web
        mkdirSync(tree, { recursive: true });
        for (const entry of readdirSync(ROOT))
          if (!['dist', '.tmp', '.git', 'test-results'].includes(entry))
            symlinkSync(join(ROOT, entry), join(tree, entry));
        const web = join(tree, 'dist', 'web');
        await run(
          join(ROOT, 'node_modules', '.bin', 'vite'),
          ['build', '--logLevel', 'warn', '--outDir', web],
          {
            cwd: ROOT,
            env: { ...process.env, MODULE_DIRS },
            timeout: 900_000,
          },
        );
        const manifest = JSON.parse(readFileSync(join(web, '.vite', 'manifest.json'), 'utf8')) as Manifest;
        const key = Object.keys(manifest).find((name) => name.endsWith('modules/purchase-extras/admin.tsx'));
        assert.ok(key, Object.keys(manifest).join(', '));
        assert.ok(manifest[key]?.isDynamicEntry, 'the module is a lazily loaded chunk');
        assert.ok(!firstLoadOf(web, manifest).has(key), 'the module is not in the first load');
        // the project's own build (npm run build, no MODULE_DIRS) has no fixture module
        const own = join(ROOT, 'dist', 'web', '.vite', 'manifest.json');
        if (existsSync(own))
          assert.ok(!readFileSync(own, 'utf8').includes('purchase-extras'), 'dist/web has no fixture module');
      },
    },
    {
      name: 'the purchase form shows the budget in the budgetMeter widget, measured against its limit, and saves it exactly',
      run: async () => {
        server = await startServer({ MODULE_DIRS }, { cwd: tree });
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
        }));
        await page.goto(`${server.url}/admin/purchase`);
        const table = page.getByTestId('entity-table');
        const row = table.locator('tr.ant-table-row').first();
        await row.waitFor();
        await row.locator('.ant-checkbox-input').first().check();
        await page.getByTestId('entity-edit').click();
        await untilStill(dialog());
        const meter = dialog().getByTestId('budget-meter');
        await meter.waitFor();
        // the field's label is the schema's, the widget the module's
        const input = meter.locator('input');
        const text = meter.getByTestId('budget-meter-text');
        await input.fill('2500000');
        await page.waitForFunction(() =>
          document.querySelector('[data-testid="budget-meter-text"]')?.textContent?.includes('50%'),
        );
        assert.equal((await text.innerText()).trim(), '占上限 5,000,000.00 的 50%');
        await input.fill('6000000');
        await page.waitForFunction(() =>
          document.querySelector('[data-testid="budget-meter-text"]')?.textContent?.includes('超出'),
        );
        assert.equal((await text.innerText()).trim(), '超出上限 5,000,000.00（120%）');
        assert.equal(await meter.locator('.ant-progress-status-exception').count(), 1, 'the bar is red');
        await input.fill('1234567.89');
        await input.blur();
        await page.waitForFunction(() =>
          document.querySelector('[data-testid="budget-meter-text"]')?.textContent?.includes('25%'),
        );
        await shot('purchase-budget-meter');
        await dialog().locator('.ant-modal-footer .ant-btn-primary').click();
        await dialog().waitFor({ state: 'detached' });
        await table.locator('tr.ant-table-row').filter({ hasText: '1,234,567.89' }).first().waitFor();
      },
    },
    {
      name: "the form designer's palette offers the module's widget as a group, and a click adds its field",
      run: async () => {
        await page.goto(`${server?.url ?? ''}/admin/formdesign`);
        const group = page.getByTestId('palette-module-widgets');
        await group.waitFor();
        const item = group.getByTestId('palette-widget-budgetMeter');
        assert.equal((await item.innerText()).trim(), '预算');
        await item.click();
        await page.getByTestId('node-budgetMeter1').waitFor();
        await shot('designer-palette');
      },
    },
    {
      name: 'the fixture build is stopped and removed',
      run: async () => {
        await context?.close();
        await server?.stop();
        rmSync(tree, { recursive: true, force: true });
      },
    },
  ];
}
