import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { entityRound } from './crud.e2e.js';
import { serverEntities } from './entity-driver.js';
import {
  newContext,
  signIn,
  startServer,
  type Check,
  type E2eContext,
  type RunningServer,
} from './support.js';

/**
 * The promise of the framework, end to end: the schema of the README's "Add an entity in one
 * file" is dropped into a copy of schemas/, the server started on it, and the new entity is in
 * the menu and works on its generated screens, with no code changed.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The first JSON block of the README's "Add an entity in one file" section. */
function readmeSchema(): { name: string; json: string } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Add an entity in one file'));
  const json = /```json\n([\s\S]*?)```/.exec(section)?.[1];
  const file = /`schemas\/([a-z0-9]+)\.schema\.json`/.exec(section)?.[1];
  assert.ok(json && file, 'the README shows a schema and its file name');
  return { name: file, json };
}

export function checks({ browser, screenshots }: E2eContext): Check[] {
  let server: RunningServer | undefined;
  let context: BrowserContext | undefined;
  let schemasDir = '';
  const { name, json } = readmeSchema();

  return [
    {
      name: "the README's schema is dropped into a copy of schemas/ and the server started on it",
      run: async () => {
        schemasDir = mkdtempSync(join(tmpdir(), 'ecobid-dropin-'));
        cpSync(join(ROOT, 'schemas'), schemasDir, { recursive: true });
        writeFileSync(join(schemasDir, `${name}.schema.json`), json);
        server = await startServer({ SCHEMAS_DIR: schemasDir });
      },
    },
    {
      name: 'the new entity is in the menu of ROLE_ADMIN and works on its generated screens',
      run: async () => {
        assert.ok(server);
        context = await newContext(browser, { acceptDownloads: true });
        const page = await context.newPage();
        await signIn(page, server);
        const entity = (await serverEntities(page, server.url)).get(name);
        assert.ok(entity, `the server knows ${name}`);
        // found in the sidebar under its parent menu, opened from there
        const sidebar = page.locator('.ant-layout-sider, aside').first();
        await sidebar.getByText('系统管理', { exact: true }).click();
        await sidebar.getByText(entity.title, { exact: true }).click();
        await page.waitForURL(new RegExp(`/admin/${name}$`));
        await page.screenshot({ path: `${screenshots}/dropin-list.png` });
        await entityRound(page, server, entity, screenshots);
      },
    },
    {
      name: 'stops the server on the dropped-in schema',
      run: async () => {
        await context?.close();
        await server?.stop();
        rmSync(schemasDir, { recursive: true, force: true });
      },
    },
  ];
}
