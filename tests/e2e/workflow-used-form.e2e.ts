import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import { untilStill } from './entity-driver.js';
import { pickUser } from './pick-user.js';
import { apiClient, expectTextColour, signedIn, type Check, type E2eContext } from './support.js';

/**
 * Issue 36, a model's form: the administrator picks 使用表单 (a published designed form) in the
 * model dialog and deploys; 发起流程 shows that form, and the approver's task page shows what the
 * initiator filled in, read-only.
 */

const SHOTS = process.env.SHOTS_DIR ?? 'test-results/e2e';
const KEY = 'e2e_used_form';
const PROCESS = '请假审批（使用表单）';
const FORM = 'e2eleaveform';
const DESCRIPTION = '年假三天';

// start (no form of its own) → 审批 (the admin) → end
const XML = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="e2e">
  <process id="${KEY}" name="${PROCESS}" isExecutable="true">
    <startEvent id="s"/>
    <sequenceFlow id="f0" sourceRef="s" targetRef="review"/>
    <userTask id="review" name="审批" camunda:assignee="admin"/>
    <sequenceFlow id="f1" sourceRef="review" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>`;

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `${SHOTS}/used-form-${name}.png`, fullPage: false });

/** Clicks the dialog's primary button once it has stopped moving (a click during its zoom-in can be lost). */
async function confirm(dialog: Locator): Promise<void> {
  await untilStill(dialog);
  await dialog.locator('.ant-btn-primary').click();
  await dialog.waitFor({ state: 'hidden' });
}

export function checks({ server, browser }: E2eContext): Check[] {
  return [
    {
      name: '使用表单 picked in the model dialog: 发起流程 shows the form, the approver sees it read-only',
      async run() {
        mkdirSync(SHOTS, { recursive: true });
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const form = await admin.post<{ id: number }>('/api/generator/form/add', {
          formCode: FORM,
          formName: '请假单',
          formContent: {
            title: '请假单',
            type: 'object',
            required: ['applicant'],
            properties: {
              applicant: { type: 'string', title: '申请人', maxLength: 40 },
              days: { type: 'integer', title: '天数', minimum: 1 },
            },
          },
        });
        await admin.post('/api/generator/form/publish', {
          id: form.id,
          menuParent: 'formgenerator',
          roles: ['ROLE_ADMIN'],
        });
        const { context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
        });
        try {
          // 新增模型 with 使用表单 picked from the forms, searched by its title
          await page.goto(`${server.url}/admin/model`);
          await page.getByTestId('entity-table').waitFor();
          await page.getByTestId('entity-add').click();
          const dialog = page.locator('.ant-modal').filter({ has: page.getByTestId('model-form') });
          await untilStill(dialog);
          await dialog.locator('#name').fill(PROCESS);
          await dialog.locator('#key').fill(KEY);
          await dialog.getByTestId('model-used-form').click();
          await page.keyboard.type('请假');
          const option = page
            .locator('.model-used-form-popup:not(.ant-select-dropdown-hidden) .ant-select-item-option')
            .filter({ hasText: `请假单（${FORM}）` });
          await option.waitFor();
          await untilStill(page.locator('.model-used-form-popup:not(.ant-select-dropdown-hidden)'));
          await shot(page, '01-model-dialog-picker');
          await option.click();
          await page.locator('.model-used-form-popup').waitFor({ state: 'hidden' });
          await dialog
            .getByTestId('model-used-form')
            .locator('.ant-select-selection-item')
            .filter({ hasText: `请假单（${FORM}）` })
            .waitFor();
          await shot(page, '02-model-dialog-picked');
          await expectNoAxeViolations(page, '/model 新增模型 with 使用表单');
          await confirm(dialog);
          const row = page.getByTestId('entity-table').locator('tr', { hasText: KEY });
          await row.waitFor();
          const [model] = (
            await admin.get<{ records: { id: number; usedForm: string | null }[] }>(
              `/api/activiti/model/query?key=${KEY}`,
            )
          ).records;
          assert.equal(model?.usedForm, FORM);
          // the diagram (designed in the modeler, which other checks drive), then 部署 on the list
          await admin.put('/api/activiti/model/saveXml', { id: model?.id, xml: XML });
          await page.getByTestId('entity-refresh').click();
          await row.locator('input[type=checkbox]').check();
          await page.getByTestId('model-deploy').click();
          await page.locator('.ant-message-success').filter({ hasText: KEY }).waitFor();

          // 发起流程: the model's form, filled in and submitted
          await page.goto(`${server.url}/admin/startprocess`);
          const card = page.locator(`[data-testid="process-card"][data-key="${KEY}"]`);
          await card.getByTestId('start-process').click();
          const start = page.locator('.ant-modal').filter({ has: page.getByTestId('start-description') });
          await page.locator('#root_applicant').waitFor();
          await untilStill(start);
          await page.getByTestId('start-description').fill(DESCRIPTION);
          await pickUser(page, page.getByTestId('start-candidate'), 'admin', 'wf-user-popup');
          const range = page.locator('.wf-range input');
          await range.first().click();
          await range.first().fill('2026-12-07');
          await range.first().press('Enter');
          await range.nth(1).fill('2026-12-09');
          await range.nth(1).press('Enter');
          await page.locator('#root_applicant').fill('张三');
          await page.locator('#root_days').fill('3');
          await page.locator('#root_days').press('Tab');
          await shot(page, '03-start-dialog-form');
          await start.locator('.ant-btn-primary').click();
          await page.waitForURL(/\/admin\/myprocessdetails\?id=\d+/);
          const startForm = page.getByTestId('wf-start-form');
          await startForm.locator('#root_applicant').waitFor();
          assert.equal(await startForm.locator('#root_applicant').inputValue(), '张三');

          // the approver's task page: the form as filled in, read-only
          await page.goto(`${server.url}/admin/assigneetask`);
          const tasks = page.getByTestId('wf-assignee-tasks');
          await tasks.waitFor();
          const task = tasks.locator('tr.ant-table-row').filter({ hasText: DESCRIPTION }).first();
          await task.waitFor();
          await task.getByTestId('handle').click();
          await page.getByTestId('wf-handle').waitFor();
          const shown = page.getByTestId('wf-start-form');
          await shown.locator('#root_applicant').waitFor();
          assert.equal(await shown.locator('#root_applicant').inputValue(), '张三');
          assert.equal(await shown.locator('#root_days').inputValue(), '3');
          assert.equal(await shown.locator('#root_applicant').isEditable(), false);
          // read in the text colour (its label's), not antd's faint disabled grey: a number too
          for (const name of ['applicant', 'days']) await expectTextColour(shown, `root_${name}`);
          await shown.scrollIntoViewIfNeeded();
          await shot(page, '04-task-page-form');
        } finally {
          await context.close();
        }
      },
    },
  ];
}
