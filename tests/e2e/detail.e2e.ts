import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import { addLine, formModal, saveForm } from './entity-driver.js';
import {
  apiClient,
  newContext,
  signIn,
  startServer,
  type Check,
  type E2eContext,
  type RunningServer,
} from './support.js';

/**
 * Master-detail in the generated form: an order's lines are edited inline as a table (add,
 * reorder, remove rows), a bad cell shows its error on the cell, and the saved order comes back
 * with its lines in the new order.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function checks({ browser, screenshots }: E2eContext): Check[] {
  let server: RunningServer | undefined;
  let context: BrowserContext | undefined;
  let schemasDir = '';

  return [
    {
      name: 'the server starts with a master-detail schema',
      run: async () => {
        schemasDir = mkdtempSync(join(tmpdir(), 'ecobid-detail-'));
        cpSync(join(ROOT, 'schemas'), schemasDir, { recursive: true });
        cpSync(
          join(ROOT, 'tests/fixtures/schemas/bizorder.schema.json'),
          join(schemasDir, 'bizorder.schema.json'),
        );
        server = await startServer({ SCHEMAS_DIR: schemasDir });
      },
    },
    {
      name: 'lines are added, reordered, removed and validated inline, and saved with the order',
      run: async () => {
        assert.ok(server);
        context = await newContext(browser);
        const page = await context.newPage();
        await signIn(page, server);
        await page.goto(`${server.url}/admin/bizorder`);
        await page.getByTestId('entity-add').click();
        const dialog = formModal(page);
        await dialog.locator('#root_orderNo').fill('PO-E2E');
        for (const [index, product] of ['Pump', 'Valve', 'Filter'].entries()) {
          await addLine(dialog, index + 1);
          await dialog.getByLabel(`第 ${index + 1} 行 Product`).fill(product);
          await dialog.getByLabel(`第 ${index + 1} 行 Quantity`).fill(String(index + 1));
        }
        // a bad cell: quantity 0 of the second row is refused on its cell
        await dialog.getByLabel('第 2 行 Quantity').fill('0');
        await dialog.getByLabel('第 2 行 Quantity').blur();
        await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
        const error = dialog.locator('tr[data-row="1"] .detail-table-error');
        await error.first().waitFor();
        await page.screenshot({ path: `${screenshots}/detail-cell-error.png` });
        await expectNoAxeViolations(page, 'detail table with a cell error');
        await dialog.getByLabel('第 2 行 Quantity').fill('2');
        await dialog.getByLabel('第 2 行 Quantity').blur();
        // Filter moves to the top, Valve is removed
        await dialog.getByRole('button', { name: '第 3 行上移' }).click();
        await dialog.getByRole('button', { name: '第 2 行上移' }).click();
        await dialog.getByRole('button', { name: '删除第 3 行' }).click();
        assert.equal(await dialog.getByLabel('第 1 行 Product').inputValue(), 'Filter');
        assert.equal(await dialog.getByLabel('第 2 行 Product').inputValue(), 'Pump');
        await page.screenshot({ path: `${screenshots}/detail-rows.png` });
        await saveForm(page);
        const api = await apiClient(server.url, 'admin', server.adminPassword);
        const list = await api.get<{ records: { id: number }[] }>('/api/biz/order/query?orderNo=PO-E2E');
        const id = list.records[0]?.id;
        assert.ok(id);
        const detail = await api.get<{ records: { lines: { productName: string; qty: number }[] }[] }>(
          `/api/biz/order/query?id=${id}`,
        );
        assert.deepEqual(detail.records[0]?.lines, [
          { productName: 'Filter', qty: 3 },
          { productName: 'Pump', qty: 1 },
        ]);
      },
    },
    {
      name: 'stops the server',
      run: async () => {
        await context?.close();
        await server?.stop();
        rmSync(schemasDir, { recursive: true, force: true });
      },
    },
  ];
}
