import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { checkRow, expectSuccess, rowWith, untilStill } from './entity-driver.js';
import { apiClient, networkQuiet, signedIn, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * Approval of records (issue 36, x-entity.workflow): the administrator submits a purchase
 * announcement from its list (提交审批) and the list says 审批中; the approver (a holder of
 * ROLE_PURCHASE_AUDIT) claims 审核, sees the announcement in its form on the task page, read-only
 * but for the budget the task may change, and approves; the list then says 已通过. Screenshots
 * under test-results/e2e/record-approval-*.png.
 */

const VIEWPORT = { width: 1440, height: 900 };
const PASSWORD = 'record-approval-1';

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  const stamp = Date.now().toString(36).slice(-5);
  const title = `审批验收-${stamp}`;
  let admin: ApiClient;
  let id = 0;
  let context: BrowserContext | undefined;
  let page: Page;
  const shot = (target: Page, name: string) =>
    target.screenshot({ path: join(screenshots, `record-approval-${name}.png`), fullPage: true });
  const openList = async (): Promise<void> => {
    await page.goto(`${server.url}/admin/purchase`);
    await page.getByTestId('entity-table').locator('.ant-table-tbody').waitFor();
    await networkQuiet(page);
  };
  const statusOf = async (): Promise<string> =>
    (await rowWith(page, title).first().getByTestId('approval-status').innerText()).trim();

  return [
    {
      name: 'setup: the approver and a draft announcement',
      run: async () => {
        admin = await apiClient(server.url, 'admin', server.adminPassword);
        const role = await admin.post<{ id: number }>('/api/admin/sysrole/add', {
          roleCode: 'ROLE_PURCHASE_AUDIT',
          roleName: '采购审核',
        });
        // a role with some back-office menu gets the personal office (待签收, 待办, 任务详情)
        const menu = (
          await admin.get<{ records: { id: number; menuCode: string }[] }>(
            '/api/admin/sysmenu/query?menuCode=mynotification&pageSize=10',
          )
        ).records.find((item) => item.menuCode === 'mynotification');
        assert.ok(menu);
        await admin.post('/api/admin/sysmenu/authorizeMenuToRole', { roleId: role.id, menuIds: [menu.id] });
        await admin.post('/api/admin/sysuser/add', {
          username: 'audrey',
          nickname: '审核员',
          password: PASSWORD,
          email: 'audrey@example.com',
          mobile: '13900000731',
          phone: '010-1234567',
          status: '1',
          roleId: role.id,
          orgId: 1,
        });
        // no deployment by hand: the seed deployed the product's purchaseApproval
        // (schemas/processes/purchaseApproval.bpmn)
        id = (
          await admin.post<{ id: number }>('/api/notification/purchase/add', {
            title,
            buyerName: '绿水环保集团',
            budget: '880000.00',
          })
        ).id;
      },
    },
    {
      name: '提交审批 from the list: the announcement is 审批中',
      run: async () => {
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: VIEWPORT,
        }));
        await openList();
        await rowWith(page, title).waitFor();
        assert.equal(await statusOf(), '草稿');
        await checkRow(page, title);
        await page.getByTestId('entity-submit-approval').click();
        const confirm = page.locator('.ant-modal-confirm').last();
        await untilStill(confirm);
        assert.match(await confirm.innerText(), new RegExp(`将「${title}」提交审批`));
        const done = expectSuccess(page, '已提交审批');
        done.catch(() => undefined);
        await confirm.locator('.ant-btn-primary').click();
        await done;
        await networkQuiet(page);
        for (let tries = 0; tries < 50 && (await statusOf()) !== '审批中'; tries += 1)
          await page.waitForTimeout(100);
        assert.equal(await statusOf(), '审批中');
        await shot(page, 'list-pending');
        // under approval: 编辑 is refused by the server, naming the announcement
        const current = await admin.get<{ records: { version: number }[] }>(
          `/api/notification/purchase/query?id=${id}`,
        );
        await assert.rejects(
          admin.put('/api/notification/purchase/update', {
            id,
            version: current.records[0]?.version,
            title: 'x',
          }),
          /正在审批中|under approval/,
        );
      },
    },
    {
      name: 'the approver sees the announcement on the task page and approves it',
      run: async () => {
        const detail = await admin.get<{ records: { approvalInstance: number }[] }>(
          `/api/notification/purchase/query?id=${id}`,
        );
        const instanceId = detail.records[0]?.approvalInstance;
        assert.ok(instanceId, 'the announcement names its instance');
        const instance = await admin.get<{ tasks: { id: number }[] }>(
          `/api/activiti/processinstance/detail?id=${instanceId}`,
        );
        const taskId = instance.tasks[0]?.id;
        assert.ok(taskId, 'the instance has an open task');
        const approver = await signedIn(browser, server, 'audrey', PASSWORD, { viewport: VIEWPORT });
        try {
          const task = approver.page;
          await task.goto(`${server.url}/admin/mytaskdetails?id=${taskId}`);
          await task.getByTestId('claim').click();
          await task.locator('.ant-message-success').last().waitFor();
          const record = task.getByTestId('approval-record');
          await record.waitFor();
          await networkQuiet(task);
          assert.equal((await record.getByTestId('approval-record-status').innerText()).trim(), '审批中');
          // the announcement in its form: its title read-only, the budget the task may change
          await record.locator('#root_title').waitFor();
          assert.equal(await record.locator('#root_title').inputValue(), title);
          await record.getByText('当前任务可修改：预算金额、投标截止时间').waitFor();
          await record.getByTestId('approval-record-save').waitFor();
          await shot(task, 'task-record');
          await task.getByTestId('task-comment').fill('同意发布');
          const approved = expectSuccess(task, '任务已完成');
          approved.catch(() => undefined);
          await task.getByTestId('action-complete').click();
          await approved;
          await networkQuiet(task);
        } finally {
          await approver.context.close();
        }
        await openList();
        for (let tries = 0; tries < 50 && (await statusOf()) !== '已通过'; tries += 1)
          await page.waitForTimeout(100);
        assert.equal(await statusOf(), '已通过');
        await shot(page, 'list-approved');
        await context?.close();
      },
    },
    {
      name: 'a designed form: 审批流程 chosen in the designer, published, its list submits for approval',
      run: async () => {
        const code = `e2eclaim${stamp.replace(/[^a-z0-9]/g, '')}`;
        const form = await admin.post<{ id: number }>('/api/generator/form/add', {
          formCode: code,
          formName: `报销单 ${stamp}`,
          formContent: {
            title: `报销单 ${stamp}`,
            // as the designer writes a form's code
            'x-entity': { api: `form/${code}`, table: `form_${code}` },
            required: ['claimant'],
            properties: {
              claimant: { type: 'string', title: '报销人', maxLength: 40 },
              amount: { type: 'integer', title: '金额', minimum: 0 },
            },
          },
        });
        const designer = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: VIEWPORT,
        });
        try {
          const design = designer.page;
          await design.goto(`${server.url}/admin/formdesign?id=${form.id}`);
          const version = design.locator('.formdesign .ant-card-extra .ant-tag');
          await version.filter({ hasText: '版本 1' }).waitFor();
          await design.getByTestId('canvas').click({ position: { x: 5, y: 5 } });
          const properties = design.locator('.formdesign-properties');
          const picker = properties.getByTestId('prop-workflow');
          await picker.waitFor();
          await picker.click();
          // the tenant's deployed processes: the product's purchaseApproval among them
          await design
            .locator('.ant-select-dropdown:visible .ant-select-item-option')
            .filter({ hasText: 'purchaseApproval' })
            .click();
          await picker
            .locator('.ant-select-selection-item', { hasText: '采购公告审批 (purchaseApproval)' })
            .waitFor();
          await shot(design, 'designer-process');
          await design.getByTestId('save').click();
          await version.filter({ hasText: '版本 2' }).waitFor();
        } finally {
          await designer.context.close();
        }
        const saved = await admin.get<{
          records: { formContent: { 'x-entity'?: { workflow?: unknown } } }[];
        }>(`/api/generator/form/query?formCode=${code}`);
        assert.deepEqual(saved.records[0]?.formContent['x-entity']?.workflow, {
          process: 'purchaseApproval',
        });
        await admin.post('/api/generator/form/publish', { id: form.id, menuParent: 'formgenerator' });
        const claimant = `报销人-${stamp}`;
        await admin.post(`/api/online/${code}/add`, { claimant, amount: 42 });
        const lister = await signedIn(browser, server, 'admin', server.adminPassword, { viewport: VIEWPORT });
        try {
          const list = lister.page;
          await list.goto(`${server.url}/admin/online/${code}`);
          await list.getByTestId('entity-table').locator('.ant-table-tbody').waitFor();
          await networkQuiet(list);
          const status = async (): Promise<string> =>
            (await rowWith(list, claimant).first().getByTestId('approval-status').innerText()).trim();
          await rowWith(list, claimant).waitFor();
          assert.equal(await status(), '草稿');
          await checkRow(list, claimant);
          await list.getByTestId('entity-submit-approval').click();
          const confirm = list.locator('.ant-modal-confirm').last();
          await untilStill(confirm);
          const done = expectSuccess(list, '已提交审批');
          done.catch(() => undefined);
          await confirm.locator('.ant-btn-primary').click();
          await done;
          await networkQuiet(list);
          for (let tries = 0; tries < 50 && (await status()) !== '审批中'; tries += 1)
            await list.waitForTimeout(100);
          assert.equal(await status(), '审批中');
          await shot(list, 'form-list-pending');
        } finally {
          await lister.context.close();
        }
      },
    },
  ];
}
