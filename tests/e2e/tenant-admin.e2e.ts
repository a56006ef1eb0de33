import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { apiClient, newContext, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * A second tenant's administrator in Chromium (issue 30): provisioned by the platform
 * administrator, they sign in on /admin/login?tenant=<code>, see their own tenant's pages and
 * forms only, never the platform's pages nor the default tenant's designed forms, and a
 * platform page opened by its address shows no data.
 */

const TENANT = 'e2etenant';
const PLATFORM_FORM = 'e2eplatvisit';
const TENANT_FORM = 'e2etenvisit';

const visitForm = (title: string) => ({
  title,
  required: ['place'],
  properties: {
    place: { type: 'string', title: 'Place', maxLength: 40 },
    hours: { type: 'integer', title: 'Hours', minimum: 1 },
  },
});

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let platform: ApiClient;
  let tenantAdmin: { username: string; initialPassword: string };
  let session: { context: BrowserContext; page: Page } | undefined;
  const page = (): Page => {
    assert.ok(session, 'signed in');
    return session.page;
  };
  const shot = (name: string) => page().screenshot({ path: `${screenshots}/tenant-${name}.png` });
  const url = (path: string): string => `${server.url}/admin${path}`;
  const sidebar = () => page().getByTestId('sidebar');

  /** Opens a sidebar group when it is closed (a click on an open one would close it). */
  const openGroup = async (name: string): Promise<void> => {
    const group = sidebar().locator('.ant-menu-submenu').filter({ hasText: name }).first();
    if (!(await group.evaluate((node) => node.classList.contains('ant-menu-submenu-open'))))
      await group.locator('.ant-menu-submenu-title').first().click();
  };

  return [
    {
      name: 'the platform administrator provisions a tenant and publishes a form of the default tenant',
      run: async () => {
        platform = await apiClient(server.url, 'admin', server.adminPassword);
        const created = await platform.post<{ admin: { username: string; initialPassword: string } }>(
          '/api/admin/systenant/add',
          { tenantCode: TENANT, tenantName: 'E2E 环保科技' },
        );
        tenantAdmin = created.admin;
        const form = await platform.post<{ id: number }>('/api/generator/form/add', {
          formCode: PLATFORM_FORM,
          formName: '平台巡检',
          formContent: visitForm('平台巡检'),
        });
        await platform.post('/api/generator/form/publish', {
          id: form.id,
          menuParent: 'formgenerator',
          roles: ['ROLE_ADMIN'],
        });
      },
    },
    {
      name: "signs in on the sign-in page named by the tenant's address",
      run: async () => {
        const context = await newContext(browser);
        session = { context, page: await context.newPage() };
        await page().goto(url(`/login?tenant=${TENANT}`));
        await page().getByTestId('login-tenant').getByText(TENANT).waitFor();
        await shot('login');
        await page().getByPlaceholder('账号').fill(tenantAdmin.username);
        await page().getByPlaceholder('密码').fill(tenantAdmin.initialPassword);
        await page().getByTestId('login-submit').click();
        await page().waitForURL(/\/admin\/workbench$/);
        // the header names them the tenant's administrator, not the platform's 超级管理员
        await page().getByText('租户管理员', { exact: true }).first().waitFor();
      },
    },
    {
      name: "sees its own tenant's pages and none of the platform's",
      run: async () => {
        await openGroup('系统管理');
        await sidebar().getByText('用户管理', { exact: true }).waitFor();
        // the monitor group holds a tenant's own pages only (the API documentation, the audit log)
        const monitor = sidebar().locator('.ant-menu-submenu').filter({ hasText: '系统监控' });
        if ((await monitor.count()) > 0) await openGroup('系统监控');
        await sidebar().getByText('接口文档', { exact: true }).waitFor();
        await shot('sidebar');
        const text = await sidebar().innerText();
        for (const platformPage of ['数据库监控', '配置中心', '流控监控', '指标看板', '逆向生成', '租户管理'])
          assert.ok(!text.includes(platformPage), `a tenant administrator's sidebar shows ${platformPage}`);
      },
    },
    {
      name: "lists its own tenant's users only: its administrator",
      run: async () => {
        await page().goto(url('/sysuser'));
        const rows = page().locator('tr.ant-table-row');
        await rows.first().waitFor();
        assert.equal(await rows.count(), 1);
        assert.match(await rows.first().innerText(), new RegExp(tenantAdmin.username));
        await shot('users');
      },
    },
    {
      name: "lists its own designed forms, not the default tenant's",
      run: async () => {
        // the browser's session is the tenant administrator's: add a form of theirs with its token
        const token = await page().evaluate(() => document.cookie.match(/(?:^|; )token=([^;]+)/)?.[1] ?? '');
        assert.ok(token, 'the token cookie of the signed-in tenant administrator');
        const added = await fetch(`${server.url}/api/generator/form/add`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${decodeURIComponent(token)}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({
            formCode: TENANT_FORM,
            formName: '租户巡检',
            formContent: visitForm('租户巡检'),
          }),
        });
        assert.equal(added.status, 200, await added.text());
        await page().goto(url('/formgenerator/list'));
        const list = page().getByTestId('forms-list');
        await list.locator('tr.ant-table-row').filter({ hasText: TENANT_FORM }).waitFor();
        assert.equal(await list.locator('tr.ant-table-row').filter({ hasText: PLATFORM_FORM }).count(), 0);
        await list.locator('.ant-spin-blur').waitFor({ state: 'detached' });
        await shot('forms');
        // the default tenant's published form is not in this tenant's sidebar either
        assert.ok(!(await sidebar().innerText()).includes('平台巡检'));
      },
    },
    {
      name: 'a platform page opened by its address shows no data',
      run: async () => {
        await page().goto(url('/monitor/database'));
        await page()
          .getByText(/403|无权|没有权限|不存在|404/)
          .first()
          .waitFor();
        await shot('platform-page');
        assert.equal(await page().locator('.ant-table-row').count(), 0);
      },
    },
    {
      name: "signs out and back in to the platform: the tenant's form is not in the platform's list",
      run: async () => {
        await session?.context.close();
        const context = await newContext(browser);
        session = { context, page: await context.newPage() };
        await page().goto(url('/login'));
        assert.equal(
          await page().getByTestId('login-tenant').count(),
          0,
          'the default sign-in page names no tenant',
        );
        await page().getByPlaceholder('账号').fill('admin');
        await page().getByPlaceholder('密码').fill(server.adminPassword);
        await page().getByTestId('login-submit').click();
        await page().waitForURL(/\/admin\/workbench$/);
        await page().goto(url('/formgenerator/list'));
        const list = page().getByTestId('forms-list');
        await list.locator('tr.ant-table-row').filter({ hasText: PLATFORM_FORM }).waitFor();
        assert.equal(await list.locator('tr.ant-table-row').filter({ hasText: TENANT_FORM }).count(), 0);
        await session.context.close();
        session = undefined;
      },
    },
  ];
}
