import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { untilStill } from './entity-driver.js';
import { pickUser } from './pick-user.js';
import {
  apiClient,
  expectTextColour,
  signedIn,
  type ApiClient,
  type Check,
  type E2eContext,
} from './support.js';

/**
 * One approval walked in Chromium from 发起 to its end (issue 40, "Done when"): the initiator
 * starts it with its form (流程描述, 业务键, the request's fields); approver 1 approves seeing the
 * request; approver 2 rejects (驳回), which returns it to the initiator's first task; the initiator
 * revises the form and resubmits; both approve again and it ends. Each step checks what its user
 * sees (the request's data on the task page, 流程描述 / 业务键 in 待办 and 已办, the lines of the
 * history) and takes a screenshot. Then the smaller point-13 operations: 取消签收 of a claimed
 * candidate task, 转办 from the administrators' all-tasks list, and a deployment's resources in
 * 部署管理. Own users (walkann, walkbob, walkcarol), mobile numbers and process keys.
 */

const PASSWORD = 'walk-pass-1';
const SHOTS = process.env.WF_SHOTS ?? '/tmp/shots-approval-walk';
const KEY = 'walk_approval';
const PROCESS = '采购审批走查';
const DESCRIPTION = '采购笔记本电脑 2 台';
const BUSINESS_KEY = 'WALK-2026-001';
const FIRST_VALUE = '2 台，单价 6000 元';
const REVISED_VALUE = '2 台，单价 5200 元（附三家比价）';
const UNCLAIM_KEY = 'walk_unclaim';
const UNCLAIM_PROCESS = '签收走查';

const shape = (id: string, x: number, y: number, width = 100, height = 80): string =>
  `<bpmndi:BPMNShape id="${id}_di" bpmnElement="${id}"><dc:Bounds x="${x}" y="${y}" width="${width}" height="${height}"/></bpmndi:BPMNShape>`;
const edge = (id: string, x1: number, x2: number): string =>
  `<bpmndi:BPMNEdge id="${id}_di" bpmnElement="${id}"><di:waypoint x="${x1}" y="160"/><di:waypoint x="${x2}" y="160"/></bpmndi:BPMNEdge>`;

/** start (form) → 提交申请 (the initiator, the same form) → 部门经理审批 (walkbob) → 财务审批 (walkcarol) → end. */
const XML = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" xmlns:dc="http://www.omg.org/spec/DD/20100524/DC"
  xmlns:di="http://www.omg.org/spec/DD/20100524/DI" xmlns:camunda="http://camunda.org/schema/1.0/bpmn"
  id="Definitions_walk" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="${KEY}" name="${PROCESS}" isExecutable="true">
    <bpmn:startEvent id="start" name="开始" camunda:initiator="starter" camunda:formKey="sysparam"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="submit"/>
    <bpmn:userTask id="submit" name="提交申请" camunda:assignee="\${starter}" camunda:formKey="sysparam"/>
    <bpmn:sequenceFlow id="f2" sourceRef="submit" targetRef="approve1"/>
    <bpmn:userTask id="approve1" name="部门经理审批" camunda:assignee="walkbob"/>
    <bpmn:sequenceFlow id="f3" sourceRef="approve1" targetRef="approve2"/>
    <bpmn:userTask id="approve2" name="财务审批" camunda:assignee="walkcarol"/>
    <bpmn:sequenceFlow id="f4" sourceRef="approve2" targetRef="end"/>
    <bpmn:endEvent id="end" name="结束"/>
  </bpmn:process>
  <bpmndi:BPMNDiagram id="Diagram_walk">
    <bpmndi:BPMNPlane id="Plane_walk" bpmnElement="${KEY}">
      ${shape('start', 112, 142, 36, 36)}${shape('submit', 200, 120)}${shape('approve1', 360, 120)}
      ${shape('approve2', 520, 120)}${shape('end', 682, 142, 36, 36)}
      ${edge('f1', 148, 200)}${edge('f2', 300, 360)}${edge('f3', 460, 520)}${edge('f4', 620, 682)}
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
</bpmn:definitions>`;

/** A task offered to walkbob and walkcarol, either claims it. */
const UNCLAIM_XML = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="test">
  <process id="${UNCLAIM_KEY}" name="${UNCLAIM_PROCESS}" isExecutable="true">
    <startEvent id="s"/><sequenceFlow id="f0" sourceRef="s" targetRef="pick"/>
    <userTask id="pick" name="走查签收" camunda:candidateUsers="walkbob,walkcarol"/>
    <sequenceFlow id="f1" sourceRef="pick" targetRef="e"/><endEvent id="e"/>
  </process>
</definitions>`;

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** Opens a list page through its path and waits for its rows. */
async function open(page: Page, base: string, path: string, testId: string): Promise<Locator> {
  await page.goto(`${base}/admin${path}`);
  const table = page.getByTestId(testId);
  await table.waitFor();
  await table.locator('.ant-spin-spinning').waitFor({ state: 'detached' });
  return table;
}

/** The rows of a list for this walk's request (its process, description and business key). */
function requestRows(table: Locator, taskName: string): Locator {
  return table
    .locator('tr.ant-table-row')
    .filter({ hasText: PROCESS })
    .filter({ hasText: DESCRIPTION })
    .filter({ hasText: BUSINESS_KEY })
    .filter({ hasText: taskName });
}

/** The text of a list row's cell under the column with this title. */
async function cell(table: Locator, row: Locator, title: string): Promise<string> {
  const titles = await table.locator('thead th').allInnerTexts();
  const index = titles.findIndex((text) => text.trim() === title);
  assert.ok(index >= 0, `a column ${title}: ${titles.join(' | ')}`);
  return (await row.locator('td').nth(index).innerText()).trim();
}

/** Opens the task from 待办 and checks 流程描述 and 业务键 are its columns; waits for the handling part. */
async function handleFromList(page: Page, base: string, taskName: string, shotName?: string): Promise<void> {
  const table = await open(page, base, '/assigneetask', 'wf-assignee-tasks');
  const row = requestRows(table, taskName).first();
  await row.waitFor();
  assert.equal(await cell(table, row, '流程描述'), DESCRIPTION);
  assert.equal(await cell(table, row, '业务键'), BUSINESS_KEY);
  if (shotName) await shot(page, shotName);
  await row.getByTestId('handle').click();
  await page.getByTestId('wf-handle').waitFor();
  await page.getByTestId('wf-diagram').locator('.djs-element').first().waitFor();
}

/** The task page's facts name the request: its process, 流程描述 and 业务键. */
async function expectRequestFacts(page: Page, taskName: string): Promise<void> {
  const facts = page.getByTestId('wf-task-facts');
  await facts.getByText(DESCRIPTION).waitFor();
  const text = await facts.innerText();
  for (const part of [taskName, PROCESS, BUSINESS_KEY]) assert.ok(text.includes(part), `${part} in ${text}`);
}

/** The request's form as the approver sees it: read-only, with the initiator's values. */
async function expectRequestForm(page: Page, value: string): Promise<void> {
  const form = page.getByTestId('wf-start-form');
  await form.waitFor();
  assert.equal(await form.locator('#root_paramName').inputValue(), '笔记本电脑');
  assert.equal(await form.locator('#root_paramKey').inputValue(), 'walk.notebook');
  assert.equal(await form.locator('#root_paramValue').inputValue(), value);
  assert.ok(
    (await form.locator('#root_paramValue').isEditable()) === false,
    'the approver does not edit the request',
  );
  // read in the text colour (its label's), not antd's faint disabled grey
  await expectTextColour(form, 'root_paramValue');
}

/** The lines of the history beside the diagram: who · what, then the comment. */
async function historyLines(page: Page): Promise<string[]> {
  const lines = page.getByTestId('wf-comment');
  await lines.first().waitFor();
  return (await lines.allInnerTexts()).map((line) =>
    line
      .replace(/\s*·\s*\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?\s*/, ' | ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

/** Scrolls the history beside the diagram (its own scrolling box) to its last lines, the page left where it is. */
async function scrollHistoryDown(page: Page): Promise<void> {
  await page.getByTestId('wf-side').evaluate((element) => {
    element.scrollTop = element.scrollHeight;
  });
}

async function comment(page: Page, text: string): Promise<void> {
  await page.getByTestId('task-comment').fill(text);
}

async function success(page: Page, text: string | RegExp): Promise<void> {
  await page.locator('.ant-message-success').filter({ hasText: text }).last().waitFor();
}

/** Fills and confirms the comment dialog of an action (its own fields filled by `before`). */
async function confirmDialog(page: Page, text: string, before?: (dialog: Locator) => Promise<void>) {
  const dialog = page.locator('.ant-modal').filter({ has: page.getByTestId('comment-input') });
  await untilStill(dialog);
  if (before) await before(dialog);
  await dialog.getByTestId('comment-input').fill(text);
  return dialog;
}

export function checks({ server, browser }: E2eContext): Check[] {
  const base = server.url;
  let admin: ApiClient;
  const users = {} as Record<'walkann' | 'walkbob' | 'walkcarol', ApiClient>;
  let instanceId = 0;
  let unclaimTaskId = 0;

  const as = (name: string) => signedIn(browser, server, name, PASSWORD);
  const completeHere = async (page: Page, text: string): Promise<void> => {
    await comment(page, text);
    await page.getByTestId('action-complete').click();
    await success(page, '任务已完成');
    await page.waitForURL(/\/admin\/assigneetask/);
  };

  return [
    {
      name: 'setup: three staff users and the approval deployed through the API',
      run: async () => {
        admin = await apiClient(base, 'admin', server.adminPassword);
        const notification = (
          await admin.get<{ records: { id: number; menuCode: string }[] }>(
            '/api/admin/sysmenu/query?menuCode=mynotification&pageSize=10',
          )
        ).records.find((menu) => menu.menuCode === 'mynotification');
        assert.ok(notification);
        const role = await admin.post<{ id: number }>('/api/admin/sysrole/add', {
          roleCode: 'ROLE_WALK_STAFF',
          roleName: '走查职员',
        });
        // a back-office menu: these are staff, so the personal office comes with it
        await admin.post('/api/admin/sysmenu/authorizeMenuToRole', {
          roleId: role.id,
          menuIds: [notification.id],
        });
        for (const [index, name] of (['walkann', 'walkbob', 'walkcarol'] as const).entries()) {
          await admin.post('/api/admin/sysuser/add', {
            username: name,
            nickname: name,
            password: PASSWORD,
            email: `${name}@example.com`,
            mobile: `1376543050${index}`,
            phone: '010-1234567',
            status: '1',
            roleId: role.id,
            orgId: 1,
          });
          users[name] = await apiClient(base, name, PASSWORD);
        }
        const deployed = await admin.post<{ key: string }>('/api/activiti/deployment/deployXml', {
          xml: XML,
          name: PROCESS,
          category: '走查',
        });
        assert.equal(deployed.key, KEY);
        await admin.post('/api/activiti/deployment/deployXml', {
          xml: UNCLAIM_XML,
          name: UNCLAIM_PROCESS,
          category: '走查',
        });
      },
    },
    {
      name: '发起: walkann starts the approval with 流程描述, 业务键 and the form; her 提交申请 shows it to submit',
      run: async () => {
        const { context, page } = await as('walkann');
        try {
          await page.goto(`${base}/admin/startprocess`);
          const card = page.locator(`[data-testid="process-card"][data-key="${KEY}"]`);
          await card.getByTestId('start-process').click();
          const dialog = page.locator('.ant-modal').filter({ has: page.getByTestId('start-description') });
          await page.locator('#root_paramName').waitFor();
          await untilStill(dialog);
          await page.getByTestId('start-description').fill(DESCRIPTION);
          await pickUser(page, page.getByTestId('start-candidate'), 'walkbob', 'wf-user-popup');
          const range = page.locator('.wf-range input');
          await range.first().click();
          await range.first().fill('2026-12-07');
          await range.first().press('Enter');
          await range.nth(1).fill('2026-12-11');
          await range.nth(1).press('Enter');
          await dialog.getByLabel('业务键').fill(BUSINESS_KEY);
          await page.locator('#root_paramName').fill('笔记本电脑');
          await page.locator('#root_paramKey').fill('walk.notebook');
          await page.locator('#root_paramValue').fill(FIRST_VALUE);
          await page.locator('#root_paramValue').press('Tab');
          await shot(page, '01-start-dialog');
          await dialog.locator('.ant-btn-primary').click();
          await page.waitForURL(/\/admin\/myprocessdetails\?id=\d+/);
          instanceId = Number(new URL(page.url()).searchParams.get('id'));
          const facts = page.getByTestId('wf-instance-facts');
          await facts.getByText(DESCRIPTION).waitFor();
          assert.ok((await facts.innerText()).includes(BUSINESS_KEY));
          await facts.locator('[data-status="running"]').waitFor();
          assert.equal(
            await page.getByTestId('wf-start-form').locator('#root_paramValue').inputValue(),
            FIRST_VALUE,
          );
          await page.getByTestId('wf-diagram').locator('.djs-element').first().waitFor();
          await shot(page, '02-started-instance');

          // her own first step: the same form, filled with what she started it with
          await handleFromList(page, base, '提交申请', '03-initiator-todo');
          const form = page.getByTestId('wf-task-form');
          assert.equal(await form.locator('#root_paramValue').inputValue(), FIRST_VALUE);
          await expectRequestFacts(page, '提交申请');
          await completeHere(page, '请审批');
        } finally {
          await context.close();
        }
      },
    },
    {
      name: 'approver 1: walkbob sees the request (facts, form, history) and approves; 已办 lists it',
      run: async () => {
        const { context, page } = await as('walkbob');
        try {
          await handleFromList(page, base, '部门经理审批', '04-approver1-todo');
          await expectRequestFacts(page, '部门经理审批');
          await expectRequestForm(page, FIRST_VALUE);
          assert.deepEqual(await historyLines(page), ['walkann · 完成 | 请审批']);
          await comment(page, '同意，预算内');
          await shot(page, '05-approver1-task');
          await page.getByTestId('action-complete').click();
          await success(page, '任务已完成');
          await page.waitForURL(/\/admin\/assigneetask/);
          const finished = await open(page, base, '/finishedtask', 'wf-finished-tasks');
          const row = requestRows(finished, '部门经理审批').first();
          await row.waitFor();
          assert.equal(await cell(finished, row, '流程描述'), DESCRIPTION);
          assert.equal(await cell(finished, row, '业务键'), BUSINESS_KEY);
          await shot(page, '06-approver1-finished');
        } finally {
          await context.close();
        }
      },
    },
    {
      name: 'approver 2: walkcarol rejects (驳回); it goes back to walkann at 提交申请',
      run: async () => {
        const { context, page } = await as('walkcarol');
        try {
          await handleFromList(page, base, '财务审批');
          await expectRequestFacts(page, '财务审批');
          await expectRequestForm(page, FIRST_VALUE);
          assert.deepEqual(await historyLines(page), [
            'walkann · 完成 | 请审批',
            'walkbob · 完成 | 同意，预算内',
          ]);
          await shot(page, '07-approver2-task');
          await page.getByTestId('action-reject').click();
          const dialog = await confirmDialog(page, '单价偏高，请补充比价');
          await shot(page, '08-approver2-reject-dialog');
          await dialog.locator('.ant-btn-primary').click();
          await dialog.waitFor({ state: 'detached' });
          await success(page, '已驳回，流程退回发起人修改');
          await page.waitForURL(/\/admin\/assigneetask/);
          // not hers any more
          // (the list reads again on return: the row goes once its answer is in)
          await requestRows(page.getByTestId('wf-assignee-tasks'), '财务审批').waitFor({
            state: 'detached',
            timeout: 10_000,
          });
        } finally {
          await context.close();
        }
        const running = await admin.get<{ ended: boolean; status: string }>(
          `/api/activiti/processinstance/detail?id=${instanceId}`,
        );
        assert.equal(running.ended, false, 'a rejection with an initiator task to return to does not end it');
      },
    },
    {
      name: 'revision: walkann sees why, revises the form and resubmits',
      run: async () => {
        const { context, page } = await as('walkann');
        try {
          await handleFromList(page, base, '提交申请', '09-initiator-todo-again');
          const side = page.getByTestId('wf-side');
          assert.deepEqual(await historyLines(page), [
            'walkann · 完成 | 请审批',
            'walkbob · 完成 | 同意，预算内',
            'walkcarol · 驳回 | 单价偏高，请补充比价',
          ]);
          // the steps: 财务审批 ended as rejected, 提交申请 waits again
          assert.match(await side.locator('[data-activity="approve2"]').innerText(), /walkcarol · 已驳回/);
          await side
            .locator('.ant-timeline-item')
            .filter({ has: page.locator('[data-activity="approve2"]') })
            .locator('.ant-timeline-item-head-red')
            .waitFor();
          assert.match(await side.locator('[data-activity="submit"]').last().innerText(), /起等待办理/);
          // and on the diagram 财务审批 is red (rejected), not green as a completed step
          const diagram = page.getByTestId('wf-diagram');
          await diagram.locator('.djs-element.wf-rejected[data-element-id="approve2"]').waitFor();
          assert.equal(
            await diagram.locator('.djs-element.wf-completed[data-element-id="approve2"]').count(),
            0,
          );
          await page.getByTestId('wf-diagram').locator('..').getByText('已驳回/退回').waitFor();
          // the reason in view (the history scrolls beside the diagram)
          await scrollHistoryDown(page);
          await shot(page, '10-initiator-sees-rejection');
          const value = page.getByTestId('wf-task-form').locator('#root_paramValue');
          assert.equal(await value.inputValue(), FIRST_VALUE, 'the form holds the request to revise');
          await value.fill(REVISED_VALUE);
          await value.press('Tab');
          await comment(page, '已补充三家比价');
          await shot(page, '11-initiator-revising');
          await page.getByTestId('action-complete').click();
          await success(page, '任务已完成');
          await page.waitForURL(/\/admin\/assigneetask/);
        } finally {
          await context.close();
        }
      },
    },
    {
      name: 'final approval: both approvers see the revised request and approve; it ends 已结束',
      run: async () => {
        for (const [name, taskName, text] of [
          ['walkbob', '部门经理审批', '比价合理，同意'],
          ['walkcarol', '财务审批', '同意付款'],
        ] as const) {
          const { context, page } = await as(name);
          try {
            await handleFromList(page, base, taskName);
            await expectRequestForm(page, REVISED_VALUE);
            if (name === 'walkcarol') await shot(page, '12-approver2-revised-request');
            await completeHere(page, text);
          } finally {
            await context.close();
          }
        }
        const { context, page } = await as('walkann');
        try {
          await page.goto(`${base}/admin/myprocessdetails?id=${instanceId}`);
          const facts = page.getByTestId('wf-instance-facts');
          await facts.locator('[data-status="over"]').waitFor();
          assert.match(await facts.innerText(), /已结束/);
          assert.equal(
            await page.getByTestId('wf-start-form').locator('#root_paramValue').inputValue(),
            REVISED_VALUE,
          );
          assert.deepEqual(await historyLines(page), [
            'walkann · 完成 | 请审批',
            'walkbob · 完成 | 同意，预算内',
            'walkcarol · 驳回 | 单价偏高，请补充比价',
            'walkann · 完成 | 已补充三家比价',
            'walkbob · 完成 | 比价合理，同意',
            'walkcarol · 完成 | 同意付款',
          ]);
          await page.getByTestId('wf-diagram').locator('.djs-element[data-element-id="end"]').waitFor();
          // approved on the second round: 财务审批 is completed now, nothing red
          await page
            .getByTestId('wf-diagram')
            .locator('.djs-element.wf-completed[data-element-id="approve2"]')
            .waitFor();
          assert.equal(await page.getByTestId('wf-diagram').locator('.wf-rejected').count(), 0);
          assert.equal(await page.getByTestId('withdraw').count(), 0, 'an ended request cannot be withdrawn');
          await scrollHistoryDown(page);
          await shot(page, '13-ended-instance');
          const mine = await open(page, base, '/myprocess', 'wf-my-process');
          await mine.locator(`tr[data-row-id="${instanceId}"] [data-status="over"]`).waitFor();
          await shot(page, '14-my-processes');
        } finally {
          await context.close();
        }
        const ended = await admin.get<{ ended: boolean; status: string }>(
          `/api/activiti/processinstance/detail?id=${instanceId}`,
        );
        assert.deepEqual({ ended: ended.ended, status: ended.status }, { ended: true, status: 'over' });
      },
    },
    {
      name: '取消签收: walkbob claims a candidate task, then gives it back; both candidates see it to claim again',
      run: async () => {
        const started = await users.walkann.post<{ id: number }>('/api/activiti/processinstance/start', {
          processDefinitionKey: UNCLAIM_KEY,
          description: '签收走查任务',
          variables: {},
        });
        const tasks = await admin.get<{ records: { id: number }[] }>(
          `/api/activiti/task/query?processInstanceId=${started.id}`,
        );
        unclaimTaskId = tasks.records[0]?.id ?? 0;
        assert.ok(unclaimTaskId > 0);
        const { context, page } = await as('walkbob');
        try {
          const table = await open(page, base, '/candidatetask', 'wf-candidate-tasks');
          const row = table.locator(`tr[data-row-id="${unclaimTaskId}"]`);
          await row.getByTestId('claim').click();
          await success(page, '签收成功');
          await row.waitFor({ state: 'detached' });
          await page.goto(`${base}/admin/mytaskdetails?id=${unclaimTaskId}`);
          await page.getByTestId('wf-handle').waitFor();
          assert.match(await page.getByTestId('wf-task-facts').innerText(), /办理中/);
          await shot(page, '15-claimed-task');
          await page.getByTestId('action-unclaim').click();
          await success(page, '已取消签收，任务已退回候选人');
          await page.waitForURL(/\/admin\/candidatetask/);
          const back = page.getByTestId('wf-candidate-tasks').locator(`tr[data-row-id="${unclaimTaskId}"]`);
          await back.getByTestId('claim').waitFor();
          await shot(page, '16-unclaimed-back-to-candidates');
        } finally {
          await context.close();
        }
        const carol = await as('walkcarol');
        try {
          const table = await open(carol.page, base, '/candidatetask', 'wf-candidate-tasks');
          await table.locator(`tr[data-row-id="${unclaimTaskId}"]`).getByTestId('claim').waitFor();
        } finally {
          await carol.context.close();
        }
        const detail = await admin.get<{ assignee: string | null; status: string }>(
          `/api/activiti/task/detail?id=${unclaimTaskId}`,
        );
        assert.deepEqual(
          { assignee: detail.assignee, status: detail.status },
          { assignee: null, status: 'created' },
        );
      },
    },
    {
      name: '转办 from the all-tasks list: the administrator hands walkbob’s task to walkcarol',
      run: async () => {
        await users.walkbob.post(`/api/activiti/task/claimTask?id=${unclaimTaskId}`, {});
        const { context, page } = await signedIn(browser, server, 'admin', server.adminPassword);
        try {
          await page.goto(`${base}/admin/task`);
          const tasks = page.getByTestId('wf-tasks');
          await tasks.waitFor();
          const search = page.locator('.ant-input-search input').first();
          await search.fill('走查签收');
          await search.press('Enter');
          const row = tasks.locator(`tr[data-row-id="${unclaimTaskId}"]`);
          assert.equal(await cell(tasks, row, '办理人'), 'walkbob');
          await row.getByTestId('transfer-task').click();
          const dialog = await confirmDialog(page, 'walkbob 休假，转 walkcarol', async (modal) => {
            await pickUser(page, modal.getByTestId('transfer-username'), 'walkcarol', 'wf-user-popup');
          });
          await dialog.getByText('原办理人不再办理').waitFor();
          await shot(page, '17-admin-transfer-dialog');
          await dialog.locator('.ant-btn-primary').click();
          await dialog.waitFor({ state: 'detached' });
          await success(page, '任务已转办');
          await row.filter({ hasText: 'walkcarol' }).waitFor();
          assert.equal(await cell(tasks, row, '办理人'), 'walkcarol');
          await shot(page, '18-admin-transferred');
        } finally {
          await context.close();
        }
        const carol = await as('walkcarol');
        try {
          await carol.page.goto(`${base}/admin/mytaskdetails?id=${unclaimTaskId}`);
          await carol.page.getByTestId('wf-handle').waitFor();
          const line = carol.page.getByTestId('wf-comment').filter({ hasText: '转办给 walkcarol' });
          assert.match(
            (await line.innerText()).replace(/\s+/g, ' '),
            /admin · 转办给 walkcarol .*walkbob 休假/,
          );
        } finally {
          await carol.context.close();
        }
      },
    },
    {
      name: '部署管理: a deployment’s resources, its BPMN file viewed (diagram and XML) and downloaded',
      run: async () => {
        const { context, page } = await signedIn(browser, server, 'admin', server.adminPassword);
        try {
          await page.goto(`${base}/admin/deployment`);
          const list = page.getByTestId('wf-deployments');
          await list.waitFor();
          const search = page.locator('.ant-input-search input').first();
          await search.fill(PROCESS);
          await search.press('Enter');
          const row = list.locator('tr.ant-table-row').filter({ hasText: PROCESS }).first();
          await row.getByTestId('deployment-resources').click();
          const resources = page.getByTestId('wf-deployment-resources');
          const file = resources.locator('tr.ant-table-row').filter({ hasText: `${KEY}.bpmn20.xml` });
          await file.waitFor();
          assert.match(await file.innerText(), new RegExp(`${PROCESS} \\(${KEY} v\\d+\\)`));
          assert.match(await file.innerText(), new RegExp(`${Buffer.byteLength(XML, 'utf8')} 字节`));
          await file.getByTestId('view-resource').click();
          const view = page.getByTestId('wf-resource-view');
          await view.locator('.djs-element[data-element-id="approve2"]').waitFor();
          assert.equal(await view.getByTestId('wf-resource-xml').innerText(), XML);
          await shot(page, '19-deployment-resources');
          const [download] = await Promise.all([
            page.waitForEvent('download'),
            file.getByTestId('download-resource').click(),
          ]);
          assert.equal(download.suggestedFilename(), `${KEY}.bpmn20.xml`);
          const saved = await download.path();
          assert.equal(readFileSync(saved, 'utf8'), XML, 'the file as it was deployed');
        } finally {
          await context.close();
        }
      },
    },
  ];
}
