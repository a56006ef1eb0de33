import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import type { Locator, Page } from 'playwright-core';
import {
  buildEntity,
  formFields,
  listColumns,
  type EntityDef,
  type EntitySchema,
  type FormField,
} from '../../src/engine/index.js';
import { sampleString } from '../support/sample-values.js';
import { clickUntilClosed, untilStill } from './select.js';

export { untilStill };

/**
 * Drives the generated screens of any entity in the browser the way a member of staff does:
 * from the schema alone it knows which fields the form has and what a valid value looks like.
 */

let counter = Math.floor(Date.now() / 1000) % 100_000;
const next = (): number => ++counter;

/** The entities of the running server, as the back-office builds them. */
export async function serverEntities(page: Page, baseUrl: string): Promise<Map<string, EntityDef>> {
  const response = await page.request.get(`${baseUrl}/api/schemas`);
  const body = (await response.json()) as { data: { entities: { name: string; schema: EntitySchema }[] } };
  return new Map(body.data.entities.map(({ name, schema }) => [name, buildEntity(name, schema)]));
}

const openDropdown = '.ant-select-dropdown:not(.ant-select-dropdown-hidden)';

async function waitForMessage(page: Page, kind: 'success' | 'warning' | 'error', text: RegExp | string) {
  const notice = page.locator(`.ant-message-${kind}`).filter({ hasText: text }).last();
  await notice.waitFor();
}

export const expectSuccess = (page: Page, text: RegExp | string) => waitForMessage(page, 'success', text);
export const expectWarning = (page: Page, text: RegExp | string) => waitForMessage(page, 'warning', text);

/**
 * The popconfirm question just opened, once it has stopped moving (see untilStill): a click on its
 * button while it zooms in can be lost. Closed ones stay in the page, hidden.
 */
export async function stillPopconfirm(page: Page): Promise<Locator> {
  const question = page.locator('.ant-popconfirm').filter({ visible: true }).last();
  await untilStill(question);
  return question;
}

/** The modal of the generated form. */
export const formModal = (page: Page) => page.locator('.entity-form-modal');

/** Picks the first option of the select `#id` (of a tree select, its first node under the root). */
export async function pickFirstOption(page: Page, id: string, isTree: boolean): Promise<void> {
  // the select's own form item shows the chosen option; on a busy machine a click on an option
  // still sliding in can be lost, and a user would pick again: so is this, three times at most
  const chosen = page
    .locator('.ant-form-item')
    .filter({ has: page.locator(`#${id}`) })
    .last()
    .locator('.ant-select-selection-item');
  for (let attempt = 1; ; attempt += 1) {
    // (a lost click may have left the list open: clicking the select again would close it)
    if (attempt === 1 || (await page.locator(openDropdown).count()) === 0)
      await page.locator(`#${id}`).click();
    const dropdown = page.locator(openDropdown).last();
    if (isTree) {
      // the root ("top level") of a parent field comes first; a real node is a better test
      const nodes = dropdown.locator('.ant-select-tree-node-content-wrapper');
      await nodes.first().waitFor();
      const count = await nodes.count();
      await untilStill(dropdown);
      await nodes.nth(count > 1 ? 1 : 0).click();
    } else {
      const option = dropdown.locator('.ant-select-item-option').first();
      await option.waitFor();
      await untilStill(dropdown);
      await option.click();
    }
    const isChosen = await chosen
      .first()
      .waitFor({ timeout: 3_000 })
      .then(() => true)
      .catch(() => false);
    if (isChosen || attempt === 3) return;
  }
}

/** A value a field of the schema accepts, as typed into its widget. */
function typedValue(entity: EntityDef, field: FormField, n: number): string {
  const source = entity.fieldsByName.get(field.options.confirms ?? field.name);
  const schema = source?.schema ?? { type: 'string' as const };
  if (field.widget === 'updown') return String(Math.max(schema.minimum ?? 1, 1));
  if (field.widget === 'json') return schema.type === 'array' ? '[]' : '{}';
  if (field.options.confirms) return sampleString(schema, 0, field.options.confirms);
  if (field.widget === 'password') return sampleString(schema, 0, field.name);
  return sampleString(schema, n, field.name);
}

/** Fills the required fields of an open create form with valid values; returns what was typed. */
export async function fillRequired(page: Page, entity: EntityDef): Promise<Record<string, string>> {
  const n = next();
  const typed: Record<string, string> = {};
  const modal = formModal(page);
  // a select clicked while the dialog zooms in may not open (the click is lost)
  await untilStill(modal);
  for (const field of formFields(entity, 'create')) {
    const source = entity.fieldsByName.get(field.options.confirms ?? field.name);
    if (!source?.isRequired) continue;
    const id = `root_${field.name}`;
    const input = modal.locator(`#${id}`);
    switch (field.widget) {
      case 'dictSelect':
      case 'refSelect':
      case 'refTreeSelect':
      case 'select': {
        if (field.options.display === 'radio') {
          if ((await input.locator('.ant-radio-wrapper-checked').count()) === 0)
            await input.locator('.ant-radio-wrapper').first().click();
        } else if (field.options.display === 'checkboxes' || field.options.isMultiple) {
          const boxes = input.locator('.ant-checkbox-wrapper');
          if (
            (await boxes.count()) > 0 &&
            (await input.locator('.ant-checkbox-wrapper-checked').count()) === 0
          )
            await boxes.first().click();
          else if ((await boxes.count()) === 0) await pickFirstOption(page, id, false);
        } else {
          // the innermost form item (the form's own object field is one too)
          const item = modal
            .locator('.ant-form-item')
            .filter({ has: page.locator(`#${id}`) })
            .last();
          if ((await item.locator('.ant-select-selection-item').count()) === 0)
            await pickFirstOption(page, id, field.widget === 'refTreeSelect');
        }
        break;
      }
      case 'switch':
        break;
      case 'richtext': {
        // the editor is loaded on demand: its content area carries the field's id
        const value = typedValue(entity, field, n);
        await input.waitFor();
        await input.click();
        await page.keyboard.type(value);
        typed[field.name] = value;
        break;
      }
      case 'date':
      case 'datetime': {
        const value = field.widget === 'date' ? '2026-11-21' : '2026-11-21 10:00:00';
        await input.click();
        await input.fill(value);
        await page.keyboard.press('Enter');
        typed[field.name] = value;
        break;
      }
      default: {
        if ((await input.inputValue()) !== '') break; // a default is already there
        const value = typedValue(entity, field, n);
        await input.fill(value);
        typed[field.name] = value;
      }
    }
  }
  // leave the last field, so that it hands its value to the form
  await modal.locator('.ant-modal-title').click();
  return typed;
}

/** Clicks Save in the form and waits for "Saved successfully." and the form to close. */
export async function saveForm(page: Page): Promise<void> {
  await untilStill(formModal(page));
  await formModal(page).locator('.ant-modal-footer .ant-btn-primary').click();
  await expectSuccess(page, /保存成功|Saved successfully/);
  await formModal(page).waitFor({ state: 'detached' });
}

/**
 * Clicks Save on a form the browser is to refuse and waits for the first error under a field. The
 * dialog is let stop moving first, and Save is clicked again while no error shows: a click during
 * the zoom-in was lost on loaded machines (the button showed the click, nothing happened).
 */
export async function saveForErrors(page: Page, what = 'the form shows its errors'): Promise<void> {
  const modal = formModal(page);
  await untilStill(modal);
  const firstError = modal.locator('.ant-form-item-has-error').first();
  for (let tries = 1; ; tries += 1) {
    await modal.locator('.ant-modal-footer .ant-btn-primary').click();
    const shown = await firstError.waitFor({ timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    if (shown) return;
    assert.ok(tries < 3, what);
  }
}

/** The error texts the form shows under its fields. */
export async function fieldErrors(page: Page): Promise<Record<string, string>> {
  const items = formModal(page).locator('.ant-form-item-has-error');
  const errors: Record<string, string> = {};
  for (let index = 0; index < (await items.count()); index += 1) {
    const item = items.nth(index);
    const id = await item.locator('[id^="root_"]').first().getAttribute('id');
    errors[(id ?? '').replace(/^root_/, '')] = await item.locator('.ant-form-item-explain').innerText();
  }
  return errors;
}

/** The table row that shows a text. */
export const rowWith = (page: Page, text: string) =>
  page.getByTestId('entity-table').locator('tr.ant-table-row').filter({ hasText: text });

export async function checkRow(page: Page, text: string): Promise<void> {
  await rowWith(page, text).first().locator('.ant-checkbox-input').check();
}

/** Types into the text filter of a field and searches. */
export async function filterBy(page: Page, field: string, text: string): Promise<void> {
  const bar = page.getByTestId('filter-bar');
  await bar.locator(`[data-filter="${field}"] input`).fill(text);
  await bar.getByTestId('filter-search').click();
}

export async function resetFilters(page: Page): Promise<void> {
  await page.getByTestId('filter-reset').click();
}

/** Clicks Export and reads the downloaded workbook: header row and data rows as text. */
export async function exportRows(page: Page): Promise<{ fileName: string; rows: string[][] }> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('entity-export').click(),
  ]);
  const path = await download.path();
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  const sheet = workbook.worksheets[0];
  assert.ok(sheet, 'the workbook has a sheet');
  const rows: string[][] = [];
  sheet.eachRow((row) => {
    const values = Array.isArray(row.values) ? row.values.slice(1) : [];
    rows.push(values.map((value) => (value === null || value === undefined ? '' : String(value))));
  });
  return { fileName: download.suggestedFilename(), rows };
}

/** Confirms the delete question and waits for "Delete successfully". */
export async function deleteChecked(page: Page, question: RegExp): Promise<void> {
  await page.getByTestId('entity-delete').click();
  const confirm = page.locator('.ant-modal-confirm').last();
  await untilStill(confirm);
  assert.match(await confirm.innerText(), question);
  // watched from before the click: on a loaded machine the 3 s message can come and go while
  // the click's own waits finish
  const deleted = expectSuccess(page, /删除成功|Delete successfully/);
  deleted.catch(() => undefined); // awaited below; a failed click must not leave it unhandled
  await clickUntilClosed(confirm, confirm.locator('.ant-btn-primary'));
  await deleted;
}

/** The list's visible column titles. */
export async function columnTitles(page: Page): Promise<string[]> {
  const titles = await page
    .getByTestId('entity-table')
    .locator('thead th.ant-table-cell:not(.ant-table-selection-column)')
    .allInnerTexts();
  return titles.map((title) => title.trim()).filter((title) => title.length > 0);
}

/** The label field's list title in Chinese (entities.<name>.fields.<label>), as the list shows it. */
export function labelColumn(entity: EntityDef) {
  return listColumns(entity).find((column) => column.field === entity.label);
}

/**
 * Adds a line to a sub-table with its 添加一行 button and waits for the line's first cell (its
 * label 第 N 行 …). A click right after typing in a cell blurs the cell, and on a loaded machine
 * the form's re-render after that blur once swallowed the click: the button is clicked again
 * while the line has not come.
 */
export async function addLine(dialog: Locator, lineNumber: number): Promise<void> {
  const line = dialog.getByLabel(new RegExp(`^第 ${lineNumber} 行 `)).first();
  for (let tries = 1; ; tries += 1) {
    await dialog.getByRole('button', { name: '添加一行' }).click();
    const shown = await line.waitFor({ timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    if (shown) return;
    assert.ok(tries < 3, `line ${lineNumber} is added`);
  }
}
