import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import type { BrowserContext, Locator, Page, Route } from 'playwright-core';
import { modelToSchema, schemaToModel } from '../../src/admin/features/forms/designer/model.js';
import { checkEntitySchema, type EntitySchema } from '../../src/engine/index.js';
import { expectNoAxeViolations } from './a11y.js';
import { untilStill } from './entity-driver.js';
import { apiClient, signedIn, type Check, type E2eContext } from './support.js';

interface StoredForm {
  id: number;
  version: number;
  formContent: EntitySchema | string;
}
import { dragTo } from './drag.js';
import { chooseOptionShowing, dropdownOf, noDropdownShown } from './select.js';

/**
 * Issue 14, the designer on its own (no saved form, no server form storage): /formdesign opened
 * with no id; a dictionary select, a user picker and a grid row with two fields dragged from the
 * palette; a visibility condition; undo and redo; the JSON view edited and the canvas following
 * it; the outline tree choosing what the canvas and the property panel show; the preview
 * rendering and validating; the exported .schema.json being the designed schema; autosave: the
 * draft back after a reload, a saved form saved again on its own a moment after a change.
 */

const SHOTS = '/tmp/shots-formdesign';
const OPEN_DROPDOWN = '.ant-select-dropdown:not(.ant-select-dropdown-hidden)';

/**
 * Replaces the whole text of a CodeMirror editor as a user does: a click on its top line (away
 * from a lint tooltip, which would take the click), select all, type, and back to the top to
 * read it. CodeMirror draws only the lines in view: after typing, the view sits at the end, and
 * whether a problem near the top is still drawn depended on timing (it failed on loaded machines).
 */
async function replaceEditorText(page: Page, editor: Locator, text: string): Promise<void> {
  await page.mouse.move(0, 0);
  await editor.click({ position: { x: 40, y: 6 } });
  await page.locator('.formdesign-json .cm-editor.cm-focused').waitFor();
  await page.keyboard.press('Control+a');
  await page.keyboard.insertText(text);
  await page.keyboard.press('Control+Home');
}

/** Waits until an input shows a value (a controlled input follows its state a moment later). */
/** Requests to a URL, held until answered: a timing a loaded machine can give, made every time. */
interface HeldRequests {
  /** Resolves once the first request came (fails after 15 s). */
  arrived(): Promise<void>;
  /** Lets the held requests, and any later ones, through. */
  answer(): void;
  /** Answers them and stops holding. */
  stop(): Promise<void>;
}

async function holdRequests(page: Page, url: string): Promise<HeldRequests> {
  let answer = (): void => undefined;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  let arrive = (): void => undefined;
  const arrival = new Promise<void>((resolve) => (arrive = resolve));
  const hold = async (route: Route): Promise<void> => {
    arrive();
    await answered;
    await route.continue();
  };
  await page.route(url, hold);
  return {
    async arrived() {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no request to ${url} came within 15 s`)), 15_000);
      });
      try {
        await Promise.race([arrival, late]);
      } finally {
        clearTimeout(timer);
      }
    },
    answer,
    async stop() {
      answer();
      await page.unroute(url, hold);
    },
  };
}

async function untilValue(input: Locator, expected: string): Promise<void> {
  await input.waitFor();
  for (let tries = 1; (await input.inputValue()) !== expected; tries += 1) {
    assert.ok(tries < 100, `the input shows ${expected}, not ${await input.inputValue()}`);
    await input.page().waitForTimeout(100);
  }
}

/** Picks an option of an antd select by its text. */
async function choose(page: Page, select: Locator, option: string): Promise<void> {
  await select.click();
  await page.locator(`${OPEN_DROPDOWN} .ant-select-item-option`).filter({ hasText: option }).first().click();
}

export function checks({ server, browser }: E2eContext): Check[] {
  let context: BrowserContext | undefined;
  let page: Page;
  mkdirSync(SHOTS, { recursive: true });
  const shot = (name: string) => page.screenshot({ path: `${SHOTS}/${name}.png` });
  const canvas = () => page.getByTestId('canvas');
  const rootContainer = () => page.getByTestId('container-root');
  const properties = () => page.locator('.formdesign-properties');
  /** 组件类型's select as a whole (its selected item covers its input). */
  const widgetSelect = () =>
    properties()
      .locator('.ant-select')
      .filter({ has: page.locator('#fd-widget') });

  return [
    {
      name: 'opens /formdesign with no id: palette, empty form, axe passes',
      async run() {
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1500, height: 940 },
          acceptDownloads: true,
        }));
        page.on('console', (message) => {
          if (message.type() === 'error' || message.type() === 'warning')
            console.log(`    [browser] ${message.text()}`);
        });
        await page.goto(`${server.url}/admin/formdesign`);
        await page.getByTestId('palette-select').waitFor();
        await rootContainer().waitFor();
        // a new form: only its generated key
        assert.equal(await rootContainer().locator('.formdesign-node').count(), 1);
        await page.getByTestId('node-id').waitFor();
        await expectNoAxeViolations(page, 'form designer');
      },
    },
    {
      name: 'drags a dictionary select, a user picker and a grid row with two fields',
      async run() {
        await dragTo(page, page.getByTestId('palette-select'), rootContainer());
        const select = page.getByTestId('node-select1');
        await select.waitFor();
        // dropped items are selected: the property panel shows the select's properties
        await properties().locator('#fd-source').getByText('字典').click();
        // 字典 is a picker of the tenant's dictionaries, searched by name or code (issue 40 point 12)
        await properties().locator('#fd-dict').fill('用户状态');
        await chooseOptionShowing(properties().locator('#fd-dict'), '用户状态 (user_status)');
        await properties().locator('#fd-title-zh, #fd-field-title-zh').first().fill('状态');
        await select.getByText('user_status').waitFor();
        // the canvas draws the real widget: a select holding the dictionary's items
        await select.locator('.formdesign-live .ant-select').waitFor();

        await dragTo(page, page.getByTestId('palette-user'), rootContainer());
        await page.getByTestId('node-user1').waitFor();
        await properties().getByTestId('prop-required').click();
        await page.getByTestId('node-user1').locator('.formdesign-required').waitFor();

        await dragTo(page, page.getByTestId('palette-layout-grid'), rootContainer());
        const grid = page.getByTestId('node-grid');
        await grid.waitFor();
        const columns = grid.locator('[data-testid^="container-"]');
        assert.equal(await columns.count(), 2);
        await dragTo(page, page.getByTestId('palette-text'), columns.nth(0));
        await columns.nth(0).getByTestId('node-text1').waitFor();
        await dragTo(page, page.getByTestId('palette-date'), columns.nth(1));
        await columns.nth(1).getByTestId('node-date1').waitFor();
        // reorder: the user picker goes above the select
        await dragTo(page, page.getByTestId('node-user1').locator('.formdesign-handle'), select, 'top');
        const order = await rootContainer()
          .locator(':scope > .formdesign-node')
          .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-testid')));
        assert.deepEqual(order, ['node-id', 'node-user1', 'node-select1', 'node-grid']);
        await shot('designer-fields');
      },
    },
    {
      name: '字典 picker, 组件类型 and the real widgets on the canvas (issue 40 point 12)',
      async run() {
        const select = page.getByTestId('node-select1');
        await select.click();
        await untilValue(properties().getByTestId('prop-name'), 'select1');
        // the picker offers the dictionaries by name and code; a search by code finds one
        await properties().locator('#fd-dict').fill('yes_');
        const dropdown = await dropdownOf(properties().locator('#fd-dict'));
        await dropdown.locator('.ant-select-item-option').filter({ hasText: '(yes_no)' }).waitFor();
        await shot('designer-dict-picker');
        await page.keyboard.press('Escape');
        await noDropdownShown(page);
        // 组件类型: the select becomes radio buttons of the dictionary's items, on the canvas at once
        await chooseOptionShowing(widgetSelect(), '单选按钮');
        await select.locator('.formdesign-live .ant-radio-wrapper').filter({ hasText: '正常' }).waitFor();
        await select.locator('.formdesign-live .ant-radio-wrapper').filter({ hasText: '停用' }).waitFor();
        assert.equal(await select.locator('.ant-select').count(), 0, 'no select any more');
        // a text field: a single-line input, then a text area by its 组件类型
        const text = page.getByTestId('node-text1');
        await text.click();
        await untilValue(properties().getByTestId('prop-name'), 'text1');
        await text.locator('.formdesign-live input.ant-input[disabled]').waitFor();
        await chooseOptionShowing(widgetSelect(), '多行文本框');
        await text.locator('.formdesign-live textarea[disabled]').waitFor();
        // a date picker and a user picker are drawn as their antd widgets
        await page.getByTestId('node-date1').locator('.formdesign-live .ant-picker').waitFor();
        await page.getByTestId('node-user1').locator('.formdesign-live .ant-select').waitFor();
        // a click on the widget selects its field (the preview lets the click through)
        await page.getByTestId('node-date1').locator('.formdesign-live').click({ force: true });
        await untilValue(properties().getByTestId('prop-name'), 'date1');
        await shot('designer-real-widgets');
        await expectNoAxeViolations(page, 'form designer with real widgets');
        // back to a select and a single line, so the later checks find the form as before
        await select.click();
        await untilValue(properties().getByTestId('prop-name'), 'select1');
        await chooseOptionShowing(widgetSelect(), '下拉选择');
        await text.click();
        await untilValue(properties().getByTestId('prop-name'), 'text1');
        await chooseOptionShowing(widgetSelect(), '单行输入框');
        await text.locator('.formdesign-live input.ant-input[disabled]').waitFor();
      },
    },
    {
      name: 'sets a visibility condition; undo and redo (buttons and keys)',
      async run() {
        await page.getByTestId('node-date1').click();
        await choose(page, properties().getByTestId('prop-when-field'), 'select1');
        await properties().getByTestId('prop-when-value').fill('1');
        await properties().getByTestId('prop-required').click();
        const date = page.getByTestId('node-date1');
        await date.getByText('状态 = 1').waitFor();

        // a name is checked as it is typed
        await properties().getByTestId('prop-name').fill('user1');
        await properties().getByText('已有同名字段').waitFor();
        await properties().getByTestId('prop-name').fill('startDate');
        await page.getByTestId('node-startDate').waitFor();

        // undo the rename by the keyboard (focus on the canvas), redo by the button
        await canvas().click({ position: { x: 5, y: 5 } });
        await page.keyboard.press('Control+z');
        await page.getByTestId('node-date1').waitFor();
        await page.getByTestId('redo').click();
        await page.getByTestId('node-startDate').waitFor();
        // Delete removes the selected item, Ctrl+Z brings it back, Ctrl+Shift+Z removes it again
        await page.getByTestId('node-text1').click();
        await page.keyboard.press('Delete');
        await page.getByTestId('node-text1').waitFor({ state: 'detached' });
        await page.keyboard.press('Control+z');
        await page.getByTestId('node-text1').waitFor();
        await page.keyboard.press('Control+Shift+z');
        await page.getByTestId('node-text1').waitFor({ state: 'detached' });
        await page.keyboard.press('Control+z');
        await page.getByTestId('node-text1').waitFor();
        // copy and paste: a second text field after the first
        await page.getByTestId('node-text1').click();
        await page.keyboard.press('Control+c');
        await page.keyboard.press('Control+v');
        await page.getByTestId('node-text2').waitFor();
        await page.keyboard.press('Delete');
        await page.getByTestId('node-text2').waitFor({ state: 'detached' });
        // arrows move the selection
        await page.getByTestId('node-user1').click();
        await page.keyboard.press('ArrowDown');
        await page.getByTestId('node-select1').and(page.locator('.is-selected')).waitFor();
        await shot('designer-condition');
      },
    },
    {
      name: 'the outline: a node chosen in the tree is selected on the canvas and in the property panel',
      async run() {
        await page.getByRole('tab', { name: '大纲' }).click();
        const outline = page.locator('.formdesign-outline');
        const node = (name: string) =>
          outline.locator('.ant-tree-node-content-wrapper').filter({ hasText: new RegExp(`· ${name}$`) });
        // the form's items in their order, the grid row's fields one level below it
        await node('startDate').waitFor();
        const titles = await outline.locator('.ant-tree-node-content-wrapper').allInnerTexts();
        assert.deepEqual(
          titles.map((title) => title.replace(/^.* · /, '')),
          ['id', 'user1', 'select1', '栅格', 'text1', 'startDate'],
        );
        const grid = outline.locator('.ant-tree-treenode').filter({ hasText: '栅格' }).first();
        // (a tree node holds its own title only: antd draws the children as the following nodes)
        const inGrid = outline.locator('.ant-tree-treenode').filter({ hasText: /· startDate$/ });
        assert.equal(await grid.locator('.ant-tree-indent-unit').count(), 0);
        assert.equal(await inGrid.locator('.ant-tree-indent-unit').count(), 1, 'startDate sits in the grid');
        // what the canvas selected (the select, by the arrow key) is the outline's selection too
        await outline
          .locator('.ant-tree-node-selected')
          .filter({ hasText: /· select1$/ })
          .waitFor();
        // a field inside the grid row, chosen in the tree
        await node('startDate').click();
        await page.getByTestId('node-startDate').and(page.locator('.is-selected')).waitFor();
        await untilValue(properties().getByTestId('prop-name'), 'startDate');
        await properties().getByTestId('prop-when-field').getByText('select1').waitFor();
        assert.equal(await canvas().locator('.formdesign-node.is-selected').count(), 1, 'one item selected');
        await shot('outline');
        // another one, at the top level
        await node('user1').click();
        await page.getByTestId('node-user1').and(page.locator('.is-selected')).waitFor();
        await untilValue(properties().getByTestId('prop-name'), 'user1');
        await page
          .getByTestId('node-startDate')
          .and(page.locator('.is-selected'))
          .waitFor({ state: 'detached' });
        // the layout item: the grid row itself
        await outline
          .locator('.ant-tree-node-content-wrapper')
          .filter({ hasText: /^栅格$/ })
          .click();
        await page.getByTestId('node-grid').and(page.locator('.is-selected')).waitFor();
        await properties().getByTestId('prop-name').waitFor({ state: 'detached' });
        await page.getByRole('tab', { name: '组件' }).click();
        await page.getByTestId('palette-select').waitFor();
      },
    },
    {
      name: 'the JSON view: edited JSON is checked on its lines and the canvas follows it',
      async run() {
        await page.getByTestId('view-switch').getByText('JSON').click();
        const editor = page.locator('.formdesign-json .cm-content');
        await editor.waitFor();
        await page.getByText('JSON 符合元模式').waitFor();
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByTestId('export').click(),
        ]);
        const schema = JSON.parse(readFileSync(await download.path(), 'utf8')) as EntitySchema;
        // an unknown keyword: an error on its line, the form unchanged
        const broken = structuredClone(schema) as unknown as Record<
          string,
          Record<string, Record<string, unknown>>
        >;
        const text1 = broken.properties?.text1;
        assert.ok(text1);
        text1.colour = 'red';
        await replaceEditorText(page, editor, JSON.stringify(broken, null, 2));
        await page.locator('.formdesign-json .cm-lintRange-error').first().waitFor();
        await page.getByText('1 个问题').waitFor();
        await page.locator('.formdesign-json .cm-lint-marker-error').first().hover();
        await page.getByText('unknown keyword "colour"').first().waitFor();
        await shot('designer-json-error');
        // fixed: a new title, and the canvas shows it
        delete text1.colour;
        text1['x-ui'] = { ...(text1['x-ui'] as object), titles: { zh: '左侧名称', en: 'Left name' } };
        await replaceEditorText(page, editor, JSON.stringify(broken, null, 2));
        await page.getByText('JSON 符合元模式').waitFor();
        await page.getByTestId('view-switch').getByText('设计').click();
        await page.getByTestId('node-text1').getByText('左侧名称').waitFor();
      },
    },
    {
      name: 'the preview renders the form and validates it (condition, required), desktop and phone',
      async run() {
        await page.getByTestId('preview').click();
        const dialog = page.locator('.ant-modal').filter({ has: page.getByTestId('designed-form') });
        await dialog.getByTestId('designed-form').waitFor();
        // the condition: the date shows only while the status is 1
        assert.equal(await dialog.locator('#root_startDate').count(), 0);
        // a click into the dialog while it zooms in can be lost
        await untilStill(dialog);
        await dialog.getByTestId('preview-validate').click();
        await dialog.getByTestId('preview-invalid').waitFor();
        await dialog.locator('.ant-form-item-explain-error').first().waitFor();
        await shot('preview-invalid');
        await expectNoAxeViolations(page, 'form designer preview');
        await choose(page, dialog.locator('#root_select1'), '正常');
        await dialog.locator('#root_startDate').waitFor();
        await page.getByTestId('preview-width').getByText('手机').click();
        await shot('preview-phone');
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'hidden' });
      },
    },
    {
      name: 'the exported .schema.json is the designed schema (valid, round-trips)',
      async run() {
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByTestId('export').click(),
        ]);
        assert.equal(download.suggestedFilename(), 'myform.schema.json');
        const text = readFileSync(await download.path(), 'utf8');
        const schema = JSON.parse(text) as EntitySchema;
        assert.deepEqual(checkEntitySchema('myform.schema.json', 'myform', structuredClone(schema)), []);
        assert.deepEqual(Object.keys(schema.properties), ['id', 'user1', 'select1', 'text1', 'startDate']);
        assert.deepEqual(schema.required, ['user1']);
        assert.equal(schema.properties.select1?.['x-dict'], 'user_status');
        assert.equal(schema.properties.select1?.['x-ui']?.titles?.zh, '状态');
        assert.equal(schema.properties.user1?.['x-ref'], 'sysuser');
        assert.equal(schema.properties.text1?.title, 'Text');
        assert.deepEqual(schema.properties.text1?.['x-ui']?.titles, { zh: '左侧名称', en: 'Left name' });
        assert.deepEqual(schema['x-ui']?.items, [
          'id',
          'user1',
          'select1',
          {
            kind: 'grid',
            columns: [
              { span: 12, items: ['text1'] },
              { span: 12, items: ['startDate'] },
            ],
          },
        ]);
        assert.deepEqual(schema.allOf, [
          {
            if: { properties: { select1: { const: '1' } }, required: ['select1'] },
            then: { required: ['startDate'] },
            else: { properties: { startDate: false } },
          },
        ]);
        assert.equal(`${JSON.stringify(modelToSchema(schemaToModel(schema)), null, 2)}\n`, text);
      },
    },
    {
      name: 'autosave: a reload of /formdesign brings the draft of this browser back',
      async run() {
        await page.getByTestId('node-text1').click();
        await untilValue(properties().getByTestId('prop-name'), 'text1');
        await properties().locator('#fd-field-title-zh').fill('草稿里的名称');
        await page.getByTestId('node-text1').getByText('草稿里的名称').waitFor();
        // the draft is written a moment after the change: the page is left once it holds it
        await page.waitForFunction(() =>
          window.localStorage.getItem('formDesigner.draft')?.includes('草稿里的名称'),
        );
        await page.reload();
        await page.getByTestId('node-text1').getByText('草稿里的名称').waitFor();
        // the whole design came back: its items, the grid row, the condition; still a draft
        const order = await rootContainer()
          .locator(':scope > .formdesign-node')
          .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-testid')));
        assert.deepEqual(order, ['node-id', 'node-user1', 'node-select1', 'node-grid']);
        await page.getByTestId('node-grid').getByTestId('node-startDate').getByText('状态 = 1').waitFor();
        await page.getByTestId('node-select1').getByText('user_status').waitFor();
        await page.locator('.formdesign .ant-card-extra .ant-tag').filter({ hasText: '草稿' }).waitFor();
      },
    },
    {
      name: 'autosave: a saved form saves itself a few seconds after the last change (its version goes up)',
      async run() {
        // The first 保存 of a new form adds it, and then the form is loaded again by its id. On a
        // loaded machine (as in CI) the user's next change can come while either is on its way:
        // both are held here until the change was made, and the change is not lost.
        const add = await holdRequests(page, '**/api/generator/form/add');
        const load = await holdRequests(page, '**/api/generator/form/query?**');
        let designed = '';
        const version = page.locator('.formdesign .ant-card-extra .ant-tag');
        try {
          // the form's own properties (its 标题 in each language; a new design has 我的表单)
          await canvas().click({ position: { x: 5, y: 5 } });
          await properties().getByTestId('prop-form-code').waitFor();
          await page.getByTestId('save').click();
          await add.arrived();
          // changed while the form is being added, and nothing clicked after
          await properties().locator('#fd-form-title-zh').fill('自动保存的表单');
          add.answer();
          await page.waitForURL(/formdesign\?id=\d+/);
          designed = page.url();
          await version.filter({ hasText: '版本 1' }).waitFor();
          await page.getByTestId('node-text1').getByText('草稿里的名称').waitFor();
          // the load's answer (the version just saved) comes after the change and replaces
          // nothing; no later change is needed for the change to be saved
          await load.arrived();
          load.answer();
          await version.filter({ hasText: '版本 2' }).waitFor({ timeout: 30_000 });
          await untilValue(properties().locator('#fd-form-title-zh'), '自动保存的表单');
        } finally {
          await add.stop();
          await load.stop();
        }
        // the list of designed forms shows the change and the new version
        await page.goto(`${server.url}/admin/formgenerator/list`);
        const row = page.getByTestId('forms-list').locator('tr.ant-table-row').filter({ hasText: 'myform' });
        await row.filter({ hasText: '自动保存的表单' }).waitFor();
        const cells = (await row.locator('td').allInnerTexts()).map((cell) => cell.trim());
        assert.ok(cells.includes('2'), `version 2 in the list: ${cells.join(' | ')}`);
        // opened again, the designer shows the saved form
        await page.goto(designed);
        await page.getByTestId('node-text1').getByText('草稿里的名称').waitFor();
        await version.filter({ hasText: '版本 2' }).waitFor();
        await untilValue(properties().locator('#fd-form-title-zh'), '自动保存的表单');
        // This browser keeps no draft of what the server holds: a change made elsewhere (another
        // administrator, here through the API) is what the designer opens next.
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const id = new URL(designed).searchParams.get('id');
        const { records } = await admin.get<{ records: StoredForm[] }>(
          `/api/generator/form/query?id=${id}&currentPage=1&pageSize=1`,
        );
        const form = records[0];
        assert.ok(form, 'the saved form is listed');
        const content: EntitySchema =
          typeof form.formContent === 'string'
            ? (JSON.parse(form.formContent) as EntitySchema)
            : form.formContent;
        await admin.put('/api/generator/form/update', {
          id: form.id,
          version: form.version,
          formName: 'Changed elsewhere',
          formDescription: '',
          formContent: { ...content, title: 'Changed elsewhere' },
        });
        await page.goto(designed);
        await version.filter({ hasText: '版本 3' }).waitFor();
        await untilValue(properties().locator('#fd-form-title-en'), 'Changed elsewhere');
      },
    },
    {
      name: 'autosave after 保存 (issue 40 point 9): the pending autosave sends nothing stale, no 409',
      async run() {
        const refused: number[] = [];
        const onResponse = (response: { url(): string; status(): number }): void => {
          if (response.url().includes('/api/generator/form/') && response.status() >= 400)
            refused.push(response.status());
        };
        page.on('response', onResponse);
        try {
          const version = page.locator('.formdesign .ant-card-extra .ant-tag');
          await version.filter({ hasText: '版本 3' }).waitFor();
          await properties().locator('#fd-form-title-en').fill('Saved at once');
          // 保存 before the autosave's moment: the autosave must not send the old version after it
          await page.getByTestId('save').click();
          await version.filter({ hasText: '版本 4' }).waitFor();
          await page.waitForTimeout(4_500);
          assert.deepEqual(refused, [], 'no refused save');
          assert.equal(await page.locator('.ant-message-error').count(), 0);
          await version.filter({ hasText: '版本 4' }).waitFor();
        } finally {
          page.off('response', onResponse);
        }
      },
    },
    {
      name: 'a designed form is named by its 标题（简体） in 表单列表, the publish dialog and 版本历史 (issue 40 point 8)',
      async run() {
        const version = page.locator('.formdesign .ant-card-extra .ant-tag');
        await canvas().click({ position: { x: 5, y: 5 } });
        await properties().getByTestId('prop-form-code').waitFor();
        await properties().locator('#fd-form-title-zh').fill('报销申请单');
        await page.getByTestId('save').click();
        await version.filter({ hasText: '版本 5' }).waitFor();
        await page.goto(`${server.url}/admin/formgenerator/list`);
        const row = page.getByTestId('forms-list').locator('tr.ant-table-row').filter({ hasText: 'myform' });
        await row.filter({ hasText: '报销申请单' }).waitFor();
        assert.equal(await row.filter({ hasText: 'Saved at once' }).count(), 0, 'not the English title');
        await row.getByTestId('form-history').click();
        await page.locator('.ant-drawer-title').filter({ hasText: '报销申请单' }).waitFor();
        await page.getByTestId('form-versions').waitFor();
        await page.screenshot({ path: 'test-results/e2e/approve-form-history.png' });
        await page.locator('.ant-drawer-close').click();
        await row.getByTestId('form-publish').click();
        const dialog = page.getByTestId('publish-dialog');
        await page.locator('.ant-modal-title').filter({ hasText: '报销申请单' }).waitFor();
        await page.screenshot({ path: 'test-results/e2e/approve-form-publish.png' });
        await page
          .locator('.ant-modal')
          .filter({ hasText: '报销申请单' })
          .locator('.ant-modal-close')
          .click();
        await dialog.waitFor({ state: 'detached' }).catch(() => undefined);
        await page.screenshot({ path: 'test-results/e2e/approve-form-list.png' });
      },
    },
    {
      name: 'preview mode: a page renders the form its parent window posts',
      async run() {
        const schema = JSON.parse(readFileSync('schemas/sysparam.schema.json', 'utf8')) as EntitySchema;
        await page.evaluate((posted) => {
          const frame = document.createElement('iframe');
          frame.src = '/admin/formdesign/preview';
          frame.title = 'preview';
          frame.style.width = '1000px';
          frame.style.height = '700px';
          window.addEventListener('message', (event) => {
            if ((event.data as { type?: string }).type === 'ecobid.formPreview.ready') {
              frame.contentWindow?.postMessage(
                { type: 'ecobid.formPreview', schema: posted },
                window.location.origin,
              );
            }
          });
          document.body.append(frame);
        }, schema);
        const frame = page.frameLocator('iframe[title="preview"]');
        await frame.getByTestId('designed-form').waitFor({ timeout: 60_000 });
        await frame.locator('#root_paramName').waitFor();
        await shot('preview-mode');
        await context?.close();
      },
    },
  ];
}
