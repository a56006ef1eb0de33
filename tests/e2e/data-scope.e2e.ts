import assert from 'node:assert/strict';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { freshMobile } from '../support/identity.js';
import { USER_PASSWORD } from '../support/users.js';
import { chooseOption, chooseOptionShowing, noDropdownShown } from './select.js';
import {
  apiClient,
  passwordToken,
  signedIn,
  type ApiClient,
  type Check,
  type E2eContext,
} from './support.js';

/**
 * Data permissions in the browser (issue 32, "Done when"): the administrator sets 本部门 for the
 * purchase announcements on the role's 数据范围 tab and makes 预算金额 read-only for the role on the
 * 数据权限 page; a user of that role sees only the announcements of their organisation and cannot
 * change the budget (the form shows it read-only, the server refuses a crafted write).
 *
 * Organisations, the role, its URL and menu grants and the users are prepared through the API
 * (as tests/integration/row-scope.test.ts does); every data permission under test is given on
 * the screens. A purchase's organisation is its creator's (purchase declares no organisation field).
 */

const ROLE = 'ROLE_E2E_SCOPE';
const VIEWPORT = { width: 1360, height: 860 };
const TITLES = { own: 'E2E 甲部门采购', colleague: 'E2E 甲部门同事采购', other: 'E2E 乙部门采购' };
const USERS = { own: 'e2escopea', colleague: 'e2escopea2', other: 'e2escopeb' };

async function success(page: Page, text: string): Promise<void> {
  await page.locator('.ant-message-success').getByText(text).last().waitFor();
}

/** Checks the one row of a generated list that shows this text and opens a record action's drawer. */
async function openAction(page: Page, rowText: string, action: string): Promise<Locator> {
  const row = page
    .getByTestId('entity-table')
    .locator('tr.ant-table-row')
    .filter({ hasText: rowText })
    .first();
  await row.waitFor();
  await row.locator('.ant-checkbox-input').first().check();
  await page.getByTestId(`entity-action-${action}`).click();
  const drawer = page.locator('.ant-drawer-content');
  await drawer.waitFor();
  return drawer;
}

/** The scope select of an entity on the role's 数据范围 tab, paging on until its row shows. */
async function scopeSelect(panel: Locator, entity: string): Promise<Locator> {
  const select = panel.getByTestId(`scope-${entity}`);
  await panel.locator('tr.ant-table-row').first().waitFor();
  for (let pageNumber = 1; pageNumber <= 20; pageNumber += 1) {
    if ((await select.count()) > 0) return select;
    const next = panel.locator('.ant-pagination-next');
    assert.equal(await next.getAttribute('aria-disabled'), 'false', `the ${entity} row is on some page`);
    await next.click();
  }
  throw new Error(`no scope row for ${entity}`);
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let admin: ApiClient;
  let adminContext: BrowserContext | undefined;
  let page: Page;
  let roleId = 0;
  const purchaseIds: Record<keyof typeof TITLES, number> = { own: 0, colleague: 0, other: 0 };
  const url = (path: string): string => `${server.url}/admin${path}`;
  const shot = (target: Page, name: string) =>
    target.screenshot({ path: `${screenshots}/data-scope-${name}.png` });

  return [
    {
      name: 'prepares two organisations, a role with the API and the purchase page, and three users (through the API)',
      run: async () => {
        admin = await apiClient(server.url, 'admin', server.adminPassword);
        const orgA = await admin.post<{ id: number }>('/api/admin/sysorg/add', {
          orgName: 'E2E 甲部门',
          orgType: 'group',
          orgParent: 0,
        });
        const orgB = await admin.post<{ id: number }>('/api/admin/sysorg/add', {
          orgName: 'E2E 乙部门',
          orgType: 'group',
          orgParent: 0,
        });
        const role = await admin.post<{ id: number }>('/api/admin/sysrole/add', {
          roleCode: ROLE,
          roleName: 'E2E 部门采购员',
        });
        roleId = role.id;
        // the whole API for the role: the data permissions are what limits it
        const urls = await admin.get<{ records: { id: number; url: string }[] }>(
          `/api/admin/sysurl/query?url=${encodeURIComponent('/api/**')}&pageSize=100`,
        );
        const everything =
          urls.records.find((row) => row.url === '/api/**') ??
          (await admin.post<{ id: number }>('/api/admin/sysurl/add', {
            url: '/api/**',
            description: 'E2E 全部接口',
          }));
        const granted = await admin.get<number[]>(
          `/api/admin/sysurl/queryRoleIdByUrlId?urlId=${everything.id}`,
        );
        await admin.post('/api/admin/sysurl/authorizeRoleToUrl', {
          urlId: everything.id,
          roleIds: [...granted, roleId],
        });
        const menus = await admin.get<{ records: { id: number; menuCode: string }[] }>(
          '/api/admin/sysmenu/query?pageSize=500',
        );
        const menuIds = menus.records
          .filter((menu) => menu.menuCode === 'purchase' || menu.menuCode === 'portalcontent')
          .map((menu) => menu.id);
        assert.equal(menuIds.length, 2, 'the purchase menu and its group');
        await admin.post('/api/admin/sysmenu/authorizeMenuToRole', { roleId, menuIds });
        await admin.post('/api/admin/sysmenu/authorizeMenuButtonToRole', {
          roleCode: ROLE,
          buttons: (await admin.get<string[]>('/api/admin/sysmenu/queryCheckedMenuButton?menuCode=purchase'))
            .filter((button) => button === 'update' || button === 'export')
            .map((button) => `purchase:${button}`),
        });
        for (const [key, username] of Object.entries(USERS) as [keyof typeof USERS, string][]) {
          await admin.post('/api/admin/sysuser/add', {
            username,
            nickname: username,
            password: USER_PASSWORD,
            email: `${username}@example.com`,
            mobile: freshMobile(),
            phone: '010-1234567',
            status: '1',
            roleId,
            orgId: key === 'other' ? orgB.id : orgA.id,
          });
          // each user creates one announcement: its organisation is the creator's
          const author = await apiClient(server.url, username, USER_PASSWORD);
          const added = await author.post<{ id: number }>('/api/notification/purchase/add', {
            title: TITLES[key],
            buyerName: 'E2E 采购单位',
            budget: '1000.50',
          });
          purchaseIds[key] = added.id;
        }
        ({ context: adminContext, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: VIEWPORT,
        }));
      },
    },
    {
      name: '角色 → 数据范围: the administrator gives the role 本部门 for the purchase announcements',
      run: async () => {
        await page.goto(url('/sysrole'));
        const drawer = await openAction(page, ROLE, 'authorize');
        await drawer.locator('.ant-tabs-tab').filter({ hasText: '数据范围' }).click();
        const panel = drawer.getByTestId('role-scopes');
        const select = await scopeSelect(panel, 'purchase');
        await chooseOption(select, '本部门');
        await shot(page, 'role-scope');
        await panel.getByTestId('role-scopes-save').click();
        await success(page, '操作成功');
        const stored = await admin.get<{ menuCode: string; scope: string }[]>(
          `/api/admin/sysrole/queryDataScopeByRoleId?roleId=${roleId}`,
        );
        assert.deepEqual(
          stored.map((row) => [row.menuCode, row.scope]),
          [['purchase', 'org']],
        );
      },
    },
    {
      name: '数据权限: the administrator makes 预算金额 read-only for the role',
      run: async () => {
        await page.goto(url('/datapermission'));
        const screen = page.getByTestId('data-permission');
        await screen.getByTestId('data-permission-menus').getByText('采购公告', { exact: true }).click();
        const editor = screen.getByTestId('data-fields');
        await editor.waitFor();
        await editor.getByTestId('data-field-add').click();
        const rows = editor.locator('tbody tr.ant-table-row');
        const row = rows.last();
        await chooseOptionShowing(row.getByTestId('data-field-role'), ROLE);
        await chooseOptionShowing(row.getByTestId('data-field-read-only'), '预算金额');
        await page.keyboard.press('Escape');
        await noDropdownShown(page);
        await shot(page, 'read-only-field');
        await editor.getByTestId('data-fields-save').click();
        await success(page, '保存成功');
        const stored = await admin.get<
          { roleCode: string; dataFields: string[]; readOnlyFields: string[] }[]
        >('/api/admin/sysmenu/queryDataFieldByMenuCode?menuCode=purchase');
        const mine = stored.find((entry) => entry.roleCode === ROLE);
        assert.deepEqual(mine && [mine.dataFields, mine.readOnlyFields], [[], ['budget']]);
      },
    },
    {
      name: 'the user of the role sees only the announcements of their organisation',
      run: async () => {
        const user = await signedIn(browser, server, USERS.own, USER_PASSWORD, { viewport: VIEWPORT });
        try {
          await user.page.goto(url('/purchase'));
          const table = user.page.getByTestId('entity-table');
          await table.getByText(TITLES.own, { exact: true }).waitFor();
          await table.getByText(TITLES.colleague, { exact: true }).waitFor();
          const rows = await table.locator('tr.ant-table-row').allInnerTexts();
          // the seeded announcements (the operator's) and the other department's are not there
          assert.equal(rows.length, 2, rows.join(' | '));
          assert.ok(!rows.some((text) => text.includes(TITLES.other)), rows.join(' | '));
          await shot(user.page, 'user-list');

          // the edit form shows the budget read-only; the rest stays editable and saves
          await table
            .locator('tr.ant-table-row')
            .filter({ hasText: TITLES.own })
            .locator('.ant-checkbox-input')
            .check();
          await user.page.getByTestId('entity-edit').click();
          const modal = user.page.locator('.entity-form-modal');
          const budget = modal.locator('#root_budget');
          await budget.waitFor();
          assert.equal(await budget.isDisabled(), true, 'the budget input is disabled');
          assert.equal(await budget.inputValue(), '1000.50');
          const title = modal.locator('#root_title');
          assert.equal(await title.isDisabled(), false, 'the title stays editable');
          await title.fill(`${TITLES.own}（改）`);
          await shot(user.page, 'user-form');
          await modal.locator('.ant-modal-footer .ant-btn-primary').click();
          await success(user.page, '保存成功');
          await table.getByText(`${TITLES.own}（改）`, { exact: true }).waitFor();
        } finally {
          await user.context.close();
        }
      },
    },
    {
      name: 'the server refuses a crafted budget write (403 naming the field) and a row of another organisation (404)',
      run: async () => {
        const token = await passwordToken(server.url, USERS.own, USER_PASSWORD);
        const put = (body: Record<string, unknown>) =>
          fetch(`${server.url}/api/notification/purchase/update`, {
            method: 'PUT',
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              'accept-language': 'en',
            },
            body: JSON.stringify(body),
          });
        // each write names the version it read (optimistic locking), read here as the administrator
        const all = await admin.get<{ records: { id: number; version: number }[] }>(
          '/api/notification/purchase/query?title=E2E&pageSize=100',
        );
        const versionOf = (id: number): number | undefined =>
          all.records.find((row) => row.id === id)?.version;
        const crafted = await put({
          id: purchaseIds.own,
          version: versionOf(purchaseIds.own),
          budget: '1.00',
        });
        const refused = (await crafted.json()) as { errors?: { field: string }[] };
        assert.equal(crafted.status, 403, JSON.stringify(refused));
        assert.deepEqual(
          refused.errors?.map((error) => error.field),
          ['/budget'],
        );
        const outside = await put({
          id: purchaseIds.other,
          version: versionOf(purchaseIds.other),
          title: 'E2E 越权修改',
        });
        assert.equal(outside.status, 404, await outside.text());
        const rows = await admin.get<{ records: { id: number; title: string; budget: string }[] }>(
          '/api/notification/purchase/query?title=E2E&pageSize=100',
        );
        const byId = new Map(rows.records.map((row) => [row.id, row]));
        assert.equal(byId.get(purchaseIds.own)?.budget, '1000.50');
        assert.equal(byId.get(purchaseIds.other)?.title, TITLES.other);
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
