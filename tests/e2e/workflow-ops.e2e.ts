import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { untilStill } from './entity-driver.js';
import { pickUser } from './pick-user.js';
import { apiClient, signedIn, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * Chinese BPM's task operations in Chromium (issue 40 point 13): 转办 from the task page (the
 * new assignee gets the task, the history says who transferred to whom) and 挂起 of a definition
 * asking whether to suspend its running instances too.
 */

const PASSWORD = 'ops-pass-1';
const SHOTS = process.env.WF_SHOTS ?? '/tmp/shots-wfops';
const KEY = 'ops_e2e';

const XML = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="test">
  <process id="${KEY}" name="转办演示" isExecutable="true">
    <startEvent id="s"/><sequenceFlow id="f0" sourceRef="s" targetRef="review"/>
    <userTask id="review" name="审核" camunda:assignee="opsbob"/>
    <sequenceFlow id="f1" sourceRef="review" targetRef="e"/><endEvent id="e"/>
  </process>
</definitions>`;

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

export function checks({ server, browser }: E2eContext): Check[] {
  const base = server.url;
  let admin: ApiClient;
  let starter: ApiClient;
  let taskId = 0;
  let instanceId = 0;

  return [
    {
      name: 'setup: two staff users and a process whose task is opsbob’s, started through the API',
      run: async () => {
        admin = await apiClient(base, 'admin', server.adminPassword);
        const notification = (
          await admin.get<{ records: { id: number; menuCode: string }[] }>(
            '/api/admin/sysmenu/query?menuCode=mynotification&pageSize=10',
          )
        ).records.find((menu) => menu.menuCode === 'mynotification');
        assert.ok(notification);
        const role = await admin.post<{ id: number }>('/api/admin/sysrole/add', {
          roleCode: 'ROLE_OPS_STAFF',
          roleName: '办公职员',
        });
        await admin.post('/api/admin/sysmenu/authorizeMenuToRole', {
          roleId: role.id,
          menuIds: [notification.id],
        });
        for (const [index, name] of ['opsbob', 'opscarol'].entries())
          await admin.post('/api/admin/sysuser/add', {
            username: name,
            nickname: name,
            password: PASSWORD,
            email: `${name}@example.com`,
            mobile: `1376543040${index}`,
            phone: '010-1234567',
            status: '1',
            roleId: role.id,
            orgId: 1,
          });
        starter = await apiClient(base, 'opscarol', PASSWORD);
        await admin.post('/api/activiti/deployment/deployXml', {
          xml: XML,
          name: '转办演示',
          category: '行政',
        });
        const started = await starter.post<{ id: number }>('/api/activiti/processinstance/start', {
          processDefinitionKey: KEY,
          description: '转办演示',
          variables: {},
        });
        instanceId = started.id;
        const tasks = await admin.get<{ records: { id: number }[] }>(
          `/api/activiti/task/query?processInstanceId=${instanceId}`,
        );
        taskId = tasks.records[0]?.id ?? 0;
        assert.ok(taskId > 0);
      },
    },
    {
      name: '转办: opsbob transfers his task to opscarol with a comment; she holds it, the history says so',
      run: async () => {
        const bob = await signedIn(browser, server, 'opsbob', PASSWORD);
        try {
          await bob.page.goto(`${base}/admin/mytaskdetails?id=${taskId}`);
          await bob.page.getByTestId('wf-handle').waitFor();
          await bob.page.getByTestId('action-transfer').click();
          const dialog = bob.page
            .locator('.ant-modal')
            .filter({ has: bob.page.getByTestId('comment-input') });
          await untilStill(dialog);
          await pickUser(bob.page, dialog.getByTestId('transfer-username'), 'opscarol', 'wf-user-popup');
          await dialog.getByTestId('comment-input').fill('我出差，请 opscarol 审核');
          await shot(bob.page, 'transfer-dialog');
          await dialog.locator('.ant-btn-primary').click();
          await dialog.waitFor({ state: 'detached' });
          await bob.page.locator('.ant-message-success').filter({ hasText: '任务已转办' }).last().waitFor();
          // back on the list, without the task
          await bob.page.waitForURL(/\/assigneetask/);
        } finally {
          await bob.context.close();
        }
        const carol = await signedIn(browser, server, 'opscarol', PASSWORD);
        try {
          await carol.page.goto(`${base}/admin/mytaskdetails?id=${taskId}`);
          await carol.page.getByTestId('wf-handle').waitFor();
          const transferred = carol.page.getByTestId('wf-comment').filter({ hasText: '转办给 opscarol' });
          await transferred.waitFor();
          assert.match((await transferred.textContent()) ?? '', /opsbob.*我出差，请 opscarol 审核/);
          await shot(carol.page, 'transferred-task');
        } finally {
          await carol.context.close();
        }
      },
    },
    {
      name: '挂起: the definition list asks, with 同时挂起运行中的流程实例, and the running instance is suspended',
      run: async () => {
        const { context, page } = await signedIn(browser, server, 'admin', server.adminPassword);
        try {
          await page.goto(`${base}/admin/processdefinition`);
          // Other checks deploy definitions too: the list is searched by the process's name.
          const search = page.locator('.ant-input-search input').first();
          await search.fill('转办演示');
          await search.press('Enter');
          const row = page.getByTestId('wf-definitions').locator('tr.ant-table-row').filter({ hasText: KEY });
          await row.first().waitFor();
          await row
            .first()
            .getByRole('button', { name: /^挂\s?起$/ })
            .click();
          const confirm = page.getByTestId('suspend-definition-confirm');
          await confirm.waitFor();
          await untilStill(page.locator('.ant-modal').filter({ has: confirm }));
          await page.getByTestId('suspend-instances').check();
          await shot(page, 'suspend-definition-confirm');
          await page.locator('.ant-modal').filter({ has: confirm }).locator('.ant-btn-primary').click();
          await row
            .first()
            .getByRole('button', { name: /^激\s?活$/ })
            .waitFor();
          const detail = await admin.get<{ suspended: boolean }>(
            `/api/activiti/processinstance/detail?id=${instanceId}`,
          );
          assert.equal(detail.suspended, true, 'the running instance is suspended with its definition');
        } finally {
          await context.close();
        }
      },
    },
  ];
}
