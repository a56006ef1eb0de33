import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import type { BrowserContext, Download, Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import { apiClient, signedIn, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * The template's demo pages of issue 18 part B (SPEC §2.3) in Chromium against the real server:
 * every route shows its content without a page error and passes axe; a non-digit edit id is the
 * 404 page; the excel exports, the merged header, the upload preview and the zip are downloaded
 * and their contents checked; an article is created and edited; the inline edit refuses what
 * the schema refuses; rows move by keyboard; the pdf page prints the article alone.
 */

const VIEWPORT = { width: 1440, height: 900 };

interface Sheet {
  rows: string[][];
  merges: string[];
}

async function readWorkbook(path: string): Promise<Sheet> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  const sheet = workbook.worksheets[0];
  assert.ok(sheet, 'the workbook has a sheet');
  const rows: string[][] = [];
  sheet.eachRow((row) => {
    const values = Array.isArray(row.values) ? row.values.slice(1) : [];
    rows.push(values.map((value) => (value === null || value === undefined ? '' : String(value))));
  });
  const merges = (sheet.model as { merges?: string[] }).merges ?? [];
  return { rows, merges };
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let admin: ApiClient;
  let context: BrowserContext | undefined;
  let page: Page;
  let total = 0;
  let firstId = 0;
  const problems: string[] = [];
  const shot = (name: string) =>
    page.screenshot({ path: `${screenshots}/demo-examples-${name}.png`, fullPage: true });
  const visit = async (path: string, content: string): Promise<void> => {
    await page.goto(`${server.url}/admin${path}`);
    await page.getByTestId('page-title').first().waitFor();
    const shown = page.getByTestId(content).first();
    await shown.waitFor();
    assert.ok(await shown.isVisible(), `${path}: ${content} is visible`);
  };
  const noProblems = (where: string): void => {
    assert.deepEqual(problems.splice(0), [], `no page errors on ${where}`);
  };
  /** Keys pressed as a person does: dnd-kit listens for the moving keys from the tick after a pick-up. */
  const keys = async (names: string[]): Promise<void> => {
    for (const name of names) {
      await page.keyboard.press(name);
      await page.waitForTimeout(250);
    }
  };
  /** The number of articles now. */
  const articleCount = async (): Promise<number> =>
    (await admin.get<{ total: number }>('/api/demo/article/query?currentPage=1&pageSize=1')).total;
  const download = async (testId: string): Promise<Download> => {
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
    return file;
  };

  /** Each route, the element that shows its content. */
  const ROUTES: [string, string][] = [
    ['/example/list', 'example-list'],
    ['/example/create', 'article-form'],
    ['/table/dynamic-table', 'dynamic-table'],
    ['/table/drag-table', 'drag-table'],
    ['/table/inline-edit-table', 'inline-table'],
    ['/table/complex-table', 'complex-table'],
    ['/nested/menu1/menu1-1', 'nested-chain'],
    ['/nested/menu1/menu1-2/menu1-2-1', 'nested-chain'],
    ['/nested/menu1/menu1-2/menu1-2-2', 'nested-chain'],
    ['/nested/menu1/menu1-3', 'nested-chain'],
    ['/nested/menu2', 'nested-chain'],
    ['/excel/export-excel', 'excel-table'],
    ['/excel/export-selected-excel', 'excel-table'],
    ['/excel/export-merge-header', 'merge-table'],
    ['/excel/upload-excel', 'excel-upload'],
    ['/zip/download', 'zip-table'],
    ['/pdf/index', 'pdf-article'],
    ['/tab/index', 'type-tabs'],
  ];

  return [
    {
      name: 'every demo route shows its content with no page error and passes axe',
      run: async () => {
        admin = await apiClient(server.url, 'admin', server.adminPassword);
        const page1 = await admin.get<{ total: number; records: { id: number }[] }>(
          '/api/demo/article/query?currentPage=1&pageSize=1&sort=id',
        );
        total = page1.total;
        firstId = page1.records[0]?.id ?? 0;
        assert.ok(total >= 30, `the seeded articles (${total})`);
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: VIEWPORT,
        }));
        page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
        page.on('console', (message) => {
          if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text()))
            problems.push(`CSP: ${message.text()}`);
        });
        for (const [path, content] of ROUTES) {
          await visit(path, content);
          // a table's rows have arrived (not only its frame)
          if (content.endsWith('table') || content.endsWith('list') || content === 'type-tabs')
            await page.getByTestId(content).locator('tr.ant-table-row').first().waitFor();
          await shot(path.slice(1).replaceAll('/', '-'));
          await expectNoAxeViolations(page, path);
          noProblems(path);
        }
        // the sidebar shows the nested menus three levels below 组件示例
        const chain = await page
          .goto(`${server.url}/admin/nested/menu1/menu1-2/menu1-2-1`)
          .then(() => page.getByTestId('nested-chain').innerText());
        for (const title of ['组件示例', '路由嵌套', '菜单1', '菜单1-2', '菜单1-2-1'])
          assert.ok(chain.includes(title), chain);
      },
    },
    {
      name: 'the edit route takes digits only: a digit id edits the article, another value is the 404 page',
      run: async () => {
        await visit(`/example/edit/${firstId}`, 'article-form');
        const title = page.getByTestId('article-form').locator('#root_title');
        await title.waitFor();
        assert.notEqual(await title.inputValue(), '');
        await shot('edit');
        await expectNoAxeViolations(page, 'example edit');
        await page.goto(`${server.url}/admin/example/edit/abc`);
        await page.waitForURL(/\/admin\/404$/);
        await page.getByText('404', { exact: true }).first().waitFor();
        await shot('edit-not-digits');
        await page.goto(`${server.url}/admin/example/edit/12a`);
        await page.waitForURL(/\/admin\/404$/);
        noProblems('edit');
      },
    },
    {
      name: 'an article created on the create page opens on its edit page and is stored',
      run: async () => {
        const stamp = Date.now().toString(36);
        await visit('/example/create', 'article-form');
        const form = page.getByTestId('article-form');
        await form.locator('#root_title').waitFor();
        // the schema's rule shows before anything is sent: a title is required
        await page.getByTestId('article-save').click();
        await form.locator('.ant-form-item-explain-error').first().waitFor();
        await form.locator('#root_title').fill(`演示文章-${stamp}`);
        await form.locator('#root_author').fill('e2e');
        await form.locator('#root_importance').fill('2');
        await form.locator('#root_type').click();
        await page.locator('.ant-select-item-option').filter({ hasText: '日本' }).first().click();
        await page.getByTestId('article-save').click();
        await page.waitForURL(/\/admin\/example\/edit\/\d+$/);
        const id = Number(page.url().split('/').at(-1));
        const stored = await admin.get<{ records: { id: number; title: string; type: string }[] }>(
          `/api/demo/article/query?id=${id}`,
        );
        assert.equal(stored.records[0]?.title, `演示文章-${stamp}`);
        assert.equal(stored.records[0]?.type, 'JP');
        // the edit page shows the stored article (the create page stays open, hidden, in its tab)
        await page.waitForFunction(
          (title) =>
            [...document.querySelectorAll<HTMLInputElement>('[data-testid=article-form] #root_title')].some(
              (input) => input.offsetParent !== null && input.value === title,
            ),
          `演示文章-${stamp}`,
        );
        await shot('created-edit');
        noProblems('create');
      },
    },
    {
      name: 'excel: export all and export selected download the entity export with the right rows',
      run: async () => {
        await visit('/excel/export-excel', 'excel-table');
        const all = await readWorkbook(await (await download('excel-export')).path());
        assert.equal(all.rows.length, (await articleCount()) + 1, 'a header row and every article');
        assert.ok(all.rows[0]?.includes('标题'), `translated header: ${all.rows[0]?.join(',')}`);

        await visit('/excel/export-selected-excel', 'excel-table');
        const rows = page.getByTestId('excel-table').locator('tr.ant-table-row');
        await rows.first().waitFor();
        const titles = [
          await rows.nth(0).locator('td').nth(2).innerText(),
          await rows.nth(2).locator('td').nth(2).innerText(),
        ];
        await rows.nth(0).locator('input[type=checkbox]').check();
        await rows.nth(2).locator('input[type=checkbox]').check();
        const selected = await readWorkbook(await (await download('excel-export')).path());
        assert.equal(selected.rows.length, 3, 'the header and the two ticked rows');
        const exported = selected.rows.slice(1).map((row) => row.find((cell) => titles.includes(cell)));
        assert.deepEqual(exported.sort(), [...titles].sort());
        await shot('excel-selected-ticked');
        noProblems('excel export');
      },
    },
    {
      name: 'excel: the merged header downloads with merged cells; an uploaded xlsx is previewed in a table',
      run: async () => {
        await visit('/excel/export-merge-header', 'merge-table');
        await page.getByTestId('merge-table').locator('tr.ant-table-row').first().waitFor();
        const file = await download('excel-merge-export');
        const path = await file.path();
        const merged = await readWorkbook(path);
        assert.ok(merged.merges.includes('A1:A2'), `merges: ${merged.merges.join(' ')}`);
        assert.ok(merged.merges.includes('B1:D1'), `merges: ${merged.merges.join(' ')}`);
        assert.equal(merged.rows[0]?.[1], '文章');
        const count = await articleCount();
        assert.equal(merged.rows.length, count + 2, 'two header rows and every article');

        await visit('/excel/upload-excel', 'excel-upload');
        await page
          .getByTestId('excel-upload')
          .locator('input[type=file]')
          .setInputFiles({
            name: 'merged.xlsx',
            mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
            buffer: readFileSync(path),
          });
        const summary = page.getByTestId('excel-upload-summary');
        await summary.waitFor();
        // the first row is the header; the second header row and the articles are data rows
        assert.match(await summary.innerText(), new RegExp(`${count + 1} 行`));
        const preview = page.getByTestId('excel-preview');
        await preview.locator('tr.ant-table-row').first().waitFor();
        assert.equal(await preview.locator('tr.ant-table-row').count(), 20, 'a page of 20 rows');
        // a merged title shows once, over its columns
        const titles = await preview.locator('thead th').allInnerTexts();
        assert.equal(titles.filter((title) => title.trim() === '文章').length, 1, titles.join(','));
        await shot('excel-upload-preview');
        await expectNoAxeViolations(page, 'excel upload preview');
        noProblems('excel merge and upload');
      },
    },
    {
      name: 'zip: the download holds the entity export and a text table of every article',
      run: async () => {
        await visit('/zip/download', 'zip-table');
        await page.getByTestId('zip-table').locator('tr.ant-table-row').first().waitFor();
        const file = await download('zip-export');
        assert.equal(file.suggestedFilename(), '文章.zip');
        const archive = await JSZip.loadAsync(readFileSync(await file.path()));
        const names = Object.keys(archive.files).sort();
        assert.equal(names.length, 2, names.join(', '));
        const xlsx = names.find((name) => name.endsWith('.xlsx'));
        const txt = names.find((name) => name.endsWith('.txt'));
        assert.ok(xlsx && txt, names.join(', '));
        const text = await archive.file(txt)?.async('string');
        const lines = (text ?? '').trim().split('\r\n');
        const count = await articleCount();
        assert.equal(lines.length, count + 1, 'a header line and every article');
        const workbook = new ExcelJS.Workbook();
        await workbook.xlsx.load((await archive.file(xlsx)?.async('arraybuffer')) ?? new ArrayBuffer(0));
        assert.equal(workbook.worksheets[0]?.rowCount, count + 1);
        noProblems('zip');
      },
    },
    {
      name: 'inline edit: a value the schema refuses is shown on its cell and not saved; a good one is saved',
      run: async () => {
        await visit('/table/inline-edit-table', 'inline-table');
        const table = page.getByTestId('inline-table');
        const row = table.locator('tr.ant-table-row').first();
        await row.waitFor();
        const id = Number(await row.locator('td').first().innerText());
        const before = await admin.get<{ records: { importance: number; title: string }[] }>(
          `/api/demo/article/query?id=${id}`,
        );
        await page.getByTestId(`inline-edit-${id}`).click();
        const importance = table.getByRole('spinbutton', { name: '重要性' });
        await importance.fill('7');
        await page.getByTestId('edit-title').fill('');
        await page.getByTestId('inline-save').click();
        await page.getByTestId('error-importance').waitFor();
        await page.getByTestId('error-title').waitFor();
        await shot('inline-errors');
        await expectNoAxeViolations(page, 'inline edit with errors');
        const unchanged = await admin.get<{ records: { importance: number }[] }>(
          `/api/demo/article/query?id=${id}`,
        );
        assert.equal(unchanged.records[0]?.importance, before.records[0]?.importance);
        await importance.fill('3');
        await page.getByTestId('edit-title').fill(`${before.records[0]?.title ?? ''}（改）`);
        await page.getByTestId('inline-save').click();
        await page.getByTestId('inline-save').waitFor({ state: 'detached' });
        const saved = await admin.get<{ records: { importance: number; title: string }[] }>(
          `/api/demo/article/query?id=${id}`,
        );
        assert.equal(saved.records[0]?.importance, 3);
        assert.ok(saved.records[0]?.title.endsWith('（改）'));
        noProblems('inline edit');
      },
    },
    {
      name: 'dynamic columns follow the ticks; a tab list is made when opened and shows its type only',
      run: async () => {
        await visit('/table/dynamic-table', 'dynamic-table');
        const headers = (): Promise<string[]> =>
          page.getByTestId('dynamic-table').locator('thead th').allInnerTexts();
        // the rows first: the ticks are set once the page has its data
        await page.getByTestId('dynamic-table').locator('tr.ant-table-row').first().waitFor();
        assert.ok((await headers()).includes('作者'));
        await page.getByTestId('dynamic-columns').getByLabel('作者').uncheck();
        await page.getByTestId('dynamic-columns').getByLabel('类型').check();
        const now = await headers();
        assert.equal(now.includes('作者'), false, now.join(','));
        assert.ok(now.includes('类型'), now.join(','));

        await visit('/tab/index', 'type-tabs');
        await page.getByRole('tab', { name: '美国' }).click();
        const us = page.getByTestId('tab-table-US');
        await us.locator('tr.ant-table-row').first().waitFor();
        const total = await admin.get<{ total: number }>('/api/demo/article/query?type=US&pageSize=1');
        assert.ok(total.total > 0);
        assert.equal(await page.getByTestId('tabs-made').innerText(), '2');
        await shot('tab-us');
        noProblems('dynamic table and tabs');
      },
    },
    {
      name: 'drag table: a row and a column move by keyboard',
      run: async () => {
        await visit('/table/drag-table', 'drag-table');
        const order = page.getByTestId('row-order');
        await page.getByTestId('drag-table').locator('tr.ant-table-row').first().waitFor();
        const before = (await order.innerText()).split(', ');
        const handle = page
          .getByTestId('drag-table')
          .locator('tr.ant-table-row')
          .first()
          .locator('button')
          .first();
        await handle.focus();
        await keys(['Space', 'ArrowDown', 'Space']);
        await page.waitForFunction(
          (first) => document.querySelector('[data-testid=row-order]')?.textContent?.split(', ')[1] === first,
          before[0],
        );
        const columns = page.getByTestId('column-order');
        const columnsBefore = await columns.innerText();
        const header = page.getByTestId('drag-table').locator('thead th button').first();
        await header.focus();
        await keys(['Space', 'ArrowRight', 'Space']);
        await page.waitForFunction(
          (text) => document.querySelector('[data-testid=column-order]')?.textContent !== text,
          columnsBefore,
        );
        await shot('drag-moved');
        noProblems('drag table');
      },
    },
    {
      name: 'pdf: the print style shows the article alone; the button opens the print dialog',
      run: async () => {
        await visit('/pdf/index', 'pdf-article');
        await page.emulateMedia({ media: 'print' });
        assert.equal(await page.locator('.admin-sider').isVisible(), false, 'no sidebar on paper');
        assert.equal(await page.locator('.admin-header').isVisible(), false, 'no top bar on paper');
        assert.equal(await page.getByTestId('pdf-print').isVisible(), false, 'no toolbar on paper');
        assert.ok(await page.getByTestId('pdf-article').isVisible());
        await shot('pdf-print');
        await page.emulateMedia({ media: 'screen' });
        await page.evaluate(() => {
          (window as unknown as { printed: number }).printed = 0;
          window.print = () => {
            (window as unknown as { printed: number }).printed += 1;
          };
        });
        await page.getByTestId('pdf-print').click();
        assert.equal(await page.evaluate(() => (window as unknown as { printed: number }).printed), 1);
        noProblems('pdf');
        await context?.close();
      },
    },
    {
      name: 'SPEC §6: an editor works on the demo pages; a visitor sees only the workbench, a demo route is 404 to them',
      run: async () => {
        const stamp = Date.now().toString(36).slice(-6);
        const roles = await admin.get<{ records: { id: number; roleCode: string }[] }>(
          '/api/admin/sysrole/query?pageSize=100',
        );
        const orgs = await admin.get<{ records: { id: number }[] }>('/api/admin/sysorg/query?pageSize=1');
        const users: Record<string, string> = {};
        for (const [index, code] of ['ROLE_EDITOR', 'ROLE_VISITOR'].entries()) {
          const username = `demo${index}${stamp}`;
          await admin.post('/api/admin/sysuser/add', {
            username,
            nickname: username,
            password: 'demo-pass-123',
            email: `${username}@example.com`,
            countryCode: '+86',
            // a number of its own (the base-36 stamp may hold no digit at all)
            mobile: `135${String(Date.now()).slice(-7)}${index}`,
            phone: '010-1',
            status: '1',
            roleId: roles.records.find((role) => role.roleCode === code)?.id,
            orgId: orgs.records[0]?.id,
          });
          users[code] = username;
        }
        const editor = await signedIn(browser, server, users.ROLE_EDITOR ?? '', 'demo-pass-123', {
          viewport: VIEWPORT,
        });
        page = editor.page;
        page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
        await visit('/example/list', 'example-list');
        await page.getByTestId('example-list').locator('tr.ant-table-row').first().waitFor();
        await visit('/table/inline-edit-table', 'inline-table');
        await page.getByTestId('inline-table').locator('tr.ant-table-row').first().waitFor();
        // the menu mounts just after the opened page has been shown (issue 19's cold load)
        await page.locator('.admin-sider-menu').getByText('组件示例').first().waitFor();
        await shot('editor');
        noProblems('editor');
        await editor.context.close();

        const visitor = await signedIn(browser, server, users.ROLE_VISITOR ?? '', 'demo-pass-123', {
          viewport: VIEWPORT,
        });
        page = visitor.page;
        // once the menu is there (its 工作台), it has no demo menu
        const visitorMenu = page.locator('.admin-sider-menu');
        await visitorMenu.getByText('工作台').first().waitFor();
        assert.equal((await visitorMenu.innerText()).includes('组件示例'), false);
        await page.goto(`${server.url}/admin/example/list`);
        await page.waitForURL(/\/admin\/404$/);
        await visitor.context.close();
      },
    },
  ];
}
