import assert from 'node:assert/strict';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import type { EntityDef } from '../../src/engine/index.js';
import { expectNoAxeViolations } from './a11y.js';
import { expectSuccess, fillRequired, formModal, saveForm, serverEntities } from './entity-driver.js';
import { apiClient, signedIn, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * Issue 19.6: 通知公告's 发布对象 is a picker over the organisation–user tree (ticking an
 * organisation takes its users, a role adds its users, a user is ticked by name; empty = 全部用户),
 * and publisher and publish time are set by the server. What is picked in the browser decides
 * whose inbox the message reaches, and no one else's.
 */

const PASSWORD = 'recipient-pass-1';
const VIEWPORT = { width: 1440, height: 900 };
const OPEN_DROPDOWN = '.ant-select-dropdown:not(.ant-select-dropdown-hidden)';

/** The tree node of the open picker dropdown whose title holds this text. */
function pickerNode(page: Page, text: string): Locator {
  return page.locator(`${OPEN_DROPDOWN} .ant-select-tree-treenode`).filter({ hasText: text }).first();
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  const stamp = Date.now().toString(36).slice(-5);
  const names = {
    byOrg: `rcpa${stamp}`,
    byName: `rcpb${stamp}`,
    byRole: `rcpc${stamp}`,
    nobody: `rcpd${stamp}`,
  };
  const orgName = `E2E 收件部门 ${stamp}`;
  const roleName = `E2E 收件角色 ${stamp}`;
  const titles = { one: `E2E 点名消息 ${stamp}`, many: `E2E 部门与角色消息 ${stamp}` };
  let admin: ApiClient;
  let context: BrowserContext | undefined;
  let page: Page;
  let notification: EntityDef | undefined;
  const shot = (name: string) => page.screenshot({ path: `${screenshots}/recipients-${name}.png` });

  /** Opens 新增 on 通知公告 and fills the required fields and the title. */
  const openForm = async (title: string): Promise<Locator> => {
    await page.getByTestId('entity-add').click();
    const modal = formModal(page);
    await modal.waitFor();
    assert.ok(notification);
    await fillRequired(page, notification);
    await modal.locator('#root_title').fill(title);
    await modal.locator('.ant-modal-title').click();
    // publisher and publish time are the server's: not in the form
    assert.equal(await modal.locator('#root_publisher, #root_publishTime').count(), 0);
    return modal;
  };

  /** Searches the picker for a text and ticks the node that shows it. */
  const tickInPicker = async (modal: Locator, text: string): Promise<void> => {
    const input = modal.locator('#root_publishObject');
    await input.click();
    await input.fill(text);
    const node = pickerNode(page, text);
    await node.waitFor();
    await node.locator('.ant-select-tree-checkbox').click();
    // close the dropdown (Escape would close the whole form when the focus is in the dropdown)
    await modal.locator('.ant-modal-title').click();
    await page
      .locator(OPEN_DROPDOWN)
      .waitFor({ state: 'detached' })
      .catch(() => undefined);
  };

  const inbox = async (username: string): Promise<string[]> => {
    const api = await apiClient(server.url, username, PASSWORD);
    const page1 = await api.get<{ records: { title: string }[] }>(
      `/api/admin/notification/queryMyNotification?pageSize=100&title=${encodeURIComponent(stamp)}`,
    );
    return page1.records.map((record) => record.title).sort();
  };

  return [
    {
      name: 'prepares an organisation, a role and four users (through the API)',
      run: async () => {
        admin = await apiClient(server.url, 'admin', server.adminPassword);
        const roles = await admin.get<{ records: { id: number; roleCode: string }[] }>(
          '/api/admin/sysrole/query?roleCode=ROLE_SYS_TOURIST',
        );
        const tourist = roles.records.find((role) => role.roleCode === 'ROLE_SYS_TOURIST');
        assert.ok(tourist);
        const role = await admin.post<{ id: number }>('/api/admin/sysrole/add', {
          roleCode: `ROLE_E2E_RCP_${stamp.toUpperCase()}`,
          roleName,
        });
        const inOrg = await admin.post<{ id: number }>('/api/admin/sysorg/add', {
          orgName,
          orgType: 'company',
          orgSequence: 1,
        });
        const elsewhere = await admin.post<{ id: number }>('/api/admin/sysorg/add', {
          orgName: `E2E 旁观部门 ${stamp}`,
          orgType: 'company',
          orgSequence: 2,
        });
        const digits = String(Date.now()).slice(-6);
        const users: [string, number, number][] = [
          [names.byOrg, inOrg.id, tourist.id],
          [names.byName, elsewhere.id, tourist.id],
          [names.byRole, elsewhere.id, role.id],
          [names.nobody, elsewhere.id, tourist.id],
        ];
        for (const [index, [username, orgId, roleId]] of users.entries()) {
          await admin.post('/api/admin/sysuser/add', {
            username,
            nickname: `收件人${username.slice(3, 4).toUpperCase()}${stamp}`,
            password: PASSWORD,
            email: `${username}@example.com`,
            countryCode: '+86',
            mobile: `137${index}${digits}0`.slice(0, 11),
            phone: '010-12345678',
            status: '1',
            roleId,
            orgId,
          });
        }
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: VIEWPORT,
        }));
        notification = (await serverEntities(page, server.url)).get('notification');
        assert.ok(notification);
      },
    },
    {
      name: '发布对象 is a labelled picker; empty reads 全部用户; a user is ticked by name and shown by name',
      run: async () => {
        await page.goto(`${server.url}/admin/notification`);
        await page.getByTestId('entity-table').locator('.ant-table-tbody').waitFor();
        const modal = await openForm(titles.one);
        const picker = modal.getByTestId('recipients-publishObject');
        await picker.waitFor();
        assert.equal((await modal.getByTestId('recipients-summary').textContent())?.trim(), '全部用户');
        await tickInPicker(modal, names.byName).catch(async (error: unknown) => {
          await shot('failure');
          throw error;
        });
        await picker.locator('.ant-select-selection-item').filter({ hasText: names.byName }).waitFor();
        assert.equal((await modal.getByTestId('recipients-summary').textContent())?.trim(), '已选 1 位用户');
        await expectNoAxeViolations(page, 'notification form with the recipients picker');
        await shot('one-user');
        await saveForm(page);
      },
    },
    {
      name: 'an organisation ticked on the tree and a role chosen add their users',
      run: async () => {
        const modal = await openForm(titles.many);
        await tickInPicker(modal, orgName);
        const roleSelect = modal.getByRole('combobox', { name: '按角色添加用户' });
        await roleSelect.click();
        await roleSelect.fill(roleName);
        await page
          .locator(`${OPEN_DROPDOWN} .ant-select-item-option`)
          .filter({ hasText: roleName })
          .first()
          .click();
        await expectSuccess(page, `已添加角色「${roleName}」的 1 位用户`);
        await modal.getByTestId('recipients-summary').filter({ hasText: '已选 2 位用户' }).waitFor();
        const tags = modal.getByTestId('recipients-publishObject');
        await tags.getByText(names.byOrg).first().waitFor();
        await tags.getByText(names.byRole).first().waitFor();
        // the picker opened on the whole tree, for the screenshot
        await modal.locator('#root_publishObject').click();
        // the role select's list may still be fading out beside the tree's
        await page.locator(`${OPEN_DROPDOWN}.ant-tree-select-dropdown`).waitFor();
        await shot('org-and-role');
        await modal.locator('.ant-modal-title').click();
        await saveForm(page);
      },
    },
    {
      name: 'the list shows the publisher (the administrator) and the publish time the server set',
      run: async () => {
        const row = page
          .getByTestId('entity-table')
          .locator('tr.ant-table-row')
          .filter({ hasText: titles.many })
          .first();
        await row.waitFor();
        const text = (await row.textContent()) ?? '';
        assert.match(text, /admin/);
        const today = new Date();
        const day = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
        assert.ok(text.includes(day), `${text} shows today's publish time ${day}`);
        await shot('list');
      },
    },
    {
      name: 'the edit form shows the publisher and publish time read-only, and saving keeps them',
      run: async () => {
        const row = page
          .getByTestId('entity-table')
          .locator('tr.ant-table-row')
          .filter({ hasText: titles.many })
          .first();
        const listed = (await row.textContent()) ?? '';
        await row.dblclick();
        const modal = formModal(page);
        await modal.locator('#root_title').waitFor();
        const publisher = modal.getByLabel('发布人', { exact: true });
        const publishTime = modal.getByLabel('发布时间', { exact: true });
        await publisher.waitFor();
        assert.equal(await publisher.inputValue(), 'admin');
        const time = await publishTime.inputValue();
        assert.match(time, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
        // the same text as the list's column
        assert.ok(listed.includes(time), `the list row ${listed} shows ${time}`);
        for (const field of [publisher, publishTime]) {
          assert.equal(await field.getAttribute('readonly'), '');
          await field.press('a').catch(() => undefined);
        }
        assert.equal(await publisher.inputValue(), 'admin');
        // not form fields: the form has none of them, they are never sent
        assert.equal(await modal.locator('#root_publisher, #root_publishTime').count(), 0);
        await expectNoAxeViolations(page, 'notification edit form with its read-only publisher');
        await shot('edit-auto-fields');
        // saved as it is: the server keeps what it set
        await saveForm(page);
        await row.waitFor();
        const text = (await row.textContent()) ?? '';
        assert.ok(text.includes(time) && text.includes('admin'), `${text} keeps ${time} and admin`);
      },
    },
    {
      name: 'each message reaches the chosen users and no one else',
      run: async () => {
        assert.deepEqual(await inbox(names.byName), [titles.one]);
        assert.deepEqual(await inbox(names.byOrg), [titles.many]);
        assert.deepEqual(await inbox(names.byRole), [titles.many]);
        assert.deepEqual(await inbox(names.nobody), []);
      },
    },
    {
      name: 'closes the browser context',
      run: async () => {
        await context?.close();
      },
    },
  ];
}
