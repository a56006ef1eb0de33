import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { networkQuiet, newContext, passwordToken, type Check, type E2eContext } from './support.js';

/** Issue 4 and 6 budgets: first-load JavaScript, gzip. */
const ADMIN_BUDGET_KB = 600;
const PORTAL_BUDGET_KB = 150;

interface Loaded {
  /** Gzipped kilobytes of every script the page loaded, by file. */
  files: Map<string, number>;
  totalKb: number;
}

/**
 * Opens a page in a fresh browser and adds up the JavaScript it loads until the network is idle,
 * each file gzipped here (the server sends them uncompressed; a front proxy compresses).
 */
async function firstLoad(
  browser: Browser,
  url: string,
  ready: string,
  cookie?: { name: string; value: string },
): Promise<Loaded> {
  const context = await newContext(browser);
  if (cookie) await context.addCookies([{ ...cookie, url }]);
  const page = await context.newPage();
  const pending: Promise<void>[] = [];
  const files = new Map<string, number>();
  page.on('response', (response) => {
    if (response.request().resourceType() !== 'script') return;
    pending.push(
      response.body().then(
        (body) => void files.set(new URL(response.url()).pathname, gzipSync(body).length / 1024),
        () => undefined,
      ),
    );
  });
  await page.goto(url);
  await page.locator(ready).first().waitFor();
  await networkQuiet(page);
  await Promise.all(pending);
  await context.close();
  const totalKb = [...files.values()].reduce((sum, size) => sum + size, 0);
  return { files, totalKb };
}

/** The build the server serves: dist/web, its Vite manifest and pages. */
const WEB = fileURLToPath(new URL('../../dist/web/', import.meta.url));

type Manifest = Record<string, { file: string; isDynamicEntry?: boolean; imports?: string[] }>;

/** The manifest keys of a page's first load: the scripts the page names and what they import statically. */
function firstLoadOf(manifest: Manifest, page: string): Set<string> {
  const html = readFileSync(join(WEB, page), 'utf8');
  const scripts = new Set([...html.matchAll(/"\/(assets\/[^"]+\.js)"/g)].map((match) => match[1]));
  assert.ok(scripts.size > 0, `${page} names its scripts`);
  const loaded = new Set<string>();
  const visit = (key: string): void => {
    if (loaded.has(key)) return;
    loaded.add(key);
    for (const imported of manifest[key]?.imports ?? []) visit(imported);
  };
  for (const [key, chunk] of Object.entries(manifest)) if (scripts.has(chunk.file)) visit(key);
  return loaded;
}

/**
 * A text each library's code carries through minification (one of its error messages): where it
 * is found, the library's code is. The check fails if a message is found nowhere (a new version
 * reworded it) rather than passing on nothing.
 */
const LAZY_LIBRARIES: Record<string, string> = {
  'highlight.js': 'beforeMatch cannot be used with starts',
  '@codemirror/state': 'Unrecognized extension value in extension set',
  '@codemirror/view': 'Block decorations may not be specified via plugins',
};

const kb = (value: number): string => `${value.toFixed(1)} KB`;
const chartsKb = (loaded: Loaded): number =>
  [...loaded.files].filter(([name]) => /\/charts-/.test(name)).reduce((sum, [, size]) => sum + size, 0);

export function checks({ server, browser }: E2eContext): Check[] {
  return [
    {
      name: 'the code preview highlighter (highlight.js) and the template editor (CodeMirror) are dynamic chunks, not in any first load',
      run: async () => {
        const manifest = JSON.parse(readFileSync(join(WEB, '.vite', 'manifest.json'), 'utf8')) as Manifest;
        const firstLoads = {
          admin: firstLoadOf(manifest, 'admin/index.html'),
          portal: firstLoadOf(manifest, 'index.html'),
        };
        /** A dynamic entry and what it imports statically: the chunks that come with it. */
        const withImports = (key: string): Set<string> => {
          const found = new Set<string>();
          const visit = (at: string): void => {
            if (found.has(at)) return;
            found.add(at);
            for (const imported of manifest[at]?.imports ?? []) visit(imported);
          };
          visit(key);
          return found;
        };
        const highlighter = 'admin/features/generator/highlight.ts';
        const editor = 'admin/features/generator/TemplateEditor.tsx';
        for (const key of [highlighter, editor]) {
          assert.ok(manifest[key]?.isDynamicEntry, `${key} is loaded by a dynamic import`);
          for (const [name, loaded] of Object.entries(firstLoads))
            assert.ok(!loaded.has(key), `${key} is not in the ${name} first load`);
        }
        for (const [library, signature] of Object.entries(LAZY_LIBRARIES)) {
          const holders = Object.entries(manifest)
            .filter(([, chunk]) => chunk.file.endsWith('.js'))
            .filter(([, chunk]) => readFileSync(join(WEB, chunk.file), 'utf8').includes(signature))
            .map(([key]) => key);
          assert.ok(holders.length > 0, `${library}'s code is found in the build`);
          for (const key of holders)
            for (const [name, loaded] of Object.entries(firstLoads))
              assert.ok(!loaded.has(key), `${library} (${manifest[key]?.file}) is in the ${name} first load`);
          // and it comes with the screen that uses it
          const user = library === 'highlight.js' ? highlighter : editor;
          assert.ok(
            holders.some((key) => withImports(user).has(key)),
            `${library} comes with ${user}: ${holders.join(', ')}`,
          );
        }
        console.log(
          `    highlight.js in ${manifest[highlighter]?.file}; CodeMirror with ${manifest[editor]?.file}`,
        );
      },
    },
    {
      name: `portal first-load JavaScript (home) is at most ${PORTAL_BUDGET_KB} KB gzip, without admin libraries`,
      run: async () => {
        const home = await firstLoad(browser, `${server.url}/ecobid`, '.portal-footer');
        console.log(`    portal home: ${kb(home.totalKb)} gzip in ${home.files.size} scripts`);
        assert.ok(home.totalKb <= PORTAL_BUDGET_KB, kb(home.totalKb));
        for (const name of home.files.keys())
          assert.doesNotMatch(name, /refine|rjsf|bpmn|echarts|charts-|qrcode/i);
      },
    },
    {
      name: `admin first-load JavaScript (sign-in page, workbench) is at most ${ADMIN_BUDGET_KB} KB gzip; echarts comes on demand`,
      run: async () => {
        const login = await firstLoad(browser, `${server.url}/admin/login`, '[data-testid="login-form"]');
        const token = await passwordToken(server.url, 'admin', server.adminPassword);
        const workbench = await firstLoad(
          browser,
          `${server.url}/admin/workbench`,
          '[data-testid="chart-counts"] canvas',
          { name: 'token', value: token },
        );
        const charts = chartsKb(workbench);
        console.log(
          `    admin sign-in page: ${kb(login.totalKb)}; workbench: ${kb(workbench.totalKb - charts)}` +
            ` + echarts chunk ${kb(charts)} loaded after first paint (gzip)`,
        );
        assert.ok(login.totalKb <= ADMIN_BUDGET_KB, kb(login.totalKb));
        assert.ok(workbench.totalKb - charts <= ADMIN_BUDGET_KB, kb(workbench.totalKb - charts));
        assert.equal(chartsKb(login), 0, 'the sign-in page loads no echarts');
      },
    },
  ];
}
