import assert from 'node:assert/strict';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { fieldErrors, formModal, pickFirstOption, rowWith, saveForErrors } from './entity-driver.js';
import { networkQuiet, newContext, passwordToken, type Check, type E2eContext } from './support.js';

/** WCAG contrast of two sRGB colours. */
function contrast(foreground: number[], background: number[]): number {
  const luminance = (rgb: number[]): number => {
    const [r = 0, g = 0, b = 0] = rgb.map((channel) => {
      const c = channel / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [light, dark] = [luminance(foreground), luminance(background)].sort((a, b) => b - a);
  return ((light ?? 0) + 0.05) / ((dark ?? 0) + 0.05);
}

/**
 * What a new member of staff trips over in the back-office in their first ten minutes (issue 19,
 * points 1-10), in Chromium against the real server.
 */
export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let context: BrowserContext | undefined;
  let page: Page;
  const admin = (path: string): string => `${server.url}/admin${path}`;
  const shot = (name: string, target: Page = page): Promise<Buffer> =>
    target.screenshot({ path: `${screenshots}/first-use-${name}.png` });

  /** Calls the API as the administrator. */
  const api = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const token = await passwordToken(server.url, 'admin', server.adminPassword);
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    assert.ok(response.ok, `${method} ${path}: ${response.status} ${text}`);
    return (JSON.parse(text) as { data: unknown }).data;
  };
  const roleId = async (roleCode: string): Promise<number> => {
    const roles = (await api('GET', `/api/admin/sysrole/query?roleCode=${roleCode}`)) as {
      records: { id: number; roleCode: string }[];
    };
    const role = roles.records.find((record) => record.roleCode === roleCode);
    assert.ok(role, roleCode);
    return role.id;
  };
  const addUser = async (username: string, roleCode: string, mobile: string): Promise<void> => {
    await api('POST', '/api/admin/sysuser/add', {
      username,
      nickname: username,
      password: 'first-use-1',
      email: `${username}@example.com`,
      countryCode: '+86',
      mobile,
      phone: '010-1234567',
      status: '1',
      roleId: await roleId(roleCode),
      orgId: 1,
    });
  };

  return [
    {
      name: '4. a failed attempt leaves no error toast on the workbench after a successful retry',
      run: async () => {
        context = await newContext(browser);
        page = await context.newPage();
        await page.goto(admin('/login'));
        await page.getByPlaceholder('账号').fill('admin');
        await page.getByPlaceholder('密码').fill('not-the-password');
        await page.getByTestId('login-submit').click();
        await page.locator('.ant-message-error').getByText('用户名或密码错误').waitFor();
        await page.getByPlaceholder('密码').fill(server.adminPassword);
        await page.getByTestId('login-submit').click();
        await page.waitForURL(/\/admin\/workbench$/);
        await page.getByTestId('workbench').waitFor();
        await page.locator('.ant-message-error').waitFor({ state: 'detached', timeout: 1000 });
      },
    },
    {
      name: '1. 重置 clears the filters the table uses and reloads page 1',
      run: async () => {
        await addUser('walk_first_a', 'ROLE_SYS_BUYER', '13900001901');
        await addUser('walk_first_b', 'ROLE_SYS_BUYER', '13900001902');
        await page.goto(admin('/sysuser'));
        const table = page.getByTestId('entity-table');
        await rowWith(page, 'admin').first().waitFor();
        const bar = page.getByTestId('filter-bar');
        await bar.locator('[data-filter="username"] input').fill('walk_first');
        await bar.getByTestId('filter-search').click();
        await rowWith(page, 'admin').waitFor({ state: 'detached' });
        assert.equal(await table.locator('tr.ant-table-row').count(), 2);

        const queries: URL[] = [];
        const onRequest = (request: Request): void => {
          if (request.url().includes('/api/admin/sysuser/query')) queries.push(new URL(request.url()));
        };
        page.on('request', onRequest);
        await bar.getByTestId('filter-reset').click();
        assert.equal(await bar.locator('[data-filter="username"] input').inputValue(), '');
        await rowWith(page, 'admin').first().waitFor();
        await page.getByTestId('entity-refresh').click();
        await networkQuiet(page);
        page.off('request', onRequest);
        assert.ok(queries.length > 0, 'the list is asked again');
        for (const query of queries) {
          assert.equal(query.searchParams.get('username'), null, query.search);
          assert.equal(query.searchParams.get('currentPage'), '1', query.search);
        }
      },
    },
    {
      name: '3. validation messages name the field (请输入用户名, 请选择角色, 请输入正确的邮箱地址) and go when it is right',
      run: async () => {
        const consoleErrors: string[] = [];
        page.on('console', (message) => {
          if (message.type() === 'error') consoleErrors.push(message.text());
        });
        await page.getByTestId('entity-add').click();
        await formModal(page).waitFor();
        await formModal(page).locator('#root_email').fill('not-an-address');
        await formModal(page).locator('.ant-modal-title').click();
        await saveForErrors(page);
        const errors = await fieldErrors(page);
        assert.equal(errors.username, '请输入用户名');
        assert.equal(errors.roleId, '请选择角色');
        assert.equal(errors.email, '请输入正确的邮箱地址');
        await shot('validation-zh');

        // choosing a role takes its error away at once, without another submit
        // (picked again if a click on an option still sliding in is lost: CI lost one at load)
        await pickFirstOption(page, 'root_roleId', false);
        await page.waitForFunction(
          () =>
            !document
              .querySelector('#root_roleId')
              ?.closest('.ant-form-item')
              ?.classList.contains('ant-form-item-has-error'),
        );
        assert.equal((await fieldErrors(page)).roleId, undefined);
        assert.equal((await fieldErrors(page)).username, '请输入用户名');
        assert.deepEqual(
          consoleErrors.filter((text) => text.includes('Form validation failed')),
          [],
        );
        await formModal(page).locator('.ant-modal-footer .ant-btn:not(.ant-btn-primary)').click();
        await formModal(page).waitFor({ state: 'detached' });
      },
    },
    {
      name: '8. menu search shows where a result is and puts 用户管理 alone first for "yonghu"',
      run: async () => {
        await page.goto(admin('/workbench'));
        await page.getByTestId('menu-search-toggle').click();
        await page.getByTestId('menu-search').locator('input').fill('yonghu');
        const options = page.locator(
          '.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option',
        );
        await options.first().waitFor();
        const texts = (await options.allInnerTexts()).map((text) => text.trim());
        assert.equal(texts[0], '系统管理 > 用户管理');
        assert.ok(!texts.some((text) => /工作台|应用客户端/.test(text)), texts.join(' | '));
        await shot('menu-search');
        await page.keyboard.press('Enter');
        await page.waitForURL(/\/admin\/sysuser$/);
      },
    },
    {
      name: '9. the sidebar is flat rows on #304156: the active item is readable theme-coloured text, no pill',
      run: async () => {
        await page.setViewportSize({ width: 1440, height: 900 });
        await page.goto(admin('/sysuser'));
        const active = page.getByTestId('sidebar').locator('.ant-menu-item-selected');
        await active.waitFor();
        const look = await active.evaluate((item) => {
          const style = getComputedStyle(item);
          const sub = item.closest('.ant-menu-sub');
          return {
            color: style.color,
            background: style.backgroundColor,
            radius: style.borderTopLeftRadius,
            marginLeft: style.marginLeft,
            width: item.getBoundingClientRect().width,
            submenu: sub ? getComputedStyle(sub).backgroundColor : '',
            sider: getComputedStyle(item.closest('.admin-sider')!).backgroundColor,
          };
        });
        assert.equal(look.sider, 'rgb(48, 65, 86)', 'the sidebar is #304156');
        assert.equal(look.submenu, 'rgb(31, 45, 61)', 'a submenu is a shade darker (#1f2d3d)');
        assert.equal(look.radius, '0px', 'no rounded card');
        assert.equal(look.marginLeft, '0px', 'no gap around the row');
        assert.ok(look.width >= 209, `a full-width row (${look.width} px)`);
        assert.ok(
          look.background === 'rgba(0, 0, 0, 0)' || look.background === 'transparent',
          look.background,
        );
        const [r, g, b] = (look.color.match(/\d+/g) ?? []).map(Number) as [number, number, number];
        assert.ok(b > r && b > g, `the active text is blue like the theme (${look.color})`);
        const ratio = contrast([r, g, b], [48, 65, 86]); // on #304156, the lighter of the two
        assert.ok(ratio >= 4.5, `active text contrast ${ratio.toFixed(2)}:1`);
        await shot('sidebar-1440');
        await page.setViewportSize({ width: 1360, height: 820 });
      },
    },
    {
      name: '7. tables: amounts grouped with their unit, 参数值 shown, the user table reachable at 1440 px, tree expansion kept',
      run: async () => {
        await page.setViewportSize({ width: 1440, height: 900 });
        const table = page.getByTestId('entity-table');
        const columnOf = async (title: string): Promise<string[]> => {
          const titles = (await table.locator('thead th').allInnerTexts()).map((text) => text.trim());
          const index = titles.indexOf(title);
          assert.ok(index >= 0, `${title} in ${titles.join(', ')}`);
          return table.locator(`tbody tr.ant-table-row td:nth-child(${index + 1})`).allInnerTexts();
        };

        await page.goto(admin('/purchase'));
        await table.locator('tr.ant-table-row').first().waitFor();
        const budgets = await columnOf('预算金额');
        assert.ok(
          budgets.some((text) => /^\d{1,3}(,\d{3})+(\.\d+)? 元$/.test(text.trim())),
          budgets.join(' | '),
        );
        await shot('purchase-amounts');

        await page.goto(admin('/sysparam'));
        await table.locator('tr.ant-table-row').first().waitFor();
        const values = await columnOf('参数值');
        assert.ok(
          values.some((text) => text.trim() !== ''),
          'parameter values are shown',
        );

        // the user list: the user name stays in view while the last column is scrolled to
        await page.goto(admin('/sysuser'));
        await table.locator('tr.ant-table-row').first().waitFor();
        // a sticky table scrolls its body under a separate head
        const content = table.locator('.ant-table-body, .ant-table-content').first();
        const isWide = await content.evaluate((element) => element.scrollWidth > element.clientWidth + 1);
        if (isWide) {
          await content.evaluate((element) => element.scrollTo({ left: element.scrollWidth }));
          await page.waitForTimeout(200);
        }
        const tableBox = await content.boundingBox();
        const last = await table.locator('thead th').last().boundingBox();
        const name = await rowWith(page, 'admin').first().locator('td').nth(1).boundingBox();
        assert.ok(tableBox && last && name, 'measured');
        assert.ok(last.x + last.width <= tableBox.x + tableBox.width + 1, 'the last column is reachable');
        assert.ok(
          name.x >= tableBox.x - 1 && name.x < tableBox.x + 80,
          `the user name stays in view (${name.x})`,
        );
        await shot('sysuser-1440');

        // a tree list opened, left and come back to: as it was left
        await page.goto(admin('/sysregion'));
        const expander = table.locator('.ant-table-row-expand-icon-collapsed').first();
        await expander.waitFor();
        const before = await table.locator('tr.ant-table-row').count();
        await expander.click();
        await page.waitForFunction(
          (count) =>
            document.querySelectorAll('[data-testid="entity-table"] tr.ant-table-row').length > count,
          before,
        );
        const opened = await table.locator('tr.ant-table-row').count();
        // left for another page and back by address: a fresh load of the back-office
        await page.goto(admin('/sysuser'));
        await page.goto(admin('/sysregion'));
        await table.locator('tr.ant-table-row').first().waitFor();
        // the expanded node's children come after the first level (lazy-tree.ts): wait for them
        const rows = table.locator('tr.ant-table-row');
        for (let tries = 0; (await rows.count()) !== opened; tries += 1) {
          assert.ok(tries < 100, `the expansion is kept: ${await rows.count()} rows, not ${opened}`);
          await page.waitForTimeout(100);
        }

        // 新增 reuses the tree the list read for its 上级 select: the tree is asked for once
        const treeReads: string[] = [];
        const countTreeReads = (request: Request) => {
          if (request.url().includes('/querySysRegionTree')) treeReads.push(request.url());
        };
        page.on('request', countTreeReads);
        await page.goto(admin('/sysuser'));
        await page.goto(admin('/sysregion'));
        await table.locator('tr.ant-table-row').first().waitFor();
        await page.getByTestId('entity-add').click();
        await formModal(page).waitFor();
        await page.waitForTimeout(500);
        page.off('request', countTreeReads);
        assert.equal(treeReads.length, 1, treeReads.join(', '));
        await formModal(page).locator('.ant-modal-close').click();
        await page.setViewportSize({ width: 1360, height: 820 });
      },
    },
    {
      name: '10. /tenant/systenant is the tenant list; /codegenerator and /formgenerator open their first page',
      run: async () => {
        await page.goto(admin('/tenant/systenant'));
        await page.getByTestId('entity-table').locator('tr.ant-table-row').first().waitFor();
        assert.match(
          await page.getByTestId('page-title').locator('.ant-card-head-title').innerText(),
          /租户/,
        );
        for (const group of ['/codegenerator', '/formgenerator']) {
          await page.goto(admin(group));
          await page.waitForURL((url) => url.pathname !== `/admin${group}`);
          await page.waitForTimeout(500);
          assert.doesNotMatch(new URL(page.url()).pathname, /404/);
        }
      },
    },
    {
      name: '5. a portal buyer is refused at the back-office sign-in with a clear message and sent to the portal',
      run: async () => {
        await addUser('first_buyer', 'ROLE_SYS_BUYER', '13900001903');
        const buyer = await newContext(browser);
        const buyerPage = await buyer.newPage();
        await buyerPage.goto(admin('/login'));
        await buyerPage.getByPlaceholder('账号').fill('first_buyer');
        await buyerPage.getByPlaceholder('密码').fill('first-use-1');
        await buyerPage.getByTestId('login-submit').click();
        await buyerPage.locator('.ant-message-error').getByText('当前账号没有后台管理菜单').waitFor();
        assert.equal(await buyerPage.getByTestId('sidebar').count(), 0, 'no empty shell');
        await shot('buyer-refused', buyerPage);
        await buyerPage.waitForURL((url) => url.pathname === '/ecobid');
        const token = (await buyer.cookies()).find((cookie) => cookie.name === 'token');
        assert.ok(!token?.value, 'no back-office token is left behind');
        await buyer.close();
      },
    },
    {
      name: '3. the messages in tw and en',
      run: async () => {
        for (const [language, username, role] of [
          ['tw', '請輸入帳號', '請選擇角色'],
          ['en', 'Please enter User name', 'Please select Role'],
        ] as const) {
          await context!.addCookies([{ name: 'language', value: language, url: server.url }]);
          await page.goto(admin('/sysuser'));
          await page.getByTestId('entity-add').click();
          await formModal(page).waitFor();
          await saveForErrors(page);
          const errors = await fieldErrors(page);
          assert.equal(errors.username, username);
          assert.equal(errors.roleId, role);
          await shot(`validation-${language}`);
        }
        await context!.addCookies([{ name: 'language', value: 'zh', url: server.url }]);
      },
    },
  ];
}
