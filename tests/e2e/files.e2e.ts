import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import type { BrowserContext, CDPSession, Locator, Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import {
  expectSuccess,
  expectWarning,
  formModal,
  saveForm,
  stillPopconfirm,
  untilStill,
} from './entity-driver.js';
import { apiClient, newContext, signedIn, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * Issue 16, back-office: 文件上传下载 (several files dropped at once with their progress, cancel,
 * the list with filters, preview, download, delete and batch delete), the rich-text editor's
 * image dialog putting a picture into a notice that the portal then shows, and file fields of
 * generated forms (notice attachments, a carousel picture).
 */

const VIEWPORT = { width: 1440, height: 900 };

/** A CRC-32 for PNG chunks. */
function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** A real PNG of one colour, padded after its end to `size` bytes (slow uploads need bulk). */
function png(width: number, height: number, rgb: [number, number, number], size = 0): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  const image = Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', header),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return size > image.length ? Buffer.concat([image, Buffer.alloc(size - image.length)]) : image;
}

const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
    '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 100]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  const stamp = Date.now().toString(36).slice(-5);
  const names = {
    picture: `蓝色图片-${stamp}.png`,
    pdf: `招标文件-${stamp}.pdf`,
    text: `说明-${stamp}.txt`,
    slow: `大文件-${stamp}.png`,
    cancelled: `取消上传-${stamp}.png`,
    editorPicture: `公告配图-${stamp}.png`,
    attachment: `公告附件-${stamp}.txt`,
    carousel: `轮播图-${stamp}.png`,
  };
  const noticeTitle = `E2E 图文公告 ${stamp}`;
  let admin: ApiClient;
  let context: BrowserContext | undefined;
  let page: Page;
  let cdp: CDPSession;
  const shot = (name: string) => page.screenshot({ path: `${screenshots}/files-${name}.png` });
  const file = (name: string, buffer: Buffer, mimeType = 'application/octet-stream') => ({
    name,
    mimeType,
    buffer,
  });

  /** Uploads over a slow line (so that progress can be seen), or back at full speed. */
  const throttle = async (bytesPerSecond: number | undefined): Promise<void> => {
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: bytesPerSecond ?? -1,
    });
  };
  const storedNames = async (name: string): Promise<string[]> =>
    (
      await admin.get<{ records: { originalFilename: string }[] }>(
        `/api/file/file/query?pageSize=50&originalFilename=${encodeURIComponent(name)}`,
      )
    ).records.map((record) => record.originalFilename);
  const listRow = (name: string): Locator =>
    page.getByTestId('file-list').locator('tr.ant-table-row').filter({ hasText: name });
  const uploader = (): Locator => page.getByTestId('file-uploader').locator('input[type=file]');

  return [
    {
      name: 'signs in and opens 文件上传下载',
      run: async () => {
        admin = await apiClient(server.url, 'admin', server.adminPassword);
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: VIEWPORT,
        }));
        cdp = await context.newCDPSession(page);
        await cdp.send('Network.enable');
        await page.goto(`${server.url}/admin/file/upload-download`);
        await page.getByTestId('file-uploader').waitFor();
        await page.getByTestId('file-list').waitFor();
        await expectNoAxeViolations(page, '文件上传下载');
      },
    },
    {
      name: 'several files dropped at once upload with their progress and appear in the list',
      run: async () => {
        await uploader().setInputFiles([
          file(names.picture, png(120, 80, [30, 90, 200]), 'image/png'),
          file(names.pdf, PDF, 'application/pdf'),
          file(names.text, Buffer.from(`采购说明 ${stamp}\n`), 'text/plain'),
        ]);
        for (const name of [names.picture, names.pdf, names.text]) await listRow(name).waitFor();
        // each upload reloads the list, cancelling the reload before it: no failure is reported
        assert.deepEqual(await page.locator('.ant-message-notice').allInnerTexts(), []);
        const row = listRow(names.pdf);
        const text = (await row.textContent()) ?? '';
        assert.match(text, /pdf/);
        assert.match(text, /admin/);
        assert.match(text, new RegExp(`${(PDF.length / 1024).toFixed(2)}`));

        // a slow line: the bar shows how far the upload is
        await throttle(400_000);
        await uploader().setInputFiles([file(names.slow, png(10, 10, [0, 0, 0], 1_600_000), 'image/png')]);
        const item = page
          .getByTestId('file-uploader')
          .locator('.ant-upload-list-item')
          .filter({ hasText: names.slow });
        const bar = item.locator('.ant-progress');
        await bar.waitFor();
        await shot('upload-progress');
        await expectNoAxeViolations(page, '文件上传下载 while uploading');
        await listRow(names.slow).waitFor({ timeout: 30_000 });
        await throttle(undefined);
      },
    },
    {
      name: 'an upload removed while on its way is cancelled and leaves nothing',
      run: async () => {
        await throttle(200_000);
        await uploader().setInputFiles([
          file(names.cancelled, png(10, 10, [0, 0, 0], 2_000_000), 'image/png'),
        ]);
        const item = page
          .getByTestId('file-uploader')
          .locator('.ant-upload-list-item')
          .filter({ hasText: names.cancelled });
        await item.locator('.ant-progress').waitFor();
        await item.hover();
        await item.locator('.ant-upload-list-item-action, button').last().click();
        await item.waitFor({ state: 'detached' });
        await throttle(undefined);
        await page.waitForTimeout(1500);
        assert.deepEqual(await storedNames(names.cancelled), []);
      },
    },
    {
      name: 'the list filters by name; a picture and a PDF are previewed; a file downloads under its name',
      run: async () => {
        await page.getByTestId('file-filter-name').fill(`-${stamp}.p`);
        await page.getByTestId('file-search').click();
        await listRow(names.picture).waitFor();
        await listRow(names.text).waitFor({ state: 'detached' });
        await shot('list');

        await listRow(names.picture).getByTestId('file-preview-button').click();
        const preview = page.getByTestId('file-preview');
        await preview.locator('img').waitFor();
        const width = await preview.locator('img').evaluate((img) => (img as HTMLImageElement).naturalWidth);
        assert.equal(width, 120);
        await expectNoAxeViolations(page, 'picture preview');
        await shot('preview-image');
        await page.keyboard.press('Escape');
        await preview.waitFor({ state: 'detached' });

        // The PDF shows in a frame of the blob the page fetched: the CSP must not block it.
        const refusals: string[] = [];
        const onConsole = (message: { text: () => string }): void => {
          if (message.text().includes('Content Security Policy')) refusals.push(message.text());
        };
        page.on('console', onConsole);
        await listRow(names.pdf).getByTestId('file-preview-button').click();
        await page.getByTestId('file-preview').locator('iframe').waitFor();
        await page.waitForTimeout(1000);
        page.off('console', onConsole);
        assert.deepEqual(refusals, []);
        await shot('preview-pdf');
        // The PDF viewer may hold the focus (Escape would not reach the dialog): close it by its button.
        await page.locator('.ant-modal-close').click();
        await preview.waitFor({ state: 'detached' });

        const [download] = await Promise.all([
          page.waitForEvent('download'),
          listRow(names.pdf).getByTestId('file-download').click(),
        ]);
        assert.equal(download.suggestedFilename(), names.pdf);
        const path = await download.path();
        assert.ok(path);
      },
    },
    {
      name: 'deletes one file, then several checked ones',
      run: async () => {
        await page.getByTestId('file-filter-name').fill(stamp);
        await page.getByTestId('file-search').click();
        await listRow(names.text).waitFor();
        await listRow(names.text).getByTestId('file-delete').click();
        const question = await stillPopconfirm(page);
        await question.locator('.ant-btn-primary').click();
        await expectSuccess(page, /删除成功/);
        await listRow(names.text).waitFor({ state: 'detached' });

        await page.getByTestId('file-batch-delete').click();
        await expectWarning(page, '请勾选要删除的记录');
        for (const name of [names.pdf, names.slow])
          await listRow(name).locator('.ant-checkbox-input').check();
        await page.getByTestId('file-batch-delete').click();
        // the question is answered once it stands still: a click while it zooms in can be lost
        const confirm = page.locator('.ant-modal-confirm').last();
        await untilStill(confirm);
        await confirm.locator('.ant-btn-primary').click();
        await expectSuccess(page, /删除成功/);
        await listRow(names.pdf).waitFor({ state: 'detached' });
        assert.deepEqual(await storedNames(names.pdf), []);
        assert.deepEqual(await storedNames(names.slow), []);
        assert.deepEqual(await storedNames(names.picture), [names.picture]);
      },
    },
    {
      name: 'a picture goes into a notice through the editor’s dialog; the notice gets an attachment',
      run: async () => {
        await page.goto(`${server.url}/admin/notice`);
        await page.getByTestId('entity-table').locator('.ant-table-tbody').waitFor();
        await page.getByTestId('entity-add').click();
        const modal = formModal(page);
        await modal.waitFor();
        await modal.locator('#root_title').fill(noticeTitle);
        const editor = modal.getByTestId('richtext-content');
        await editor.waitFor();
        await editor.click();
        await page.keyboard.type('请查看下图。');
        await expectNoAxeViolations(page, 'notice form with the rich-text editor');
        // the toolbar is reached by keyboard: Shift+Tab from the content lands on a labelled button
        await page.keyboard.press('Shift+Tab');
        const focused = await page.evaluate(() => ({
          isInToolbar: document.activeElement?.closest('[role=toolbar]') !== null,
          label: document.activeElement?.getAttribute('aria-label') ?? '',
        }));
        assert.ok(focused.isInToolbar, JSON.stringify(focused));
        assert.notEqual(focused.label, '');
        await shot('editor');

        await modal.getByRole('button', { name: '插入图片' }).click();
        const dialog = page.getByTestId('richtext-image-dialog');
        await dialog.waitFor();
        const input = dialog.locator('input[type=file]');
        // not a picture: refused before anything is sent
        await input.setInputFiles([file(`说明-${stamp}.txt`, Buffer.from('text'), 'text/plain')]);
        await page.locator('.ant-message-error').filter({ hasText: '请上传图片格式。' }).waitFor();
        // 确定 while a picture is still on its way
        const confirm = page
          .locator('.ant-modal')
          .filter({ has: dialog })
          .locator('.ant-modal-footer .ant-btn-primary');
        await throttle(100_000);
        await input.setInputFiles([
          file(names.editorPicture, png(160, 90, [200, 40, 40], 1_500_000), 'image/png'),
        ]);
        await dialog.locator('.ant-upload-list-item .ant-progress').first().waitFor();
        await confirm.click();
        await expectWarning(page, '正在上传，请等待文件上传完毕。');
        await expectNoAxeViolations(page, 'editor image dialog');
        await shot('editor-image-dialog');
        await throttle(undefined);
        await dialog.locator('.ant-upload-list-item-done').waitFor({ timeout: 60_000 });
        await confirm.click();
        await dialog.waitFor({ state: 'detached' });
        const inserted = editor.locator('img');
        await inserted.waitFor();
        assert.match(
          (await inserted.getAttribute('src')) ?? '',
          /^\/api\/file\/file\/picture\?id=\d+&h=[0-9a-f]{16}$/,
        );
        await page.waitForFunction(
          () =>
            (document.querySelector('[data-testid=richtext-content] img') as HTMLImageElement | null)
              ?.naturalWidth === 160,
        );

        const attachments = modal.getByTestId('file-field-attachments');
        await attachments
          .locator('input[type=file]')
          .setInputFiles([file(names.attachment, Buffer.from(`附件 ${stamp}\n`), 'text/plain')]);
        await attachments
          .locator('.ant-upload-list-item-done')
          .filter({ hasText: names.attachment })
          .waitFor();
        await modal.locator('#root_published').click();
        await shot('notice-form');
        await saveForm(page);
        const row = page
          .getByTestId('entity-table')
          .locator('tr.ant-table-row')
          .filter({ hasText: noticeTitle });
        await row.getByText(names.attachment).waitFor();
        await shot('notice-list');
      },
    },
    {
      name: 'the portal’s notice page shows the picture and the attachments to anyone, and nothing that runs',
      run: async () => {
        const notices = await admin.get<{ records: { id: number; content: string }[] }>(
          `/api/notification/notice/query?title=${encodeURIComponent(noticeTitle)}`,
        );
        const notice = notices.records[0];
        assert.ok(notice);
        assert.match(notice.content, /<img src="\/api\/file\/file\/picture\?id=\d+&amp;h=[0-9a-f]{16}"/);
        const visitor = await newContext(browser, { viewport: VIEWPORT, acceptDownloads: true });
        try {
          const portal = await visitor.newPage();
          await portal.goto(`${server.url}/noticeDetail?id=${notice.id}`);
          const article = portal.getByTestId('notice-detail');
          await article.getByText('请查看下图。').waitFor();
          await portal.waitForFunction(
            () =>
              (document.querySelector('[data-testid=notice-detail] img') as HTMLImageElement | null)
                ?.naturalWidth === 160,
          );
          assert.equal(await article.locator('script, [onerror], [onclick]').count(), 0);
          // The notice has no 发布时间: no empty field for it.
          assert.equal(await article.getByText('发布时间').count(), 0);
          // Its attachment: name and size, downloaded by the visitor (no sign-in) under its name.
          const attachments = portal.getByTestId('notice-attachments');
          await attachments.getByRole('heading', { name: '附件' }).waitFor();
          const item = attachments.locator('li').filter({ hasText: names.attachment });
          await item.waitFor();
          const expected = Buffer.from(`附件 ${stamp}\n`);
          assert.match((await item.textContent()) ?? '', /0\.0[0-9] KB/);
          const [download] = await Promise.all([
            portal.waitForEvent('download'),
            item.getByRole('link').click(),
          ]);
          assert.equal(download.suggestedFilename(), names.attachment);
          assert.ok(readFileSync(await download.path()).equals(expected), 'the downloaded bytes');
          await expectNoAxeViolations(portal, 'portal notice with a picture and an attachment');
          await portal.screenshot({ path: `${screenshots}/files-portal-notice.png`, fullPage: true });
          // In traditional Chinese and English the section and the link say so in their language.
          for (const [language, heading, label] of [
            ['tw', '附件', '下載'],
            ['en', 'Attachments', 'Download'],
          ] as const) {
            await visitor.addCookies([{ name: 'language', value: language, url: server.url }]);
            await portal.reload();
            const section = portal.getByTestId('notice-attachments');
            await section.getByRole('heading', { name: heading, exact: true }).waitFor();
            assert.match(
              (await section.getByRole('link').first().getAttribute('title')) ?? '',
              new RegExp(`^${label} `),
            );
          }
          await portal.screenshot({ path: `${screenshots}/files-portal-notice-en.png`, fullPage: true });
        } finally {
          await visitor.close();
        }
      },
    },
    {
      name: 'a picture field of a generated form uploads and shows its thumbnail',
      run: async () => {
        await page.goto(`${server.url}/admin/homepicture`);
        await page.getByTestId('entity-table').locator('.ant-table-tbody').waitFor();
        await page.getByTestId('entity-add').click();
        const modal = formModal(page);
        await modal.waitFor();
        await modal.locator('#root_title').fill(`E2E 轮播 ${stamp}`);
        const field = modal.getByTestId('file-field-imageUrl');
        await field
          .locator('input[type=file]')
          .setInputFiles([file(names.carousel, png(300, 100, [20, 160, 60]), 'image/png')]);
        await modal
          .locator('#root_imageUrl')
          .and(page.locator('[value^="/api/file/file/picture"]'))
          .waitFor();
        await page.waitForFunction(
          () =>
            (document.querySelector('[data-testid=file-field-imageUrl] img') as HTMLImageElement | null)
              ?.naturalWidth === 300,
        );
        await expectNoAxeViolations(page, 'home picture form with a picture field');
        await shot('picture-field');
        await saveForm(page);
        const pictures = await admin.get<{ records: { imageUrl: string }[] }>(
          `/api/notification/homepicture/query?title=${encodeURIComponent(`E2E 轮播 ${stamp}`)}`,
        );
        assert.match(
          pictures.records[0]?.imageUrl ?? '',
          /^\/api\/file\/file\/picture\?id=\d+&h=[0-9a-f]{16}$/,
        );
        await context?.close();
      },
    },
  ];
}
