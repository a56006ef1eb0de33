import assert from 'node:assert/strict';
import type { BrowserContext, Page, Response } from 'playwright-core';
import {
  allToTheEnd,
  apiClient,
  networkQuiet,
  newContext,
  passwordToken,
  signIn,
  type ApiClient,
  type Check,
  type E2eContext,
} from './support.js';

/**
 * Roles that work out of the box (issue 39 points 1, 2 and 11), in Chromium against the real
 * server: the seeded 编辑 opens every page of its menus without 没有访问权限; a buyer who opens
 * the back-office is sent to the portal's personal centre; /admin/login while signed in and a
 * failed sign-in check go to /{product}, the latter keeping the wanted path.
 */

const PRODUCT = 'ecobid';
const FORBIDDEN_TOAST = '没有访问权限';

interface MenuNode {
  menuCode: string;
  menuPath?: string;
  menuComponent?: string;
  menuMeta?: { hidden?: boolean } | null;
  children?: MenuNode[];
}

const flatten = (nodes: MenuNode[]): MenuNode[] =>
  nodes.flatMap((node) => [node, ...flatten(node.children ?? [])]);

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let admin: ApiClient;
  let context: BrowserContext | undefined;
  let page: Page;
  const url = (path: string): string => `${server.url}/admin${path}`;
  const shot = (name: string, target: Page = page) =>
    target.screenshot({ path: `${screenshots}/roles-${name}.png`, fullPage: true });
  const roleId = async (code: string): Promise<number> => {
    const roles = await admin.get<{ records: { id: number; roleCode: string }[] }>(
      `/api/admin/sysrole/query?roleCode=${code}&pageSize=10`,
    );
    const found = roles.records.find((record) => record.roleCode === code);
    assert.ok(found, `role ${code}`);
    return found.id;
  };
  const addUser = async (username: string, role: string, mobile: string): Promise<number> => {
    const added = await admin.post<{ id: number }>('/api/admin/sysuser/add', {
      username,
      nickname: username,
      password: 'roles-pass-1',
      email: `${username}@example.com`,
      mobile,
      phone: '010-1234567',
      status: '1',
      roleId: await roleId(role),
      orgId: 1,
    });
    return added.id;
  };

  return [
    {
      name: 'the administrator adds an editor, a buyer and another user',
      run: async () => {
        admin = await apiClient(server.url, 'admin', server.adminPassword);
        await addUser('roles_editor', 'ROLE_EDITOR', '13900003901');
        await addUser('roles_buyer', 'ROLE_SYS_BUYER', '13900003902');
        await addUser('roles_gone', 'ROLE_EDITOR', '13900003903');
      },
    },
    {
      name: 'point 1: the editor opens every page of its menus but 权限管理 without 没有访问权限',
      run: async () => {
        context = await newContext(browser);
        page = await context.newPage();
        await signIn(page, server, 'roles_editor', 'roles-pass-1');
        const token = await passwordToken(server.url, 'roles_editor', 'roles-pass-1');
        const answer = await fetch(`${server.url}/api/account/sysuserdetail/queryCurrentAuthority`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
        });
        const menus = flatten(((await answer.json()) as { data: { menus: MenuNode[] } }).data.menus);
        const codes = menus.map((menu) => menu.menuCode);
        assert.ok(!codes.includes('authority') && !codes.includes('sysrole'), 'no 权限管理');
        const pages = menus.filter(
          (menu) =>
            menu.menuComponent !== 'layout' &&
            menu.menuMeta?.hidden !== true &&
            typeof menu.menuPath === 'string' &&
            !menu.menuPath.includes(':'),
        );
        assert.ok(pages.length >= 60, `the editor's pages (${pages.length})`);
        const refused: string[] = [];
        // Two tabs of the editor's session take the pages in turn: a page mostly waits for its calls.
        const queue = pages.map((menu) => menu.menuPath ?? '');
        const visitAll = async (tab: Page): Promise<void> => {
          let current = '';
          const onResponse = (response: Response): void => {
            if (response.status() === 403 && response.url().includes('/api/'))
              refused.push(`${current}: ${response.request().method()} ${new URL(response.url()).pathname}`);
          };
          tab.on('response', onResponse);
          for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
            current = next;
            await tab.goto(url(current));
            // the shell's main area, or a page of its own outside it (a published form to fill in)
            await tab
              .locator('#admin-main *, .ant-card')
              .first()
              .waitFor({ timeout: 20_000 })
              .catch(() => refused.push(`${current}: did not open`));
            // the page's calls answered (pages that poll never go idle: then a moment)
            await networkQuiet(tab, { timeout: 4_000 }).catch(() => undefined);
            const toasts = await tab.locator('.ant-message').getByText(FORBIDDEN_TOAST).count();
            if (toasts > 0) refused.push(`${current}: ${FORBIDDEN_TOAST}`);
          }
          tab.off('response', onResponse);
        };
        const second = await context.newPage();
        try {
          await allToTheEnd([visitAll(page), visitAll(second)]);
        } finally {
          await second.close();
        }
        assert.deepEqual(refused, [], `pages of the editor refused: ${refused.join('\n')}`);
      },
    },
    {
      name: "point 1: the editor's 工作台 shows its figures and 网盘 its space",
      run: async () => {
        await page.goto(url('/workbench'));
        await page.getByTestId('workbench').waitFor();
        await page.waitForFunction(() => {
          const values = [...document.querySelectorAll('.admin-stat .ant-statistic-content-value')];
          return values.length > 0 && values.every((value) => value.textContent !== '-');
        });
        await page.waitForTimeout(600);
        await shot('editor-workbench');
        await page.goto(url('/file/netdisc'));
        await page.getByTestId('page-title').first().waitFor();
        await page.waitForFunction(() => !document.body.innerText.includes('正在读取空间用量'), undefined, {
          timeout: 15_000,
        });
        await page.waitForTimeout(300);
        await shot('editor-netdisc');
        await context?.close();
      },
    },
    {
      name: 'point 2: a buyer signed in at the portal who opens the back-office is sent to the personal centre',
      run: async () => {
        const token = await passwordToken(server.url, 'roles_buyer', 'roles-pass-1');
        context = await newContext(browser);
        await context.addCookies([{ name: 'token', value: token, url: server.url }]);
        // The message shows for 2 s before the page leaves: on a loaded machine polling can miss
        // that window, so the page itself reports what it shows (messages, and any sidebar).
        const seen = { messages: new Set<string>(), mostAtOnce: 0, sidebar: false };
        await context.exposeBinding('__reportShown', (_source, notices: string[], sidebar: boolean) => {
          for (const text of notices) seen.messages.add(text);
          seen.mostAtOnce = Math.max(seen.mostAtOnce, notices.length);
          seen.sidebar ||= sidebar;
        });
        await context.addInitScript(() => {
          const report = (
            window as unknown as { __reportShown: (notices: string[], sidebar: boolean) => void }
          ).__reportShown;
          new MutationObserver(() => {
            if (!location.pathname.startsWith('/admin')) return;
            const notices = [...document.querySelectorAll('.ant-message-notice')].map(
              (node) => node.textContent ?? '',
            );
            const sidebar = document.querySelector('[data-testid=sidebar]') !== null;
            if (notices.length > 0 || sidebar) void report(notices, sidebar);
          }).observe(document, { subtree: true, childList: true, characterData: true });
        });
        page = await context.newPage();
        await page.goto(url('/sysuser'));
        const shown = page
          .locator('.ant-message')
          .getByText('买家和供应商请在门户的个人中心办理业务')
          .first();
        // a picture while it is still shown (best effort: the page may already have left)
        if (
          await shown.waitFor({ timeout: 10_000 }).then(
            () => true,
            () => false,
          )
        )
          await shot('buyer-message');
        await page.waitForURL((address) => address.pathname === '/personal', { timeout: 30_000 });
        assert.ok(
          [...seen.messages].some((text) => text.includes('买家和供应商请在门户的个人中心办理业务')),
          `the message was shown (seen: ${[...seen.messages].join(' | ') || 'none'})`,
        );
        assert.equal(seen.mostAtOnce, 1, 'one message');
        assert.equal(seen.sidebar, false, 'no empty shell');
        // still signed in on the portal
        await page.locator('.personal-nav').first().waitFor();
        const kept = (await context.cookies()).find((cookie) => cookie.name === 'token');
        assert.equal(kept?.value, token);
        await page.waitForTimeout(300);
        await shot('buyer-personal-centre');
        await context.close();
      },
    },
    {
      name: 'point 11: a signed-in user who opens /admin/login goes to /{product}',
      run: async () => {
        context = await newContext(browser);
        page = await context.newPage();
        await signIn(page, server);
        await page.goto(url('/login'));
        await page.waitForURL((address) => address.pathname === `/${PRODUCT}`);
        await page.getByTestId('role-label').waitFor();
        await shot('signed-in-login');
        await context.close();
      },
    },
    {
      name: 'point 11: a failed sign-in check goes to /{product}, the redirect query keeping the wanted path',
      run: async () => {
        const token = await passwordToken(server.url, 'roles_gone', 'roles-pass-1');
        context = await newContext(browser);
        await context.addCookies([{ name: 'token', value: token, url: server.url }]);
        page = await context.newPage();
        // The user-info call fails on the way (a network failure, outside the server): the page
        // is served without the user the server would put in it, and the call is cut.
        await page.route('**/admin/sysorg*', async (route) => {
          const served = await route.fetch();
          const html = (await served.text()).replace(
            /<script type="application\/json" id="ecobid-bootstrap">.*?<\/script>/s,
            '',
          );
          await route.fulfill({ response: served, body: html });
        });
        await page.route('**/api/uaa/users/getSysUser', (route) => route.abort('failed'));
        await page.goto(url('/sysorg?currentPage=2'));
        await page.locator('.ant-message-error').first().waitFor();
        await shot('check-failed');
        await page.waitForURL((address) => address.pathname === `/${PRODUCT}`, { timeout: 10_000 });
        assert.equal(new URL(page.url()).searchParams.get('redirect'), '/admin/sysorg?currentPage=2');
        await context.close();
      },
    },
  ];
}
