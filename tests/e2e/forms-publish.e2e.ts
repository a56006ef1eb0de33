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
      name: '重新发布 offers the published menu parent and roles again (issue 40 point 12); a role taken out loses the form',
      run: async () => {
        const forms = await admin.get<{ records: { id: number }[] }>(
          `/api/generator/form/query?formCode=${CODE}`,
        );
        const id = forms.records[0]?.id;
        assert.ok(id, 'the form');
        await admin.post('/api/generator/form/publish', { id, menuParent: 'oa', roles: ['ROLE_SYS_BUYER'] });
        await page().goto(url('/formgenerator/list'));
        const row = page().getByTestId('forms-list').locator('tr.ant-table-row').filter({ hasText: CODE });
        await row.getByTestId('form-publish').click();
        const dialog = page()
          .locator('.ant-modal')
          .filter({ has: page().getByTestId('publish-parent') });
        await dialog.waitFor();
        const parent = dialog.locator('.ant-form-item').filter({ has: page().getByTestId('publish-parent') });
        await parent.locator('.ant-select-selection-item').filter({ hasText: '个人办公' }).waitFor();
        const roles = dialog.locator('.ant-form-item').filter({ has: page().getByTestId('publish-roles') });
        await roles.locator('.ant-select-selection-item').first().waitFor();
        assert.equal(await roles.locator('.ant-select-selection-item').count(), 1, 'the one granted role');
        await shot('republish-prefilled');
        // the role taken out of the list loses the form (issue 40): republished with none
        await roles.locator('.ant-select-selection-item-remove').click();
        await roles.locator('.ant-select-selection-item').waitFor({ state: 'detached' });
        await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
        await dialog.waitFor({ state: 'detached' });
        const after = await admin.get<{ records: { menuRoles?: string[] }[] }>(
          `/api/generator/form/query?id=${id}`,
        );
        assert.deepEqual(after.records[0]?.menuRoles, [], 'no role holds the menu any more');
      },
    },
    {
      name: '以默认值回填现有记录 on 重新发布, and 版本历史 compares and restores versions (issue 40 point 12)',
      run: async () => {
        const visitor = {
          type: 'string',
          title: 'Visitor',
          maxLength: 40,
          'x-ui': { titles: { zh: '访客' } },
        };
        const added = await admin.post<{ id: number }>('/api/generator/form/add', {
          formCode: 'e2evisitbf',
          formName: 'E2E 访客登记',
          formContent: { title: 'E2E 访客登记', required: ['visitor'], properties: { visitor } },
        });
        await admin.post('/api/generator/form/publish', { id: added.id, menuParent: 'formgenerator' });
        for (const name of ['回填甲', '回填乙'])
          await admin.post('/api/online/e2evisitbf/add', { visitor: name });
        await admin.put('/api/generator/form/update', {
          id: added.id,
          version: 1,
          formContent: {
            title: 'E2E 访客登记',
            required: ['visitor', 'gate'],
            properties: {
              visitor,
              gate: {
                type: 'string',
                title: 'Gate',
                maxLength: 10,
                default: 'A1',
                'x-ui': { titles: { zh: '门岗' } },
              },
            },
          },
        });
        await page().goto(url('/formgenerator/list'));
        const search = page()
          .locator('input[data-testid="forms-search"], [data-testid="forms-search"] input')
          .first();
        await search.fill('E2E 访客登记');
        await search.press('Enter');
        const row = page()
          .getByTestId('forms-list')
          .locator('tr.ant-table-row')
          .filter({ hasText: 'e2evisitbf' });
        await row.getByTestId('form-publish').click();
        const dialog = page()
          .locator('.ant-modal')
          .filter({ has: page().getByTestId('publish-parent') });
        const backfill = dialog.getByTestId('publish-backfill');
        await backfill.waitFor();
        await dialog.getByText('门岗（2）').waitFor();
        // without the backfill the new required field is refused: the records have no value
        await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
        await dialog.getByTestId('publish-failure').waitFor();
        await backfill.check();
        // the refusal was of the attempt without the backfill: ticking it clears it
        await dialog.getByTestId('publish-failure').waitFor({ state: 'detached' });
        await shot('republish-backfill');
        await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
        await dialog.waitFor({ state: 'detached' });
        const filled = await admin.get<{ records: { visitor: string; gate: string }[] }>(
          '/api/online/e2evisitbf/query?sort=id',
        );
        assert.deepEqual(
          filled.records.map((record) => [record.visitor, record.gate]),
          [
            ['回填甲', 'A1'],
            ['回填乙', 'A1'],
          ],
        );

        // 版本历史: what changed since the version before, by title; restore version 1 as a draft
        await row.getByTestId('form-history').click();
        const drawer = page().locator('.ant-drawer-content');
        const diff = drawer.getByTestId('version-diff');
        await diff.locator('li[data-change="added"]').filter({ hasText: '门岗' }).waitFor();
        assert.equal(await diff.locator('li[data-change="removed"]').count(), 0);
        await shot('history-diff');
        await drawer.locator('[data-testid="version-restore"][data-version="1"]').last().click();
        await page().locator('.ant-popconfirm .ant-btn-primary').click();
        await drawer
          .getByTestId('form-versions')
          .locator('tr.ant-table-row')
          .first()
          .filter({ hasText: '恢复' })
          .waitFor();
        await shot('history-restored');
        const restored = await admin.get<{
          records: { formContent: { properties: Record<string, unknown> } }[];
        }>(`/api/generator/form/query?id=${added.id}`);
        assert.deepEqual(Object.keys(restored.records[0]?.formContent.properties ?? {}), ['visitor']);
        await drawer.locator('.ant-drawer-close').click();
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
        // 表单管理 (/generatorform without a form) is a menu page: inside the shell (issue 40 point 12)
        await page().goto(url('/generatorform'));
        await page().getByTestId('sidebar').waitFor();
        await page().getByTestId('form-new').waitFor();
        await page().locator('.admin-page').getByText(CODE).first().waitFor();
        await shot('generatorform-in-shell');
        await session?.context.close();
      },
    },
  ];
}
