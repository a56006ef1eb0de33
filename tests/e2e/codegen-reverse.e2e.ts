import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import { onServer, SERVER_URL } from './scratch-database.js';
import { formModal, rowWith, saveForm } from './entity-driver.js';
import {
  apiClient,
  signedIn,
  startServer,
  type Check,
  type E2eContext,
  type RunningServer,
} from './support.js';

/**
 * Issue 15, reverse generation in the browser: a table made by the test (PostgreSQL types the
 * engine would not choose: serial, varchar, numeric, char, Chinese comments) is listed, turned
 * into a schema, adopted (the preview first: nothing added unless opted in), opened in the
 * form designer, published, and its existing rows shown and added to through the engine's list
 * and form; a table referring to it is adopted as its lines (kept as it is) and edited on its
 * form. The tables are made with SQL, so this runs a server of its own on a fresh PostgreSQL
 * database (TEST_DATABASE_URL, the local one by default), dropped at the end.
 */
const TABLE = 'e2e_legacy_goods';
const CODE = 'e2elegacygoods';
/** A legacy child table (goods_id → e2e_legacy_goods.id, no seq, no tenant_code): adopted as the goods' lines. */
const LINES = 'e2e_legacy_goods_stock';

const columnTypes = (database: string, table = TABLE): Promise<Record<string, string>> =>
  onServer(database, async (client) =>
    Object.fromEntries(
      (
        await client.query<{ column_name: string; data_type: string }>(
          `select column_name, data_type from information_schema.columns where table_name = $1`,
          [table],
        )
      ).rows.map((row) => [row.column_name, row.data_type]),
    ),
  );

export function checks({ browser, screenshots }: E2eContext): Check[] {
  const database = `ecobid_e2e_${randomBytes(5).toString('hex')}`;
  const adminDatabase = new URL(SERVER_URL).pathname.slice(1) || 'postgres';
  let server: RunningServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let original: Record<string, string> = {};
  let originalLines: Record<string, string> = {};
  const url = (path: string): string => `${server?.url ?? ''}/admin${path}`;
  const shot = (name: string) => page.screenshot({ path: `${screenshots}/codegen-${name}.png` });

  return [
    {
      name: 'reverse generator lists a table the test made and shows its schema with the Chinese titles',
      run: async () => {
        await onServer(adminDatabase, (client) => client.query(`create database ${database}`));
        await onServer(database, async (client) => {
          await client.query(`create table ${TABLE} (
            id serial primary key,
            goods_name varchar(40) not null,
            goods_code char(6),
            price numeric(10,2),
            qty integer not null default 0,
            note text
          )`);
          await client.query(`comment on table ${TABLE} is '旧商品（迁移前的商品表）'`);
          await client.query(`comment on column ${TABLE}.goods_name is '商品名称'`);
          await client.query(`comment on column ${TABLE}.price is '单价（元）'`);
          await client.query(
            `insert into ${TABLE} (goods_name, goods_code, price, qty) values ('旧货一号', 'A00001', 12.5, 3)`,
          );
          await client.query(`create table ${LINES} (
            id serial primary key,
            goods_id integer not null references ${TABLE} (id),
            warehouse varchar(20) not null,
            amount integer
          )`);
          await client.query(`comment on table ${LINES} is '库存明细'`);
          await client.query(`comment on column ${LINES}.warehouse is '仓库'`);
          await client.query(`comment on column ${LINES}.amount is '数量'`);
          await client.query(
            `insert into ${LINES} (goods_id, warehouse, amount) values (1, '北仓', 5), (1, '南仓', 2)`,
          );
        });
        original = await columnTypes(database);
        originalLines = await columnTypes(database, LINES);
        const url = new URL(SERVER_URL);
        url.pathname = `/${database}`;
        server = await startServer({ DATABASE_URL: url.toString() });
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
        }));
        await page.goto(`${server.url}/admin/codegenerator/reversegenerator`);
        // The lines' table's name starts with this one's: the row is the one whose cell is exactly it.
        const row = page
          .getByTestId('reverse-tables')
          .locator('tr.ant-table-row')
          .filter({ has: page.getByText(TABLE, { exact: true }) });
        await row.getByText('旧商品（迁移前的商品表）').waitFor();
        await expectNoAxeViolations(page, '逆向生成');
        await row.getByRole('button').click();
        const schema = page.getByTestId('reverse-schema');
        await schema.getByText(/"adopt": true/).waitFor();
        const text = (await schema.textContent()) ?? '';
        assert.match(text, /"title": "旧商品"/);
        assert.match(text, /"title": "商品名称"/);
        assert.match(text, /"title": "单价"/);
        assert.match(text, /"maxLength": 40/);
        // The table referring to it is not made its lines here: a sub-table only when the admin
        // chooses it in the adoption preview.
        assert.doesNotMatch(text, /parentColumn|库存明细/);
        await shot('reverse-schema');
        await expectNoAxeViolations(page, '逆向生成 Schema');
      },
    },
    {
      name: 'adopting shows the statements first, then makes the draft form and opens it in the designer',
      run: async () => {
        await page.getByTestId('reverse-adopt').click();
        // By default nothing is added and the referring table is only offered as a sub-table.
        await page.getByText('不会对表做任何修改。').waitFor();
        const lines = page.getByTestId('reverse-adopt-details').getByText(LINES, { exact: false });
        await lines.waitFor();
        assert.equal(await page.getByTestId('reverse-adopt-details').locator('input:checked').count(), 0);
        // The admin chooses the lines as a sub-table, the version column and one list index.
        await lines.click();
        await page.getByText(`已选子表（表结构不做任何改动）：${LINES}`).waitFor();
        await page
          .getByTestId('reverse-adopt-addColumns')
          .getByRole('row', { name: /version/ })
          .locator('input[type=checkbox]')
          .click();
        await page.getByTestId('reverse-adopt-indexes').locator('tbody input[type=checkbox]').first().click();
        const sql = page.getByTestId('reverse-adopt-sql');
        await sql.getByText(/add column "version"/).waitFor();
        await sql.getByText(/create index/).waitFor();
        const statements = (await sql.textContent()) ?? '';
        // Only what was opted into: no other column, never a change to an existing one.
        assert.doesNotMatch(statements, /tenant_code|created_at|alter column|drop|unique|foreign key/);
        // The lines' table is adopted with it and gets no statement.
        assert.doesNotMatch(statements, new RegExp(LINES));
        // The dialog has finished its opening animation before the screenshot.
        await page.waitForFunction(
          () => document.querySelector('.ant-zoom-appear, .ant-zoom-enter') === null,
        );
        assert.match(statements, /create index concurrently if not exists "e2e_legacy_goods_/);
        await shot('reverse-adopt');
        await expectNoAxeViolations(page, '接管表');
        // Nothing has changed before the confirmation.
        assert.deepEqual(await columnTypes(database), original);
        await page.locator('.ant-modal-footer .ant-btn-primary').click();
        await page.waitForURL(/\/admin\/formdesign\?id=\d+$/);
        await page.getByTestId('node-goodsName').waitFor();
        await page.getByTestId('node-price').waitFor();
        await shot('reverse-designer');
        const adopted = await columnTypes(database);
        for (const [column, type] of Object.entries(original)) assert.equal(adopted[column], type, column);
        assert.equal(adopted.version, 'integer');
        assert.deepEqual(await columnTypes(database, LINES), originalLines);
      },
    },
    {
      name: 'an adopted table is listed as 已接管 with a link to its draft, and adopting it again is refused by name',
      run: async () => {
        assert.ok(server);
        const designer = page.url();
        await page.goto(`${server.url}/admin/codegenerator/reversegenerator`);
        const mark = page.getByTestId(`reverse-adopted-${TABLE}`);
        await mark.getByText('已接管', { exact: true }).waitFor();
        await expectNoAxeViolations(page, '逆向生成（已接管）');
        await shot('reverse-adopted-mark');
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const again = await fetch(`${server.url}/api/generator/reverse/adopt`, {
          method: 'POST',
          headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ tableName: TABLE, confirm: false }),
        });
        assert.equal(again.status, 409);
        assert.match(
          ((await again.json()) as { message: string }).message,
          new RegExp(`已被表单 ${CODE} 接管`),
        );
        await mark.getByRole('button', { name: '在表单设计器中打开' }).click();
        await page.waitForURL(designer);
        await page.getByTestId('node-goodsName').waitFor();
      },
    },
    {
      name: 'the published adopted table shows its old rows and takes new ones through the engine list and form',
      run: async () => {
        assert.ok(server);
        const formId = Number(new URL(page.url()).searchParams.get('id'));
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        await admin.post('/api/generator/form/publish', {
          id: formId,
          menuParent: 'formgenerator',
          roles: ['ROLE_ADMIN'],
        });
        await page.goto(url(`/online/${CODE}`));
        await rowWith(page, '旧货一号').waitFor();
        await page.getByTestId('entity-add').click();
        const modal = formModal(page);
        await modal.locator('#root_goodsName').fill('新货二号');
        await modal.locator('#root_price').fill('8.25');
        await modal.locator('.ant-modal-title').click();
        await expectNoAxeViolations(page, '接管表的表单');
        await shot('reverse-adopted-form');
        await saveForm(page);
        await rowWith(page, '新货二号').waitFor();
        await expectNoAxeViolations(page, '接管表的列表');
        await shot('reverse-adopted-list');
        assert.deepEqual(
          await onServer(
            database,
            async (client) =>
              (await client.query(`select goods_name, price::text from ${TABLE} order by id`)).rows,
          ),
          [
            { goods_name: '旧货一号', price: '12.50' },
            { goods_name: '新货二号', price: '8.25' },
          ],
        );
        const after = await columnTypes(database);
        for (const [column, type] of Object.entries(original)) assert.equal(after[column], type, column);
      },
    },
    {
      name: 'the adopted table shows its legacy lines on its form, in key order, and saves them back into the legacy table',
      run: async () => {
        assert.ok(server);
        await rowWith(page, '旧货一号').first().locator('.ant-checkbox-input').check();
        await page.getByTestId('entity-edit').click();
        const edit = formModal(page);
        await edit.getByLabel('第 2 行 仓库').waitFor();
        assert.equal(await edit.getByLabel('第 1 行 仓库').inputValue(), '北仓');
        assert.equal(await edit.getByLabel('第 2 行 仓库').inputValue(), '南仓');
        assert.equal(await edit.getByLabel('第 1 行 数量').inputValue(), '5');
        await edit.getByRole('button', { name: '添加一行' }).click();
        await edit.getByLabel('第 3 行 仓库').fill('东仓');
        await edit.getByLabel('第 3 行 数量').fill('7');
        await edit.locator('.ant-modal-title').click();
        await expectNoAxeViolations(page, '接管表的明细');
        await shot('reverse-adopted-lines');
        await saveForm(page);
        assert.deepEqual(
          await onServer(
            database,
            async (client) =>
              (await client.query(`select warehouse, amount from ${LINES} where goods_id = 1 order by id`))
                .rows,
          ),
          [
            { warehouse: '北仓', amount: 5 },
            { warehouse: '南仓', amount: 2 },
            { warehouse: '东仓', amount: 7 },
          ],
        );
        assert.deepEqual(await columnTypes(database, LINES), originalLines);
      },
    },
    {
      name: 'its own server stops and its database is dropped',
      run: async () => {
        await context?.close();
        await server?.stop();
        await onServer(adminDatabase, (client) =>
          client.query(`drop database if exists ${database} with (force)`),
        );
      },
    },
  ];
}
