import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { signedIn, type Check, type E2eContext } from './support.js';

/**
 * The webhooks page (系统管理 › Webhook): a loopback address is refused under its field, a public
 * one is saved, the secret is never shown again, and the delivery log opens.
 */
export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let context: BrowserContext | undefined;
  let page: Page;
  const secret = 'e2e-webhook-secret-000111';
  return [
    {
      name: 'webhooks: an address the SSRF guard refuses is named, a public one is saved without its secret',
      run: async () => {
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword));
        await page.goto(`${server.url}/admin/syswebhook`);
        await page.getByTestId('page-title').first().waitFor();
        await page.getByTestId('webhook-add').click();
        const dialog = page.getByRole('dialog');
        await dialog.getByTestId('webhook-name').fill('E2E 推送');
        await dialog.getByTestId('webhook-url').fill('http://127.0.0.1:9/hook');
        await dialog.getByTestId('webhook-secret').fill(secret);
        // saved disabled: nothing is posted to the address during the run
        await dialog.getByTestId('webhook-enabled').click();
        await page.getByTestId('webhook-save').click();
        await dialog.getByText('不允许的地址 127.0.0.1').waitFor();
        await page.screenshot({ path: `${screenshots}/webhooks-refused.png`, fullPage: true });
        await dialog.getByTestId('webhook-url').fill('http://93.184.215.14/hook');
        await page.getByTestId('webhook-save').click();
        await dialog.waitFor({ state: 'detached' });
        const row = page
          .getByTestId('webhook-list')
          .locator('tr.ant-table-row')
          .filter({ hasText: 'E2E 推送' });
        await row.waitFor();
        assert.ok((await row.innerText()).includes('http://93.184.215.14/hook'));
        assert.equal(await page.getByText(secret).count(), 0, 'the secret is not shown');
        await row.getByTestId('webhook-deliveries').click();
        await page.getByTestId('webhook-deliveries-drawer').waitFor();
        await page.waitForTimeout(400);
        await page.screenshot({ path: `${screenshots}/webhooks-list.png`, fullPage: true });
        await context?.close();
      },
    },
  ];
}
