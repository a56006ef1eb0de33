import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import { untilStill } from './entity-driver.js';
import { pickUser } from './pick-user.js';
import { apiClient, signedIn, type Check, type E2eContext } from './support.js';

/**
 * Issue 13, the modeler: /model imports a BPMN file, processdesign shows it in Chinese, the
 * pickers change an assignee and a condition, save says 保存成功，请部署 and deploys, and the
 * deployed definition carries the new assignee; an element the engine cannot run is flagged.
 */

const FIXTURE = 'tests/fixtures/bpmn/camunda-approval.bpmn';
const SHOTS = process.env.SHOTS_DIR ?? 'test-results/e2e';

async function openDesigner(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/admin/model`);
  const row = page.getByTestId('entity-table').locator('tr', { hasText: key });
  await row.locator('input[type=checkbox]').check();
  await page.getByTestId('model-design').click();
  await page.waitForURL(/processdesign\?id=\d+/);
  await page.locator('.djs-element[data-element-id="StartEvent_1"]').waitFor();
}

/**
 * Clicks a button of the open confirmation dialog once the dialog has stopped moving, and again if
 * the dialog is still open: a click during antd's zoom-in animation can be lost on a loaded
 * machine (the button shows its click effect and nothing happens), as a person would click again.
 */
async function confirmWith(page: Page, name: RegExp): Promise<void> {
  const dialog = page.locator('.ant-modal-confirm');
  await untilStill(dialog);
  const button = dialog.getByRole('button', { name });
  await button.click();
  try {
    await dialog.waitFor({ state: 'hidden', timeout: 5000 });
  } catch {
    if (await button.isVisible()) await button.click();
  }
}

export function checks({ server, browser }: E2eContext): Check[] {
  return [
    {
      name: 'import, pick an assignee and a condition, save, deploy: the definition has them',
      async run() {
        mkdirSync(SHOTS, { recursive: true });
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const { context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
        });
        try {
          await page.goto(`${server.url}/admin/model`);
          await page.getByTestId('entity-table').waitFor();
          await expectNoAxeViolations(page, '/model');
          await page.getByTestId('model-import-file').setInputFiles(FIXTURE);
          await page.getByTestId('entity-table').locator('tr', { hasText: 'contract_review' }).waitFor();
          await page.screenshot({ path: `${SHOTS}/workflow-model-list.png` });
          await openDesigner(page, server.url, 'contract_review');

          // palette and context pad in Chinese
          const palette = page.locator('.djs-palette');
          assert.equal(
            await palette.locator('[data-action="create.start-event"]').getAttribute('aria-label'),
            '创建开始事件',
          );
          assert.equal(
            await palette.locator('[data-action="create.exclusive-gateway"]').getAttribute('aria-label'),
            '创建网关',
          );
          await page.locator('.djs-element[data-element-id="Task_legal"]').click();
          const pad = page.locator('.djs-context-pad');
          assert.equal(
            await pad.locator('[data-action="append.end-event"]').getAttribute('title'),
            '追加结束事件',
          );
          assert.equal(await pad.locator('[data-action="delete"]').getAttribute('title'), '删除');
          // the properties panel's own labels too
          await page.getByTestId('modeler-properties').getByText('常规').first().waitFor();

          // the assignee from the org-user tree
          // searched by name: the tenant's tree grows with every check and its list is virtual
          // (inside the panel's 人员分配 group, where its text field was)
          const assignment = page.locator('[data-group-id="group-CamundaPlatform__UserAssignment"]');
          await pickUser(page, assignment.getByTestId('pick-assignee'), 'admin', 'wf-pick-assignee-popup');
          await page.screenshot({ path: `${SHOTS}/workflow-modeler-pickers.png` });
          // candidate groups: a role
          await page.getByTestId('pick-candidate-groups').click();
          // searched: the roles other checks make push it out of the virtual list's first rows
          await page.keyboard.type('ROLE_ADMIN');
          await page
            .locator('.ant-select-dropdown:visible .ant-select-item-option')
            .filter({ hasText: 'ROLE_ADMIN' })
            .first()
            .click();
          await page.keyboard.press('Escape');

          // a condition on a flow leaving the inclusive gateway
          await page.locator('.djs-element[data-element-id="Flow_finance"]').click({ force: true });
          const condition = page.locator('[data-group-id="group-CamundaPlatform__Condition"]');
          await condition.getByTestId('pick-condition-variable').fill('amount');
          await page.getByTestId('pick-condition-operator').click();
          await page.locator('.ant-select-dropdown:visible').getByTitle('>', { exact: true }).click();
          await page.getByTestId('pick-condition-value').fill('50000');
          await page.getByTestId('pick-condition-apply').click();
          assert.equal(await page.getByTestId('pick-condition-current').textContent(), '${amount > 50000}');

          await page.screenshot({ path: `${SHOTS}/workflow-modeler.png` });
          await expectNoAxeViolations(page, '/processdesign');

          await page.getByTestId('modeler-save').click();
          const dialog = page.locator('.ant-modal-confirm');
          await dialog.locator('.ant-modal-confirm-title', { hasText: '保存成功，请部署' }).waitFor();
          await confirmWith(page, /^部 ?署$/);
          await page
            .locator('.ant-message')
            .getByText(/已部署 contract_review/)
            .waitFor();

          const definitions = await admin.get<{ records: { id: number; key: string; version: number }[] }>(
            '/api/activiti/processdefinition/query?key=contract_review&latestOnly=true',
          );
          const definition = definitions.records[0];
          assert.ok(definition, 'deployed definition');
          const { xml } = await admin.get<{ xml: string }>(
            `/api/activiti/processdefinition/xml?id=${definition.id}`,
          );
          assert.match(xml, /id="Task_legal"[^>]*camunda:assignee="admin"/);
          assert.match(xml, /camunda:candidateGroups="role:ROLE_ADMIN"/);
          assert.match(xml, /\$\{amount &gt; 50000\}/);
        } finally {
          await context.close();
        }
      },
    },
    {
      name: 'an element the engine cannot run is flagged on the element, and the save names it',
      async run() {
        const { context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
        });
        try {
          const admin = await apiClient(server.url, 'admin', server.adminPassword);
          const xml = readFileSync(FIXTURE, 'utf8')
            .replaceAll('contract_review', 'lint_check')
            .replace(
              '<bpmn:userTask id="Task_tech" name="Technical review" camunda:assignee="${author}" />',
              '<bpmn:scriptTask id="Task_tech" name="Technical review" scriptFormat="js"><bpmn:script>1</bpmn:script></bpmn:scriptTask>',
            );
          const model = await admin.post<{ id: number }>('/api/activiti/model/add', {
            name: 'Lint',
            key: 'lint_check',
          });
          await page.goto(`${server.url}/admin/processdesign?id=${model.id}`);
          await page.locator('.djs-element[data-element-id="StartEvent_1"]').waitFor();
          await page
            .getByTestId('modeler-file')
            .setInputFiles({ name: 'lint.bpmn', mimeType: 'application/xml', buffer: Buffer.from(xml) });
          await page.locator('.djs-element[data-element-id="Task_tech"]').waitFor();
          // bpmn-js-bpmnlint marks the element with an overlay holding its issues
          const overlay = page.locator('.djs-overlays[data-container-id="Task_tech"] .bjsl-overlay');
          await overlay.waitFor();
          await overlay.hover();
          await page
            .locator('.bjsl-dropdown')
            .getByText(/脚本任务无法运行/)
            .first()
            .waitFor();
          assert.notEqual(await page.getByTestId('modeler-issues').textContent(), '检查问题：0');
          await page.screenshot({ path: `${SHOTS}/workflow-modeler-lint.png` });
          await page.getByTestId('modeler-save').click();
          await page
            .getByTestId('modeler-problems')
            .getByText(/Task_tech/)
            .waitFor();
          await page.locator('.wf-engine-problem[data-element="Task_tech"]').waitFor();
        } finally {
          await context.close();
        }
      },
    },
    {
      name: 'a file of two processes without a diagram: each laid out on its own diagram, switched above the canvas',
      async run() {
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        // as Activiti and Flowable write them: no diagram part; the order calls the shipping
        const xml = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="e2e">
  <process id="e2e_order" name="双流程订单" isExecutable="true">
    <startEvent id="order_start" />
    <sequenceFlow id="order_f1" sourceRef="order_start" targetRef="order_check" />
    <userTask id="order_check" name="审核订单" />
    <sequenceFlow id="order_f2" sourceRef="order_check" targetRef="order_ship" />
    <callActivity id="order_ship" name="发货" calledElement="e2e_shipping" />
    <sequenceFlow id="order_f3" sourceRef="order_ship" targetRef="order_end" />
    <endEvent id="order_end" />
  </process>
  <process id="e2e_shipping" name="双流程发货" isExecutable="true">
    <startEvent id="ship_start" />
    <sequenceFlow id="ship_f1" sourceRef="ship_start" targetRef="ship_split" />
    <exclusiveGateway id="ship_split" default="ship_f2" />
    <sequenceFlow id="ship_f2" sourceRef="ship_split" targetRef="ship_pack" />
    <sequenceFlow id="ship_f3" sourceRef="ship_split" targetRef="ship_post">
      <conditionExpression>\${express}</conditionExpression>
    </sequenceFlow>
    <userTask id="ship_pack" name="打包" />
    <userTask id="ship_post" name="快递寄出" />
    <sequenceFlow id="ship_f4" sourceRef="ship_pack" targetRef="ship_end" />
    <sequenceFlow id="ship_f5" sourceRef="ship_post" targetRef="ship_end" />
    <endEvent id="ship_end" />
  </process>
</definitions>`;
        const model = await admin.post<{ id: number }>('/api/activiti/model/import', {
          name: '双流程',
          key: 'e2e_order',
          xml,
        });
        const { context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
        });
        /** Shapes with a size, flows with a line (a level one has no height, so is not "visible"). */
        const drawn = async (shapes: string[], flows: string[]): Promise<void> => {
          const element = (id: string) => page.locator(`.djs-element[data-element-id="${id}"]`);
          for (const id of shapes) {
            await element(id).waitFor();
            const box = await element(id).boundingBox();
            assert.ok(box && box.width > 0 && box.height > 0, `${id} is drawn`);
          }
          for (const id of flows) {
            await element(id).waitFor({ state: 'attached' });
            const line = await element(id).locator('.djs-visual path').first().getAttribute('d');
            assert.match(line ?? '', /^m\s*[\d.]+[, ]\s*[\d.]+\s*l/i, `${id} is drawn`);
          }
        };
        try {
          await page.goto(`${server.url}/admin/processdesign?id=${model.id}`);
          await drawn(
            ['order_start', 'order_check', 'order_ship', 'order_end'],
            ['order_f1', 'order_f2', 'order_f3'],
          );
          assert.equal(await page.locator('.djs-element[data-element-id="ship_pack"]').count(), 0);
          const chooser = page.getByTestId('modeler-diagrams');
          await chooser.locator('.ant-select-selection-item', { hasText: '双流程订单' }).waitFor();
          await page.screenshot({ path: `${SHOTS}/workflow-modeler-two-processes-first.png` });
          await chooser.click();
          await page.locator('.ant-select-item-option', { hasText: '双流程发货' }).click();
          await drawn(
            ['ship_start', 'ship_split', 'ship_pack', 'ship_post', 'ship_end'],
            ['ship_f1', 'ship_f2', 'ship_f3', 'ship_f4', 'ship_f5'],
          );
          assert.equal(await page.locator('.djs-element[data-element-id="order_check"]').count(), 0);
          await chooser.locator('.ant-select-selection-item', { hasText: '双流程发货' }).waitFor();
          // another diagram is no edit; the panel and the linter follow it
          assert.equal(await page.getByText('未保存').count(), 0);
          await page.locator('.djs-element[data-element-id="ship_post"]').click();
          await page.locator('.bio-properties-panel-header-label', { hasText: '快递寄出' }).waitFor();
          await page
            .getByTestId('modeler-issues')
            .filter({ hasText: /^检查问题：0/ })
            .waitFor();
          await expectNoAxeViolations(page, '/processdesign, a file of two processes');
          await page.screenshot({ path: `${SHOTS}/workflow-modeler-two-processes.png` });
          // saved: both diagrams, each on its own process
          await page.getByTestId('modeler-save').click();
          await page.locator('.ant-modal-confirm-title', { hasText: '保存成功，请部署' }).waitFor();
          await confirmWith(page, /^稍 ?后$/);
          const saved = await admin.get<{ xml: string }>(`/api/activiti/model/get?id=${model.id}`);
          assert.match(saved.xml, /<bpmndi:BPMNPlane id="BPMNPlane_e2e_order" bpmnElement="e2e_order">/);
          assert.match(
            saved.xml,
            /<bpmndi:BPMNPlane id="BPMNPlane_e2e_shipping" bpmnElement="e2e_shipping">/,
          );
        } finally {
          await context.close();
        }
      },
    },
    {
      name: '候选发起人 from the org-user tree; a setting the engine ignores is a lint warning and a deploy warning; 发起流程 lists the process for its starter',
      async run() {
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const key = 'e2e_starters';
        // Camunda Modeler writes a history time to live on the process: this engine ignores it
        const model = await admin.post<{ id: number }>('/api/activiti/model/import', {
          name: '发起人检查',
          key,
          xml: readFileSync(FIXTURE, 'utf8').replaceAll('contract_review', key),
        });
        const { context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
        });
        try {
          await page.goto(`${server.url}/admin/processdesign?id=${model.id}`);
          await page.locator('.djs-element[data-element-id="StartEvent_1"]').waitFor();
          // the process's lint overlay names the ignored attribute in Chinese
          const overlay = page.locator(`.djs-overlays[data-container-id="${key}"] .bjsl-overlay`);
          await overlay.waitFor();
          await overlay.hover();
          await page
            .locator('.bjsl-dropdown')
            .getByText('历史清理（保留时间）（camunda:historyTimeToLive）本引擎不支持，部署后将被忽略')
            .first()
            .waitFor();
          // a warning is not a problem: the tag counts it apart, in gold, and no problem
          const tag = page.getByTestId('modeler-issues');
          await tag.filter({ hasText: /^检查问题：0 · 警告：[1-9]\d*$/ }).waitFor();
          assert.match((await tag.getAttribute('class')) ?? '', /ant-tag-gold/);
          await page.screenshot({ path: `${SHOTS}/workflow-modeler-ignored-lint.png` });
          // the process selected (a click on the empty canvas): 候选发起人 with the task's pickers,
          // and none of the groups the engine ignores
          await page.mouse.click(1000, 650);
          const starters = page.locator('[data-group-id="group-CamundaPlatform__CandidateStarter"]');
          await starters.waitFor();
          const header = starters.locator('.bio-properties-panel-group-header');
          if (!(await starters.getByTestId('pick-starter-users').isVisible())) await header.click();
          await pickUser(
            page,
            starters.getByTestId('pick-starter-users'),
            'admin',
            'wf-pick-starter-users-popup',
          );
          await page.keyboard.press('Escape');
          await starters.getByTestId('pick-starter-groups').waitFor();
          for (const ignored of ['HistoryCleanup', 'AsynchronousContinuations', 'JobExecution', 'Tasklist'])
            assert.equal(
              await page.locator(`[data-group-id="group-CamundaPlatform__${ignored}"]`).count(),
              0,
              `${ignored} is not offered`,
            );
          await page.screenshot({ path: `${SHOTS}/workflow-modeler-starters.png` });
          await page.getByTestId('modeler-save').click();
          const dialog = page.locator('.ant-modal-confirm');
          await dialog.locator('.ant-modal-confirm-title', { hasText: '保存成功，请部署' }).waitFor();
          await confirmWith(page, /^部 ?署$/);
          // the deploy names the element and the ignored attribute
          await page
            .locator('.ant-message')
            .getByText(
              `${key} (Contract review)：历史清理（保留时间）（camunda:historyTimeToLive）本引擎不支持，已忽略`,
            )
            .waitFor();
          const saved = await admin.get<{ xml: string }>(`/api/activiti/model/xml?id=${model.id}`);
          assert.match(saved.xml, /camunda:candidateStarterUsers="admin"/);
          // admin is its starter: 发起流程 offers it
          await page.goto(`${server.url}/admin/startprocess`);
          await page.locator(`[data-testid="process-card"][data-key="${key}"]`).waitFor();
        } finally {
          await context.close();
        }
      },
    },
    {
      name: 'design to history: drawn in the modeler, assignee from the tree, deployed, started and completed in the office, in history',
      async run() {
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const key = 'e2e_designed';
        const name = '端到端设计流程';
        const model = await admin.post<{ id: number }>('/api/activiti/model/add', { name, key });
        const { context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
        });
        try {
          await page.goto(`${server.url}/admin/processdesign?id=${model.id}`);
          const start = page.locator('.djs-element[data-element-id="StartEvent_1"]');
          await start.waitFor();
          // start → a task (named while its label is edited) → made a user task → an end event
          await start.click();
          await page.locator('.djs-context-pad [data-action="append.append-task"]').click();
          await page.keyboard.type('经理审批');
          await page.locator('.djs-element[data-element-id="StartEvent_1"]').click();
          const task = page.locator('.djs-shape[data-element-id^="Activity_"]').first();
          const taskId = await task.getAttribute('data-element-id');
          assert.ok(taskId, 'the appended task');
          await task.click();
          await page.locator('.djs-context-pad [data-action="replace"]').click();
          await page.locator('.djs-popup [data-id="replace-with-user-task"]').click();
          // the replaced task stays selected, its context pad open
          await page.locator('.djs-context-pad [data-action="append.end-event"]').click();
          await page.locator(`.djs-element[data-element-id="${taskId}"]`).click();
          const assignment = page.locator('[data-group-id="group-CamundaPlatform__UserAssignment"]');
          await pickUser(page, assignment.getByTestId('pick-assignee'), 'admin', 'wf-pick-assignee-popup');
          await page.getByTestId('modeler-issues').filter({ hasText: /：0$/ }).waitFor();
          await page.screenshot({ path: `${SHOTS}/workflow-modeler-designed.png` });
          await page.getByTestId('modeler-save').click();
          const dialog = page.locator('.ant-modal-confirm');
          await dialog.locator('.ant-modal-confirm-title', { hasText: '保存成功，请部署' }).waitFor();
          await confirmWith(page, /^部 ?署$/);
          await page
            .locator('.ant-message')
            .getByText(new RegExp(`已部署 ${key}`))
            .waitFor();

          // started from the personal office
          await page.goto(`${server.url}/admin/startprocess`);
          const card = page.locator(`[data-testid="process-card"][data-key="${key}"]`);
          await card.getByTestId('start-process').click();
          // a click into the dialog while it zooms in can be lost
          await untilStill(page.locator('.ant-modal').filter({ has: page.getByTestId('start-description') }));
          await page.getByTestId('start-description').fill('端到端：设计到历史');
          await pickUser(page, page.getByTestId('start-candidate'), 'admin', 'wf-user-popup');
          const range = page.locator('.wf-range input');
          await range.first().click();
          await range.first().fill('2026-12-01');
          await range.first().press('Enter');
          await range.nth(1).fill('2026-12-02');
          await range.nth(1).press('Enter');
          await page.locator('.ant-modal .ant-btn-primary').click();
          await page.waitForURL(/\/admin\/myprocessdetails\?id=\d+/);
          const instanceId = Number(new URL(page.url()).searchParams.get('id'));

          // the task is admin's (picked in the modeler): handled and completed
          await page.goto(`${server.url}/admin/assigneetask`);
          const mine = page.getByTestId('wf-assignee-tasks');
          await mine.waitFor();
          const row = mine
            .locator('tr.ant-table-row')
            .filter({ hasText: name })
            .filter({ hasText: '经理审批' });
          await row.first().getByTestId('handle').click();
          await page.getByTestId('wf-handle').waitFor();
          await page.getByTestId('task-comment').fill('同意');
          await page.getByTestId('action-complete').click();
          await page.locator('.ant-message-success').filter({ hasText: '任务已完成' }).last().waitFor();

          // in history: ended, with the activity done by admin
          await page.goto(`${server.url}/admin/historicprocessinstance`);
          const history = page
            .getByTestId('wf-historic-instances')
            .locator(`tr[data-row-id="${instanceId}"]`);
          await history.locator('[data-status="over"]').waitFor();
          await history.getByTestId('open-historicactivityinstance').click();
          const activity = page
            .getByTestId('wf-history-activity')
            .locator('tr.ant-table-row')
            .filter({ hasText: '经理审批' });
          await activity.filter({ hasText: 'admin' }).first().waitFor();
          // the engine's codes in the user's language: type and end reason
          await activity.filter({ hasText: '用户任务' }).filter({ hasText: '已完成' }).first().waitFor();
          await page.screenshot({ path: `${SHOTS}/workflow-designed-history.png` });
        } finally {
          await context.close();
        }
      },
    },
    {
      name: 'modeler tools: candidate users, form key, 会签/或签 saved; undo/redo, zoom, downloads; a language switch keeps the edits',
      async run() {
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const key = 'e2e_tools';
        const model = await admin.post<{ id: number }>('/api/activiti/model/import', {
          name: '工具检查',
          key,
          xml: readFileSync(FIXTURE, 'utf8').replaceAll('contract_review', key),
        });
        const { context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
        });
        try {
          await page.goto(`${server.url}/admin/processdesign?id=${model.id}`);
          await page.locator('.djs-element[data-element-id="Task_legal"]').waitFor();

          // candidate users from the tree, 会签 on one task, 或签 on another
          await page.locator('.djs-element[data-element-id="Task_legal"]').click();
          const assignment = page.locator('[data-group-id="group-CamundaPlatform__UserAssignment"]');
          await pickUser(
            page,
            assignment.getByTestId('pick-candidate-users'),
            'admin',
            'wf-pick-users-popup',
          );
          await page.keyboard.press('Escape');
          await assignment.getByTestId('pick-multi').getByText('会签').click();
          await page.locator('.djs-element[data-element-id="Task_tech"]').click();
          await assignment.getByTestId('pick-multi').getByText('或签').click();
          // the form key of the start event from the forms list
          await page.locator('.djs-element[data-element-id="StartEvent_1"]').click();
          const forms = page.locator('[data-group-id="group-CamundaPlatform__Form"]');
          await forms.getByTestId('pick-form').click();
          await page.keyboard.type('sysparam');
          await page
            .locator('.wf-pick-form-popup:not(.ant-select-dropdown-hidden) .ant-select-item-option')
            .filter({ hasText: '（sysparam）' })
            .first()
            .click();
          await page.screenshot({ path: `${SHOTS}/workflow-modeler-panel.png` });

          // undo / redo of a deletion
          const legal = page.locator('.djs-element[data-element-id="Task_legal"]');
          await legal.click();
          await page.locator('.djs-context-pad [data-action="delete"]').click();
          await legal.waitFor({ state: 'detached' });
          await page.getByTestId('modeler-undo').click();
          await legal.waitFor();
          await page.getByTestId('modeler-redo').click();
          await legal.waitFor({ state: 'detached' });
          await page.getByTestId('modeler-undo').click();
          await legal.waitFor();

          // zoom in and out change the scale of the canvas
          const scale = async (): Promise<number> => {
            const transform =
              (await page.locator('.djs-container svg .viewport').getAttribute('transform')) ?? '';
            return Number(/matrix\(([\d.e-]+)/.exec(transform)?.[1] ?? 1);
          };
          const before = await scale();
          await page.getByTestId('modeler-zoom-in').click();
          const zoomedIn = await scale();
          assert.ok(zoomedIn > before * 1.1, `zoom in: ${before} → ${zoomedIn}`);
          await page.getByTestId('modeler-zoom-out').click();
          await page.getByTestId('modeler-zoom-out').click();
          assert.ok((await scale()) < before, 'zoom out');
          await page.getByTestId('modeler-fit').click();

          // downloads: XML with the picked values, SVG, PNG
          const download = async (label: string) => {
            await page.getByTestId('modeler-download').hover();
            const [file] = await Promise.all([
              page.waitForEvent('download'),
              page.locator('.ant-dropdown-menu-item').filter({ hasText: label }).click(),
            ]);
            return file;
          };
          const xmlFile = await download('下载 XML');
          assert.equal(xmlFile.suggestedFilename(), `${key}.bpmn20.xml`);
          const downloaded = readFileSync((await xmlFile.path()) ?? '', 'utf8');
          assert.match(downloaded, /camunda:candidateUsers="admin"/);
          assert.equal((await download('下载 SVG')).suggestedFilename(), `${key}.svg`);
          const png = await download('下载 PNG');
          assert.equal(png.suggestedFilename(), `${key}.png`);
          assert.equal(
            readFileSync((await png.path()) ?? '')
              .subarray(1, 4)
              .toString(),
            'PNG',
          );

          // a language switch relabels the modeler: the unsaved edits stay
          await page.getByTestId('language-select').click();
          await page.locator('.ant-dropdown-menu-item').filter({ hasText: 'English' }).click();
          await page
            .locator('.djs-palette [data-action="create.start-event"][aria-label="Create start event"]')
            .waitFor();
          await page
            .locator('.ant-tag')
            .filter({ hasText: /^Unsaved$/ })
            .waitFor();
          await page.locator('.djs-element[data-element-id="Task_legal"]').click();
          await page
            .locator('[data-group-id="group-CamundaPlatform__UserAssignment"]')
            .getByText('User assignment')
            .waitFor();
          await page.getByTestId('language-select').click();
          await page.locator('.ant-dropdown-menu-item').filter({ hasText: '简体中文' }).click();
          await page
            .locator('.djs-palette [data-action="create.start-event"][aria-label="创建开始事件"]')
            .waitFor();

          await page.getByTestId('modeler-save').click();
          await page.locator('.ant-modal-confirm-title', { hasText: '保存成功，请部署' }).waitFor();
          await confirmWith(page, /^稍 ?后$/);
          const saved = await admin.get<{ xml: string }>(`/api/activiti/model/get?id=${model.id}`);
          assert.match(saved.xml, /id="Task_legal"[^>]*camunda:candidateUsers="admin"/);
          assert.match(saved.xml, /<bpmn:startEvent id="StartEvent_1"[^>]*camunda:formKey="sysparam"/);
          const legalXml =
            /<bpmn:userTask id="Task_legal"[\s\S]*?<\/bpmn:userTask>/.exec(saved.xml)?.[0] ?? '';
          assert.match(
            legalXml,
            /multiInstanceLoopCharacteristics[^>]*camunda:collection="\$\{assigneeList\}"/,
          );
          assert.doesNotMatch(legalXml, /completionCondition/);
          const techXml = /<bpmn:userTask id="Task_tech"[\s\S]*?<\/bpmn:userTask>/.exec(saved.xml)?.[0] ?? '';
          assert.match(techXml, /nrOfCompletedInstances &gt;= 1/);
        } finally {
          await context.close();
        }
      },
    },
    {
      name: "boundary timer: the duration is picked in the panel's 定时器 group, saved and deployed",
      async run() {
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const model = await admin.post<{ id: number }>('/api/activiti/model/import', {
          name: '限时审核',
          key: 'timer_review',
          xml: readFileSync('tests/fixtures/bpmn/boundary-timer.bpmn', 'utf8'),
        });
        const { context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
        });
        try {
          await page.goto(`${server.url}/admin/processdesign?id=${model.id}`);
          const timer = page.locator('.djs-element[data-element-id="Timer_late"]');
          await timer.waitFor();
          // the engine runs interrupting timers on user tasks: nothing is flagged
          assert.equal(
            await page.locator('.djs-overlays[data-container-id="Timer_late"] .bjsl-overlay').count(),
            0,
          );
          await timer.click({ force: true });
          const group = page.locator('[data-group-id="group-timer"]');
          await group.getByText('定时时长').waitFor();
          const days = group.getByRole('spinbutton', { name: '天' });
          const hours = group.getByRole('spinbutton', { name: '小时' });
          assert.equal(await hours.inputValue(), '1');
          await days.fill('2');
          await days.press('Tab');
          await hours.fill('4');
          await hours.press('Tab');
          await expectNoAxeViolations(page, '定时器');
          await page.screenshot({ path: `${SHOTS}/workflow-modeler-timer.png` });

          await page.getByTestId('modeler-save').click();
          await page.locator('.ant-modal-confirm-title', { hasText: '保存成功，请部署' }).waitFor();
          await confirmWith(page, /^稍 ?后$/);
          const saved = await admin.get<{ xml: string }>(`/api/activiti/model/get?id=${model.id}`);
          const timerXml =
            /<bpmn:boundaryEvent id="Timer_late"[\s\S]*?<\/bpmn:boundaryEvent>/.exec(saved.xml)?.[0] ?? '';
          assert.match(timerXml, />P2DT4H</);
          // and the engine takes it
          const deployed = await admin.post<{ id: string }>(`/api/activiti/model/deploy?id=${model.id}`, {});
          assert.ok(deployed);
        } finally {
          await context.close();
        }
      },
    },
    {
      name: 'import: a file whose key exists asks before replacing; a refused file leaves no model',
      async run() {
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const { context, page } = await signedIn(browser, server, 'admin', server.adminPassword);
        try {
          const xml = readFileSync(FIXTURE, 'utf8').replaceAll('contract_review', 'e2e_twice');
          await admin.post('/api/activiti/model/import', { name: '第一版', key: 'e2e_twice', xml });
          await page.goto(`${server.url}/admin/model`);
          await page.getByTestId('entity-table').waitFor();
          await page
            .getByTestId('model-import-file')
            .setInputFiles({ name: 'twice.bpmn', mimeType: 'application/xml', buffer: Buffer.from(xml) });
          const ask = page.locator('.ant-modal-confirm');
          await ask.getByText(/e2e_twice/).waitFor();
          await expectNoAxeViolations(page, '/model replace question');
          await confirmWith(page, /^替 ?换$/);
          await page
            .locator('.ant-message-success')
            .getByText(/e2e_twice/)
            .waitFor();
          const models = await admin.get<{ records: { key: string }[] }>(
            '/api/activiti/model/query?key=e2e_twice',
          );
          assert.equal(models.records.length, 1, 'replaced, not added');
          // copy: the list shows only e2e_twice, while e2e_twice_copy exists out of sight
          await admin.post('/api/activiti/model/add', { name: '别处的副本', key: 'e2e_twice_copy' });
          await page.locator('[data-filter="key"] input').fill('e2e_twice');
          await page.getByTestId('filter-search').click();
          // the unfiltered list already shows e2e_twice: wait for the filtered answer to be drawn
          const rows = page.locator('.ant-table-row');
          for (let tries = 0; (await rows.count()) !== 1; tries += 1) {
            assert.ok(tries < 300, `the filter shows one model, not ${await rows.count()}`);
            await page.waitForTimeout(50);
          }
          const row = rows.filter({ hasText: 'e2e_twice' });
          await row.waitFor();
          await row.getByRole('checkbox').check();
          await page.getByTestId('model-copy').click();
          await page.locator('.ant-message-success').getByText('已复制').waitFor();
          const copies = await admin.get<{ records: { name: string }[] }>(
            '/api/activiti/model/query?key=e2e_twice_copy2',
          );
          assert.equal(copies.records.length, 1, 'the copy takes the first key no model has');
          assert.match(copies.records[0]?.name ?? '', /（副本）$/);
          // a file the engine refuses: no empty model is left behind
          const bad = xml
            .replaceAll('e2e_twice', 'e2e_refused')
            .replace(
              '<bpmn:userTask id="Task_tech" name="Technical review" camunda:assignee="${author}" />',
              '<bpmn:scriptTask id="Task_tech" name="Technical review" scriptFormat="js"><bpmn:script>1</bpmn:script></bpmn:scriptTask>',
            );
          assert.notEqual(bad, xml.replaceAll('e2e_twice', 'e2e_refused'));
          await page
            .getByTestId('model-import-file')
            .setInputFiles({ name: 'bad.bpmn', mimeType: 'application/xml', buffer: Buffer.from(bad) });
          await page.locator('.ant-message-error').first().waitFor();
          const refused = await admin.get<{ records: unknown[] }>(
            '/api/activiti/model/query?key=e2e_refused',
          );
          assert.equal(refused.records.length, 0);
        } finally {
          await context.close();
        }
      },
    },
  ];
}
