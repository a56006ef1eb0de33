import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import { exportRows, filterBy, formModal, rowWith, saveForErrors, saveForm } from './entity-driver.js';
import { apiClient, signedIn, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * Designed forms (issue 14) in Chromium against the real server: a form made through the API
 * is published from the /formgenerator list (parent menu, roles), appears in the sidebar without
 * a reload, and its generated screen creates, edits, filters and exports records; the fill-in
 * page outside the shell submits one more, validated by the same form.
 */

const CODE = 'e2einspect';
const NAME = 'E2E 巡检记录';

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let admin: ApiClient;
  let session: { context: BrowserContext; page: Page } | undefined;
  const page = (): Page => {
    assert.ok(session, 'signed in');
    return session.page;
  };
  const shot = (name: string) => page().screenshot({ path: `${screenshots}/forms-${name}.png` });
  const url = (path: string): string => `${server.url}/admin${path}`;

  return [
    {
      name: 'a form made through the API is listed on /formgenerator',
      run: async () => {
        admin = await apiClient(server.url, 'admin', server.adminPassword);
        await admin.post('/api/generator/form/add', {
          formCode: CODE,
          formName: NAME,
          formDescription: '设备巡检',
          formContent: {
            title: NAME,
            required: ['site', 'inspector'],
            properties: {
              site: { type: 'string', title: 'Site', maxLength: 40 },
              inspector: { type: 'string', title: 'Inspector', maxLength: 20 },
              score: { type: 'integer', title: 'Score', minimum: 0, maximum: 100 },
            },
          },
        });
        session = await signedIn(browser, server, 'admin', server.adminPassword);
        await page().goto(url('/formgenerator'));
        // the group opens its first page: the list
        await page().waitForURL(/\/admin\/formgenerator\/list$/);
        await page()
          .getByTestId('forms-list')
          .locator('tr.ant-table-row')
          .filter({ hasText: CODE })
          .waitFor();
        await expectNoAxeViolations(page(), '/formgenerator');
        await shot('list');
      },
    },
    {
      name: 'publishes it from the list: the menu appears in the sidebar at once',
      run: async () => {
        const row = page().getByTestId('forms-list').locator('tr.ant-table-row').filter({ hasText: CODE });
        await row.getByTestId('form-publish').click();
        const dialog = page()
          .locator('.ant-modal')
          .filter({ has: page().getByTestId('publish-parent') });
        await dialog.waitFor();
        // the form generator group is chosen by default
        await dialog.locator('.ant-select-selection-item').first().waitFor();
        await expectNoAxeViolations(page(), 'publish dialog');
        await shot('publish-dialog');
        await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
        await dialog.waitFor({ state: 'detached' });
        await row.locator('[data-status="published"]').waitFor();
        const sidebar = page().getByTestId('sidebar');
        await sidebar.getByText(NAME, { exact: true }).waitFor();
        await shot('published');
      },
    },
    {
      name: 'the generated screen creates, edits, filters and exports records',
      run: async () => {
        await page().getByTestId('sidebar').getByText(NAME, { exact: true }).click();
        await page().waitForURL(/\/admin\/online\/e2einspect$/);
        await page().getByTestId('entity-table').waitFor();
        const records: [string, string][] = [
          ['北区泵站', '张工'],
          ['南区水厂', '李工'],
        ];
        for (const [site, inspector] of records) {
          await page().getByTestId('entity-add').click();
          const modal = formModal(page());
          await modal.locator('#root_site').fill(site);
          await modal.locator('#root_inspector').fill(inspector);
          await modal.locator('#root_score').fill('150');
          await modal.locator('.ant-modal-title').click();
          // the schema's maximum, checked by the same validators as everywhere
          await saveForErrors(page());
          await modal.locator('#root_score').fill('90');
          await modal.locator('.ant-modal-title').click();
          await saveForm(page());
          await rowWith(page(), site).first().waitFor();
        }
        await expectNoAxeViolations(page(), '/online/e2einspect');
        await rowWith(page(), '北区泵站').first().locator('.ant-checkbox-input').check();
        await page().getByTestId('entity-edit').click();
        await formModal(page()).locator('#root_inspector').fill('王工');
        await formModal(page()).locator('.ant-modal-title').click();
        await saveForm(page());
        await rowWith(page(), '王工').first().waitFor();
        await filterBy(page(), 'site', '南区');
        await page().waitForFunction(
          () => document.querySelectorAll('[data-testid="entity-table"] tr.ant-table-row').length === 1,
        );
        await shot('records');
        const { rows } = await exportRows(page());
        assert.equal(rows.length, 2, `a header and the filtered row: ${JSON.stringify(rows)}`);
        assert.ok(rows[1]?.includes('南区水厂'), JSON.stringify(rows));
      },
    },
    {
      name: '/generatorform fills the published form in outside the shell',
      run: async () => {
        await page().goto(url(`/generatorform?form=${CODE}`));
        const modal = formModal(page());
        await modal.locator('#root_site').waitFor();
        assert.equal(await page().getByTestId('sidebar').count(), 0, 'no back-office shell');
        await expectNoAxeViolations(page(), '/generatorform');
        await modal.locator('.ant-modal-footer .ant-btn-primary').click();
        await modal.locator('.ant-form-item-has-error').first().waitFor();
        await modal.locator('#root_site').fill('东区管网');
        await modal.locator('#root_inspector').fill('赵工');
        await modal.locator('.ant-modal-title').click();
        await modal.locator('.ant-modal-footer .ant-btn-primary').click();
        await page().getByTestId('fill-again').waitFor();
        await shot('filled');
        const listed = await admin.get<{ records: { site: string }[] }>(
          `/api/online/${CODE}/query?site=东区`,
        );
        assert.deepEqual(
          listed.records.map((record) => record.site),
          ['东区管网'],
        );
        await session?.context.close();
      },
    },
  ];
}
