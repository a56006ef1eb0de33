import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import {
  checkRow,
  deleteChecked,
  expectSuccess,
  fieldErrors,
  formModal,
  rowWith,
  saveForErrors,
  saveForm,
} from './entity-driver.js';
import { apiClient, signedIn, type Check, type E2eContext } from './support.js';

/**
 * Computed fields and cross-field rules (issue 34) in Chromium: the form designer makes a field
 * computed and adds a rule, the form is published, and its generated screen shows the rule's
 * message while the user fills the form in, the computed value as it is typed and in the list.
 */

const CODE = 'e2etrip';
const NAME = 'E2E 出差申请';
const RULE_MESSAGE = '结束日期不能早于开始日期';

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let session: { context: BrowserContext; page: Page } | undefined;
  let formId = 0;
  const page = (): Page => {
    assert.ok(session, 'signed in');
    return session.page;
  };
  const shot = (name: string) => page().screenshot({ path: `${screenshots}/rules-${name}.png` });
  const url = (path: string): string => `${server.url}/admin${path}`;
  const properties = () => page().locator('.formdesign-properties');

  return [
    {
      name: 'the designer makes a field computed and adds a rule',
      run: async () => {
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const added = await admin.post<{ id: number }>('/api/generator/form/add', {
          formCode: CODE,
          formName: NAME,
          formContent: {
            $schema: 'http://json-schema.org/draft-07/schema#',
            title: NAME,
            type: 'object',
            'x-entity': { api: `form/${CODE}`, table: `form_${CODE}`, key: 'id', label: 'traveller' },
            additionalProperties: false,
            required: ['traveller'],
            properties: {
              id: { type: 'integer', title: 'ID', readOnly: true },
              traveller: { type: 'string', title: 'Traveller', maxLength: 40 },
              startDate: { type: 'string', format: 'date', title: 'Start' },
              endDate: { type: 'string', format: 'date', title: 'End' },
              amount: {
                type: 'string',
                format: 'decimal',
                title: 'Amount',
                'x-decimal': { precision: 12, scale: 2 },
              },
              total: {
                type: 'string',
                format: 'decimal',
                title: 'Total',
                'x-decimal': { precision: 12, scale: 2 },
              },
            },
          },
        });
        formId = added.id;
        session = await signedIn(browser, server, 'admin', server.adminPassword);
        await page().goto(url(`/formdesign?id=${formId}`));
        await page().getByTestId('node-total').click();
        await properties().locator('#fd-computed').fill('amount *');
        // a broken expression is named under the input as it is typed
        await properties()
          .getByText(/无法使用|Cannot be used/)
          .waitFor();
        await properties().locator('#fd-computed').fill('amount * 1.06');
        await properties().getByTestId('prop-computed-stored').click();
        await page()
          .getByTestId('canvas')
          .click({ position: { x: 5, y: 5 } });
        // the form's recycle bin (x-entity.softDelete): deleted records can be restored
        await properties().getByTestId('prop-soft-delete').click();
        await properties().getByTestId('prop-add-rule').click();
        await properties().locator('#fd-rule-0-expression').fill('endDate >= startDate');
        await properties().locator('#fd-rule-0-message').fill(RULE_MESSAGE);
        await shot('designer');
        await page().getByTestId('save').click();
        await page().locator('.formdesign .ant-card-extra .ant-tag').filter({ hasText: '版本 2' }).waitFor();
        const { records } = await admin.get<{ records: { formContent: unknown }[] }>(
          `/api/generator/form/query?id=${formId}&currentPage=1&pageSize=1`,
        );
        const content = records[0]?.formContent;
        const schema = (typeof content === 'string' ? JSON.parse(content) : content) as Record<
          string,
          unknown
        >;
        assert.deepEqual(
          (schema.properties as Record<string, Record<string, unknown>>).total?.['x-computed'],
          {
            expression: 'amount * 1.06',
            stored: true,
          },
        );
        assert.deepEqual(schema['x-rules'], [{ expression: 'endDate >= startDate', message: RULE_MESSAGE }]);
        assert.equal((schema['x-entity'] as Record<string, unknown>).softDelete, true);
      },
    },
    {
      name: 'published, its screen checks the rule while typing and computes the total',
      run: async () => {
        await page().goto(url('/formgenerator/list'));
        const row = page().getByTestId('forms-list').locator('tr.ant-table-row').filter({ hasText: CODE });
        await row.getByTestId('form-publish').click();
        const dialog = page()
          .locator('.ant-modal')
          .filter({ has: page().getByTestId('publish-parent') });
        await dialog.locator('.ant-select-selection-item').first().waitFor();
        await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
        await dialog.waitFor({ state: 'detached' });
        await page().getByTestId('sidebar').getByText(NAME, { exact: true }).click();
        await page().getByTestId('entity-table').waitFor();
        await page().getByTestId('entity-add').click();
        const modal = formModal(page());
        await modal.locator('#root_traveller').fill('王工');
        for (const [field, value] of [
          ['startDate', '2026-05-03'],
          ['endDate', '2026-05-01'],
        ] as const) {
          const input = modal.locator(`#root_${field}`);
          await input.click();
          await input.fill(value);
          await page().keyboard.press('Enter');
        }
        await modal.locator('#root_amount').fill('1000.25');
        await modal.locator('.ant-modal-title').click();
        // the total as the server will compute it, exactly: 1000.25 × 1.06 = 1060.265 → 1060.27
        await modal
          .getByTestId('auto_total')
          .and(page().locator('[value="1,060.27"], [value="1060.27"]'))
          .waitFor();
        await saveForErrors(page(), 'the rule is checked in the form');
        const errors = await fieldErrors(page());
        assert.equal(errors.endDate, RULE_MESSAGE, JSON.stringify(errors));
        await shot('rule-message');
        const end = modal.locator('#root_endDate');
        await end.click();
        await end.fill('2026-05-04');
        await page().keyboard.press('Enter');
        await modal.locator('.ant-modal-title').click();
        await saveForm(page());
        const saved = rowWith(page(), '王工').first();
        await saved.waitFor();
        const cells = (await saved.locator('td').allInnerTexts()).map((cell) => cell.trim());
        assert.ok(
          cells.some((cell) => cell.replace(/,/g, '') === '1060.27'),
          `the computed total in the list: ${cells.join(' | ')}`,
        );
        await shot('list');
        // the designer turned the form's recycle bin on: a deleted record is found there and restored
        await checkRow(page(), '王工');
        await deleteChecked(page(), /删除/);
        await rowWith(page(), '王工').waitFor({ state: 'detached' });
        await page().getByTestId('entity-recycle-bin').click();
        const bin = page().getByTestId('recycle-bin');
        await bin.locator('[data-recycled="王工"]').waitFor();
        await shot('recycle-bin');
        const restored = expectSuccess(page(), '已还原');
        await bin
          .locator('tr.ant-table-row')
          .filter({ hasText: '王工' })
          .getByTestId('recycle-restore')
          .click();
        await restored;
        await bin.locator('[data-recycled="王工"]').waitFor({ state: 'detached' });
        await session?.context.close();
      },
    },
  ];
}
