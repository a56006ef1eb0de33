import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import { stillPopconfirm } from './entity-driver.js';
import { chooseOption, noDropdownShown } from './select.js';
import { apiClient, signedIn, type Check, type E2eContext } from './support.js';

/**
 * Issue 15, the code generator's screens: preview a module (file tree, highlighted code),
 * download it as a zip, and the template editor showing a compile error at its line and column.
 */
const SHOTS = '/tmp/shots-codegen';

/** A master-detail form (its `lines` are detail rows), published for the layout picker. */
const ORDER_FORM = {
  title: 'Layout order',
  'x-ui': { titles: { zh: '布局订单', en: 'Layout order' } },
  required: ['subject'],
  properties: {
    subject: { type: 'string', title: 'Subject', maxLength: 60, 'x-ui': { titles: { zh: '主题' } } },
    lines: {
      type: 'array',
      title: 'Lines',
      'x-detail': {},
      'x-ui': { titles: { zh: '明细' } },
      items: {
        type: 'object',
        required: ['item'],
        properties: {
          item: { type: 'string', title: 'Item', maxLength: 40, 'x-ui': { titles: { zh: '物品' } } },
          qty: { type: 'integer', title: 'Quantity', minimum: 1, 'x-ui': { titles: { zh: '数量' } } },
        },
      },
    },
  },
};

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let context: BrowserContext | undefined;
  let page: Page;
  const shot = async (name: string): Promise<void> => {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}/${name}.png` });
    await page.screenshot({ path: `${screenshots}/codegen-${name}.png` });
  };

  return [
    {
      name: 'forward generator previews a module as a file tree with highlighted code',
      run: async () => {
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
          acceptDownloads: true,
        }));
        await page.goto(`${server.url}/admin/codegenerator/forwardgenerator`);
        await page.getByTestId('forward-preview').waitFor();
        await expectNoAxeViolations(page, '正向生成');
        await page.locator('#entities').click();
        await page.keyboard.type('sysregion');
        await page.keyboard.press('Enter');
        await page.keyboard.press('Escape');
        // no detail rows: no layout to pick
        assert.equal(await page.getByTestId('forward-detail-layout').count(), 0);
        await page.getByTestId('forward-service').fill('shop');
        await page.getByTestId('forward-package').fill('shop');
        await page.getByTestId('forward-preview').click();
        await page.getByTestId('forward-files').getByText('SysregionList.tsx').waitFor();
        assert.equal(await page.getByTestId('forward-file-path').textContent(), 'shop/sysregion/service.ts');
        // highlight.js has coloured the code (its spans), loaded on this page only
        await page.getByTestId('forward-code').locator('span.hljs-keyword').first().waitFor();
        await page.getByTestId('forward-files').getByText('schema.sql').click();
        await page
          .getByTestId('forward-code')
          .getByText(/create table/)
          .waitFor();
        await shot('forward-preview');
        await expectNoAxeViolations(page, '正向生成 预览');
      },
    },
    {
      name: 'forward generator downloads the module as a zip',
      run: async () => {
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByTestId('forward-download').click(),
        ]);
        assert.equal(download.suggestedFilename(), 'shop.zip');
        const path = await download.path();
        const bytes = readFileSync(path);
        assert.equal(bytes.readUInt32LE(0), 0x04034b50, 'a zip archive');
        assert.ok(bytes.includes(Buffer.from('shop/sysregion/routes.ts')), 'the routes file is in it');
      },
    },
    {
      name: 'forward generator offers 主子表布局 for a master-detail entity; 列表下方页签 puts the rows in tabs below the list',
      run: async () => {
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const added = await admin.post<{ id: number }>('/api/generator/form/add', {
          formCode: 'layoutorder',
          formName: 'Layout order',
          formContent: ORDER_FORM,
        });
        await admin.post('/api/generator/form/publish', {
          id: added.id,
          menuParent: 'formgenerator',
          roles: [],
        });
        await page.goto(`${server.url}/admin/codegenerator/forwardgenerator`);
        await page.getByTestId('forward-preview').waitFor();
        await page.locator('#entities').click();
        await page.keyboard.type('layoutorder');
        await page.keyboard.press('Enter');
        await page.keyboard.press('Escape');
        await noDropdownShown(page);
        const layout = page.getByTestId('forward-detail-layout');
        await layout.getByText('表单内编辑').waitFor();
        const previewButton = page.getByTestId('forward-preview');
        /** The generated list's code, previewed (the answer in) with the layout now picked. */
        const listCode = async (): Promise<string> => {
          await Promise.all([
            page.waitForResponse((response) => response.url().endsWith('/api/generator/forward/preview')),
            previewButton.click(),
          ]);
          // each answer opens its service.ts first
          await page.getByTestId('forward-file-path').getByText('layoutorder/service.ts').waitFor();
          await page.getByTestId('forward-files').getByText('LayoutorderList.tsx').click();
          await page.getByTestId('forward-file-path').getByText('LayoutorderList.tsx').waitFor();
          return (await page.getByTestId('forward-code').textContent()) ?? '';
        };
        const inForm = await listCode();
        assert.ok(!inForm.includes('entity-detail-tabs'), 'the default layout: rows in the form only');
        assert.ok(!inForm.includes('DetailRows'));

        await chooseOption(layout, '列表下方页签');
        await noDropdownShown(page);
        const inTabs = await listCode();
        assert.ok(inTabs.includes('entity-detail-tabs'), 'the tab layout: the rows in tabs below the list');
        assert.match(inTabs, /import \{ DetailRows \}/);
        await page
          .getByTestId('forward-code')
          .getByText('data-testid="entity-detail-tabs"')
          .scrollIntoViewIfNeeded();
        await shot('forward-detail-layout');
        await expectNoAxeViolations(page, '正向生成 主子表布局');
      },
    },
    {
      name: 'template editor shows a compile error at its line and column, then saves a fixed version',
      run: async () => {
        await page.goto(`${server.url}/admin/codegenerator/generatortemplate`);
        await page.getByTestId('template-edit-ddl').click();
        const editor = page.getByTestId('template-editor').locator('.cm-content');
        await editor.waitFor();
        await expectNoAxeViolations(page, '代码模板');
        await editor.click();
        await page.keyboard.press('Control+End');
        await page.keyboard.type('\n{{#each fields}}\n  {{column}\n{{/each}}');
        await page.getByTestId('template-check').click();
        const problems = page.getByTestId('template-problems');
        await problems.waitFor();
        const text = (await problems.textContent()) ?? '';
        assert.match(text, /第 \d+ 行，第 \d+ 列/);
        await problems.scrollIntoViewIfNeeded();
        await shot('template-error');
        await expectNoAxeViolations(page, '代码模板 错误');

        // saving the broken template is refused with the same place
        await page.getByTestId('template-save').click();
        await problems.waitFor();

        await editor.click();
        await page.keyboard.press('Control+a');
        await page.keyboard.type('-- {{table}}\n{{ddl}}\n');
        await page.getByTestId('template-check').click();
        await page
          .getByTestId('template-output')
          .getByText(/-- sys_region/)
          .waitFor();
        await page.getByTestId('template-save').click();
        await page.getByTestId('template-list').getByText('v1').waitFor();
        await shot('template-saved');
      },
    },
    {
      name: 'template history lists the versions, shows a diff against the current one and restores an old one',
      run: async () => {
        const editor = page.getByTestId('template-editor').locator('.cm-content');
        await editor.click();
        await page.keyboard.press('Control+End');
        await page.keyboard.type('-- second version\n');
        await page.getByTestId('template-save').click();
        await page.getByTestId('template-list').getByText('v2').waitFor();

        await page.getByTestId('template-history-ddl').click();
        const drawer = page.getByTestId('template-history');
        await drawer.getByTestId('template-diff-v1').waitFor();
        await drawer.getByTestId('template-diff-v1').click();
        const diff = drawer.getByTestId('template-diff');
        await diff.locator('.codegen-diff-added').getByText('-- second version').waitFor();
        assert.match(
          (await drawer.getByTestId('template-diff-summary').textContent()) ?? '',
          /新增 1 行，删除 0 行/,
        );
        await shot('template-history');
        await expectNoAxeViolations(page, '模板版本历史');

        await drawer.getByTestId('template-restore-v1').click();
        await (await stillPopconfirm(page)).locator('.ant-btn-primary').click();
        await page.getByText('已将 v1 恢复为 v3').waitFor();
        await page.getByTestId('template-list').getByText('v3').waitFor();
        // v3 has v1's text: compared with the current one, nothing differs.
        await drawer.getByTestId('template-diff-v1').click();
        await drawer.getByTestId('template-diff-summary').getByText('与当前版本相同').waitFor();
        await shot('template-restored');
        await context?.close();
      },
    },
  ];
}
