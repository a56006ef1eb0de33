import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GeneratorInput } from '../../generators/model.js';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const TEMPLATES_DIR = join(PROJECT_ROOT, 'generators', 'templates');

/** An entity of schemas/ or of the test fixtures, as the generator takes it. */
export function entityInput(name: string): GeneratorInput {
  const fixtures: Record<string, string> = {
    gadget: join(PROJECT_ROOT, 'tests', 'generators', 'fixtures', 'gadget.schema.json'),
    // The engine's test-only master-detail entity (x-detail).
    bizorder: join(PROJECT_ROOT, 'tests', 'fixtures', 'schemas', 'bizorder.schema.json'),
    // Master-detail whose lines are an adopted existing table (x-detail.parentColumn order_id, seq null).
    legacyorder: join(PROJECT_ROOT, 'tests', 'generators', 'fixtures', 'legacyorder.schema.json'),
  };
  const file = fixtures[name] ?? join(PROJECT_ROOT, 'schemas', `${name}.schema.json`);
  return { name, schema: JSON.parse(readFileSync(file, 'utf8')) as unknown };
}
