import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { builtInTemplates, generateForward } from '../../generators/forward.js';
import { srcRootFrom, writeGenerated } from '../../generators/write.js';
import { entityInput, PROJECT_ROOT, TEMPLATES_DIR } from './support.js';

const run = promisify(execFile);

/**
 * The generated module placed in the project: it must compile under the project's strict
 * tsconfig and its own tests must pass (a tree entity, a portal entity, one with every field
 * type the generator maps, a master-detail one whose rows live in a child table, and one whose
 * rows live in an adopted existing table: x-detail.parentColumn, no position column).
 */
describe('a generated module compiles and passes its own tests', () => {
  const out = join(PROJECT_ROOT, '.tmp', `codegen-${randomBytes(4).toString('hex')}`);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('tsc --noEmit and vitest run on the generated files', async () => {
    const packageName = 'shop';
    const files = await generateForward(
      {
        serviceName: 'shop',
        packageName,
        srcRoot: srcRootFrom(out, packageName, PROJECT_ROOT),
        entities: ['sysregion', 'purchase', 'gadget', 'bizorder', 'legacyorder'].map(entityInput),
      },
      builtInTemplates(TEMPLATES_DIR),
    );
    mkdirSync(out, { recursive: true });
    const report = writeGenerated(out, files);
    expect(report.every((entry) => entry.outcome === 'new')).toBe(true);
    writeFileSync(
      join(out, 'tsconfig.json'),
      JSON.stringify({
        extends: '../../tsconfig.json',
        include: ['.', '../../src/admin/vite-env.d.ts', '../../src/server/types.d.ts'],
      }),
    );
    writeFileSync(
      join(out, 'vitest.config.ts'),
      "import { defineConfig } from 'vitest/config';\n" +
        "export default defineConfig({ test: { include: ['**/*.test.ts'], testTimeout: 60_000, hookTimeout: 120_000, maxWorkers: 1 } });\n",
    );
    const bin = (name: string): string => join(PROJECT_ROOT, 'node_modules', '.bin', name);
    const compiled = await run(bin('tsc'), ['--noEmit', '-p', join(out, 'tsconfig.json')], {
      cwd: PROJECT_ROOT,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error), failed: true }));
    expect('failed' in compiled ? compiled.stdout : '').toBe('');

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
    expect(tested.stdout).toMatch(/Test Files\s+5 passed \(5\)/);
    expect(tested.stdout).toMatch(/Tests\s+10 passed \(10\)/);
  }, 300_000);
});
