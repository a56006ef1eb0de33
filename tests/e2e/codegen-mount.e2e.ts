import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { builtInTemplates, generateForward } from '../../generators/forward.js';
import { writeGenerated } from '../../generators/write.js';
import { expectNoAxeViolations } from './a11y.js';
import { untilStill } from './entity-driver.js';
import { onServer, SERVER_URL } from './scratch-database.js';
import { signedIn, startServer, type Check, type E2eContext, type RunningServer } from './support.js';

/**
 * Issue 15, a generated module mounted in the running back-office: the forward generator writes
 * a module for an entity into src/modules/ of a copy of the project (the schema beside it in the
 * copy's schemas/), the copy is built, its server started on a fresh PostgreSQL database, the
 * module's menu.sql run there, and the module's own list and form (not the engine's screens)
 * open from the menu: a record made through the generated form shows in the generated list.
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
  let menuSql = '';
  const shot = (name: string) => page.screenshot({ path: `${screenshots}/codegen-mount-${name}.png` });

  return [
    {
      name: 'a module generated into src/modules/ of a copy of the project builds as a lazy chunk of its own',
      run: async () => {
        copyProject(tree);
        writeFileSync(join(tree, 'schemas', 'gizmo.schema.json'), JSON.stringify(GIZMO, null, 2));
        const files = await generateForward(
          { serviceName: 'shop', packageName: 'shop', entities: [{ name: 'gizmo', schema: GIZMO }] },
          builtInTemplates(join(ROOT, 'generators', 'templates')),
        );
        const report = writeGenerated(join(tree, 'src', 'modules'), files);
        assert.ok(report.every((entry) => entry.outcome === 'new'));
        menuSql = files.find((file) => file.path === 'shop/gizmo/menu.sql')?.content ?? '';
        assert.match(menuSql, /'shop\/gizmo'/);
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
        const page = readFileSync(join(tree, 'dist', 'web', 'admin', 'index.html'), 'utf8');
        const firstFiles = new Set([...page.matchAll(/"\/(assets\/[^"]+\.js)"/g)].map((match) => match[1]));
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
      name: "the copy's server runs on a fresh database, and the module's menu.sql adds its menu",
      run: async () => {
        await onServer(adminDatabase, (client) => client.query(`create database ${database}`));
        const url = new URL(SERVER_URL);
        url.pathname = `/${database}`;
        server = await startServer({ DATABASE_URL: url.toString() }, { cwd: tree });
        // run twice: it adds the menu and the URL grant once
        await onServer(database, async (client) => {
          await client.query(menuSql);
          await client.query(menuSql);
        });
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
        }));
      },
    },
    {
      name: 'the generated list opens from the menu, and a record added through the generated form is listed',
      run: async () => {
        assert.ok(server);
        const sidebar = page.locator('.ant-layout-sider, aside').first();
        await sidebar.getByText('小工具', { exact: true }).click();
        await page.waitForURL(/\/admin\/shop\/gizmo$/);
        // The generated page's card (its title, its add button), not the engine's list.
        const card = page.locator('.admin-page').filter({ hasText: '小工具' });
        await card.getByRole('button', { name: /新\s*增/ }).waitFor();
        assert.equal(await page.getByTestId('entity-add').count(), 0, 'not the engine list');
        await shot('list-empty');
        await card.getByRole('button', { name: /新\s*增/ }).click();
        const modal = page.locator('.ant-modal').filter({ has: page.getByLabel('名称') });
        // the switch is clicked once the dialog stands still: a click while it zooms in can be lost
        await untilStill(modal);
        await modal.getByLabel('名称').fill('生成的小工具');
        await modal.getByLabel('单价').fill('12.5');
        await modal.getByRole('switch').click();
        await shot('form');
        await expectNoAxeViolations(page, '生成的表单');
        await modal.locator('.ant-modal-footer .ant-btn-primary').click();
        await modal.waitFor({ state: 'detached' });
        const row = card.locator('tr.ant-table-row').filter({ hasText: '生成的小工具' });
        await row.waitFor();
        assert.match((await row.textContent()) ?? '', /12\.5/);
        await shot('list');
        await expectNoAxeViolations(page, '生成的列表');
        const stored = await onServer(
          database,
          async (client) => (await client.query(`select gizmo_name, price, is_active from shop_gizmo`)).rows,
        );
        assert.deepEqual(stored, [{ gizmo_name: '生成的小工具', price: 12.5, is_active: true }]);
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
