import assert from 'node:assert/strict';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import { formModal, rowWith, saveForm } from './entity-driver.js';
import { apiClient, signedIn, type Check, type E2eContext } from './support.js';

/**
 * Issue 14 from design to records in one run: a form designed in /formdesign (its titles in
 * Chinese, a grid row of two fields, a sub-table), saved, published from /formgenerator, opened
 * from the sidebar under its Chinese title, a record created with two detail rows, and the rows
 * read back after a reload.
 */

const CODE = 'e2ereq';

/** Drags with the mouse in small steps (dnd-kit's pointer sensor) into a container's free space. */
async function drag(page: Page, source: Locator, target: Locator): Promise<void> {
  const from = await source.boundingBox();
  const to = await target.boundingBox();
  assert.ok(from && to, 'drag source and target are on screen');
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2 + 8, from.y + from.height / 2 + 8, { steps: 4 });
  await page.mouse.move(to.x + to.width / 2, to.y + to.height - 12, { steps: 12 });
  await page.waitForTimeout(100);
  await page.mouse.up();
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let session: { context: BrowserContext; page: Page } | undefined;
  const page = (): Page => {
    assert.ok(session, 'signed in');
    return session.page;
  };
  const shot = (name: string) => page().screenshot({ path: `${screenshots}/form-to-records-${name}.png` });
  const properties = () => page().locator('.formdesign-properties');

  return [
    {
      name: 'designs a form with a grid row and a sub-table in /formdesign and saves it',
      run: async () => {
        session = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1500, height: 940 },
        });
        page().on('console', (message) => {
          if (message.type() === 'error' || message.type() === 'warning')
            console.log(`    [browser] ${message.text()}`);
        });
        await page().goto(`${server.url}/admin/formdesign`);
        await page().getByTestId('node-id').waitFor();
        // the form's own properties (nothing selected): code and titles
        await properties().getByTestId('prop-form-code').fill(CODE);
        await properties().locator('#fd-form-title-zh').fill('请购单');
        await properties().locator('#fd-form-title-en').fill('Requisition');
        // a grid row: a text field in its left column, an integer in its right one
        await page().getByTestId('palette-layout-grid').click();
        const columns = page().locator('.formdesign-column');
        await columns.nth(1).waitFor();
        await drag(page(), page().getByTestId('palette-text'), columns.nth(0));
        await page().getByTestId('node-text1').waitFor();
        await properties().locator('#fd-field-title-zh').fill('主题');
        await properties().getByTestId('prop-required').click();
        await drag(page(), page().getByTestId('palette-integer'), columns.nth(1));
        await page().getByTestId('node-integer1').waitFor();
        await properties().locator('#fd-field-title-zh').fill('数量');
        // nothing selected (a click on the canvas): the palette adds the sub-table at the end
        await page()
          .getByTestId('canvas')
          .click({ position: { x: 5, y: 5 } });
        await page().getByTestId('palette-subtable').click();
        await page().getByTestId('node-subtable1').waitFor();
        await properties().locator('#fd-field-title-zh').fill('明细');
        // its columns: the default one renamed and titled, a whole-number quantity added
        await properties().getByTestId('subtable-name-0').fill('item');
        await properties().getByTestId('subtable-title-0').fill('物品');
        await properties().getByTestId('subtable-add').click();
        await properties().getByTestId('subtable-name-1').fill('qty');
        await properties().getByTestId('subtable-title-1').fill('数量');
        await properties()
          .locator('.ant-select')
          .filter({ has: page().getByRole('combobox', { name: '类型 2' }) })
          .click();
        await page()
          .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
          .filter({ hasText: '整数' })
          .click();
        await page()
          .getByTestId('canvas')
          .click({ position: { x: 5, y: 5 } });
        await expectNoAxeViolations(page(), 'form designer with a sub-table');
        await page().getByTestId('node-subtable1').click();
        await shot('designed');
        await page().getByTestId('save').click();
        await page().waitForURL(/formdesign\?id=\d+/);
        const api = await apiClient(server.url, 'admin', server.adminPassword);
        const stored = await api.get<{
          records: { formCode: string; formContent: { properties: object } }[];
        }>(`/api/generator/form/query?formCode=${CODE}`);
        assert.deepEqual(
          Object.keys(stored.records[0]?.formContent.properties ?? {}),
          ['id', 'text1', 'integer1', 'subtable1'],
          'stored in the designed order',
        );
      },
    },
    {
      name: 'publishes it from /formgenerator: the sidebar shows it under its Chinese title',
      run: async () => {
        await page().goto(`${server.url}/admin/formgenerator/list`);
        const row = page().getByTestId('forms-list').locator('tr.ant-table-row').filter({ hasText: CODE });
        await row.getByTestId('form-publish').click();
        const dialog = page()
          .locator('.ant-modal')
          .filter({ has: page().getByTestId('publish-parent') });
        await dialog.locator('.ant-select-selection-item').first().waitFor();
        await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
        await dialog.waitFor({ state: 'detached' });
        await row.locator('[data-status="published"]').waitFor();
        await page().getByTestId('sidebar').getByText('请购单', { exact: true }).waitFor();
      },
    },
    {
      name: 'creates a record with two detail rows in the designed layout, and sees them after a reload',
      run: async () => {
        await page().getByTestId('sidebar').getByText('请购单', { exact: true }).click();
        await page().waitForURL(new RegExp(`/admin/online/${CODE}$`));
        await page().getByTestId('entity-table').waitFor();
        await page().getByTestId('entity-add').click();
        const modal = formModal(page());
        await modal.locator('#root_text1').fill('泵站备件');
        await modal.locator('#root_integer1').fill('2');
        // the grid row of the design: its two fields side by side
        const left = await modal.locator('#root_text1').boundingBox();
        const right = await modal.locator('#root_integer1').boundingBox();
        assert.ok(
          left && right && Math.abs(left.y - right.y) < 20 && right.x > left.x + left.width,
          'one row',
        );
        // the designer's Chinese titles label the fields
        await modal.locator('label[for="root_text1"]').filter({ hasText: '主题' }).waitFor();
        const addRow = modal.getByRole('button', { name: '添加一行' });
        for (const [index, [item, qty]] of [
          ['离心泵', '2'],
          ['密封圈', '40'],
        ].entries()) {
          await addRow.click();
          await modal.getByLabel(`第 ${index + 1} 行 物品`).fill(item ?? '');
          await modal.getByLabel(`第 ${index + 1} 行 数量`).fill(qty ?? '');
        }
        await modal.locator('.ant-modal-title').click();
        await expectNoAxeViolations(page(), 'a published form with a sub-table');
        await shot('form');
        await saveForm(page());
        await rowWith(page(), '泵站备件').first().waitFor();

        await page().reload();
        await rowWith(page(), '泵站备件').first().locator('.ant-checkbox-input').check();
        await page().getByTestId('entity-edit').click();
        const edit = formModal(page());
        await edit.getByLabel('第 2 行 物品').waitFor();
        assert.equal(await edit.getByLabel('第 1 行 物品').inputValue(), '离心泵');
        assert.equal(await edit.getByLabel('第 2 行 物品').inputValue(), '密封圈');
        assert.equal(await edit.getByLabel('第 2 行 数量').inputValue(), '40');
        await shot('read-back');
        await session?.context.close();
      },
    },
  ];
}
