import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { untilStill } from './entity-driver.js';
import { pickUser } from './pick-user.js';
import { apiClient, signedIn, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * 加签 and 抄送 in Chromium (issue 40 point 13): the assignee adds a signer before them from the
 * task page; the signer sees why, approves and copies the instance to a fourth user, who finds
 * it in 抄送我的 and reads it without acting on it; the task is back with its assignee.
 */

const PASSWORD = 'cc40-pass-1';
const SHOTS = process.env.WF_SHOTS ?? '/tmp/shots-wfcc';
const KEY = 'cc40_e2e';
const USERS = ['cc40bob', 'cc40carol', 'cc40dave', 'cc40erin'];

const XML = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="test">
  <process id="${KEY}" name="加签抄送演示" isExecutable="true">
    <startEvent id="s"/><sequenceFlow id="f0" sourceRef="s" targetRef="review"/>
    <userTask id="review" name="审核" camunda:assignee="cc40bob"/>
    <sequenceFlow id="f1" sourceRef="review" targetRef="e"/><endEvent id="e"/>
  </process>
</definitions>`;

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

type TaskRow = { id: number; assignee: string | null; status: string; parentTaskId: number | null };

export function checks({ server, browser }: E2eContext): Check[] {
  const base = server.url;
  let admin: ApiClient;
  let taskId = 0;
  let instanceId = 0;
  const openTasks = async (): Promise<TaskRow[]> =>
    (
      await admin.get<{ records: TaskRow[] }>(
        `/api/activiti/task/query?processInstanceId=${instanceId}&finished=false`,
      )
    ).records;

  return [
    {
      name: 'setup: four staff users and a process whose task is cc40bob’s, started by cc40dave',
      run: async () => {
        admin = await apiClient(base, 'admin', server.adminPassword);
        const notification = (
          await admin.get<{ records: { id: number; menuCode: string }[] }>(
            '/api/admin/sysmenu/query?menuCode=mynotification&pageSize=10',
          )
        ).records.find((menu) => menu.menuCode === 'mynotification');
        assert.ok(notification);
        const role = await admin.post<{ id: number }>('/api/admin/sysrole/add', {
          roleCode: 'ROLE_CC40_STAFF',
          roleName: '加签抄送职员',
        });
        await admin.post('/api/admin/sysmenu/authorizeMenuToRole', {
          roleId: role.id,
          menuIds: [notification.id],
        });
        for (const [index, name] of USERS.entries())
          await admin.post('/api/admin/sysuser/add', {
            username: name,
            nickname: name,
            password: PASSWORD,
            email: `${name}@example.com`,
            mobile: `1376544040${index}`,
            phone: '010-1234567',
            status: '1',
            roleId: role.id,
            orgId: 1,
          });
        const starter = await apiClient(base, 'cc40dave', PASSWORD);
        await admin.post('/api/activiti/deployment/deployXml', {
          xml: XML,
          name: '加签抄送演示',
          category: '行政',
        });
        const started = await starter.post<{ id: number }>('/api/activiti/processinstance/start', {
          processDefinitionKey: KEY,
          description: '加签抄送演示',
          variables: {},
        });
        instanceId = started.id;
        taskId = (await openTasks())[0]?.id ?? 0;
        assert.ok(taskId > 0);
      },
    },
    {
      name: '加签: cc40bob adds cc40carol before him; his task waits, hers says why and names who added her',
      run: async () => {
        const bob = await signedIn(browser, server, 'cc40bob', PASSWORD);
        try {
          await bob.page.goto(`${base}/admin/mytaskdetails?id=${taskId}`);
          await bob.page.getByTestId('wf-handle').waitFor();
          await bob.page.getByTestId('action-add-sign').click();
          const dialog = bob.page
            .locator('.ant-modal')
            .filter({ has: bob.page.getByTestId('comment-input') });
          await untilStill(dialog);
          // the default is 向前加签
          assert.ok(await dialog.getByRole('radio', { name: /向前加签/ }).isChecked());
          await pickUser(bob.page, dialog.getByTestId('add-sign-users'), 'cc40carol', 'wf-user-popup');
          // the multiple select stays open: a click beside it closes it (Escape would close the dialog)
          await dialog.locator('.ant-modal-title').click();
          await dialog.getByTestId('comment-input').fill('请 cc40carol 先审预算');
          await shot(bob.page, 'add-sign-dialog');
          await dialog.locator('.ant-btn-primary').click();
          await dialog.waitFor({ state: 'detached' });
          await bob.page.locator('.ant-message-success').filter({ hasText: '已加签' }).last().waitFor();
          await bob.page.waitForURL(/\/assigneetask/);
          // opened again, it waits for the signer: no actions
          await bob.page.goto(`${base}/admin/mytaskdetails?id=${taskId}`);
          await bob.page.getByTestId('wf-waiting').waitFor();
          assert.equal(await bob.page.getByTestId('wf-handle').count(), 0);
          await shot(bob.page, 'add-sign-waiting');
        } finally {
          await bob.context.close();
        }
        const tasks = await openTasks();
        assert.deepEqual(
          tasks.map((row) => [row.assignee, row.status, row.parentTaskId]).sort(),
          [
            ['cc40bob', 'waiting', null],
            ['cc40carol', 'assigned', taskId],
          ].sort(),
        );
      },
    },
    {
      name: '抄送: cc40carol approves, copying to cc40erin; the task is back with cc40bob',
      run: async () => {
        const signerTask = (await openTasks()).find((row) => row.assignee === 'cc40carol');
        assert.ok(signerTask);
        const carol = await signedIn(browser, server, 'cc40carol', PASSWORD);
        try {
          await carol.page.goto(`${base}/admin/mytaskdetails?id=${signerTask.id}`);
          await carol.page.getByTestId('wf-signer').waitFor();
          const added = carol.page.getByTestId('wf-comment').filter({ hasText: '向前加签 cc40carol' });
          await added.waitFor();
          assert.match(
            (await added.textContent()) ?? '',
            /cc40bob.*向前加签 cc40carol.*请 cc40carol 先审预算/,
          );
          // a signer's task adds no signers and has nothing to go back to
          assert.equal(await carol.page.getByTestId('action-add-sign').count(), 0);
          await carol.page.getByTestId('task-comment').fill('预算无误，同意');
          await pickUser(carol.page, carol.page.getByTestId('copy-users'), 'cc40erin', 'wf-user-popup');
          await carol.page.keyboard.press('Escape');
          await shot(carol.page, 'signer-task-with-copy');
          await carol.page.getByTestId('action-complete').click();
          await carol.page.locator('.ant-message-success').filter({ hasText: '任务已完成' }).last().waitFor();
        } finally {
          await carol.context.close();
        }
        const tasks = await openTasks();
        assert.deepEqual(
          tasks.map((row) => [row.id, row.assignee, row.status]),
          [[taskId, 'cc40bob', 'assigned']],
        );
      },
    },
    {
      name: '抄送我的: cc40erin finds the instance there and reads it, with no action offered',
      run: async () => {
        const erin = await signedIn(browser, server, 'cc40erin', PASSWORD);
        try {
          await erin.page.goto(`${base}/admin/copytask`);
          const row = erin.page
            .getByTestId('wf-copy-tasks')
            .locator('tr.ant-table-row')
            .filter({ hasText: '加签抄送演示' });
          await row.first().waitFor();
          assert.match((await row.first().textContent()) ?? '', /cc40carol.*预算无误，同意/);
          await shot(erin.page, 'copy-list');
          await row.first().getByTestId('open-copy').click();
          await erin.page.waitForURL(/\/myprocessdetails\?id=\d+&from=copy/);
          await erin.page.getByTestId('wf-copy-read-only').waitFor();
          const copied = erin.page.getByTestId('wf-comment').filter({ hasText: '抄送 cc40erin' });
          await copied.waitFor();
          assert.match((await copied.textContent()) ?? '', /cc40carol/);
          assert.equal(await erin.page.getByTestId('withdraw').count(), 0);
          await shot(erin.page, 'copy-detail');
        } finally {
          await erin.context.close();
        }
      },
    },
  ];
}
