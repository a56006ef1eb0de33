import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import {
  checkRow,
  deleteChecked,
  expectSuccess,
  rowWith,
  stillPopconfirm,
  untilStill,
} from './entity-driver.js';
import { apiClient, networkQuiet, signedIn, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * Issue 34, recycle bin and restore: a purchase announcement (x-entity.softDelete) deleted from
 * its list is found in 回收站 and restored; its 修改历史 sets it back to an earlier version.
 */

const VIEWPORT = { width: 1440, height: 900 };

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  const stamp = Date.now().toString(36).slice(-5);
  const title = `回收站验收-${stamp}`;
  const renamed = `${title}-已改名`;
  let admin: ApiClient;
  let context: BrowserContext | undefined;
  let page: Page;
  let id = 0;
  const shot = (name: string) => page.screenshot({ path: `${screenshots}/recycle-${name}.png` });
  const openList = async (): Promise<void> => {
    await page.goto(`${server.url}/admin/purchase`);
    await page.getByTestId('entity-table').locator('.ant-table-tbody').waitFor();
    await networkQuiet(page);
  };
  const drawer = () => page.locator('.ant-drawer-content').filter({ visible: true }).last();

  return [
    {
      name: 'a deleted announcement leaves the list and is found in 回收站, then restored',
      run: async () => {
        admin = await apiClient(server.url, 'admin', server.adminPassword);
        id = (
          await admin.post<{ id: number }>('/api/notification/purchase/add', {
            title,
            buyerName: '绿水环保集团',
            budget: '880000.00',
          })
        ).id;
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: VIEWPORT,
        }));
        await openList();
        await rowWith(page, title).waitFor();
        await checkRow(page, title);
        await deleteChecked(page, /删除/);
        await rowWith(page, title).waitFor({ state: 'detached' });

        await page.getByTestId('entity-recycle-bin').click();
        const bin = page.getByTestId('recycle-bin');
        await bin.locator(`[data-recycled="${title}"]`).waitFor();
        await untilStill(drawer());
        await bin.getByText('删除的记录保留 30 天').waitFor();
        await shot('bin');
        const restored = expectSuccess(page, '已还原');
        await bin
          .locator('tr.ant-table-row')
          .filter({ hasText: title })
          .getByTestId('recycle-restore')
          .click();
        await restored;
        await bin.locator(`[data-recycled="${title}"]`).waitFor({ state: 'detached' });
        await drawer().locator('.ant-drawer-close').click();
        await rowWith(page, title).waitFor();
      },
    },
    {
      name: '修改历史 sets the announcement back to an earlier version',
      run: async () => {
        const current = await admin.get<{ records: { version: number }[] }>(
          `/api/notification/purchase/query?id=${id}`,
        );
        await admin.put('/api/notification/purchase/update', {
          id,
          version: current.records[0]?.version,
          title: renamed,
          buyerName: '绿水环保集团',
        });
        await openList();
        await rowWith(page, renamed).waitFor();
        await checkRow(page, renamed);
        await page.getByTestId('entity-action-history').click();
        const history = page.getByTestId('audit-history');
        await history.waitFor();
        await untilStill(drawer());
        // newest first: update (the current values), restore, delete, add
        const actions = await history
          .locator('[data-audit-action]')
          .evaluateAll((items) => items.map((item) => item.getAttribute('data-audit-action')));
        assert.deepEqual(actions, ['update', 'restore', 'delete', 'add']);
        await shot('history');
        await history.locator('[data-audit-action="add"]').getByTestId('audit-restore-version').click();
        const done = expectSuccess(page, '已恢复到此版本');
        await (await stillPopconfirm(page)).getByRole('button', { name: '确 定' }).click();
        await done;
        await rowWith(page, renamed).waitFor({ state: 'detached' });
        await rowWith(page, title).waitFor();
        await shot('restored');
        const after = await admin.get<{ records: { title: string; version: number }[] }>(
          `/api/notification/purchase/query?id=${id}`,
        );
        assert.equal(after.records[0]?.title, title);
        await context?.close();
      },
    },
  ];
}
