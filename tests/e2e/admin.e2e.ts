import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import type { Check, E2eContext } from './support.js';

/**
 * The back-office shell in Chromium against the real server: sign-in, workbench, menus, tags,
 * menu search, language, size, change password, sign-out (issue 4).
 */
export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let context: BrowserContext | undefined;
  let page: Page;
  const admin = (path: string): string => `${server.url}/admin${path}`;
  const shot = (name: string): Promise<Buffer> =>
    page.screenshot({ path: `${screenshots}/admin-${name}.png` });
  const pathname = (): string => new URL(page.url()).pathname;
  // antd keeps closed dropdowns in the DOM: only the open one counts.
  const menuItem = ({ name }: { name: string }) => ({
    click: async () => {
      await page.locator('.ant-dropdown:not(.ant-dropdown-hidden)').getByRole('menuitem', { name }).click();
      await page.waitForFunction(
        () => document.querySelectorAll('.ant-dropdown:not(.ant-dropdown-hidden)').length === 0,
      );
    },
  });

  return [
    {
      name: 'an anonymous visitor is sent to the sign-in page with the wanted path',
      run: async () => {
        context = await browser.newContext({ locale: 'zh-CN', viewport: { width: 1360, height: 820 } });
        page = await context.newPage();
        await page.goto(admin('/sysuser'));
        await page.waitForURL(/\/admin\/login/);
        assert.equal(new URL(page.url()).searchParams.get('redirect'), '/sysuser');
        await page.getByTestId('login-form').waitFor();
        await shot('login');
      },
    },
    {
      name: 'a wrong password is refused with the server message',
      run: async () => {
        await page.goto(admin('/login'));
        await page.getByPlaceholder('账号').fill('admin');
        await page.getByPlaceholder('密码').fill('not-the-password');
        await page.getByTestId('login-submit').click();
        await page.locator('.ant-message-error').waitFor();
        assert.match(await page.locator('.ant-message-error').innerText(), /用户名或密码错误/);
        assert.equal(pathname(), '/admin/login');
      },
    },
    {
      name: 'signs in (trimmed account) and lands on the workbench with charts',
      run: async () => {
        await page.getByPlaceholder('账号').fill('  admin ');
        await page.getByPlaceholder('密码').fill(server.adminPassword);
        await page.getByTestId('login-submit').click();
        await page.waitForURL(/\/admin\/workbench$/);
        await page.getByTestId('workbench').waitFor();
        await page.locator('[data-testid="chart-counts"] canvas').waitFor();
        assert.equal(await page.title(), '工作台 - 环保产业采购招投标平台');
        const token = (await context!.cookies()).find((cookie) => cookie.name === 'token');
        assert.ok(token?.value, 'the token cookie is set');
        // The counts come from the real data: at least the admin user.
        await page.waitForFunction(
          () => document.querySelector('.admin-stat .ant-statistic-content-value')?.textContent !== '-',
        );
        await page.waitForTimeout(600);
        await shot('workbench');
      },
    },
    {
      name: 'signed-in users who open /admin/login go to the workbench',
      run: async () => {
        await page.goto(admin('/login'));
        await page.waitForURL(/\/admin\/workbench$/);
      },
    },
    {
      name: 'opens a menu: the sidebar leads to the user list with real rows and a tag',
      run: async () => {
        const sidebar = page.getByTestId('sidebar');
        await sidebar.getByText('系统管理', { exact: true }).click();
        await sidebar.getByText('用户管理', { exact: true }).click();
        await page.waitForURL(/\/admin\/sysuser$/);
        await page.getByTestId('entity-table').getByText('admin', { exact: true }).first().waitFor();
        assert.equal(await page.title(), '用户管理 - 环保产业采购招投标平台');
        const breadcrumb = await page.locator('.admin-breadcrumb').innerText();
        assert.match(breadcrumb, /工作台[\s\S]*系统管理[\s\S]*用户管理/);
        await page.locator('.admin-tag[data-path="/sysuser"]').waitFor();
        await shot('sysuser');
      },
    },
    {
      name: 'a placeholder menu page has its title; unknown paths go to /404',
      run: async () => {
        await page.goto(admin('/monitor/metrics'));
        await page.getByTestId('page-title').getByText('指标看板').waitFor();
        await page.goto(admin('/no/such/page'));
        await page.waitForURL(/\/admin\/404$/);
      },
    },
    {
      name: 'tags: close, close others, refresh; the affixed workbench tag stays',
      run: async () => {
        await page.goto(admin('/sysrole'));
        await page.locator('.admin-tag[data-path="/sysrole"]').waitFor();
        // sysrole sits under 权限管理; 组织机构 under 系统管理, whose submenu opens first.
        const sidebar = page.getByTestId('sidebar');
        if (!(await sidebar.getByText('组织机构', { exact: true }).isVisible())) {
          await sidebar.getByText('系统管理', { exact: true }).click();
        }
        await sidebar.getByText('组织机构', { exact: true }).click();
        await page.waitForURL(/\/admin\/sysorg$/);
        // Closing the active tag goes to the last one.
        await page.locator('.admin-tag[data-path="/sysorg"] .admin-tag-close').click();
        await page.waitForURL(/\/admin\/sysrole$/);
        await page.locator('.admin-tag[data-path="/sysrole"]').click({ button: 'right' });
        await menuItem({ name: '关闭其他' }).click();
        const tags = await page
          .locator('.admin-tag')
          .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-path')));
        assert.deepEqual(tags, ['/workbench', '/sysrole']);
        await page.locator('.admin-tag[data-path="/sysrole"]').click({ button: 'right' });
        await menuItem({ name: '刷新' }).click();
        await page.waitForURL(/\/admin\/sysrole$/);
        await page.getByTestId('entity-table').waitFor();
        await page.locator('.admin-tag[data-path="/workbench"]').click({ button: 'right' });
        await menuItem({ name: '关闭所有' }).click();
        await page.waitForURL(/\/admin\/workbench$/);
        assert.equal(await page.locator('.admin-tag').count(), 1);
      },
    },
    {
      name: 'a cached page keeps its state between visits; Refresh renders it afresh',
      run: async () => {
        await page.goto(admin('/sysrole'));
        const header = page.locator('th', { hasText: '角色编码' }).first();
        await header.click();
        await page.waitForFunction(() => document.querySelector('th.ant-table-column-sort') !== null);
        await page.locator('.admin-tag[data-path="/workbench"]').click();
        await page.waitForURL(/\/admin\/workbench$/);
        await page.locator('.admin-tag[data-path="/sysrole"]').click();
        await page.waitForURL(/\/admin\/sysrole$/);
        await page.locator('.admin-kept-page:not([hidden]) th.ant-table-column-sort').waitFor();
        await page.locator('.admin-tag[data-path="/sysrole"]').click({ button: 'right' });
        await menuItem({ name: '刷新' }).click();
        await page.waitForFunction(() => document.querySelector('th.ant-table-column-sort') === null);
        await page.locator('.admin-kept-page:not([hidden]) tr.ant-table-row').first().waitFor();
      },
    },
    {
      name: 'menu search: pinyin "yonghu" finds 用户管理 and Enter goes there',
      run: async () => {
        await page.getByTestId('menu-search-toggle').click();
        await page.keyboard.type('yonghu');
        await page.locator('.ant-select-item-option').first().waitFor();
        assert.equal(await page.locator('.ant-select-item-option').first().innerText(), '用户管理');
        await shot('search');
        await page.keyboard.press('Enter');
        await page.waitForURL(/\/admin\/sysuser$/);
      },
    },
    {
      name: 'switches the language to English (remembered in the language cookie)',
      run: async () => {
        await page.getByTestId('language-select').click();
        await menuItem({ name: 'English' }).click();
        await page.getByTestId('sidebar').getByText('User', { exact: false }).first().waitFor();
        const language = (await context!.cookies()).find((cookie) => cookie.name === 'language');
        assert.equal(language?.value, 'en');
        assert.match(await page.title(), / - Environmental Procurement and Bidding Platform$/);
        await page.reload();
        await page
          .locator('.admin-breadcrumb')
          .getByText(/Workbench/i)
          .waitFor();
        await shot('english');
      },
    },
    {
      name: 'switches the size (cookie size) and refreshes the view',
      run: async () => {
        await page.getByTestId('size-select').click();
        await menuItem({ name: 'Small' }).click();
        await page.locator('.ant-message-success').waitFor();
        await page.waitForURL(/\/admin\/sysuser$/);
        const size = (await context!.cookies()).find((cookie) => cookie.name === 'size');
        assert.equal(size?.value, 'small');
      },
    },
    {
      name: 'change password: required fields, mismatch warning, wrong old password shown',
      run: async () => {
        await page.getByTestId('avatar-menu').click();
        await menuItem({ name: 'Change Password' }).click();
        const dialog = page.locator('.ant-modal');
        await dialog.getByRole('button', { name: /Confirm/ }).click();
        await dialog.getByText('Please enter the old password!').waitFor();
        const inputs = dialog.locator('input[type="password"]');
        await inputs.nth(0).fill('wrong-old-password');
        await inputs.nth(1).fill('new-password-1');
        await inputs.nth(2).fill('new-password-2');
        await dialog.getByRole('button', { name: /Confirm/ }).click();
        await page.getByText('The new password and the confirmed new password are inconsistent!').waitFor();
        await inputs.nth(2).fill('new-password-1');
        await dialog.getByRole('button', { name: /Confirm/ }).click();
        await page.locator('.ant-message-warning').getByText('The current password is not correct').waitFor();
        await shot('change-password');
        await dialog.getByRole('button', { name: /Cancel/ }).click();
      },
    },
    {
      name: 'change password: the right old password changes it (and back)',
      run: async () => {
        for (const [from, to] of [
          [server.adminPassword, 'e2e-new-pass-1'],
          ['e2e-new-pass-1', server.adminPassword],
        ] as const) {
          await page.getByTestId('avatar-menu').click();
          await menuItem({ name: 'Change Password' }).click();
          const dialog = page.locator('.ant-modal');
          const inputs = dialog.locator('input[type="password"]');
          await inputs.nth(0).fill(from);
          await inputs.nth(1).fill(to);
          await inputs.nth(2).fill(to);
          await dialog.getByRole('button', { name: /Confirm/ }).click();
          await page
            .locator('.ant-message-success')
            .getByText('The password has been changed')
            .first()
            .waitFor();
          await dialog.waitFor({ state: 'hidden' });
        }
      },
    },
    {
      name: 'settings panel: theme colour and tags view are applied and remembered',
      run: async () => {
        await page.getByTestId('settings-button').click();
        const drawer = page.locator('.ant-drawer-content');
        await drawer.getByRole('button', { name: '#11a983' }).click();
        await page.waitForFunction(
          () =>
            getComputedStyle(document.querySelector('.admin-tag.is-active')!).backgroundColor ===
            'rgb(17, 169, 131)',
        );
        await shot('settings');
        await drawer.locator('.admin-settings-item', { hasText: 'Tags-View' }).getByRole('switch').click();
        await page.getByTestId('tags-view').waitFor({ state: 'detached' });
        await page.reload();
        await page.getByTestId('sidebar').waitFor();
        assert.equal(await page.getByTestId('tags-view').count(), 0);
        await page.getByTestId('settings-button').click();
        await page
          .locator('.ant-drawer-content .admin-settings-item', { hasText: 'Tags-View' })
          .getByRole('switch')
          .click();
        await page.locator('.ant-drawer-content').getByRole('button', { name: '#409EFF' }).click();
        await page.getByTestId('tags-view').waitFor();
        await page.keyboard.press('Escape');
      },
    },
    {
      name: 'mobile width: the sidebar is a drawer the hamburger opens and a click outside closes',
      run: async () => {
        await page.setViewportSize({ width: 800, height: 900 });
        await page.waitForFunction(
          () => document.querySelector('.admin-sider')!.getBoundingClientRect().width === 0,
        );
        await page.getByTestId('hamburger').click();
        await page.waitForFunction(
          () => document.querySelector('.admin-sider')!.getBoundingClientRect().width === 210,
        );
        await page.waitForTimeout(300);
        await shot('mobile');
        await page.mouse.click(700, 500);
        await page.waitForFunction(
          () => document.querySelector('.admin-sider')!.getBoundingClientRect().width === 0,
        );
        await page.setViewportSize({ width: 1360, height: 820 });
      },
    },
    {
      name: 'signs out to the portal home with the redirect query; the token is gone',
      run: async () => {
        await page.getByTestId('avatar-menu').click();
        const landing = page.waitForRequest((request) => new URL(request.url()).pathname === '/ecobid');
        await menuItem({ name: 'Log Out' }).click();
        const url = new URL((await landing).url());
        assert.equal(url.searchParams.get('redirect'), '/admin/sysuser');
        await page.waitForLoadState();
        const token = (await context!.cookies()).find((cookie) => cookie.name === 'token');
        assert.ok(!token?.value, 'the token cookie is cleared');
        await page.goto(admin('/workbench'));
        await page.waitForURL(/\/admin\/login/);
        await context!.close();
      },
    },
    {
      name: 'a user without ROLE_ADMIN sees only the menus granted to their roles',
      run: async () => {
        const form = new URLSearchParams({
          grant_type: 'password',
          scope: 'ui',
          client_id: 'browser',
          username: 'admin',
          password: server.adminPassword,
        });
        const signIn = await fetch(`${server.url}/api/uaa/oauth/token`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${btoa('browser:')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: form,
        });
        const token = ((await signIn.json()) as { access_token: string }).access_token;
        const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
        const roles = (await (
          await fetch(`${server.url}/api/admin/sysrole/query?roleCode=ROLE_SYS_BUYER`, { headers })
        ).json()) as { data: { records: { id: number; roleCode: string }[] } };
        const role = roles.data.records.find((record) => record.roleCode === 'ROLE_SYS_BUYER');
        assert.ok(role, 'the seeded buyer role');
        const added = await fetch(`${server.url}/api/admin/sysuser/add`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            username: 'e2ebuyer',
            nickname: 'E2E buyer',
            password: 'buyer-pass-1',
            email: 'buyer@example.com',
            mobile: '13900000001',
            phone: '010-1234567',
            status: '1',
            roleId: role.id,
            orgId: 1,
          }),
        });
        assert.equal(added.status, 200, await added.text());
        const buyer = await browser.newContext({ locale: 'zh-CN', viewport: { width: 1360, height: 820 } });
        page = await buyer.newPage();
        await page.goto(admin('/login'));
        await page.getByPlaceholder('账号').fill('e2ebuyer');
        await page.getByPlaceholder('密码').fill('buyer-pass-1');
        await page.getByTestId('login-submit').click();
        await page.waitForURL(/\/admin\/workbench$/);
        await page.getByTestId('workbench').waitFor();
        await page.waitForTimeout(500);
        const sidebar = await page.getByTestId('sidebar').innerText();
        assert.doesNotMatch(sidebar, /系统管理/);
        assert.doesNotMatch(sidebar, /用户管理/);
        await shot('buyer-workbench');
        await page.goto(admin('/sysuser'));
        await page.waitForURL(/\/admin\/404$/);
        await shot('buyer-404');
        await buyer.close();
      },
    },
  ];
}
