import { mkdirSync } from 'node:fs';
import assert from 'node:assert/strict';
import { launchBrowser, runChecks, startServer } from './support.js';

// Browser tests: the real server with its built front-ends, driven in Debian's Chromium.
const server = await startServer();
const browser = await launchBrowser();
const screenshots = 'test-results/e2e';
mkdirSync(screenshots, { recursive: true });

const ok = await runChecks([
  {
    name: 'the root path sends visitors to the product home, in Chinese',
    run: async () => {
      const page = await browser.newPage();
      await page.goto(`${server.url}/`);
      assert.equal(new URL(page.url()).pathname, '/ecobid');
      await page.getByRole('heading', { name: '环保产业采购招投标平台' }).waitFor();
      assert.equal(await page.title(), '环保产业采购招投标平台');
      await page.screenshot({ path: `${screenshots}/portal-home.png` });
      await page.close();
    },
  },
  {
    name: 'the back-office signs the admin in and lists the seeded menus',
    run: async () => {
      const context = await browser.newContext({ locale: 'zh-CN' });
      const page = await context.newPage();
      await page.goto(`${server.url}/admin/`);
      await page.getByLabel('用户名').fill('admin');
      await page.getByLabel('密码').fill('wrong-password');
      await page.getByRole('button', { name: '登录' }).click();
      await page.getByRole('alert').filter({ hasText: '用户名或密码错误' }).waitFor();
      await page.getByLabel('密码').fill(server.adminPassword);
      await page.getByRole('button', { name: '登录' }).click();
      await page.getByText('用户管理').waitFor();
      await page.getByText('行政区域').waitFor();
      await page.screenshot({ path: `${screenshots}/admin-menus.png`, fullPage: true });
      await context.close();
    },
  },
]);

await browser.close();
await server.stop();
process.exit(ok ? 0 : 1);
