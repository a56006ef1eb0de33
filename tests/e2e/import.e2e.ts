import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import { apiClient, signedIn, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * Issue 18: the Import button of a generated list (采购公告): a CSV with a bad row is previewed
 * with the problem on its cell and cannot be imported; the corrected file imports and its rows
 * appear in the list.
 */
export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  const stamp = Date.now().toString(36).slice(-5);
  let admin: ApiClient;
  let context: BrowserContext | undefined;
  let page: Page;
  const shot = (name: string) => page.screenshot({ path: `${screenshots}/import-${name}.png` });
  const csv = (rows: string[][]) => ({
    name: `purchases-${stamp}.csv`,
    mimeType: 'text/csv',
    buffer: Buffer.from(rows.map((row) => row.join(',')).join('\n')),
  });
  const header = ['项目名称', '采购单位', '预算金额'];
  const good = [
    [`导入公告A-${stamp}`, '导入单位', '1000'],
    [`导入公告B-${stamp}`, '导入单位', '2000'],
  ];

  return [
    {
      name: 'a file with a bad row is previewed with the problem on its cell; nothing can be imported',
      run: async () => {
        admin = await apiClient(server.url, 'admin', server.adminPassword);
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
        }));
        await page.goto(`${server.url}/admin/purchase`);
        await page.getByTestId('entity-import').click();
        const dialog = page.getByTestId('import-dialog');
        await dialog.getByTestId('import-template').waitFor();
        await expectNoAxeViolations(page, 'import dialog');
        await dialog
          .locator('input[type=file]')
          .setInputFiles(csv([header, good[0] ?? [], [`坏行-${stamp}`, '', 'abc']]));
        await page.getByTestId('import-preview').waitFor();
        const buyer = page.getByTestId('import-problem-3-buyerName');
        await buyer.waitFor();
        assert.match((await page.getByTestId('import-summary').textContent()) ?? '', /2/);
        await page.getByTestId('import-problem-3-budget').waitFor();
        assert.equal(await page.getByTestId('import-run').isDisabled(), true);
        await shot('preview-problems');
        await expectNoAxeViolations(page, 'import preview with problems');
      },
    },
    {
      name: 'the corrected file imports all its rows and the list shows them',
      run: async () => {
        await page.getByTestId('import-again').click();
        await page
          .getByTestId('import-dialog')
          .locator('input[type=file]')
          .setInputFiles(csv([header, ...good]));
        await page.getByTestId('import-preview').waitFor();
        const run = page.getByTestId('import-run');
        assert.equal(await run.isDisabled(), false);
        await run.click();
        await page.getByTestId('import-done').waitFor();
        await shot('done');
        await page.getByTestId('import-close').click();
        await page.getByTestId('import-dialog').waitFor({ state: 'detached' });
        await page
          .locator('tr.ant-table-row')
          .filter({ hasText: `导入公告A-${stamp}` })
          .waitFor();
        const stored = await admin.get<{ records: { title: string; budget: string }[] }>(
          `/api/notification/purchase/query?title=${encodeURIComponent(stamp)}`,
        );
        // money is exact: answered as its digits at the field's scale
        assert.deepEqual(stored.records.map((record) => record.budget).sort(), ['1000.00', '2000.00']);
        assert.equal(
          stored.records.some((record) => record.title.startsWith('坏行')),
          false,
        );
        await context?.close();
      },
    },
  ];
}
