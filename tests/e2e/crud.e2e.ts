import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { entityTitleKey, type EntityDef } from '../../src/engine/index.js';
import zh from '../../locales/zh.json' with { type: 'json' };
import {
  checkRow,
  columnTitles,
  deleteChecked,
  expectWarning,
  exportRows,
  fieldErrors,
  fillRequired,
  filterBy,
  formModal,
  labelColumn,
  resetFilters,
  rowWith,
  saveForErrors,
  saveForm,
  serverEntities,
} from './entity-driver.js';
import {
  networkQuiet,
  newContext,
  signIn,
  type Check,
  type E2eContext,
  type RunningServer,
} from './support.js';

/**
 * The generated screens (issue 5) in Chromium against the real server: for every entity the
 * list, filter, create (refused first, then valid), edit, export and batch delete, all on screens
 * that nobody wrote for that entity.
 */

type Texts = Record<string, unknown>;
function text(key: string): string | undefined {
  let node: unknown = zh;
  for (const part of key.split('.')) node = (node as Texts | undefined)?.[part];
  return typeof node === 'string' ? node : undefined;
}

export async function openList(page: Page, server: RunningServer, name: string): Promise<void> {
  await page.goto(`${server.url}/admin/${name}`);
  await page.getByTestId('entity-table').locator('.ant-table-tbody').waitFor();
  await networkQuiet(page);
}

/** What the label column of an entity is called in the list, in Chinese. */
function labelTitle(entity: EntityDef): string {
  const column = labelColumn(entity);
  assert.ok(column, `${entity.name} shows its label field`);
  return column.titleKeys.map(text).find(Boolean) ?? column.fallbackTitle;
}

/**
 * The whole round of one entity: list with translated headers, an empty form refused, a valid
 * record created, found by the filter, edited, exported with the filter, deleted.
 */
export async function entityRound(page: Page, server: RunningServer, entity: EntityDef, shots: string) {
  // a screen's path: its menu's (x-entity.menu.path, /tenant/systenant), else /<name>
  await openList(page, server, entity.menu?.path?.slice(1) ?? entity.name);
  // the menu's title, e.g. 用户管理 for the entity 用户
  const title = await page.getByTestId('page-title').locator('.ant-card-head-title').innerText();
  const squeeze = (value: string): string => value.replace(/\s+/g, '');
  assert.ok(squeeze(title).includes(squeeze(text(entityTitleKey(entity)) ?? entity.title)), title);
  const headers = await columnTitles(page);
  assert.ok(
    headers.includes(labelTitle(entity)),
    `${entity.name}: ${labelTitle(entity)} in ${headers.join(', ')}`,
  );

  // an empty form is refused, asking for the required fields by their titles (请输入… / 请选择…)
  await page.getByTestId('entity-add').click();
  await formModal(page).waitFor();
  await formModal(page).locator('[id^="root_"]').first().waitFor();
  await saveForErrors(page, 'an empty form shows its errors');
  const errors = await fieldErrors(page);
  assert.ok(
    Object.values(errors).some((message) => /^(请输入|请选择)\S/.test(message)),
    JSON.stringify(errors),
  );

  const typed = await fillRequired(page, entity);
  await page.screenshot({ path: `${shots}/crud-${entity.name}-form.png` });
  await saveForm(page);

  const label = typed[entity.label];
  assert.ok(label, `${entity.name}: the label field ${entity.label} was typed`);
  const hasTextFilter = entity.fieldsByName.get(entity.label)?.filter === 'text';
  if (hasTextFilter) await filterBy(page, entity.label, label);
  await rowWith(page, label).first().waitFor();
  await page.screenshot({ path: `${shots}/crud-${entity.name}-list.png` });

  // edit: the label gets a suffix where its pattern allows one
  const field = entity.fieldsByName.get(entity.label);
  const canSuffix =
    !field?.schema.pattern && !field?.schema.format && (field?.schema.maxLength ?? 99) > label.length + 2;
  const edited = canSuffix ? `${label}改` : label;
  await checkRow(page, label);
  await page.getByTestId('entity-edit').click();
  await formModal(page).waitFor();
  const input = formModal(page).locator(`#root_${entity.label}`);
  assert.equal(await input.inputValue(), label);
  await input.fill(edited);
  await formModal(page).locator('.ant-modal-title').click();
  await saveForm(page);
  await rowWith(page, edited).first().waitFor();

  // export: the filtered rows under translated headers
  if (hasTextFilter) {
    await filterBy(page, entity.label, edited);
    await rowWith(page, edited).first().waitFor();
    const file = await exportRows(page);
    assert.match(file.fileName, /\.xlsx$/);
    assert.ok(
      file.rows[0]?.includes(labelTitle(entity)),
      `${entity.name} export headers: ${file.rows[0]?.join(', ')}`,
    );
    assert.equal(
      file.rows.length,
      2,
      `${entity.name}: header and the one filtered row: ${JSON.stringify(file.rows)}`,
    );
    assert.ok(file.rows[1]?.includes(edited));
  }

  await checkRow(page, edited);
  await deleteChecked(page, /是否删除该记录/);
  await rowWith(page, edited).waitFor({ state: 'detached' });
  if (hasTextFilter) await resetFilters(page);
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let context: BrowserContext | undefined;
  let page: Page;
  let entities = new Map<string, EntityDef>();
  const entity = (name: string): EntityDef => {
    const found = entities.get(name);
    assert.ok(found, `entity ${name}`);
    return found;
  };

  const checks: Check[] = [
    {
      name: 'no page may evaluate scripts: the forms use validators the server compiled',
      run: async () => {
        // Scripts come from this origin only; blob: lets the form designer's preview import the
        // validator module the server compiled for an unsaved design (only same-origin script can
        // make a blob). Nothing may evaluate text: no 'unsafe-eval', no inline script, no data:.
        for (const path of ['/admin/sysuser', '/ecobid']) {
          const page = await fetch(`${server.url}${path}`);
          assert.match(
            page.headers.get('content-security-policy') ?? '',
            /script-src 'self'( blob:)?(;|$)/,
            path,
          );
        }
        const validators = await fetch(`${server.url}/api/schemas/validators.js`);
        assert.match(validators.headers.get('content-type') ?? '', /javascript/);
      },
    },
    {
      name: 'signs in and opens the generated user list',
      run: async () => {
        context = await newContext(browser, { acceptDownloads: true });
        page = await context.newPage();
        await signIn(page, server);
        entities = await serverEntities(page, server.url);
        await openList(page, server, 'sysuser');
        await rowWith(page, 'admin').first().waitFor();
        const headers = await columnTitles(page);
        assert.ok(headers.includes('用户名') && headers.includes('状态'), headers.join(', '));
        assert.ok(!headers.includes('密码'));
        // dictionary and reference values show as labels
        const admin = rowWith(page, 'admin').first();
        assert.match(await admin.innerText(), /正常/);
        assert.match(await admin.innerText(), /超级管理员|管理员/);
      },
    },
    {
      name: 'selection rules: edit needs one checked record, delete at least one',
      run: async () => {
        await page.getByTestId('entity-edit').click();
        await expectWarning(page, '请勾选记录！');
        await page.getByTestId('entity-delete').click();
        await expectWarning(page, '请勾选要删除的记录！');
      },
    },
    {
      name: 'user form: the browser refuses a short user name and a mismatched confirmation; the server a taken one',
      run: async () => {
        await page.getByTestId('entity-add').click();
        await formModal(page).waitFor();
        const typed = await fillRequired(page, entity('sysuser'));
        await formModal(page).locator('#root_username').fill('ab');
        await formModal(page).locator('#root_passwordConfirm').fill('something-else');
        await formModal(page).locator('.ant-modal-title').click();
        await formModal(page).locator('.ant-modal-footer .ant-btn-primary').click();
        await formModal(page).locator('.ant-form-item-has-error').first().waitFor();
        const errors = await fieldErrors(page);
        assert.match(errors.username ?? '', /长度不能少于 3 个字符/);
        assert.match(errors.passwordConfirm ?? '', /两次输入不一致/);
        await page.screenshot({ path: `${screenshots}/crud-sysuser-invalid.png` });

        // valid in the browser, refused by the server: the 409 lands on its field
        await formModal(page).locator('#root_username').fill('admin');
        await formModal(page)
          .locator('#root_passwordConfirm')
          .fill(typed.password ?? '');
        await formModal(page).locator('.ant-modal-title').click();
        await formModal(page).locator('.ant-modal-footer .ant-btn-primary').click();
        await formModal(page).locator('.ant-form-item-has-error').first().waitFor();
        assert.ok((await fieldErrors(page)).username, 'the clash is shown on the user name');
        await formModal(page).locator('.ant-modal-footer .ant-btn:not(.ant-btn-primary)').click();
        await formModal(page).waitFor({ state: 'detached' });
      },
    },
    {
      name: 'two users created, the edit needs exactly one, both deleted in one batch',
      run: async () => {
        const names: string[] = [];
        for (const suffix of ['a', 'b']) {
          await page.getByTestId('entity-add').click();
          await formModal(page).waitFor();
          await fillRequired(page, entity('sysuser'));
          const name = `batch_${Date.now() % 100_000}${suffix}`;
          await formModal(page).locator('#root_username').fill(name);
          await formModal(page).locator('.ant-modal-title').click();
          await saveForm(page);
          names.push(name);
        }
        await filterBy(page, 'username', 'batch_');
        for (const name of names) await checkRow(page, name);
        await page.getByTestId('entity-edit').click();
        await expectWarning(page, '只能勾选一条记录！');
        await deleteChecked(page, /确定删除这些记录吗/);
        for (const name of names) await rowWith(page, name).waitFor({ state: 'detached' });
        await resetFilters(page);
      },
    },
  ];

  for (const name of [
    'sysuser',
    'sysrole',
    'sysurl',
    'syspost',
    'sysmenu',
    'sysorg',
    'sysdict',
    'sysregion',
    'sysparam',
    'notification',
    'appclient',
    'systenant',
    'notice',
    'homepicture',
    'purchase',
    'idleequipment',
  ]) {
    checks.push({
      name: `${name}: list, refuse, create, filter, edit, export, delete`,
      run: () => entityRound(page, server, entity(name), screenshots),
    });
  }
  checks.push({
    name: 'closes the browser context',
    run: async () => {
      await context?.close();
    },
  });
  return checks;
}
