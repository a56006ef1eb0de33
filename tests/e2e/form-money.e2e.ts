import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { formModal, rowWith, saveForm } from './entity-driver.js';
import { apiClient, signedIn, type Check, type E2eContext } from './support.js';

/**
 * Issue 32, exact money in a designed form: the designer's 金额 field is an exact decimal
 * (x-decimal 18,2); published, its generated screen saves 0.1 and 0.2 as typed (InputNumber in
 * stringMode, never a float) and an 18-digit amount keeps every digit; the report designer adds
 * them up exactly.
 */

const CODE = 'e2emoney';
const NAME = 'E2E 金额表单';

interface Report {
  rows: Record<string, unknown>[];
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let context: BrowserContext | undefined;
  let page: Page;
  const shot = (name: string) => page.screenshot({ path: `${screenshots}/form-money-${name}.png` });
  const properties = () => page.locator('.formdesign-properties');

  return [
    {
      name: 'adds a 金额 field from the palette: 18 digits, 2 after the point',
      async run() {
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1500, height: 940 },
        }));
        await page.goto(`${server.url}/admin/formdesign`);
        const palette = page.getByTestId('palette-money');
        await palette.getByText('金额').waitFor();
        await palette.click();
        await page.getByTestId('node-money1').waitFor();
        assert.equal(await properties().locator('#fd-precision').inputValue(), '18');
        assert.equal(await properties().locator('#fd-scale').inputValue(), '2');
        await properties().locator('#fd-field-title-zh').fill('预算金额');
        await shot('designer');
        // the form's code and name, then saved
        await page.getByTestId('canvas').click({ position: { x: 5, y: 5 } });
        await properties().getByTestId('prop-form-code').fill(CODE);
        await properties().locator('#fd-form-title-zh').fill(NAME);
        await properties().locator('#fd-form-title-en').fill(NAME);
        await page.getByTestId('save').click();
        await page.waitForURL(/formdesign\?id=\d+/);
      },
    },
    {
      name: 'publishes it and saves 0.1, 0.2 and an 18-digit amount exactly',
      async run() {
        await page.goto(`${server.url}/admin/formgenerator/list`);
        const row = page.getByTestId('forms-list').locator('tr.ant-table-row').filter({ hasText: CODE });
        await row.getByTestId('form-publish').click();
        const dialog = page.locator('.ant-modal').filter({ has: page.getByTestId('publish-parent') });
        await dialog.locator('.ant-select-selection-item').first().waitFor();
        await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
        await dialog.waitFor({ state: 'detached' });
        await page.getByTestId('sidebar').getByText(NAME, { exact: true }).click();
        await page.waitForURL(new RegExp(`/admin/online/${CODE}$`));
        await page.getByTestId('entity-table').waitFor();

        for (const amount of ['0.1', '0.2', '1234567890123456.78']) {
          await page.getByTestId('entity-add').click();
          const modal = formModal(page);
          // the generated form's exact widget: antd InputNumber, typed text kept as text
          const input = modal.locator('#root_money1');
          assert.ok(
            await input.evaluate((element) => element.closest('.ant-input-number') !== null),
            'an antd InputNumber',
          );
          await input.fill(amount);
          await modal.locator('.ant-modal-title').click();
          await saveForm(page);
        }
        // the list shows every digit, grouped by thousands
        await rowWith(page, '1,234,567,890,123,456.78').first().waitFor();
        await rowWith(page, '0.10').first().waitFor();
        await shot('records');

        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const listed = await admin.get<{ records: { money1: unknown }[] }>(
          `/api/online/${CODE}/query?sort=money1&pageSize=10`,
        );
        assert.deepEqual(
          listed.records.map((record) => record.money1),
          ['0.10', '0.20', '1234567890123456.78'],
        );
        const report = await admin.post<Report>('/api/demo/reportdesigner/run', {
          entity: CODE,
          dimensions: [],
          measures: ['sum:money1'],
          chartType: 'table',
        });
        // 0.1 + 0.2 + 1234567890123456.78, where a double would answer 1234567890123457
        assert.deepEqual(report.rows, [{ m0: '1234567890123457.08' }]);
        await context?.close();
      },
    },
  ];
}
