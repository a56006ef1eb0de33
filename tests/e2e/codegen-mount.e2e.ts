import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import { exportRows, filterBy, formModal, resetFilters, saveForm, untilStill } from './entity-driver.js';
import { onServer, SERVER_URL } from './scratch-database.js';
import { signedIn, startServer, type Check, type E2eContext, type RunningServer } from './support.js';

/**
 * Issues 15 and 35, a generated module mounted in the running back-office in one step: in a copy
 * of the project, `npm run gen:mount` writes the module for a schema the project does not have
 * into src/modules/ (bringing its schema), the copy is built and its server started on a fresh
 * PostgreSQL database: the server adds the module's menu with its per-action buttons (no menu.sql
 * run by hand) and serves the entity. The module's own list (not the engine's screen) opens from
 * the menu; it filters, sorts, exports and edits a record through the engine's form.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

const GIZMO = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: '小工具',
  type: 'object',
  'x-entity': { api: 'shop/gizmo', table: 'shop_gizmo', key: 'id', label: 'gizmoName', tenant: true },
  required: ['gizmoName'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer', title: '编号', readOnly: true },
    gizmoName: { type: 'string', title: '名称', maxLength: 40 },
    price: { type: 'number', title: '单价', minimum: 0 },
    status: { type: 'string', title: '状态', enum: ['on', 'off'], 'x-list': { filter: 'select' } },
    madeOn: { type: 'string', format: 'date', title: '出厂日期' },
    isActive: { type: 'boolean', title: '启用' },
  },
};

/** The project's tracked files (not its tests or benches) copied under `to`, node_modules linked. */
function copyProject(to: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(
      (file) => file && file !== 'node_modules' && !file.startsWith('tests/') && !file.startsWith('bench/'),
    );
  for (const file of files) {
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(to, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(to, 'node_modules'));
}

export function checks({ browser, screenshots }: E2eContext): Check[] {
  const suffix = randomBytes(5).toString('hex');
  const database = `ecobid_e2e_mount_${suffix}`;
  const adminDatabase = new URL(SERVER_URL).pathname.slice(1) || 'postgres';
  const tree = join(ROOT, '.tmp', `e2e-mount-${suffix}`);
  let server: RunningServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  const shot = (name: string) => page.screenshot({ path: `${screenshots}/codegen-mount-${name}.png` });
  const card = () => page.getByTestId('generated-list');
  const GIZMOS = ['螺丝刀', '扳手', '钳子', '活动扳手'];
  /** The gizmos of the table's rows, in row order. */
  const names = async (): Promise<string[]> =>
    (await card().locator('tr.ant-table-row').allInnerTexts()).map(
      (text) => [...GIZMOS].reverse().find((name) => text.includes(name)) ?? text,
    );
  /** Waits until the rows show these gizmos in this order. */
  const untilRows = async (expected: string[]): Promise<void> => {
    for (let tries = 0; ; tries += 1) {
      const shown = await names();
      if (shown.join(',') === expected.join(',')) return;
      assert.ok(tries < 100, `rows ${shown.join(',')}, expected ${expected.join(',')}`);
      await page.waitForTimeout(100);
    }
  };

  return [
    {
      name: 'npm run gen:mount writes a module into src/modules/ of a copy of the project; it builds as a lazy chunk of its own',
      run: async () => {
        copyProject(tree);
        // A schema the project does not have: the module brings it (its schemas/ folder).
        const schemaFile = join(tree, '.tmp', 'gizmo.schema.json');
        mkdirSync(dirname(schemaFile), { recursive: true });
        writeFileSync(schemaFile, JSON.stringify(GIZMO, null, 2));
        const mounted = await run(
          process.execPath,
          ['--import', 'tsx', 'generators/cli.ts', '--mount', schemaFile, '--package', 'shop'],
          { cwd: tree, timeout: 300_000 },
        );
        assert.match(mounted.stdout, /new\s+shop\/gizmo\/GizmoList\.tsx/);
        assert.ok(
          readFileSync(join(tree, 'src', 'modules', 'shop', 'gizmo', 'schemas', 'gizmo.schema.json'), 'utf8'),
        );
        await run(join(ROOT, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'warn'], {
          cwd: tree,
          timeout: 600_000,
        });
        const manifest = JSON.parse(
          readFileSync(join(tree, 'dist', 'web', '.vite', 'manifest.json'), 'utf8'),
        ) as Record<string, { file: string; isDynamicEntry?: boolean; imports?: string[] }>;
        const listKey = 'modules/shop/gizmo/GizmoList.tsx';
        const list = manifest[listKey];
        assert.ok(list?.isDynamicEntry, 'the generated list is a lazily loaded chunk');
        // The back-office's first load (the scripts of its page and what they import statically)
        // leaves it out. The page's entry may sit in a boot chunk of its own, so start from the page.
        const adminPage = readFileSync(join(tree, 'dist', 'web', 'admin', 'index.html'), 'utf8');
        const firstFiles = new Set(
          [...adminPage.matchAll(/"\/(assets\/[^"]+\.js)"/g)].map((match) => match[1]),
        );
        assert.ok(firstFiles.size > 0, 'the admin page names its scripts');
        const firstLoad = new Set<string>();
        const visit = (key: string): void => {
          if (firstLoad.has(key)) return;
          firstLoad.add(key);
          for (const imported of manifest[key]?.imports ?? []) visit(imported);
        };
        for (const [key, chunk] of Object.entries(manifest)) if (firstFiles.has(chunk.file)) visit(key);
        assert.ok(firstLoad.size >= firstFiles.size, [...firstFiles].join(', '));
        assert.ok(!firstLoad.has(listKey), 'the generated list is not in the first load');
        assert.ok(![...firstLoad].some((key) => manifest[key]?.file === list.file));
      },
    },
    {
      name: "the copy's server starts on a fresh database and adds the module's menu with its buttons itself",
      run: async () => {
        await onServer(adminDatabase, (client) => client.query(`create database ${database}`));
        const url = new URL(SERVER_URL);
        url.pathname = `/${database}`;
        server = await startServer({ DATABASE_URL: url.toString() }, { cwd: tree });
        const menus = await onServer(
          database,
          async (client) =>
            (
              await client.query(
                `select menu_component, menu_button from sys_menu where menu_code = 'shop_gizmo'`,
              )
            ).rows,
        );
        assert.deepEqual(menus, [
          { menu_component: 'shop/gizmo', menu_button: ['add', 'update', 'delete', 'export'] },
        ]);
        // Three gizmos to filter and sort.
        await onServer(database, (client) =>
          client.query(`insert into shop_gizmo (tenant_code, gizmo_name, price, status, made_on, is_active)
            values ('default', '螺丝刀', 30, 'on', '2024-05-01', true),
                   ('default', '扳手', 12.5, 'off', '2024-06-02', false),
                   ('default', '钳子', 20, 'on', '2024-07-03', true)`),
        );
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
        }));
      },
    },
    {
      name: 'the generated list opens from the menu with dictionary-style tags and dates; it filters and sorts',
      run: async () => {
        assert.ok(server);
        const sidebar = page.locator('.ant-layout-sider, aside').first();
        await sidebar.getByText('小工具', { exact: true }).click();
        await page.waitForURL(/\/admin\/shop\/gizmo$/);
        // The generated page (its card), not the engine's list screen.
        await card().locator('tr.ant-table-row').first().waitFor();
        assert.equal(await page.locator('.entity-list').count(), 0, 'not the engine list');
        assert.equal((await names()).length, 3);
        // an enum as a tag, a date as YYYY-MM-DD
        assert.match(
          (await card().locator('tr.ant-table-row').filter({ hasText: '扳手' }).innerText()) ?? '',
          /2024-06-02/,
        );
        await shot('list');
        await expectNoAxeViolations(page, '生成的列表');

        await filterBy(page, 'gizmoName', '钳');
        await untilRows(['钳子']);
        await shot('filtered');
        await resetFilters(page);
        await card().locator('tr.ant-table-row').nth(2).waitFor();

        // 单价 ascending, then descending
        const priceHeader = card().getByRole('columnheader', { name: '单价' });
        await priceHeader.click();
        await untilRows(['扳手', '钳子', '螺丝刀']);
        await priceHeader.click();
        await untilRows(['螺丝刀', '钳子', '扳手']);
        await shot('sorted');
      },
    },
    {
      name: 'it exports the filtered rows and edits a record through the engine form',
      run: async () => {
        await filterBy(page, 'gizmoName', '扳');
        await untilRows(['扳手']);
        const file = await exportRows(page);
        assert.match(file.fileName, /\.xlsx$/);
        assert.ok(file.rows[0]?.includes('名称'), file.rows[0]?.join(', '));
        assert.equal(file.rows.length, 2, JSON.stringify(file.rows));
        assert.ok(file.rows[1]?.includes('扳手'), file.rows[1]?.join(', '));

        await card()
          .getByRole('button', { name: /编\s*辑 扳手/ })
          .click();
        await untilStill(formModal(page));
        const input = formModal(page).locator('#root_gizmoName');
        assert.equal(await input.inputValue(), '扳手');
        await input.fill('活动扳手');
        await shot('form');
        await expectNoAxeViolations(page, '生成模块的表单');
        await saveForm(page);
        await resetFilters(page);
        await card().locator('tr.ant-table-row').filter({ hasText: '活动扳手' }).waitFor();
        await shot('edited');
        const stored = await onServer(
          database,
          async (client) =>
            (await client.query(`select gizmo_name, price, updated_by from shop_gizmo where price = 12.5`))
              .rows,
        );
        assert.deepEqual(stored, [{ gizmo_name: '活动扳手', price: 12.5, updated_by: 'admin' }]);
      },
    },
    {
      name: 'its server stops, its database is dropped and the copy removed',
      run: async () => {
        await context?.close();
        await server?.stop();
        await onServer(adminDatabase, (client) =>
          client.query(`drop database if exists ${database} with (force)`),
        );
        rmSync(tree, { recursive: true, force: true });
      },
    },
  ];
}
