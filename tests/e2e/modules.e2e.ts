import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { fieldErrors, saveForErrors, saveForm, untilStill } from './entity-driver.js';
import {
  apiClient,
  signedIn,
  startServer,
  type Check,
  type E2eContext,
  type RunningServer,
} from './support.js';

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
      name: "the purchase form computes the taxed budget as the budget is typed, stores it, and refuses a deadline before the publish time with the rule's message",
      run: async () => {
        const title = `E2E 含税预算 ${randomBytes(3).toString('hex')}`;
        await page.getByTestId('entity-add').click();
        await untilStill(dialog());
        const form = dialog();
        await form.locator('#root_title').fill(title);
        await form.locator('#root_buyerName').fill('E2E 采购人');
        await form.getByTestId('budget-meter').locator('input').fill('1000.25');
        await form.locator('.ant-modal-title').click();
        // the module's computed field (budget * 1.13), as the server will store it: 1130.2825 → 1130.28
        const taxed = form.getByTestId('auto_budgetWithTax');
        await taxed.and(page.locator('[value="1,130.28"], [value="1130.28"]')).waitFor();
        for (const [field, value] of [
          ['publishTime', '2026-11-21 10:00:00'],
          ['deadline', '2026-11-20 10:00:00'],
        ] as const) {
          const input = form.locator(`#root_${field}`);
          await input.click();
          await input.fill(value);
          await page.keyboard.press('Enter');
        }
        await form.locator('.ant-modal-title').click();
        await saveForErrors(page, "the module's rule is checked in the form");
        const errors = await fieldErrors(page);
        assert.equal(errors.deadline, '投标截止时间不能早于发布时间', JSON.stringify(errors));
        await shot('purchase-rule');
        await taxed.scrollIntoViewIfNeeded();
        await shot('purchase-computed');
        const deadline = form.locator('#root_deadline');
        await deadline.click();
        await deadline.fill('2026-11-28 10:00:00');
        await page.keyboard.press('Enter');
        await form.locator('.ant-modal-title').click();
        await saveForm(page);
        const row = page.getByTestId('entity-table').locator('tr.ant-table-row').filter({ hasText: title });
        await row.first().waitFor();
        const cells = (await row.first().locator('td').allInnerTexts()).map((cell) =>
          cell.replace(/,/g, '').trim(),
        );
        assert.ok(cells.includes('1130.28'), `the taxed budget in the list: ${cells.join(' | ')}`);
        // stored: the server's record has it
        const admin = await apiClient(server?.url ?? '', 'admin', server?.adminPassword ?? '');
        const { records } = await admin.get<{ records: { title: string; budgetWithTax: string | null }[] }>(
          `/api/notification/purchase/query?title=${encodeURIComponent(title)}&currentPage=1&pageSize=5`,
        );
        assert.deepEqual(
          records.map((record) => [record.title, record.budgetWithTax]),
          [[title, '1130.28']],
        );
      },
    },
    {
      name: "saving a purchase budget above the purchaseBudgetLimit parameter is refused with the module hook's message under 预算",
      run: async () => {
        const admin = await apiClient(server?.url ?? '', 'admin', server?.adminPassword ?? '');
        await admin.post('/api/admin/sysparam/add', {
          paramName: 'Highest purchase budget',
          paramKey: 'purchaseBudgetLimit',
          paramValue: '1000000.00',
        });
        await page.goto(`${server?.url ?? ''}/admin/purchase`);
        const table = page.getByTestId('entity-table');
        const row = table.locator('tr.ant-table-row').first();
        await row.waitFor();
        await row.locator('.ant-checkbox-input').first().check();
        await page.getByTestId('entity-edit').click();
        await untilStill(dialog());
        const input = dialog().getByTestId('budget-meter').locator('input');
        await input.fill('1000000.01');
        await input.blur();
        await saveForErrors(page, "the server's refusal is shown in the form");
        const errors = await fieldErrors(page);
        assert.equal(errors.budget, '预算不能超过 1000000.00 元', JSON.stringify(errors));
        await shot('purchase-budget-refused');
        // the limit itself is allowed
        await input.fill('1000000');
        await input.blur();
        await saveForm(page);
      },
    },
    {
      name: "the purchase list's 关闭 record action closes the checked purchase's bidding through the module's endpoint",
      run: async () => {
        const admin = await apiClient(server?.url ?? '', 'admin', server?.adminPassword ?? '');
        const title = `E2E 关闭 ${randomBytes(3).toString('hex')}`;
        const added = await admin.post<{ id: number }>('/api/notification/purchase/add', {
          title,
          buyerName: 'E2E 采购人',
          publishTime: '2026-01-01T10:00:00Z',
          deadline: '2099-01-01T10:00:00Z',
        });
        await page.goto(`${server?.url ?? ''}/admin/purchase`);
        const row = page.getByTestId('entity-table').locator('tr.ant-table-row').filter({ hasText: title });
        await row.first().waitFor();
        await row.first().locator('.ant-checkbox-input').first().check();
        const openAction = async () => {
          await page.getByTestId('entity-action-close').click();
          const screen = page.getByTestId('purchase-close');
          await screen.waitFor();
          return screen;
        };
        let screen = await openAction();
        assert.equal((await screen.getByTestId('purchase-close-state').innerText()).trim(), '投标中');
        await shot('purchase-close-open');
        await screen.getByTestId('purchase-close-submit').click();
        await screen.waitFor({ state: 'detached' });
        // the record, read again, is closed: its deadline is now past
        const { records } = await admin.get<{ records: { id: number; deadline: string }[] }>(
          `/api/notification/purchase/query?title=${encodeURIComponent(title)}&currentPage=1&pageSize=5`,
        );
        assert.equal(records.length, 1);
        assert.equal(records[0]?.id, added.id);
        assert.ok(new Date(records[0]?.deadline ?? '').getTime() <= Date.now(), records[0]?.deadline);
        await row.first().filter({ hasNotText: '2099' }).waitFor();
        const checkbox = row.first().locator('.ant-checkbox-input').first();
        if (!(await checkbox.isChecked())) await checkbox.check();
        screen = await openAction();
        assert.equal((await screen.getByTestId('purchase-close-state').innerText()).trim(), '已截止');
        assert.ok(
          await screen.getByTestId('purchase-close-submit').isDisabled(),
          'a closed purchase cannot be closed again',
        );
        await shot('purchase-close-closed');
        await page.keyboard.press('Escape');
        await screen.waitFor({ state: 'detached' });
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
