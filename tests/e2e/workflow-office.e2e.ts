import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import { stillPopconfirm, untilStill } from './entity-driver.js';
import { pickUser } from './pick-user.js';
import { apiClient, signedIn, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * The workflow screens and the personal office (issue 13) in Chromium against the real server:
 * a process with a start form and a candidate role is deployed through the API; one user starts
 * it through the start card and form, a holder of the candidate role claims, delegates, the
 * delegate hands it back, the task is sent back (regress) and finally completed; another
 * instance is rejected. The instance diagram's highlights, the badges, the history pages and
 * the administrators' lists are checked, each page with axe.
 */

const PASSWORD = 'office-pass-1';
const SHOTS = process.env.WF_SHOTS ?? '/tmp/shots-wfscreens';
const PROCESS = '办公用品申请';

/** The open antd select dropdown's option with this text. */
function option(page: Page, text: string | RegExp): Locator {
  return page
    .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
    .filter({ hasText: text })
    .first();
}

/** The marker classes bpmn-js put on a diagram element. */
async function markers(page: Page, elementId: string): Promise<string> {
  const element = page.locator(`[data-testid="wf-diagram"] .djs-element[data-element-id="${elementId}"]`);
  await element.first().waitFor({ state: 'attached' });
  return (await element.first().getAttribute('class')) ?? '';
}

async function expectMarked(
  page: Page,
  marked: Record<string, 'wf-completed' | 'wf-active' | 'wf-taken' | 'none'>,
) {
  for (const [id, marker] of Object.entries(marked)) {
    const classes = await markers(page, id);
    if (marker === 'none')
      assert.ok(!/wf-(completed|active|taken)/.test(classes), `${id} should be unmarked: ${classes}`);
    else assert.ok(classes.split(/\s+/).includes(marker), `${id} should carry ${marker}: ${classes}`);
  }
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** Opens a personal-office page through its path and waits for its list. */
async function open(page: Page, base: string, path: string, testId: string): Promise<Locator> {
  await page.goto(`${base}/admin${path}`);
  const table = page.getByTestId(testId);
  await table.waitFor();
  await table.locator('.ant-spin-spinning').waitFor({ state: 'detached' });
  return table;
}

/** The row of a list holding this instance's task (the process name and the task name). */
function taskRow(table: Locator, taskName: string): Locator {
  return table.locator('tr.ant-table-row').filter({ hasText: PROCESS }).filter({ hasText: taskName });
}

/** Opens my task page of the (only) open task with that name and waits for the handling part. */
async function handle(page: Page, base: string, taskName: string): Promise<void> {
  const table = await open(page, base, '/assigneetask', 'wf-assignee-tasks');
  await taskRow(table, taskName).first().getByTestId('handle').click();
  await page.getByTestId('wf-handle').waitFor();
  await page.getByTestId('wf-diagram').locator('.djs-element').first().waitFor();
}

async function comment(page: Page, text: string): Promise<void> {
  await page.getByTestId('task-comment').fill(text);
}

/** Fills and confirms the comment dialog of an action (its own fields filled by `before`). */
async function confirmDialog(page: Page, text: string, before?: (dialog: Locator) => Promise<void>) {
  const dialog = page.locator('.ant-modal').filter({ has: page.getByTestId('comment-input') });
  // a click into the dialog while it zooms in can be lost (the button shows the click, no more)
  await untilStill(dialog);
  if (before) await before(dialog);
  await dialog.getByTestId('comment-input').fill(text);
  await dialog.locator('.ant-btn-primary').click();
  await dialog.waitFor({ state: 'detached' });
}

async function success(page: Page, text: string | RegExp): Promise<void> {
  await page.locator('.ant-message-success').filter({ hasText: text }).last().waitFor();
}

export function checks({ server, browser }: E2eContext): Check[] {
  const base = server.url;
  let admin: ApiClient;
  const users: Record<'alice' | 'bob' | 'carol', ApiClient> = {} as Record<
    'alice' | 'bob' | 'carol',
    ApiClient
  >;
  let instanceA = 0;

  const as = async (browserRef: Browser, name: string) => signedIn(browserRef, server, name, PASSWORD);

  return [
    {
      name: 'setup: roles, users and the process deployed through the API',
      run: async () => {
        admin = await apiClient(base, 'admin', server.adminPassword);
        const notification = (
          await admin.get<{ records: { id: number; menuCode: string }[] }>(
            '/api/admin/sysmenu/query?menuCode=mynotification&pageSize=10',
          )
        ).records.find((menu) => menu.menuCode === 'mynotification');
        assert.ok(notification);
        const roleIds: Record<string, number> = {};
        for (const [code, name] of [
          ['ROLE_WF_STAFF', '办公职员'],
          ['ROLE_WF_REVIEWER', '部门审核人'],
        ] as const) {
          const role = await admin.post<{ id: number }>('/api/admin/sysrole/add', {
            roleCode: code,
            roleName: name,
          });
          roleIds[code] = role.id;
          // a back-office menu: these are staff, so the personal office comes with it
          await admin.post('/api/admin/sysmenu/authorizeMenuToRole', {
            roleId: role.id,
            menuIds: [notification.id],
          });
        }
        for (const [index, [name, role]] of (
          [
            ['alice', 'ROLE_WF_STAFF'],
            ['bob', 'ROLE_WF_REVIEWER'],
            ['carol', 'ROLE_WF_STAFF'],
          ] as const
        ).entries()) {
          await admin.post('/api/admin/sysuser/add', {
            username: name,
            nickname: name,
            password: PASSWORD,
            email: `${name}@example.com`,
            mobile: `1390000030${index}`,
            phone: '010-1234567',
            status: '1',
            roleId: roleIds[role],
            orgId: 1,
          });
          users[name] = await apiClient(base, name, PASSWORD);
        }
        const xml = readFileSync(
          join(import.meta.dirname, '..', 'fixtures', 'bpmn', 'office-review.bpmn'),
          'utf8',
        );
        const deployed = await admin.post<{ key: string }>('/api/activiti/deployment/deployXml', {
          xml,
          name: PROCESS,
          category: '行政',
        });
        assert.equal(deployed.key, 'office_review');
      },
    },
    {
      name: 'start: the card of the category opens the start form; SPEC §5 fields required; the instance shows its progress',
      run: async () => {
        const { context, page } = await as(browser, 'alice');
        try {
          await page.goto(`${base}/admin/startprocess`);
          const card = page.locator('[data-testid="process-card"][data-key="office_review"]');
          await card.waitFor();
          assert.equal(await page.locator('section[data-category="行政"]').count(), 1, 'grouped by category');
          await expectNoAxeViolations(page, 'startprocess');
          await card.getByTestId('start-process').click();
          await page.getByTestId('start-description').waitFor();
          await page.locator('#root_paramName').waitFor();
          await untilStill(page.locator('.ant-modal').filter({ has: page.getByTestId('start-description') }));
          // nothing filled: the required fields say so, and nothing starts
          await page.locator('.ant-modal .ant-btn-primary').click();
          await page.getByText('请输入流程描述').waitFor();
          await page.getByText('请选择候选人').waitFor();
          await page.getByText('请选择时间范围').waitFor();
          await page.getByTestId('start-description').fill('申请打印纸 10 箱');
          // the candidate from the org-user tree
          await pickUser(page, page.getByTestId('start-candidate'), 'bob', 'wf-user-popup');
          const range = page.locator('.wf-range input');
          await range.first().click();
          await range.first().fill('2026-12-01');
          await range.first().press('Enter');
          await range.nth(1).fill('2026-12-03');
          await range.nth(1).press('Enter');
          await page.locator('#root_paramName').fill('打印纸');
          await page.locator('#root_paramName').press('Tab');
          await page.locator('#root_paramKey').fill('paper.a4');
          await page.locator('#root_paramKey').press('Tab');
          await page.locator('#root_paramValue').fill('10');
          await page.locator('#root_paramValue').press('Tab');
          await expectNoAxeViolations(page, 'start dialog with its form');
          await shot(page, 'start-dialog');
          await page.locator('.ant-modal .ant-btn-primary').click();
          await page.waitForURL(/\/admin\/myprocessdetails\?id=\d+/);
          instanceA = Number(new URL(page.url()).searchParams.get('id'));
          await page.getByTestId('wf-diagram').locator('.djs-element').first().waitFor();
          await expectMarked(page, {
            start: 'wf-completed',
            f_apply: 'wf-taken',
            apply: 'wf-active',
            review: 'none',
          });
          // the form's values are the instance's variables
          const variables = await admin.get<{ name: string; value: unknown }[]>(
            `/api/activiti/history/variableinstance/query?processInstanceId=${instanceA}`,
          );
          const byName = Object.fromEntries(variables.map((row) => [row.name, row.value]));
          assert.equal(byName.paramKey, 'paper.a4');
          assert.equal(byName.candidate, 'bob');
          assert.equal(byName.rangeStart, '2026-12-01');
          await expectNoAxeViolations(page, 'myprocessdetails');
          // the badge counts the new task of alice (her own 填写申请)
          await page.getByTestId('badge-assigneetask').filter({ hasText: '1' }).waitFor();
          await handle(page, base, '填写申请');
          await comment(page, '已填写');
          await page.getByTestId('action-complete').click();
          await success(page, '任务已完成');
          await page.waitForURL(/\/admin\/assigneetask/);
        } finally {
          await context.close();
        }
      },
    },
    {
      name: 'claim: the candidate role holder sees and claims the task; a user without the role does not see it',
      run: async () => {
        const carol = await as(browser, 'carol');
        try {
          const table = await open(carol.page, base, '/candidatetask', 'wf-candidate-tasks');
          assert.equal(await taskRow(table, '部门审核').count(), 0, 'carol holds no reviewer role');
        } finally {
          await carol.context.close();
        }
        const { context, page } = await as(browser, 'bob');
        try {
          await page.getByTestId('workbench-candidatetask').filter({ hasText: '1' }).waitFor();
          const table = await open(page, base, '/candidatetask', 'wf-candidate-tasks');
          await expectNoAxeViolations(page, 'candidatetask');
          await taskRow(table, '部门审核').getByTestId('claim').click();
          await success(page, '签收成功');
          await taskRow(table, '部门审核').waitFor({ state: 'detached' });
          // delegate to carol with a comment
          await handle(page, base, '部门审核');
          await page.locator('#root_paramName').waitFor();
          await expectNoAxeViolations(page, 'mytaskdetails (handling)');
          await shot(page, 'task-handling');
          await page.getByTestId('action-delegate').click();
          await confirmDialog(page, '请 carol 核实库存', async (dialog) => {
            await pickUser(page, dialog.getByTestId('delegate-username'), 'carol', 'wf-user-popup');
          });
          await success(page, '任务已委派');
        } finally {
          await context.close();
        }
      },
    },
    {
      name: 'delegate and handle: the delegate handles it back to the owner, who sends it back (regress) to 填写申请',
      run: async () => {
        const carol = await as(browser, 'carol');
        try {
          await handle(carol.page, base, '部门审核');
          await carol.page.getByTestId('action-resolve').waitFor();
          assert.equal(
            await carol.page.getByTestId('action-complete').count(),
            0,
            'a delegate only hands back',
          );
          await comment(carol.page, '库存充足');
          await carol.page.getByTestId('action-resolve').click();
          await success(carol.page, '委派已处理');
        } finally {
          await carol.context.close();
        }
        const { context, page } = await as(browser, 'bob');
        try {
          await handle(page, base, '部门审核');
          // the side list names who did what, with the comments
          const side = page.getByTestId('wf-side');
          await side.getByText('请 carol 核实库存').waitFor();
          await side.getByText('库存充足').waitFor();
          await page.getByTestId('action-regress').click();
          await confirmDialog(page, '数量需要重新确认', async (dialog) => {
            await dialog.locator('.ant-select').click();
            await option(page, '填写申请').click();
          });
          await success(page, '任务已退回');
        } finally {
          await context.close();
        }
        const tasks = await users.alice.get<{ records: { name: string }[] }>(
          '/api/activiti/task/queryPersonalTask',
        );
        assert.ok(
          tasks.records.some((task) => task.name === '填写申请'),
          'the task is back with its last assignee',
        );
      },
    },
    {
      name: 'complete: after the regress the request goes round again and ends; the diagram shows it all done',
      run: async () => {
        // the second round through the API: the screens were driven above
        const open1 = await users.alice.get<{ records: { id: number; name: string }[] }>(
          '/api/activiti/task/queryPersonalTask',
        );
        const apply = open1.records.find((task) => task.name === '填写申请');
        assert.ok(apply);
        await users.alice.post('/api/activiti/task/completeTask', { id: apply.id, comment: '数量已确认' });
        const candidate = await users.bob.get<{ records: { id: number; processInstanceId: number }[] }>(
          '/api/activiti/task/queryCandidateTask',
        );
        const review = candidate.records.find((task) => task.processInstanceId === instanceA);
        assert.ok(review);
        await users.bob.post(`/api/activiti/task/claimTask?id=${review.id}`, {});
        const { context, page } = await as(browser, 'bob');
        try {
          await handle(page, base, '部门审核');
          await page.locator('#root_paramName').fill('审核意见');
          await page.locator('#root_paramName').press('Tab');
          await page.locator('#root_paramKey').fill('review.ok');
          await page.locator('#root_paramKey').press('Tab');
          await comment(page, '同意');
          await page.getByTestId('action-complete').click();
          await success(page, '任务已完成');
        } finally {
          await context.close();
        }
        const alice = await as(browser, 'alice');
        try {
          await handle(alice.page, base, '申请人确认');
          await expectMarked(alice.page, {
            start: 'wf-completed',
            apply: 'wf-completed',
            review: 'wf-completed',
            f_sign: 'wf-taken',
            sign: 'wf-active',
            end: 'none',
          });
          await shot(alice.page, 'instance-diagram-running');
          await comment(alice.page, '收到');
          await alice.page.getByTestId('action-complete').click();
          await success(alice.page, '任务已完成');
          await alice.page.goto(`${base}/admin/myprocessdetails?id=${instanceA}`);
          await alice.page.getByTestId('wf-diagram').locator('.djs-element').first().waitFor();
          await alice.page.locator('[data-status="over"]').first().waitFor();
          await expectMarked(alice.page, {
            apply: 'wf-completed',
            review: 'wf-completed',
            sign: 'wf-completed',
            end: 'wf-completed',
            f_end: 'wf-taken',
          });
          assert.equal(
            await alice.page.getByTestId('withdraw').count(),
            0,
            'an ended instance cannot be withdrawn',
          );
          await shot(alice.page, 'instance-diagram-ended');
          const finished = await open(alice.page, base, '/finishedtask', 'wf-finished-tasks');
          await finished.getByText('申请人确认').first().waitFor();
          await expectNoAxeViolations(alice.page, 'finishedtask');
        } finally {
          await alice.context.close();
        }
      },
    },
    {
      name: 'next step: completing a task whose next step is mine offers to open it; it opens on the same page',
      run: async () => {
        const xml = readFileSync(
          join(import.meta.dirname, '..', 'fixtures', 'bpmn', 'office-two-steps.bpmn'),
          'utf8',
        );
        await admin.post('/api/activiti/deployment/deployXml', { xml, name: '出差报销', category: '行政' });
        const startTwoSteps = async (description: string): Promise<number> => {
          const started = await users.alice.post<{ nextTasks: { id: number; name: string }[] }>(
            '/api/activiti/processinstance/start',
            { processDefinitionKey: 'office_two_steps', description },
          );
          const [first] = started.nextTasks;
          assert.equal(first?.name, '填写报销单');
          return first.id;
        };
        const firstId = await startTwoSteps('报销北京出差');
        const { context, page } = await as(browser, 'alice');
        try {
          await page.goto(`${base}/admin/mytaskdetails?id=${firstId}`);
          await page.getByTestId('wf-handle').waitFor();
          await comment(page, '已填写');
          await page.getByTestId('action-complete').click();
          await success(page, '任务已完成');
          // the answer named 上传票据 for alice: offered here instead of going back to the list
          const offer = page.locator('.wf-next-tasks:visible');
          const openNext = offer.getByTestId('open-next-task');
          await openNext.waitFor();
          assert.equal(await openNext.count(), 1, 'one next task offered');
          assert.match((await openNext.innerText()).replace(/\s/g, ''), /立即办理「上传票据」/);
          assert.match(page.url(), /\/admin\/mytaskdetails\?id=\d+/, 'still on the finished task');
          await expectNoAxeViolations(page, 'next task offer');
          await shot(page, 'next-task-offer');
          const secondId = Number(await openNext.getAttribute('data-task-id'));
          await openNext.click();
          await page.waitForURL(new RegExp(`/admin/mytaskdetails\\?id=${secondId}$`));
          await offer.waitFor({ state: 'hidden' });
          // the page is the second task's, ready to handle, and the comment field is empty again
          await page.getByTestId('wf-handle').waitFor();
          await page.getByTestId('page-title').getByText('上传票据').first().waitFor();
          assert.equal(await page.getByTestId('task-comment').inputValue(), '');
          const detail = await users.alice.get<{ name: string; endTime: string | null }>(
            `/api/activiti/task/detail?id=${secondId}`,
          );
          assert.equal(detail.name, '上传票据');
          assert.equal(detail.endTime, null);
          await shot(page, 'next-task-opened');
          // the last step names no next task: back to the list, nothing offered
          await comment(page, '票据已上传');
          await page.getByTestId('action-complete').click();
          await success(page, '任务已完成');
          await page.waitForURL(/\/admin\/assigneetask/);
          // (the finished task's page may stay open in its hidden tab: only what shows counts)
          assert.equal(await page.locator('[data-testid="open-next-task"]:visible').count(), 0);

          // declining the offer goes back to my tasks, where the next step waits
          const otherId = await startTwoSteps('报销上海出差');
          await page.goto(`${base}/admin/mytaskdetails?id=${otherId}`);
          await page.getByTestId('wf-handle').waitFor();
          await comment(page, '已填写');
          await page.getByTestId('action-complete').click();
          await untilStill(offer);
          await offer.getByTestId('next-later').click();
          await page.waitForURL(/\/admin\/assigneetask/);
          const table = page.getByTestId('wf-assignee-tasks');
          await table
            .locator('tr.ant-table-row')
            .filter({ hasText: '出差报销' })
            .filter({ hasText: '上传票据' })
            .waitFor();
        } finally {
          await context.close();
        }
      },
    },
    {
      name: 'reject another instance back to its initiator; withdraw a third while untouched',
      run: async () => {
        const started = await users.alice.post<{ id: number }>('/api/activiti/processinstance/start', {
          processDefinitionKey: 'office_review',
          description: '申请订书机',
          formData: { paramName: '订书机', paramKey: 'stapler' },
        });
        const mine = await users.alice.get<{ records: { id: number; processInstanceId: number }[] }>(
          '/api/activiti/task/queryPersonalTask',
        );
        const apply = mine.records.find((task) => task.processInstanceId === started.id);
        assert.ok(apply);
        await users.alice.post('/api/activiti/task/completeTask', { id: apply.id, comment: '提交' });
        const candidate = await users.bob.get<{ records: { id: number; processInstanceId: number }[] }>(
          '/api/activiti/task/queryCandidateTask',
        );
        const review = candidate.records.find((task) => task.processInstanceId === started.id);
        assert.ok(review);
        await users.bob.post(`/api/activiti/task/claimTask?id=${review.id}`, {});
        const { context, page } = await as(browser, 'bob');
        try {
          await page.goto(`${base}/admin/mytaskdetails?id=${review.id}`);
          await page.getByTestId('wf-handle').waitFor();
          await page.getByTestId('action-reject').click();
          await confirmDialog(page, '已有库存，不予采购');
          // 驳回 sends the request back to the initiator's first task (issue 40, point 13)
          await success(page, '已驳回，流程退回发起人修改');
        } finally {
          await context.close();
        }
        const back = await users.alice.get<{ records: { processInstanceId: number; name: string }[] }>(
          '/api/activiti/task/queryPersonalTask',
        );
        assert.ok(
          back.records.some((task) => task.processInstanceId === started.id && task.name === '填写申请'),
          'the rejected request is back with alice at 填写申请',
        );
        const alice = await as(browser, 'alice');
        try {
          const list = await open(alice.page, base, '/myprocess', 'wf-my-process');
          await list.locator(`tr[data-row-id="${started.id}"] [data-status="running"]`).waitFor();
          await expectNoAxeViolations(alice.page, 'myprocess');
          // a third: withdrawn from its page while nobody acted on it
          const third = await users.alice.post<{ id: number }>('/api/activiti/processinstance/start', {
            processDefinitionKey: 'office_review',
            description: '申请白板笔',
          });
          await alice.page.goto(`${base}/admin/myprocessdetails?id=${third.id}`);
          await alice.page.getByTestId('withdraw').click();
          await confirmDialog(alice.page, '不需要了');
          await alice.page.locator('[data-status="withdrawn"]').first().waitFor();
        } finally {
          await alice.context.close();
        }
      },
    },
    {
      name: 'administrators: definitions, instances, all tasks and the history pages',
      run: async () => {
        const { context, page } = await signedIn(browser, server, 'admin', server.adminPassword);
        try {
          await page.goto(`${base}/admin/processdefinition`);
          const definitions = page.getByTestId('wf-definitions');
          // ordered by key, ten to a page: the other e2e files' processes may come first, so the
          // administrator searches for it by name, as one would
          await definitions.locator('tr.ant-table-row').first().waitFor();
          const search = page.getByPlaceholder('按名称搜索');
          await search.fill(PROCESS);
          await search.press('Enter');
          await definitions.getByText('office_review').first().waitFor();
          await expectNoAxeViolations(page, 'processdefinition');
          await definitions
            .locator('tr.ant-table-row')
            .filter({ hasText: 'office_review' })
            .getByRole('button', { name: '流程图/XML' })
            .click();
          await page.getByTestId('wf-xml').waitFor();
          await page.getByTestId('wf-diagram').locator('.djs-element[data-element-id="review"]').waitFor();
          await page.keyboard.press('Escape');
          await page.goto(`${base}/admin/historicprocessinstance`);
          const history = page.getByTestId('wf-historic-instances');
          await history.locator(`tr[data-row-id="${instanceA}"]`).waitFor();
          await expectNoAxeViolations(page, 'historicprocessinstance');
          await history
            .locator(`tr[data-row-id="${instanceA}"]`)
            .getByTestId('open-historicactivityinstance')
            .click();
          const activities = page.getByTestId('wf-history-activity');
          await activities.getByText('部门审核').first().waitFor();
          // 填写申请 twice: it was sent back once
          assert.equal(
            await activities.locator('tr.ant-table-row').filter({ hasText: '填写申请' }).count(),
            2,
          );
          await expectNoAxeViolations(page, 'historicactivityinstance');
          await page.goto(`${base}/admin/historicdetail?processInstanceId=${instanceA}`);
          await page.getByTestId('wf-history-detail').getByText('paper.a4').first().waitFor();
          await page.goto(`${base}/admin/historicvariableinstance?processInstanceId=${instanceA}`);
          await page.getByTestId('wf-history-variable').getByText('rangeEnd').waitFor();
          await page.goto(`${base}/admin/historictaskinstance`);
          await page.getByTestId('wf-historic-tasks').getByText('申请人确认').first().waitFor();
          await expectNoAxeViolations(page, 'historictaskinstance');
          // the withdrawn instance's history deleted through its row's button
          await page.goto(`${base}/admin/historicprocessinstance`);
          const withdrawn = page
            .getByTestId('wf-historic-instances')
            .locator('tr.ant-table-row')
            .filter({ has: page.locator('[data-status="withdrawn"]') })
            .first();
          const withdrawnId = await withdrawn.getAttribute('data-row-id');
          assert.ok(withdrawnId);
          await withdrawn.getByTestId('delete-historic-instance').click();
          await (await stillPopconfirm(page)).locator('.ant-btn-primary').click();
          await page
            .locator(`[data-testid="wf-historic-instances"] tr[data-row-id="${withdrawnId}"]`)
            .waitFor({
              state: 'detached',
            });

          // a running instance: its task assigned to carol on the org-user tree, then the instance deleted
          const running = await users.alice.post<{ id: number }>('/api/activiti/processinstance/start', {
            processDefinitionKey: 'office_review',
            description: '申请文件夹',
          });
          const aliceTasks = await users.alice.get<{ records: { id: number; processInstanceId: number }[] }>(
            '/api/activiti/task/queryPersonalTask',
          );
          const runningTask = aliceTasks.records.find((task) => task.processInstanceId === running.id);
          assert.ok(runningTask);
          await page.goto(`${base}/admin/task`);
          const tasks = page.getByTestId('wf-tasks');
          await tasks.waitFor();
          await expectNoAxeViolations(page, 'task (administrators)');
          const taskRow = tasks.locator(`tr[data-row-id="${runningTask.id}"]`);
          await taskRow.getByRole('button', { name: /^指 ?派$/ }).click();
          await confirmDialog(page, '交给 carol', async (dialog) => {
            await pickUser(page, dialog.getByTestId('assign-username'), 'carol', 'wf-user-popup');
          });
          const carolTasks = await users.carol.get<{ records: { processInstanceId: number }[] }>(
            '/api/activiti/task/queryPersonalTask',
          );
          assert.ok(carolTasks.records.some((task) => task.processInstanceId === running.id));
          await page.goto(`${base}/admin/processinstance`);
          const instances = page.getByTestId('wf-instances');
          await instances.locator(`tr[data-row-id="${running.id}"]`).waitFor();
          await expectNoAxeViolations(page, 'processinstance');
          await instances.locator(`tr[data-row-id="${running.id}"]`).getByTestId('delete-instance').click();
          await (await stillPopconfirm(page)).locator('.ant-btn-primary').click();
          await instances.locator(`tr[data-row-id="${running.id}"]`).waitFor({ state: 'detached' });
          await page.goto(`${base}/admin/deployment`);
          await page.getByTestId('wf-deployments').getByText(PROCESS).first().waitFor();
          await expectNoAxeViolations(page, 'deployment');
        } finally {
          await context.close();
        }
      },
    },
  ];
}
