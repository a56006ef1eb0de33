import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import { signedIn, type Check, type E2eContext } from './support.js';

/**
 * Issue 18, the component demo pages under 组件示例: every route opens with its content and no
 * page error and passes axe; the upload, avatar, drag dialog, count-to, back-to-top and sticky
 * demos do what they show; the error-log demo's error is in the top bar's log dialog; the guide
 * tour is walked over the real shell; an icon's name and a text are copied to the clipboard; the
 * theme colour and the language change the whole back-office.
 */

/** A 2 × 1 PNG (red, blue): a picture the avatar demo can read and cut. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADUlEQVR4nGP4zwAE/wEHAAH/4iOeWQAAAABJRU5ErkJggg==',
  'base64',
);

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let context: BrowserContext | undefined;
  let page: Page;
  const pageErrors: string[] = [];
  const shot = (name: string) =>
    page.screenshot({ path: `${screenshots}/demo-components-${name}.png`, fullPage: false });

  /** Opens a demo route, waits for its titled card and the content named, and checks axe. */
  const visit = async (path: string, title: string, content: string): Promise<void> => {
    pageErrors.length = 0;
    await page.goto(`${server.url}/admin${path}`);
    const card = page.getByTestId('page-title').filter({ hasText: title });
    await card.waitFor();
    await page.locator(content).first().waitFor();
    assert.ok(await page.locator(content).first().isVisible(), `${path}: ${content} visible`);
  };
  const noPageErrors = (path: string): void => assert.deepEqual(pageErrors, [], `${path}: no page errors`);
  const clipboard = (): Promise<string> => page.evaluate(() => navigator.clipboard.readText());

  return [
    {
      name: 'sign in with clipboard access; the 组件示例 menu lists the demos',
      run: async () => {
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
          permissions: ['clipboard-read', 'clipboard-write'],
        }));
        page.on('pageerror', (error) => pageErrors.push(error.message));
        const sidebar = page.getByTestId('sidebar');
        await sidebar.getByText('组件示例', { exact: true }).click();
        await sidebar.getByText('组件', { exact: true }).click();
        await sidebar.getByText('拖拽对话框', { exact: true }).waitFor();
      },
    },
    {
      name: 'upload: a dropped file is stored and listed',
      run: async () => {
        await visit('/components/upload', '上传', '[data-testid="demo-upload-count"]');
        await page.locator('.ant-upload-drag input[type=file]').setInputFiles({
          name: 'demo-note.txt',
          mimeType: 'text/plain',
          buffer: Buffer.from('demo upload\n'),
        });
        await page.getByTestId('demo-upload-count').filter({ hasText: '1' }).waitFor();
        await page.locator('.ant-upload-list').getByText('demo-note.txt').waitFor();
        await shot('upload');
        await expectNoAxeViolations(page, 'demo upload');
        noPageErrors('/components/upload');
      },
    },
    {
      name: 'rich text: the editor and its HTML preview',
      run: async () => {
        await visit('/components/richtext', '富文本', '.ProseMirror');
        const editor = page.locator('.ProseMirror');
        await editor.click();
        await page.keyboard.press('End');
        await page.keyboard.type(' 演示输入');
        await page.getByTestId('demo-richtext-preview').filter({ hasText: '演示输入' }).waitFor();
        await shot('richtext');
        await expectNoAxeViolations(page, 'demo rich text');
        noPageErrors('/components/richtext');
      },
    },
    {
      name: 'drag dialog: moved by its title with the mouse and the arrow keys',
      run: async () => {
        await visit('/components/drag-dialog', '拖拽对话框', '[data-testid="demo-drag-open"]');
        await page.getByTestId('demo-drag-open').click();
        const handle = page.getByTestId('demo-drag-handle');
        await handle.waitFor();
        // the dialog zooms in: take its place once the animation is over and it holds still (the
        // zoom may start a frame after the dialog is in the page)
        const settled = async (): Promise<string> =>
          JSON.stringify(
            await handle.evaluate(async (element) => {
              await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
              await Promise.all(
                (element.closest('.ant-modal')?.getAnimations({ subtree: true }) ?? []).map(
                  (item) => item.finished,
                ),
              );
              const { x, y, width, height } = element.getBoundingClientRect();
              return { x, y, width, height };
            }),
          );
        for (let last = '', now = await settled(); now !== last;) [last, now] = [now, await settled()];
        const box = await handle.boundingBox();
        assert.ok(box);
        await page.mouse.move(box.x + 20, box.y + box.height / 2);
        await page.mouse.down();
        await page.mouse.move(box.x + 120, box.y + box.height / 2 + 60, { steps: 5 });
        await page.mouse.up();
        assert.equal(await page.getByTestId('demo-drag-dialog').getAttribute('data-offset'), '100,60');
        const moved = await handle.boundingBox();
        assert.ok(
          moved && Math.abs(moved.x - box.x - 100) <= 2 && Math.abs(moved.y - box.y - 60) <= 2,
          `the handle went from ${JSON.stringify(box)} to ${JSON.stringify(moved)}`,
        );
        await handle.focus();
        await page.keyboard.press('ArrowLeft');
        assert.equal(await page.getByTestId('demo-drag-dialog').getAttribute('data-offset'), '80,60');
        await shot('drag-dialog');
        await expectNoAxeViolations(page, 'demo drag dialog');
        await page.keyboard.press('Escape');
        noPageErrors('/components/drag-dialog');
      },
    },
    {
      name: 'count-to: counts up to 2026',
      run: async () => {
        await visit('/components/count-to', '数字滚动', '[data-testid="demo-count"]');
        await page.locator('[data-testid="demo-count"][data-value="2026"]').waitFor();
        assert.match((await page.getByTestId('demo-count').textContent()) ?? '', /2,026/);
        await shot('count-to');
        await expectNoAxeViolations(page, 'demo count-to');
        noPageErrors('/components/count-to');
      },
    },
    {
      name: 'avatar upload: a picture cut to a square is uploaded and shown',
      run: async () => {
        await visit('/components/avatar-upload', '头像上传', '[data-testid="demo-avatar"]');
        await page
          .locator('input[type=file]')
          .setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG });
        const save = page.getByTestId('demo-avatar-save');
        await page.waitForFunction(
          () => !document.querySelector<HTMLButtonElement>('[data-testid="demo-avatar-save"]')?.disabled,
        );
        await save.click();
        await page.getByTestId('demo-avatar-url').waitFor();
        const url = (await page.getByTestId('demo-avatar-url').textContent()) ?? '';
        assert.ok(url.length > 0, 'the stored picture has an address');
        await page.locator('[data-testid="demo-avatar"] img').waitFor();
        await shot('avatar');
        await expectNoAxeViolations(page, 'demo avatar upload');
        noPageErrors('/components/avatar-upload');
      },
    },
    {
      name: 'back-to-top: appears once scrolled and goes back up',
      run: async () => {
        await visit('/components/back-to-top', '返回顶部', '.ant-list-item');
        await page.evaluate(() => window.scrollTo(0, 2500));
        const button = page.locator('.demo-back-top');
        await button.waitFor();
        await shot('back-to-top');
        await expectNoAxeViolations(page, 'demo back-to-top');
        await button.click();
        await page.waitForFunction(() => window.scrollY === 0);
        noPageErrors('/components/back-to-top');
      },
    },
    {
      name: 'sticky: the bar sticks to the top while the page scrolls',
      run: async () => {
        await visit('/components/sticky', '吸顶', '[data-testid="demo-sticky"]');
        await page.evaluate(() => window.scrollTo(0, 1200));
        await page.locator('[data-testid="demo-sticky"].is-stuck').waitFor();
        const box = await page.getByTestId('demo-sticky').boundingBox();
        assert.ok(box && box.y <= 1, `stuck at the top (y ${box?.y})`);
        await shot('sticky');
        await expectNoAxeViolations(page, 'demo sticky');
        noPageErrors('/components/sticky');
      },
    },
    {
      name: 'error pages 401 and 404',
      run: async () => {
        for (const status of [401, 404]) {
          await visit(`/error/${status}`, String(status), '.ant-result');
          await page
            .locator('.ant-result-title')
            .filter({ hasText: String(status) })
            .waitFor();
          await shot(`error-${status}`);
          await expectNoAxeViolations(page, `demo error ${status}`);
          noPageErrors(`/error/${status}`);
        }
      },
    },
    {
      name: 'error log: the thrown error is in the top bar’s error-log dialog',
      run: async () => {
        await visit('/error-log', '错误日志', '[data-testid="demo-throw"]');
        assert.equal(await page.locator('.admin-bug').count(), 0, 'no bug button before an error');
        await page.getByTestId('demo-throw').click();
        await page.getByTestId('demo-error-caught').waitFor();
        await page.getByTestId('demo-error-count').filter({ hasText: '1' }).waitFor();
        await expectNoAxeViolations(page, 'demo error log');
        await page.locator('.admin-bug').click();
        const dialog = page.getByRole('dialog').filter({ hasText: '清空全部' });
        await dialog.getByText('Error-log demo: a component failed to render').first().waitFor();
        await shot('error-log-dialog');
        await expectNoAxeViolations(page, 'demo error log dialog');
        await dialog.getByRole('button', { name: '清空全部' }).click();
        await page.locator('.admin-bug').waitFor({ state: 'detached' });
        noPageErrors('/error-log');
      },
    },
    {
      name: 'icons: search narrows the set; a click copies the name',
      run: async () => {
        await visit('/icon', '图标', '[data-testid="demo-icons"]');
        const all = await page.locator('.demo-icon').count();
        assert.ok(all > 40, `${all} icons`);
        await page.getByLabel('搜索图标', { exact: true }).fill('cloud');
        await page.waitForFunction(() => document.querySelectorAll('.demo-icon').length === 2);
        await page.locator('.demo-icon[data-icon="cloud-upload"]').click();
        await page.locator('.ant-message').getByText('cloud-upload').waitFor();
        assert.equal(await clipboard(), 'cloud-upload');
        await shot('icons');
        await expectNoAxeViolations(page, 'demo icons');
        noPageErrors('/icon');
      },
    },
    {
      name: 'guide: the tour walks the real sidebar, top bar and tags',
      run: async () => {
        await visit('/guide', '引导页', '[data-testid="demo-guide-start"]');
        await expectNoAxeViolations(page, 'demo guide');
        await page.getByTestId('demo-guide-start').click();
        const tour = page.locator('.ant-tour').first();
        const titles: string[] = [];
        const title = async (): Promise<string> =>
          ((await tour.locator('.ant-tour-title').textContent()) ?? '').trim();
        for (let step = 0; step < 12; step += 1) {
          await tour.waitFor();
          const shown = await title();
          titles.push(shown);
          if (step === 0) await shot('guide-sidebar');
          if (step === 6) await shot('guide-tags');
          const next = tour.locator('.ant-tour-next-btn');
          const isLast = ((await next.textContent()) ?? '').includes('结束导览');
          await next.click();
          if (isLast) break;
          // the next step is read once it is drawn, not the one just left
          for (let tries = 0; (await title()) === shown; tries += 1) {
            assert.ok(tries < 100, `the tour leaves step ${step + 1} (${shown})`);
            await page.waitForTimeout(50);
          }
        }
        assert.deepEqual(titles, [
          '侧边栏',
          '折叠侧边栏',
          '面包屑',
          '菜单搜索',
          '语言',
          '账户',
          '标签栏',
          '系统设置',
        ]);
        await page.locator('.ant-tour').first().waitFor({ state: 'hidden' });
        noPageErrors('/guide');
      },
    },
    {
      name: 'theme: a preset recolours the whole back-office; tokens change the sample',
      run: async () => {
        await visit('/theme', '换肤', '[data-testid="demo-theme-sample"]');
        await expectNoAxeViolations(page, 'demo theme');
        const themeVar = () =>
          page.evaluate(() =>
            getComputedStyle(document.querySelector('.admin-root') as HTMLElement).getPropertyValue(
              '--admin-theme',
            ),
          );
        const before = await themeVar();
        await page.getByTestId('demo-theme-11a983').click();
        await page.getByTestId('demo-theme-current').filter({ hasText: '#11a983' }).waitFor();
        assert.notEqual(await themeVar(), before, 'the shell colour changed');
        await page.getByRole('slider').first().focus();
        for (let step = 0; step < 8; step += 1) await page.keyboard.press('ArrowRight');
        await page.getByText('圆角：12 像素').first().waitFor();
        await shot('theme');
        await expectNoAxeViolations(page, 'demo theme recoloured');
        await page.getByTestId('demo-theme-409EFF').click();
        noPageErrors('/theme');
      },
    },
    {
      name: 'clipboard: the typed text is copied',
      run: async () => {
        await visit('/clipboard', '剪贴板', '[data-testid="demo-clipboard-text"]');
        await page.getByTestId('demo-clipboard-text').fill('招标编号 ZB-2026-018');
        await page.getByTestId('demo-clipboard-copy').click();
        await page.locator('.ant-message').getByText('已复制到剪贴板').waitFor();
        assert.equal(await clipboard(), '招标编号 ZB-2026-018');
        await shot('clipboard');
        await expectNoAxeViolations(page, 'demo clipboard');
        noPageErrors('/clipboard');
      },
    },
    {
      name: 'i18n: English and back; the menus follow',
      run: async () => {
        await visit('/i18n', '国际化', '[data-testid="demo-i18n-greeting"]');
        await expectNoAxeViolations(page, 'demo i18n');
        await page.getByTestId('demo-i18n-switch').getByText('English').click();
        await page.getByTestId('demo-i18n-greeting').filter({ hasText: 'Welcome' }).waitFor();
        await page.getByTestId('sidebar').getByText('Demos', { exact: true }).waitFor();
        await page.locator('.ant-pagination-options').getByText('/ page').first().waitFor();
        await shot('i18n-en');
        await expectNoAxeViolations(page, 'demo i18n in English');
        await page.getByTestId('demo-i18n-switch').getByText('简体中文').click();
        await page.getByTestId('demo-i18n-greeting').filter({ hasText: '欢迎' }).waitFor();
        noPageErrors('/i18n');
        await context?.close();
      },
    },
  ];
}
