import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { builtInTemplates, generateForward } from '../../generators/forward.js';
import type { GeneratorInput } from '../../generators/model.js';
import { srcRootFrom, writeGenerated } from '../../generators/write.js';
import { entityInput, PROJECT_ROOT, TEMPLATES_DIR } from './support.js';

const run = promisify(execFile);

/** Name shapes a real platform's tables have (issue 35): digits, underscores, Chinese titles, a tree, master-detail. */
const SHAPES_DIR = join(PROJECT_ROOT, 'tests', 'generators', 'fixtures', 'shapes');
const shape = (name: string): GeneratorInput => ({
  name,
  schema: JSON.parse(readFileSync(join(SHAPES_DIR, `${name}.schema.json`), 'utf8')) as unknown,
});
const SHAPES = [
  'yudaodemo01contact',
  'shopitemsku',
  'purchasecontract',
  'category',
  'systemdept',
  'shopnote',
];
const SCHEMAS = readdirSync(join(PROJECT_ROOT, 'schemas'))
  .filter((file) => file.endsWith('.schema.json'))
  .map((file) => file.replace(/\.schema\.json$/, ''));

const bin = (name: string): string => join(PROJECT_ROOT, 'node_modules', '.bin', name);

/** Runs a tool; its output when it fails, '' when it passes. */
async function failures(command: string, args: string[], cwd: string): Promise<string> {
  return run(command, args, { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } }).then(
    () => '',
    (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}\n${error.stderr ?? ''}`.trim(),
  );
}

/**
 * "Done when" point 1 of issue 35: a module for every entity of schemas/ and for each name shape
 * (digits followed by letters, underscores, Chinese titles, a tree, a master-detail pair), placed
 * in the project, passes the project's strict tsc, eslint and prettier --check as generated (one
 * run of each over all the modules), and every module passes its own tests (one vitest run over
 * all of them: the schemas/ entities' samples must satisfy their patterns, formats and lengths).
 */
describe('a module for every entity of schemas/ and every name shape', () => {
  const out = join(PROJECT_ROOT, '.tmp', `codegen-all-${randomBytes(4).toString('hex')}`);
  const packageName = 'gen';
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('compiles, lints and is formatted as generated; every module passes its own tests', async () => {
    const shapes = [...SHAPES.map(shape), entityInput('bizorder'), entityInput('legacyorder')];
    const files = await generateForward(
      {
        serviceName: 'gen',
        packageName,
        srcRoot: srcRootFrom(out, packageName, PROJECT_ROOT),
        entities: [...SCHEMAS.map(entityInput), ...shapes],
      },
      builtInTemplates(TEMPLATES_DIR),
    );
    // The master-detail pairs in the two other layouts (rows expanded inside the list, tabs below it).
    const layouts = ['inner', 'tab'] as const;
    for (const detailLayout of layouts)
      files.push(
        ...(await generateForward(
          {
            serviceName: 'gen',
            packageName: detailLayout,
            srcRoot: srcRootFrom(out, detailLayout, PROJECT_ROOT),
            entities: [entityInput('bizorder'), entityInput('legacyorder')],
            templateType: 'frontend',
            detailLayout,
          },
          builtInTemplates(TEMPLATES_DIR),
        )),
      );
    mkdirSync(out, { recursive: true });
    expect(writeGenerated(out, files).every((entry) => entry.outcome === 'new')).toBe(true);
    // The digit-then-letter name: one spelling in every file.
    const contact = files.filter((file) => file.path.startsWith('gen/yudaodemo01contact/'));
    expect(contact.find((file) => file.path.endsWith('types.ts'))?.content).toContain(
      'export interface Yudaodemo01contact {',
    );
    expect(contact.some((file) => /Yudaodemo01Contact/.test(file.content))).toBe(false);

    writeFileSync(
      join(out, 'tsconfig.json'),
      JSON.stringify({
        extends: '../../tsconfig.json',
        include: ['.', '../../src/admin/vite-env.d.ts', '../../src/server/types.d.ts'],
      }),
    );
    expect(await failures(bin('tsc'), ['--noEmit', '-p', join(out, 'tsconfig.json')], PROJECT_ROOT)).toBe('');
    // The project's own configuration; .tmp/ is ignored by it, so the ignores are lifted for the check.
    expect(await failures(bin('eslint'), ['--no-ignore', '--max-warnings', '0', out], PROJECT_ROOT)).toBe('');
    expect(
      await failures(
        bin('prettier'),
        [
          '--check',
          '--ignore-path',
          '.prettierignore',
          join(out, packageName),
          ...layouts.map((layout) => join(out, layout)),
        ],
        PROJECT_ROOT,
      ),
    ).toBe('');

    // One vitest run for all the modules, in one worker without isolation: each test file starts
    // its own PGlite, and a fresh module graph per file on top of that more than doubles the time.
    writeFileSync(
      join(out, 'vitest.config.ts'),
      "import { defineConfig } from 'vitest/config';\n" +
        'export default defineConfig({ test: { include: [' +
        [...SCHEMAS.map(entityInput), ...shapes].map((input) => `'gen/${input.name}/*.test.ts'`).join(', ') +
        '], testTimeout: 60_000, hookTimeout: 120_000, maxWorkers: 1, isolate: false } });\n',
    );
    const tested = await run(
      bin('vitest'),
      ['run', '--config', join(out, 'vitest.config.ts'), '--root', out],
      {
        cwd: out,
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      },
    ).catch((error: { stdout?: string; stderr?: string }) => ({
      stdout: `${error.stdout ?? ''}\n${error.stderr ?? ''}`,
      failed: true,
    }));
    expect('failed' in tested ? tested.stdout : '').toBe('');
    expect(tested.stdout).toMatch(new RegExp(`Test Files\\s+${SCHEMAS.length + shapes.length} passed`));
  }, 600_000);
});
