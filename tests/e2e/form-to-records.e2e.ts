import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import {
  addLine,
  filterBy,
  formModal,
  resetFilters,
  rowWith,
  saveForm,
  untilStill,
} from './entity-driver.js';
import { apiClient, signedIn, type Check, type E2eContext } from './support.js';
import { dragTo } from './drag.js';
import { chooseOptionShowing } from './select.js';

/**
 * Issue 14 from design to records in one run: a form designed in /formdesign (its titles in
 * Chinese, a grid row of two fields, a dictionary select, a user picker, a field shown only while
 * the select has one value and carrying a help text, a sub-table whose columns the canvas shows),
 * tried in the preview (the condition, sub-table lines), saved, published from /formgenerator, opened from the sidebar under its Chinese title; on the
 * generated records screen two records added (with sub-table lines), one edited (the condition
 * turned off clears the hidden field), the list filtered and exported.
 */

const CODE = 'e2ereq';
const OPEN_DROPDOWN = '.ant-select-dropdown:not(.ant-select-dropdown-hidden)';
const HELP = '说明为何需要加急';

/**
 * Picks an option of an antd select by its text and waits until the select shows it and its
 * dropdown has closed (a closing dropdown still matches for its animation: the next pick would
 * click into it).
 */
async function choose(page: Page, select: Locator, option: string): Promise<void> {
  await select.click();
  const item = page.locator(`${OPEN_DROPDOWN} .ant-select-item-option`).filter({ hasText: option }).last();
  const chosen = select.locator('.ant-select-selection-item').filter({ hasText: option });
  // a click during the dropdown's opening animation can miss on a loaded machine (the option
  // stays hovered, nothing chosen): clicked again while the dropdown is still open
  for (let tries = 1; ; tries += 1) {
    await item.click();
    const shown = await chosen.waitFor({ timeout: 3_000 }).then(
      () => true,
      () => false,
    );
    if (shown) break;
    assert.ok(tries < 3, `the select shows ${option}`);
  }
  for (let tries = 0; (await page.locator(OPEN_DROPDOWN).count()) > 0; tries += 1) {
    assert.ok(tries < 50, 'the dropdown closes');
    await page.waitForTimeout(100);
  }
}

/** Waits until an input shows a value (the property panel follows the selection a moment later). */
async function untilValue(input: Locator, expected: string): Promise<void> {
  await input.waitFor();
  for (let tries = 1; (await input.inputValue()) !== expected; tries += 1) {
    assert.ok(tries < 100, `the input shows ${expected}, not ${await input.inputValue()}`);
    await input.page().waitForTimeout(100);
  }
}

/** A published record as the API reads it. */
interface Requisition {
  id: number;
  text1: string;
  select1: string | null;
  user1: number | null;
  textarea1: string | null;
  subtable1?: { item: string; qty: number }[];
}

/** Every sheet of a downloaded workbook as rows of text. */
async function workbookRows(path: string): Promise<Map<string, string[][]>> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  const sheets = new Map<string, string[][]>();
  for (const sheet of workbook.worksheets) {
    const rows: string[][] = [];
    sheet.eachRow((row) => {
      const values = Array.isArray(row.values) ? row.values.slice(1) : [];
      rows.push(values.map((value) => (value === null || value === undefined ? '' : String(value))));
    });
    sheets.set(sheet.name, rows);
  }
  return sheets;
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let session: { context: BrowserContext; page: Page } | undefined;
  const page = (): Page => {
    assert.ok(session, 'signed in');
    return session.page;
  };
  const shot = (name: string) => page().screenshot({ path: `${screenshots}/form-to-records-${name}.png` });
  const properties = () => page().locator('.formdesign-properties');
  const blankCanvas = () =>
    page()
      .getByTestId('canvas')
      .click({ position: { x: 5, y: 5 } });
  let api: Awaited<ReturnType<typeof apiClient>> | undefined;
  const records = async (query = ''): Promise<Requisition[]> => {
    api ??= await apiClient(server.url, 'admin', server.adminPassword);
    return (await api.get<{ records: Requisition[] }>(`/api/online/${CODE}/query?${query}`)).records;
  };
  /** The user picker: the name typed, the first matching option taken; returns its text. */
  const pickApplicant = async (modal: Locator): Promise<string> => {
    await modal.locator('#root_user1').click();
    await page().keyboard.type('admin');
    const option = page()
      .locator(`${OPEN_DROPDOWN} .ant-select-item-option`)
      .filter({ hasText: 'admin' })
      .first();
    const text = (await option.innerText()).trim();
    await option.click();
    return text;
  };
  let applicant = '';
  /**
   * The designer's preview, before the form is saved: the grid row and titles, the condition
   * showing and hiding the reason with its help, the sub-table taking a line; closed again.
   */
  const previewDesign = async (): Promise<void> => {
    await page().getByTestId('preview').click();
    const dialog = page()
      .locator('.ant-modal')
      .filter({ has: page().getByTestId('designed-form') });
    const form = dialog.getByTestId('designed-form');
    await form.locator('#root_text1').waitFor();
    await untilStill(dialog);
    await form.locator('label[for="root_text1"]').filter({ hasText: '主题' }).waitFor();
    // the condition: the reason and its help only while the priority is 紧急
    assert.equal(await form.locator('#root_textarea1').count(), 0, 'reason hidden in the preview');
    assert.equal(await form.getByText(HELP).count(), 0, 'no help for the hidden reason');
    await choose(page(), form.locator('.ant-select:has(#root_select1)'), '紧急');
    await form.locator('#root_textarea1').waitFor();
    await form.getByText(HELP).waitFor();
    // the sub-table: its columns under their titles, a line added and filled in
    await addLine(form, 1);
    await form.getByLabel('第 1 行 物品').fill('预览里的物品');
    await form.getByLabel('第 1 行 数量').fill('3');
    await shot('preview');
    await choose(page(), form.locator('.ant-select:has(#root_select1)'), '普通');
    await form.locator('#root_textarea1').waitFor({ state: 'detached' });
    await dialog.locator('.ant-modal-close').click();
    await dialog.waitFor({ state: 'hidden' });
  };

  return [
    {
      name: 'designs a form in /formdesign: grid row, dictionary select, user picker, condition with help, sub-table',
      run: async () => {
        session = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1500, height: 940 },
          acceptDownloads: true,
        });
        page().on('console', (message) => {
          if (message.type() === 'error' || message.type() === 'warning')
            console.log(`    [browser] ${message.text()}`);
        });
        await page().goto(`${server.url}/admin/formdesign`);
        await page().getByTestId('node-id').waitFor();
        // the form's own properties (nothing selected): code and titles
        await properties().getByTestId('prop-form-code').fill(CODE);
        await properties().locator('#fd-form-title-zh').fill('请购单');
        await properties().locator('#fd-form-title-en').fill('Requisition');
        // a grid row: a text field in its left column, an integer in its right one
        await page().getByTestId('palette-layout-grid').click();
        const columns = page().locator('.formdesign-column');
        await columns.nth(1).waitFor();
        await dragTo(page(), page().getByTestId('palette-text'), columns.nth(0));
        await page().getByTestId('node-text1').waitFor();
        await untilValue(properties().getByTestId('prop-name'), 'text1');
        await properties().locator('#fd-field-title-zh').fill('主题');
        await properties().getByTestId('prop-required').click();
        await dragTo(page(), page().getByTestId('palette-integer'), columns.nth(1));
        await page().getByTestId('node-integer1').waitFor();
        await untilValue(properties().getByTestId('prop-name'), 'integer1');
        await properties().locator('#fd-field-title-zh').fill('数量');
        // nothing selected (a click on the canvas): the palette adds at the end, each after the last
        await blankCanvas();
        // a select on the notification priority dictionary
        await page().getByTestId('palette-select').click();
        await page().getByTestId('node-select1').waitFor();
        await untilValue(properties().getByTestId('prop-name'), 'select1');
        await properties().locator('#fd-source').getByText('字典').click();
        await properties().locator('#fd-dict').fill('notification_priority');
        await chooseOptionShowing(properties().locator('#fd-dict'), '(notification_priority)');
        await properties().locator('#fd-field-title-zh').fill('优先级');
        await page().getByTestId('node-select1').getByText('notification_priority').waitFor();
        // a user picker
        await page().getByTestId('palette-user').click();
        await page().getByTestId('node-user1').waitFor();
        await untilValue(properties().getByTestId('prop-name'), 'user1');
        await properties().locator('#fd-field-title-zh').fill('申请人');
        // a reason shown only while the priority is 4 (紧急), with a help text
        await page().getByTestId('palette-textarea').click();
        await page().getByTestId('node-textarea1').waitFor();
        await untilValue(properties().getByTestId('prop-name'), 'textarea1');
        await properties().locator('#fd-field-title-zh').fill('加急原因');
        await properties().locator('#fd-help').fill(HELP);
        await choose(page(), properties().getByTestId('prop-when-field'), 'select1');
        await properties().getByTestId('prop-when-value').fill('4');
        // 显示条件 names the field by its title: on the canvas's tag, and in the panel with its
        // code after it (issue 40.11)
        await page().getByTestId('node-textarea1').getByText('优先级 = 4').waitFor();
        await properties().getByTestId('prop-when-field').getByText('优先级（select1）').waitFor();
        await shot('condition-title');
        // the sub-table, at the end
        await blankCanvas();
        await page().getByTestId('palette-subtable').click();
        await page().getByTestId('node-subtable1').waitFor();
        await untilValue(properties().getByTestId('prop-name'), 'subtable1');
        await properties().locator('#fd-field-title-zh').fill('明细');
        // its columns: the default one renamed and titled, a whole-number quantity added
        await properties().getByTestId('subtable-name-0').fill('item');
        await properties().getByTestId('subtable-title-0').fill('物品');
        await properties().getByTestId('subtable-add').click();
        await properties().getByTestId('subtable-name-1').fill('qty');
        await properties().getByTestId('subtable-title-1').fill('数量');
        await properties()
          .locator('.ant-select')
          .filter({ has: page().getByRole('combobox', { name: '类型 2' }) })
          .click();
        await page().locator(`${OPEN_DROPDOWN} .ant-select-item-option`).filter({ hasText: '整数' }).click();
        // the canvas shows the sub-table's columns as a table header, in the designed order
        const head = page().getByTestId('subtable-head-subtable1');
        assert.deepEqual(
          (await head.locator('thead th').allInnerTexts()).map((text) => text.trim()),
          ['#', '*物品', '数量'],
          'the required item column is starred',
        );
        assert.deepEqual(
          (await head.locator('tbody td').allInnerTexts()).map((text) => text.trim()),
          ['1', '文本', '整数'],
        );
        await blankCanvas();
        await expectNoAxeViolations(page(), 'form designer with a sub-table');
        await page().getByTestId('node-subtable1').click();
        await shot('designed');
        await previewDesign();
        await page().getByTestId('save').click();
        await page().waitForURL(/formdesign\?id=\d+/);
        api ??= await apiClient(server.url, 'admin', server.adminPassword);
        const stored = await api.get<{
          records: {
            formCode: string;
            formContent: {
              properties: Record<string, { 'x-dict'?: string; 'x-ref'?: string; 'x-ui'?: { help?: string } }>;
              allOf?: unknown[];
            };
          }[];
        }>(`/api/generator/form/query?formCode=${CODE}`);
        const content = stored.records[0]?.formContent;
        assert.deepEqual(
          Object.keys(content?.properties ?? {}),
          ['id', 'text1', 'integer1', 'select1', 'user1', 'textarea1', 'subtable1'],
          'stored in the designed order',
        );
        assert.equal(content?.properties.select1?.['x-dict'], 'notification_priority');
        assert.equal(content?.properties.user1?.['x-ref'], 'sysuser');
        assert.equal(content?.properties.textarea1?.['x-ui']?.help, HELP);
        assert.deepEqual(content?.allOf, [
          {
            if: { properties: { select1: { const: '4' } }, required: ['select1'] },
            else: { properties: { textarea1: false } },
          },
        ]);
      },
    },
    {
      name: 'publishes it from /formgenerator: the sidebar shows it under its Chinese title',
      run: async () => {
        await page().goto(`${server.url}/admin/formgenerator/list`);
        const row = page().getByTestId('forms-list').locator('tr.ant-table-row').filter({ hasText: CODE });
        await row.getByTestId('form-publish').click();
        const dialog = page()
          .locator('.ant-modal')
          .filter({ has: page().getByTestId('publish-parent') });
        await dialog.locator('.ant-select-selection-item').first().waitFor();
        // a click while the dialog zooms in can be lost
        await untilStill(dialog);
        await dialog.locator('.ant-modal-footer .ant-btn-primary').click();
        // publishing creates tables and grants: slow on a loaded machine; a refusal stays in the dialog
        await dialog.waitFor({ state: 'detached', timeout: 90_000 }).catch(async (error: unknown) => {
          throw new Error(`the publish dialog stayed open: ${await dialog.innerText()}`, { cause: error });
        });
        await row.locator('[data-status="published"]').waitFor();
        await page().getByTestId('sidebar').getByText('请购单', { exact: true }).waitFor();
      },
    },
    {
      name: 'adds records with sub-table lines: the condition shows the reason and its help, the list shows the values',
      run: async () => {
        await page().getByTestId('sidebar').getByText('请购单', { exact: true }).click();
        await page().waitForURL(new RegExp(`/admin/online/${CODE}$`));
        await page().getByTestId('entity-table').waitFor();
        await page().getByTestId('entity-add').click();
        const modal = formModal(page());
        // a select clicked while the dialog zooms in may not open
        await untilStill(modal);
        await modal.locator('#root_text1').fill('泵站备件');
        await modal.locator('#root_integer1').fill('2');
        // the grid row of the design: its two fields side by side
        const left = await modal.locator('#root_text1').boundingBox();
        const right = await modal.locator('#root_integer1').boundingBox();
        assert.ok(
          left && right && Math.abs(left.y - right.y) < 20 && right.x > left.x + left.width,
          'one row',
        );
        // the designer's Chinese titles label the fields
        await modal.locator('label[for="root_text1"]').filter({ hasText: '主题' }).waitFor();
        // the reason and its help are not there until the priority is 紧急
        assert.equal(await modal.locator('#root_textarea1').count(), 0, 'reason hidden');
        assert.equal(await modal.getByText(HELP).count(), 0, 'no help for a hidden field');
        await choose(page(), modal.locator('.ant-select:has(#root_select1)'), '普通');
        assert.equal(await modal.locator('#root_textarea1').count(), 0, 'reason hidden at 普通');
        await choose(page(), modal.locator('.ant-select:has(#root_select1)'), '紧急');
        await modal.locator('#root_textarea1').waitFor();
        await modal.getByText(HELP).waitFor();
        await modal.locator('label[for="root_textarea1"]').filter({ hasText: '加急原因' }).waitFor();
        await modal.locator('#root_textarea1').fill('汛期前必须到货');
        applicant = await pickApplicant(modal);
        for (const [index, [item, qty]] of [
          ['离心泵', '2'],
          ['密封圈', '40'],
        ].entries()) {
          await addLine(modal, index + 1);
          await modal.getByLabel(`第 ${index + 1} 行 物品`).fill(item ?? '');
          await modal.getByLabel(`第 ${index + 1} 行 数量`).fill(qty ?? '');
        }
        await modal.locator('.ant-modal-title').click();
        await expectNoAxeViolations(page(), 'a published form with a condition and a sub-table');
        await shot('form');
        await saveForm(page());
        const first = rowWith(page(), '泵站备件').first();
        await first.waitFor();

        // a second record: the reason stays hidden, one line
        await page().getByTestId('entity-add').click();
        await untilStill(modal);
        await modal.locator('#root_text1').fill('办公用品');
        await choose(page(), modal.locator('.ant-select:has(#root_select1)'), '普通');
        await pickApplicant(modal);
        await addLine(modal, 1);
        await modal.getByLabel('第 1 行 物品').fill('打印纸');
        await modal.getByLabel('第 1 行 数量').fill('10');
        assert.equal(await modal.locator('#root_textarea1').count(), 0);
        await saveForm(page());
        await rowWith(page(), '办公用品').first().waitFor();

        // the list: dictionary text and the user's name, not their codes
        const firstText = await first.innerText();
        for (const shown of ['泵站备件', '紧急', applicant])
          assert.ok(firstText.includes(shown), `the row shows ${shown}: ${firstText}`);
        const second = await rowWith(page(), '办公用品').first().innerText();
        assert.ok(second.includes('普通'), `second row: ${second}`);
        await shot('records');
        const stored = await records('text1=泵站');
        assert.equal(stored[0]?.textarea1, '汛期前必须到货');
        assert.equal(stored[0]?.select1, '4');
      },
    },
    {
      name: 'edits the record: its lines read back, the condition turned off hides the reason and clears it',
      run: async () => {
        // A cold load of the records list (its first page is asked for at boot, issue 19): the
        // list and the edit dialog carry the designer's titles, the record its lines.
        await page().reload();
        const first = rowWith(page(), '泵站备件').first();
        await first.waitFor();
        const heads = await page().getByTestId('entity-table').locator('thead th').allInnerTexts();
        assert.ok(heads.includes('主题'), `the designer's titles head the list: ${heads.join(' | ')}`);
        await first.locator('.ant-checkbox-input').check();
        await page().getByTestId('entity-edit').click();
        const edit = formModal(page());
        await edit.locator('#root_text1').waitFor();
        await untilStill(edit);
        assert.equal((await edit.locator('.ant-modal-title').innerText()).trim(), '编辑请购单');
        await edit.getByLabel('第 2 行 物品').waitFor();
        assert.equal(await edit.getByLabel('第 1 行 物品').inputValue(), '离心泵');
        assert.equal(await edit.getByLabel('第 2 行 物品').inputValue(), '密封圈');
        assert.equal(await edit.getByLabel('第 2 行 数量').inputValue(), '40');
        assert.equal(await edit.locator('#root_textarea1').inputValue(), '汛期前必须到货');
        await edit.getByText(HELP).waitFor();
        await shot('read-back');
        // priority down to 高: the reason and its help go
        await choose(page(), edit.locator('.ant-select:has(#root_select1)'), '高');
        await edit.locator('#root_textarea1').waitFor({ state: 'detached' });
        assert.equal(await edit.getByText(HELP).count(), 0);
        // back to 紧急 and down again: the field comes back empty (its value was dropped)
        await choose(page(), edit.locator('.ant-select:has(#root_select1)'), '紧急');
        assert.equal(await edit.locator('#root_textarea1').inputValue(), '');
        await choose(page(), edit.locator('.ant-select:has(#root_select1)'), '高');
        await edit.locator('#root_textarea1').waitFor({ state: 'detached' });
        await edit.getByLabel('第 2 行 数量').fill('50');
        await edit.locator('.ant-modal-title').click();
        await saveForm(page());
        const row = rowWith(page(), '泵站备件').first();
        await row.filter({ hasText: '高' }).waitFor();
        const [stored] = await records('text1=泵站');
        assert.equal(stored?.select1, '3');
        assert.equal(stored?.textarea1, null, 'the hidden field is cleared in the database');
      },
    },
    {
      name: 'filters the list and exports it: the filtered record and its lines in the file',
      run: async () => {
        await filterBy(page(), 'text1', '泵站');
        await page().getByTestId('entity-table').locator('tr.ant-table-row').first().waitFor();
        await rowWith(page(), '办公用品').waitFor({ state: 'detached' });
        assert.equal(await page().getByTestId('entity-table').locator('tr.ant-table-row').count(), 1);
        const [download] = await Promise.all([
          page().waitForEvent('download'),
          page().getByTestId('entity-export').click(),
        ]);
        const sheets = await workbookRows(await download.path());
        const [main, lines] = [...sheets.entries()];
        assert.ok(main && lines, `two sheets: ${[...sheets.keys()].join(', ')}`);
        const [header, ...rows] = main[1];
        assert.ok(header, 'a header row');
        assert.equal(rows.length, 1, `one filtered row: ${JSON.stringify(rows)}`);
        const cell = (title: string) => rows[0]?.[header.indexOf(title)];
        assert.equal(cell('主题'), '泵站备件', `headers: ${header.join(', ')}`);
        assert.equal(cell('数量'), '2');
        assert.equal(cell('优先级'), '高');
        assert.equal(cell('申请人'), applicant);
        assert.ok(header.includes('加急原因'), `the reason is exported: ${header.join(', ')}`);
        assert.equal(cell('加急原因') ?? '', '', 'the cleared reason is empty');
        // the sub-table's sheet: the master's label, the position, its columns by their titles
        assert.match(lines[0], /明细/);
        const [lineHeader, ...lineRows] = lines[1];
        assert.deepEqual(lineHeader?.slice(-2), ['物品', '数量']);
        assert.deepEqual(
          lineRows.map((line) => line.slice(-2)),
          [
            ['离心泵', '2'],
            ['密封圈', '50'],
          ],
        );
        await resetFilters(page());
        await rowWith(page(), '办公用品').first().waitFor();
        await session?.context.close();
      },
    },
  ];
}
