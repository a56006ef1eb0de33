import assert from 'node:assert/strict';
import { crc32, deflateSync } from 'node:zlib';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import type {
  FolderListing,
  FolderNode,
  QuotaUsage,
  RecycledItem,
  SharedWithMe,
} from '../../src/engine/api-types.js';
import { expectNoAxeViolations } from './a11y.js';
import { stillPopconfirm, untilStill } from './entity-driver.js';
import { apiClient, signedIn, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * Issue 16, back-office: 网盘. Folders made and opened through the tree and the breadcrumb, an
 * upload into the open folder, a file dragged onto a folder of the tree, 移动到 refusing a folder's
 * own subtree, the grid view, a share that another user finds read-only under 共享给我, search,
 * and the recycle bin (delete, restore, delete for good) with the quota bar following.
 */

const VIEWPORT = { width: 1440, height: 900 };

/** A small PNG (a colour gradient), so a thumbnail and a preview show something. */
function gradientPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows: number[] = [];
  for (let y = 0; y < height; y += 1) {
    rows.push(0);
    for (let x = 0; x < width; x += 1)
      rows.push(Math.round((x / width) * 255), Math.round((y / height) * 200), 160);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Files as a desktop drag carries them: dropped on `target` through a real DataTransfer. */
async function dropFiles(
  page: Page,
  target: Locator,
  files: { name: string; mimeType: string; buffer: Buffer }[],
): Promise<void> {
  const dataTransfer = await page.evaluateHandle(
    (sent) => {
      const transfer = new DataTransfer();
      for (const file of sent) {
        const bytes = Uint8Array.from(atob(file.base64), (char) => char.charCodeAt(0));
        transfer.items.add(new File([bytes], file.name, { type: file.mimeType }));
      }
      return transfer;
    },
    files.map((file) => ({
      name: file.name,
      mimeType: file.mimeType,
      base64: file.buffer.toString('base64'),
    })),
  );
  await target.dispatchEvent('dragenter', { dataTransfer });
  await target.dispatchEvent('dragover', { dataTransfer });
  await target.dispatchEvent('drop', { dataTransfer });
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  const stamp = Date.now().toString(36).slice(-5);
  const names = {
    bids: `投标资料-${stamp}`,
    archive: `归档-${stamp}`,
    plan: `施工方案-${stamp}.txt`,
    note: `备忘-${stamp}.txt`,
    picture: `现场照片-${stamp}.png`,
    memo: `纪要-${stamp}.txt`,
    refused: `安装包-${stamp}.exe`,
  };
  const memoText = `会议纪要 ${stamp}：第一标段开工。`;
  const reader = { username: `ndreader${stamp}`, nickname: `网盘读者${stamp}`, password: 'Reader#2026x' };
  const planText = `施工方案正文 ${stamp}\n`.repeat(200);
  let admin: ApiClient;
  let context: BrowserContext | undefined;
  let readerContext: BrowserContext | undefined;
  let page: Page;
  const shot = (target: Page, name: string) =>
    target.screenshot({ path: `${screenshots}/netdisc-${name}.png` });
  const row = (name: string, on: Page = page): Locator => on.locator(`[data-netdisc-row="${name}"]`);
  const treeNode = (name: string): Locator => page.locator(`[data-netdisc-tree="${name}"]`);
  const folderId = async (name: string): Promise<number> => {
    const find = (nodes: FolderNode[]): FolderNode | undefined =>
      nodes.flatMap((node) => [node, ...node.children]).find((node) => node.name === name) ??
      nodes.map((node) => find(node.children)).find(Boolean);
    const found = find(await admin.get<FolderNode[]>('/api/file/netdisc/tree'));
    assert.ok(found, `folder ${name}`);
    return found.id;
  };
  const usedBytes = async (): Promise<number> =>
    (await admin.get<QuotaUsage>('/api/file/netdisc/quota')).usedBytes;
  const expectToast = async (on: Page = page): Promise<void> => {
    await on.locator('.ant-message-success').last().waitFor();
  };
  /**
   * The dialog just opened, once it has stopped moving: a click into it while it zooms in can be
   * lost (the button shows the click, nothing happens).
   */
  const stillDialog = async (): Promise<Locator> => {
    const dialog = page.getByRole('dialog');
    await untilStill(dialog);
    return dialog;
  };
  const newFolder = async (name: string): Promise<void> => {
    await page.getByTestId('netdisc-new-folder').click();
    const dialog = await stillDialog();
    await page.getByTestId('netdisc-name-input').fill(name);
    await dialog.getByRole('button', { name: '确 定' }).click();
  };

  return [
    {
      name: 'opens 网盘 from the sidebar: places, folder tree, quota bar',
      run: async () => {
        admin = await apiClient(server.url, 'admin', server.adminPassword);
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: VIEWPORT,
        }));
        await page.goto(`${server.url}/admin/workbench`);
        await page.getByRole('menuitem', { name: /文件管理/ }).click();
        await page.getByRole('menuitem', { name: '网盘' }).click();
        await page.waitForURL(/\/admin\/file\/netdisc$/);
        await page.getByTestId('netdisc-tree').waitFor();
        await page
          .getByTestId('netdisc-quota')
          .getByText(/已用 .+ \/ 共 1\.00 GB/)
          .waitFor();
        await expectNoAxeViolations(page, '网盘');
      },
    },
    {
      name: 'makes folders (a taken name stays in the dialog), opens one and uploads into it',
      run: async () => {
        await newFolder(names.bids);
        await treeNode(names.bids).waitFor();
        await newFolder(names.archive);
        await treeNode(names.archive).waitFor();

        // the same name again at the root: the server's reason under the field, nothing made
        await newFolder(names.bids);
        const dialog = page.getByRole('dialog');
        await dialog.getByText(`此位置已有同名文件夹：${names.bids}`).waitFor();
        await expectNoAxeViolations(page, '新建文件夹 with a taken name');
        await dialog.getByRole('button', { name: '取 消' }).click();
        await dialog.waitFor({ state: 'detached' });

        const before = await usedBytes();
        await treeNode(names.bids).click();
        await page.getByTestId('netdisc-breadcrumb').getByText(names.bids).waitFor();
        await page.getByTestId('netdisc-upload').click();
        await page
          .getByTestId('file-uploader')
          .locator('input[type=file]')
          .setInputFiles([
            { name: names.plan, mimeType: 'text/plain', buffer: Buffer.from(planText) },
            { name: names.note, mimeType: 'text/plain', buffer: Buffer.from(`备忘 ${stamp}\n`) },
          ]);
        await page.locator('.ant-upload-list-item-done').nth(1).waitFor();
        await page.getByRole('dialog').locator('.ant-modal-close').click();
        await row(names.plan).waitFor();
        await row(names.note).waitFor();
        const listing = await admin.get<FolderListing>(
          `/api/file/netdisc/list?folderId=${await folderId(names.bids)}`,
        );
        assert.deepEqual(listing.files.map((file) => file.name).sort(), [names.note, names.plan].sort());
        assert.ok((await usedBytes()) >= before + Buffer.byteLength(planText));
        await shot(page, 'folder');
      },
    },
    {
      name: 'files dropped from the desktop upload into the open folder; a refused one says why',
      run: async () => {
        const zone = page.getByTestId('netdisc-drop-zone');
        await dropFiles(page, zone, [
          { name: names.picture, mimeType: 'image/png', buffer: gradientPng(96, 64) },
          { name: names.memo, mimeType: 'text/plain', buffer: Buffer.from(memoText) },
        ]);
        await row(names.picture).waitFor();
        await row(names.memo).waitFor();
        await page.locator('.ant-message-success').filter({ hasText: '已上传 2 个文件' }).waitFor();
        const listing = await admin.get<FolderListing>(
          `/api/file/netdisc/list?folderId=${await folderId(names.bids)}`,
        );
        assert.ok(listing.files.some((file) => file.name === names.picture && file.fileType === 'png'));

        // a type the netdisc refuses (415): a notification naming the file and the reason
        await dropFiles(page, zone, [
          {
            name: names.refused,
            mimeType: 'application/octet-stream',
            buffer: Buffer.from('MZ\x90\x00binary'),
          },
        ]);
        const notice = page.locator('.upload-failed-notice').filter({ hasText: names.refused });
        await notice.getByText(`上传失败：${names.refused}`).waitFor();
        await notice.getByText('不支持的文件类型').waitFor();
        assert.equal(await row(names.refused).count(), 0);
        await shot(page, 'upload-refused');
        await notice.locator('.ant-notification-notice-close').click();
        await notice.waitFor({ state: 'detached' });

        // the same through the upload dialog: not only a red name, a notification too
        await page.getByTestId('netdisc-upload').click();
        await page
          .getByTestId('file-uploader')
          .locator('input[type=file]')
          .setInputFiles([
            {
              name: names.refused,
              mimeType: 'application/octet-stream',
              buffer: Buffer.from('MZ\x90\x00binary'),
            },
          ]);
        await notice.getByText('不支持的文件类型').waitFor();
        await notice.locator('.ant-notification-notice-close').click();
        await page.getByRole('dialog').locator('.ant-modal-close').click();
        await page.getByRole('dialog').waitFor({ state: 'detached' });
      },
    },
    {
      name: 'pictures show as thumbnails; a picture and a text file open in a preview',
      run: async () => {
        const thumbnail = row(names.picture).locator(`img[data-thumbnail="${names.picture}"]`);
        await thumbnail.waitFor();
        await page.waitForFunction((name) => {
          const image = document.querySelector<HTMLImageElement>(`img[data-thumbnail="${name}"]`);
          return image !== null && image.complete && image.naturalWidth === 96;
        }, names.picture);
        await shot(page, 'thumbnails');

        await row(names.memo).getByText(names.memo).click();
        const preview = page.getByTestId('file-preview');
        await preview.getByTestId('file-preview-text').getByText(memoText).waitFor();
        await page.getByRole('dialog').getByText(`预览：${names.memo}`).waitFor();
        await expectNoAxeViolations(page, '预览 text');
        await page.getByRole('dialog').locator('.ant-modal-close').click();
        await page.getByRole('dialog').waitFor({ state: 'detached' });

        await row(names.picture).getByTestId('netdisc-preview').click();
        await page.waitForFunction(() => {
          const image = document.querySelector<HTMLImageElement>('.file-preview-image');
          return image !== null && image.complete && image.naturalWidth === 96;
        });
        await shot(page, 'preview');
        await page.getByRole('dialog').locator('.ant-modal-close').click();
        await page.getByRole('dialog').waitFor({ state: 'detached' });
      },
    },
    {
      name: 'a file dragged onto a folder of the tree moves there; 移动到 keeps a folder out of itself',
      run: async () => {
        await row(names.plan).dragTo(treeNode(names.archive));
        await expectToast();
        await row(names.plan).waitFor({ state: 'detached' });
        const archive = await folderId(names.archive);
        const inArchive = await admin.get<FolderListing>(`/api/file/netdisc/list?folderId=${archive}`);
        assert.deepEqual(
          inArchive.files.map((file) => file.name),
          [names.plan],
        );

        // at the root: 投标资料 cannot be moved into itself; 归档 goes into 投标资料
        await page.getByTestId('netdisc-breadcrumb').getByText('我的网盘').click();
        await row(names.bids).locator('input[type=checkbox]').check();
        await page.getByTestId('netdisc-move').click();
        await stillDialog();
        await page.getByTestId('netdisc-move-target').click();
        const options = page.locator('.ant-select-tree-treenode');
        await options.filter({ hasText: names.archive }).waitFor();
        assert.equal(await options.filter({ hasText: names.bids }).count(), 0);
        // axe on the dialog with the tree closed: antd's open TreeSelect names a list id it never renders (aria-owns)
        await page.getByRole('dialog').locator('.ant-modal-title').click();
        await page.locator('.ant-select-dropdown').waitFor({ state: 'hidden' });
        await expectNoAxeViolations(page, '移动到');
        await page.getByRole('dialog').getByRole('button', { name: '取 消' }).click();
        await row(names.bids).locator('input[type=checkbox]').uncheck();

        await row(names.archive).locator('input[type=checkbox]').check();
        await page.getByTestId('netdisc-move').click();
        await stillDialog();
        await page.getByTestId('netdisc-move-target').click();
        // the option's own title: a click on the row's blank right-hand side selects nothing
        await page
          .locator('.ant-select-dropdown:visible .ant-select-tree-title')
          .filter({ hasText: names.bids })
          .click();
        await page
          .getByTestId('netdisc-move-target')
          .locator('.ant-select-selection-item', { hasText: names.bids })
          .waitFor();
        await page.getByRole('dialog').getByRole('button', { name: '确 定' }).click();
        // the dialog closes only once the move succeeded (a refusal stays under its field)
        await page.getByRole('dialog').waitFor({ state: 'detached' });
        await row(names.archive).waitFor({ state: 'detached' });
        const tree = await admin.get<FolderNode[]>('/api/file/netdisc/tree');
        const bids = tree.find((node) => node.name === names.bids);
        assert.deepEqual(
          bids?.children.map((node) => node.name),
          [names.archive],
        );
      },
    },
    {
      name: 'the grid view shows a card per folder and file',
      run: async () => {
        await treeNode(names.bids).click();
        await row(names.note).waitFor();
        await page.getByTestId('netdisc-view').getByText('网格').click();
        const grid = page.getByTestId('netdisc-grid');
        await grid.locator(`[data-netdisc-card="${names.archive}"]`).waitFor();
        await grid.locator(`[data-netdisc-card="${names.note}"]`).waitFor();
        await expectNoAxeViolations(page, '网盘 grid');
        await shot(page, 'grid');
        await page.getByTestId('netdisc-view').getByText('列表').click();
        await row(names.note).waitFor();
      },
    },
    {
      name: 'a file shared with a user is read-only under their 共享给我, and downloads',
      run: async () => {
        const roles = await admin.get<{ records: { id: number; roleCode: string }[] }>(
          '/api/admin/sysrole/query?roleCode=ROLE_ADMIN',
        );
        const role = roles.records.find((entry) => entry.roleCode === 'ROLE_ADMIN');
        const orgs = await admin.get<{ records: { id: number }[] }>('/api/admin/sysorg/query?pageSize=1');
        assert.ok(role && orgs.records[0]);
        await admin.post('/api/admin/sysuser/add', {
          ...reader,
          email: `${reader.username}@example.com`,
          countryCode: '+86',
          mobile: `137${String(Date.now()).slice(-8)}`,
          phone: '010-12345678',
          status: '1',
          roleId: role.id,
          orgId: orgs.records[0].id,
        });

        await row(names.note).getByTestId('netdisc-share').click();
        const dialog = await stillDialog();
        await dialog.getByTestId('netdisc-share-people').click();
        await page.keyboard.type(reader.username);
        await page
          .locator('.ant-select-dropdown:visible .ant-select-tree-title')
          .filter({ hasText: reader.username })
          .click();
        await dialog.locator('.ant-modal-title').click();
        await page.locator('.ant-select-dropdown').waitFor({ state: 'hidden' });
        await dialog.getByText(`${reader.nickname} (${reader.username})`).waitFor();
        await expectNoAxeViolations(page, '共享');
        await shot(page, 'share');
        await dialog.getByRole('button', { name: '保 存' }).click();
        await expectToast();

        ({ context: readerContext } = await signedIn(browser, server, reader.username, reader.password, {
          viewport: VIEWPORT,
        }));
        const readerPage = readerContext.pages()[0];
        assert.ok(readerPage);
        await readerPage.goto(`${server.url}/admin/file/netdisc`);
        await readerPage.getByTestId('netdisc-places').getByText('共享给我').click();
        const shared = row(names.note, readerPage);
        await shared.waitFor();
        assert.equal(await shared.getByTestId('netdisc-delete').count(), 0);
        assert.equal(await shared.getByTestId('netdisc-rename').count(), 0);
        assert.equal(await readerPage.getByTestId('netdisc-upload').count(), 0);
        await readerPage.getByText('他人共享的内容只能查看和下载。').waitFor();
        const download = readerPage.waitForEvent('download');
        await shared.getByTestId('netdisc-download').click();
        assert.equal((await download).suggestedFilename(), names.note);
        await expectNoAxeViolations(readerPage, '共享给我');
        await shot(readerPage, 'shared-with-me');
        const readerApi = await apiClient(server.url, reader.username, reader.password);
        const mine = await readerApi.get<SharedWithMe>('/api/file/netdisc/sharedWithMe');
        assert.deepEqual(
          mine.files.map((file) => file.name),
          [names.note],
        );
      },
    },
    {
      name: 'search finds a file by part of its name',
      run: async () => {
        await page.getByTestId('netdisc-search').fill(`方案-${stamp}`);
        await page.getByTestId('netdisc-search').press('Enter');
        await row(names.plan).waitFor();
        assert.equal(await row(names.note).count(), 0);
        await page.getByTestId('netdisc-breadcrumb').getByText('搜索结果').waitFor();
      },
    },
    {
      name: 'deletes to the recycle bin, restores, and deletes for good (the quota bar follows)',
      run: async () => {
        await page.getByTestId('netdisc-places').getByText('我的网盘').click();
        await row(names.bids).getByTestId('netdisc-delete').click();
        await (await stillDialog()).getByRole('button', { name: '确 定' }).click();
        await expectToast();
        await row(names.bids).waitFor({ state: 'detached' });
        await treeNode(names.bids).waitFor({ state: 'detached' });

        await page.getByTestId('netdisc-places').getByText('回收站').click();
        const bin = page.getByTestId('netdisc-recycle-bin');
        const binRow = bin.locator('tr.ant-table-row').filter({ hasText: names.bids });
        await binRow.waitFor();
        await expectNoAxeViolations(page, '回收站');
        await shot(page, 'recycle-bin');
        await binRow.getByTestId('netdisc-restore').click();
        await expectToast();
        await binRow.waitFor({ state: 'detached' });
        await treeNode(names.bids).waitFor();

        const before = await usedBytes();
        await treeNode(names.archive).click();
        await row(names.plan).getByTestId('netdisc-delete').click();
        await (await stillDialog()).getByRole('button', { name: '确 定' }).click();
        await expectToast();
        // the restore's toast may still be up: the file leaving the folder shows that the delete
        // is done, before the bin is read
        await row(names.plan).waitFor({ state: 'detached' });
        await page.getByTestId('netdisc-places').getByText('回收站').click();
        const planRow = bin.locator('tr.ant-table-row').filter({ hasText: names.plan });
        await planRow.getByRole('button', { name: `彻底删除 ${names.plan}` }).click();
        await (await stillPopconfirm(page)).getByRole('button', { name: '确 定' }).click();
        await planRow.waitFor({ state: 'detached' });
        const bins = await admin.get<RecycledItem[]>('/api/file/netdisc/recycleBin');
        assert.ok(!bins.some((item) => item.name === names.plan));
        assert.ok((await usedBytes()) <= before - Buffer.byteLength(planText));
      },
    },
    {
      name: 'closes the netdisc contexts',
      run: async () => {
        await readerContext?.close();
        await context?.close();
      },
    },
  ];
}
