import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { apiClient, newContext, signIn, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * What staff trip over (issue 39, points 8 to 10) in Chromium against the real server: the schema
 * menus in English and traditional Chinese, the database monitor's times, the flow-control limit
 * box, the audit trail in the menu, and the pages that scrolled sideways on a 390 px phone.
 */

const PHONE = { width: 390, height: 844 };

/**
 * How far the document is wider than the phone's screen (0 when nothing sticks out). A phone's
 * layout viewport grows with the content, so the width is compared with the screen's, not innerWidth.
 */
async function sidewaysScroll(page: Page): Promise<number> {
  return page.evaluate(
    (screenWidth) => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - screenWidth,
    PHONE.width,
  );
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let admin: ApiClient;
  let context: BrowserContext | undefined;
  let page: Page;
  const url = (path: string): string => `${server.url}/admin${path}`;
  const shot = (name: string) =>
    page.screenshot({ path: `${screenshots}/staff-${name}.png`, fullPage: true });
  const visit = async (path: string): Promise<void> => {
    await page.goto(url(path));
    await page.getByTestId('page-title').first().waitFor();
  };
  const useLanguage = async (language: 'zh' | 'tw' | 'en'): Promise<void> => {
    await context?.addCookies([{ name: 'language', value: language, url: server.url }]);
  };

  return [
    {
      name: 'signs the administrator in',
      run: async () => {
        admin = await apiClient(server.url, 'admin', server.adminPassword);
        // a slow statement for the database monitor's table of times
        await fetch(`${server.url}/api/monitor/settings`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'slowQueryMs', value: 1 }),
        });
        await admin.get('/api/admin/sysuser/query?currentPage=1&pageSize=10');
        context = await newContext(browser, { viewport: { width: 1360, height: 900 } });
        page = await context.newPage();
        await signIn(page, server);
      },
    },
    {
      name: 'point 8: the schema menus speak English and traditional Chinese in sidebar, breadcrumb, tab and title',
      run: async () => {
        const expected = {
          en: ['Home picture', 'Purchase announcement', 'Idle equipment', 'Platform notice'],
          tw: ['首頁圖片', '採購公告', '環保閒置設備', '平台公告'],
        };
        const paths = ['/homepicture', '/purchase', '/idleequipment', '/notice'];
        for (const language of ['en', 'tw'] as const) {
          await useLanguage(language);
          for (const [index, path] of paths.entries()) {
            const title = expected[language][index] ?? '';
            await visit(path);
            await page
              .locator('.ant-layout-sider, .admin-sidebar')
              .first()
              .getByText(title, { exact: true })
              .first()
              .waitFor();
            await page
              .getByTestId('page-title')
              .first()
              .locator('.ant-card-head-title')
              .getByText(title)
              .waitFor();
            await page.locator('.ant-breadcrumb').getByText(title, { exact: true }).waitFor();
            await page.getByTestId('tags-view').getByText(title, { exact: true }).first().waitFor();
            assert.match(await page.title(), new RegExp(title));
          }
          await shot(`menus-${language}`);
        }
        await useLanguage('zh');
      },
    },
    {
      name: 'point 8: the database monitor shows times as YYYY-MM-DD HH:mm:ss',
      run: async () => {
        await visit('/monitor/database');
        const slow = page.getByTestId('db-slow');
        await slow.locator('tr.ant-table-row').first().waitFor();
        const text = (await slow.locator('tbody').textContent()) ?? '';
        assert.doesNotMatch(text, /\d{4}-\d\d-\d\dT\d\d:\d\d/, 'a raw ISO time in the slow statements');
        assert.match(text, /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
      },
    },
    {
      name: 'point 10: the flow-control limit takes digits only, names the range for 0 and goes back to the default',
      run: async () => {
        await visit('/monitor/flowcontrol');
        const input = page.getByTestId('limit-captcha');
        await input.waitFor();
        const before = await input.inputValue();
        await input.fill('');
        await input.pressSequentially('abc');
        assert.equal(await input.inputValue(), '', 'letters reach the box');
        await input.fill('0');
        await page.getByTestId('limit-error-captcha').waitFor();
        assert.equal(await page.getByTestId('save-captcha').isDisabled(), true);
        await input.fill('12');
        assert.equal(await page.getByTestId('limit-error-captcha').count(), 0);
        await page.getByTestId('save-captcha').click();
        await page.locator('.ant-message-success').first().waitFor();
        await page.getByTestId('reset-captcha').click();
        await page.getByText('已恢复默认限值').waitFor();
        await page.getByTestId('reset-captcha').waitFor({ state: 'detached' });
        const rules = await admin.get<{ name: string; limit: number; source: string }[]>(
          '/api/monitor/flowcontrol/rules',
        );
        const captcha = rules.find((rule) => rule.name === 'captcha');
        assert.equal(captcha?.source, 'environment');
        assert.equal(String(captcha?.limit), before);
        await shot('flowcontrol');
      },
    },
    {
      name: 'point 10: the audit trail is in the menu with its breadcrumb and tab',
      run: async () => {
        await visit('/monitor/audit');
        await page.locator('.ant-breadcrumb').getByText('审计日志').waitFor();
        await page.getByTestId('tags-view').getByText('审计日志').waitFor();
        await page
          .locator('.ant-layout-sider, .admin-sidebar')
          .first()
          .getByText('审计日志')
          .first()
          .waitFor();
      },
    },
    {
      name: "point 8: the API reference's list filters are one line high, not 280 px textareas",
      run: async () => {
        await visit('/monitor/apidoc');
        await page.locator('#operations-tag-sysuser').click({ timeout: 60_000 });
        const block = page.locator('.opblock:has([data-path="/api/admin/sysuser/query"])').first();
        await block.waitFor({ timeout: 60_000 });
        await block.locator('.opblock-summary-control').first().click();
        const tryIt = block.getByRole('button', { name: /try it out/i });
        if ((await tryIt.count()) > 0) await tryIt.click();
        const boxes = block.locator('.parameters-col_description textarea');
        await boxes.first().waitFor();
        const heights = await boxes.evaluateAll((all) =>
          all.map((box) => box.getBoundingClientRect().height),
        );
        assert.ok(heights.length > 5, `filters: ${heights.length}`);
        assert.ok(Math.max(...heights) < 60, `filter boxes ${Math.max(...heights)} px high`);
        await block.screenshot({ path: `${screenshots}/staff-apidoc-filters.png` });
      },
    },
    {
      name: 'point 10: the rich-text preview shrinks a picture wider than itself',
      run: async () => {
        await visit('/components/richtext');
        const preview = page.getByTestId('demo-richtext-preview');
        await preview.waitFor();
        // a 2000 px wide picture, as one pasted into the editor arrives in the preview's HTML
        const widths = await preview.evaluate(async (box) => {
          const picture = document.createElement('img');
          picture.width = 2000;
          picture.height = 100;
          picture.alt = 'wide';
          picture.src =
            'data:image/svg+xml;utf8,' +
            encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="100"/>');
          box.append(picture);
          await new Promise((resolve) => setTimeout(resolve, 100));
          return { picture: picture.getBoundingClientRect().width, box: box.getBoundingClientRect().width };
        });
        assert.ok(widths.picture <= widths.box, `picture ${widths.picture} px in a ${widths.box} px preview`);
      },
    },
    {
      name: 'point 10: a big screen for the eye (legends below the axis labels)',
      run: async () => {
        await page.goto(url('/bigscreen/electronic'));
        const host = page.getByTestId('bigscreen-electronic');
        await host.locator('.bigscreen-chart canvas').first().waitFor();
        await page.waitForTimeout(2000);
        await host.screenshot({ path: `${screenshots}/staff-bigscreen-electronic.png` });
      },
    },
    {
      name: 'point 9: 网盘, 流控监控, 指标看板, 表单设计 and 个人中心 do not scroll sideways at 390 px',
      run: async () => {
        await context?.close();
        context = await newContext(browser, { viewport: PHONE, isMobile: true, hasTouch: true });
        page = await context.newPage();
        await page.setViewportSize(PHONE);
        await signIn(page, server);
        // a row in the 网盘 list, with a name longer than the screen is wide
        await admin.post('/api/file/netdisc/folder/create', {
          name: '2026年度环保设备采购招标文件归档（第一批）',
        });
        const wide: string[] = [];
        for (const [name, path] of [
          ['netdisc', '/file/netdisc'],
          ['flowcontrol', '/monitor/flowcontrol'],
          ['metrics', '/monitor/metrics'],
          ['formdesign', '/formdesign'],
          ['profile', '/profile/index'],
        ] as const) {
          await visit(path);
          await page.waitForTimeout(1500);
          await shot(`phone-${name}`);
          const extra = await sidewaysScroll(page);
          if (extra > 1) wide.push(`${path} is ${extra}px wider than the screen`);
        }
        assert.deepEqual(wide, []);
      },
    },
  ];
}
