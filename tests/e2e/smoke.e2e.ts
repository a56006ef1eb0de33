import assert from 'node:assert/strict';
import type { E2eContext, Check } from './support.js';
import { networkQuiet } from './support.js';

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  return [
    {
      name: 'the root path sends visitors to the product home, in Chinese',
      run: async () => {
        const page = await browser.newPage();
        await page.goto(`${server.url}/`);
        assert.equal(new URL(page.url()).pathname, '/ecobid');
        await networkQuiet(page);
        await page.screenshot({ path: `${screenshots}/portal-home.png` });
        await page.close();
      },
    },
    {
      name: 'unknown API paths answer a JSON 404, not the single-page app',
      run: async () => {
        const response = await fetch(`${server.url}/api/no/such/route`);
        assert.equal(response.status, 404);
        assert.equal(((await response.json()) as { code: number }).code, 404);
      },
    },
  ];
}
