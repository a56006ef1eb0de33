import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { apiClient, newContext, signedIn, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * Live updates (issue 37): two users on the same list; a record one adds through the form is
 * announced in the other's list within a few seconds (「1 条新记录」 and 刷新 shows it); a record
 * open in an edit form warns when someone else saves it; the task badge counts a task assigned to
 * the user without a reload or a poll; a notice sent to the user appears in their inbox, with its
 * unread count, without a reload.
 */
const PASSWORD = 'live-e2e-pass-1';
const WATCHER = 'livewatcher';

const TASK_PROCESS = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="Definitions_live" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="live_badge" name="实时待办" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="check"/>
    <bpmn:userTask id="check" name="核对" camunda:assignee="${WATCHER}"/>
    <bpmn:sequenceFlow id="f2" sourceRef="check" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>`;

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  const base = server.url;
  let admin: ApiClient;
  let writer: { context: BrowserContext; page: Page };
  let watcher: { context: BrowserContext; page: Page };
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(screenshots, `live-${name}.png`), fullPage: true });
  const openParams = async (page: Page) => {
    await page.goto(`${base}/admin/sysparam`);
    await page.getByTestId('entity-table').locator('tr.ant-table-row').first().waitFor();
  };

  return [
    {
      name: 'setup: a second administrator watching the parameters',
      run: async () => {
        admin = await apiClient(base, 'admin', server.adminPassword);
        const roles = await admin.get<{ records: { id: number; roleCode: string }[] }>(
          '/api/admin/sysrole/query?roleCode=ROLE_ADMIN&pageSize=10',
        );
        const role = roles.records.find((item) => item.roleCode === 'ROLE_ADMIN');
        assert.ok(role);
        await admin.post('/api/admin/sysuser/add', {
          username: WATCHER,
          nickname: '值班员',
          password: PASSWORD,
          email: `${WATCHER}@example.com`,
          mobile: '13900000377',
          phone: '010-1234567',
          status: '1',
          roleId: role.id,
          orgId: 1,
        });
        await admin.post('/api/activiti/deployment/deployXml', { xml: TASK_PROCESS, name: '实时待办' });
        writer = await signedIn(browser, server, 'admin', server.adminPassword);
        watcher = await signedIn(browser, server, WATCHER, PASSWORD);
      },
    },
    {
      name: 'a record added in one session is announced in the other within a few seconds',
      run: async () => {
        await Promise.all([openParams(writer.page), openParams(watcher.page)]);
        const { page } = writer;
        await page.getByTestId('entity-add').click();
        const modal = page.locator('.entity-form-modal');
        await modal.locator('#root_paramName').waitFor();
        await modal.locator('#root_paramName').fill('实时参数');
        await modal.locator('#root_paramKey').fill('live.e2e.added');
        await modal.locator('#root_paramValue').fill('42');
        await modal.locator('.ant-modal-title').click();
        await modal.locator('.ant-modal-footer .ant-btn-primary').click();
        await modal.waitFor({ state: 'detached' });
        const saved = Date.now();
        const notice = watcher.page.getByTestId('live-notice');
        await notice.filter({ hasText: '1 条新记录' }).waitFor({ timeout: 5_000 });
        const elapsed = Date.now() - saved;
        assert.ok(elapsed < 5_000, `announced after ${elapsed} ms`);
        console.log(`    announced ${elapsed} ms after the save was answered`);
        // the writer's own list shows it and announces nothing
        assert.equal(await writer.page.getByTestId('live-notice').count(), 0);
        await shot(watcher.page, 'list-announced');
        await watcher.page.getByTestId('live-refresh').click();
        await notice.waitFor({ state: 'detached' });
        await watcher.page
          .getByTestId('entity-table')
          .locator('tr.ant-table-row')
          .filter({ hasText: 'live.e2e.added' })
          .waitFor();
        await shot(watcher.page, 'list-refreshed');
      },
    },
    {
      name: 'a record open in an edit form warns when someone else saved it',
      run: async () => {
        const { page } = watcher;
        const row = page
          .getByTestId('entity-table')
          .locator('tr.ant-table-row')
          .filter({ hasText: 'live.e2e.added' });
        await row.dblclick();
        const modal = page.locator('.entity-form-modal');
        await modal.locator('#root_paramName').waitFor();
        const found = await admin.get<{ records: { id: number; version: number }[] }>(
          '/api/admin/sysparam/query?paramKey=live.e2e.added',
        );
        const record = found.records[0];
        assert.ok(record);
        await admin.put('/api/admin/sysparam/update', {
          id: record.id,
          paramName: '实时参数（已改）',
          version: record.version,
        });
        await modal
          .getByTestId('saved-by-other')
          .filter({ hasText: '编辑期间他人已保存' })
          .waitFor({ timeout: 5_000 });
        await shot(page, 'form-saved-by-other');
        await modal.locator('.ant-modal-footer .ant-btn:not(.ant-btn-primary)').click();
        await modal.waitFor({ state: 'detached' });
      },
    },
    {
      name: 'a notice sent to the user appears in their inbox and on the bell, without a reload',
      run: async () => {
        const { page } = watcher;
        // the page's live stream is open (the server holds it) before the notice is sent
        const streamOpen = page.waitForResponse((answer) => answer.url().includes('/api/events/stream'));
        await page.goto(`${base}/admin/mynotification`);
        const table = page.getByTestId('inbox');
        await table.waitFor();
        await streamOpen;
        const filters = page.getByTestId('inbox-filters');
        const unreadBefore = Number(
          (await filters.locator('.ant-badge').innerText()).replace(/\D/g, '') || '0',
        );
        const users = await admin.get<{ records: { id: number; username: string }[] }>(
          `/api/admin/sysuser/query?username=${WATCHER}`,
        );
        const watcherId = users.records.find((user) => user.username === WATCHER)?.id;
        assert.ok(watcherId);
        await admin.post('/api/admin/notification/add', {
          title: '实时消息：请核对',
          content: '<p>只发给值班员的消息</p>',
          type: 'message',
          priority: '2',
          publishObject: [watcherId],
        });
        const sent = Date.now();
        await table.getByText('实时消息：请核对').waitFor({ timeout: 5_000 });
        await filters
          .locator('.ant-badge-count')
          .getByText(String(unreadBefore + 1))
          .waitFor({ timeout: 5_000 });
        // the top bar's bell counts it too
        await page
          .locator('.ant-badge')
          .filter({ has: page.getByTestId('inbox-bell') })
          .locator('.ant-badge-count')
          .getByText(String(unreadBefore + 1))
          .waitFor({ timeout: 5_000 });
        console.log(`    inbox and bell show the notice ${Date.now() - sent} ms after it was sent`);
        await shot(page, 'inbox-notice');
      },
    },
    {
      name: "a notice sent to a portal buyer appears in the portal's 我的消息 without a reload",
      run: async () => {
        const roles = await admin.get<{ records: { id: number; roleCode: string }[] }>(
          '/api/admin/sysrole/query?roleCode=ROLE_SYS_BUYER&pageSize=10',
        );
        const roleId = roles.records.find((item) => item.roleCode === 'ROLE_SYS_BUYER')?.id;
        assert.ok(roleId);
        const added = await admin.post<{ id: number }>('/api/admin/sysuser/add', {
          username: 'livebuyer',
          nickname: '实时采购商',
          password: PASSWORD,
          email: 'livebuyer@example.com',
          mobile: '13900000378',
          phone: '010-1234567',
          status: '1',
          userType: 1,
          roleId,
          orgId: 1,
        });
        const context = await newContext(browser, { viewport: { width: 1280, height: 800 } });
        const page = await context.newPage();
        await page.goto(`${base}/login`);
        await page.getByTestId('role-1').click();
        await page.fill('#login-username', 'livebuyer');
        await page.fill('#login-password', PASSWORD);
        await page.getByTestId('login-submit').click();
        await page.getByTestId('role-label').waitFor();
        const streamOpen = page.waitForResponse((answer) => answer.url().includes('/api/events/stream'));
        await page.goto(`${base}/personal/notifications`);
        const section = page.getByTestId('personal-notifications');
        await section.waitFor();
        await streamOpen;
        await admin.post('/api/admin/notification/add', {
          title: '实时消息：报价已收到',
          content: '<p>只发给采购商的消息</p>',
          type: 'message',
          priority: '2',
          publishObject: [added.id],
        });
        const sent = Date.now();
        await section.getByText('实时消息：报价已收到').waitFor({ timeout: 5_000 });
        await section.getByTestId('unread-count').waitFor({ timeout: 5_000 });
        console.log(`    the portal shows the notice ${Date.now() - sent} ms after it was sent`);
        await shot(page, 'portal-notice');
        await context.close();
      },
    },
    {
      name: 'the task badge counts a task assigned to the user, without a reload',
      run: async () => {
        const { page } = watcher;
        await page.goto(`${base}/admin/workbench`);
        await page.locator('.ant-menu').first().waitFor();
        // no open task: no badge (antd shows none for 0)
        const badges = page.locator('.admin-menu-badge');
        assert.equal(await badges.count(), 0, 'no open task yet');
        await admin.post('/api/activiti/processinstance/start', {
          processDefinitionKey: 'live_badge',
          description: '实时待办',
        });
        const started = Date.now();
        await badges.filter({ hasText: '1' }).first().waitFor({ timeout: 5_000 });
        console.log(`    badge 0 → 1 after ${Date.now() - started} ms`);
        await shot(page, 'badge');
        await writer.context.close();
        await watcher.context.close();
      },
    },
  ];
}
