import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import type { Locator } from 'playwright-core';
import { dropdownOf } from './select.js';
import { signedIn, type Check, type E2eContext } from './support.js';

/**
 * The API keys page (issue 38): the administrator makes a key, sees it once with its copy button
 * and warning, the key calls the API, and the list shows its prefix, last use and the call.
 */
/** Clicks an antd select open; its combobox (for dropdownOf). */
async function openSelect(select: Locator): Promise<Locator> {
  await select.click();
  return select.getByRole('combobox');
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let context: BrowserContext | undefined;
  let page: Page;
  let apiKey = '';
  return [
    {
      name: 'api keys: a key made on the page is shown once and works',
      run: async () => {
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword));
        await page.goto(`${server.url}/admin/sysapikey`);
        await page.getByTestId('page-title').first().waitFor();
        await page.getByTestId('apikey-add').click();
        const dialog = page.getByRole('dialog');
        await dialog.getByTestId('apikey-name').fill('E2E 集成');
        const user = dialog.getByTestId('apikey-user');
        await (
          await dropdownOf(await openSelect(user))
        )
          .locator('.ant-select-item-option')
          .filter({ hasText: /^admin/ })
          .first()
          .click();
        await page.waitForTimeout(500);
        const roles = dialog.getByTestId('apikey-roles');
        await roles.click();
        await page
          .locator('.ant-select-dropdown .ant-select-item-option')
          .filter({ hasText: 'ROLE_ADMIN' })
          .first()
          .click();
        await page.keyboard.press('Escape');
        await page.getByTestId('apikey-save').click();
        const secret = page.getByTestId('apikey-secret');
        await secret.waitFor();
        apiKey = (await secret.innerText()).trim();
        assert.match(apiKey, /^ek_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
        await page.getByText('密钥只显示这一次').waitFor();
        await page.screenshot({ path: `${screenshots}/api-keys-shown-once.png`, fullPage: true });
        await page.getByTestId('apikey-done').click();
        await secret.waitFor({ state: 'detached' });
        assert.equal(await page.getByText(apiKey).count(), 0, 'the key is not shown again');
        const called = await fetch(`${server.url}/api/admin/sysuser/query`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        assert.equal(called.status, 200);
        await page.reload();
        const row = page
          .getByTestId('apikey-list')
          .locator('tr.ant-table-row')
          .filter({ hasText: 'E2E 集成' });
        await row.waitFor();
        assert.ok((await row.innerText()).includes(`ek_${apiKey.slice(3, 11)}_`), 'the prefix is listed');
        await row.getByTestId('apikey-uses').click();
        const drawer = page.getByTestId('apikey-uses-drawer');
        await drawer.getByText('/api/admin/sysuser/query').waitFor();
        await page.screenshot({ path: `${screenshots}/api-keys-list.png`, fullPage: true });
        await context?.close();
      },
    },
  ];
}
