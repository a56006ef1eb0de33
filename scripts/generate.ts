// npm run gen: derives the committed artefacts from schemas/ and locales/ (TypeScript types, the OpenAPI
// document, the portal's Chinese texts). npm run gen:check regenerates them in memory and fails on any difference (drift).
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';
import { createSchemaOf, openApiDocument, recordSchemaOf, type EntityDef } from '../src/engine/index.js';
import { loadRegistry } from '../src/server/lib/registry.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const BANNER = '// Generated from schemas/ by `npm run gen`. Do not edit: change the schema and regenerate.';
const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

type JsonSchema = Parameters<typeof compile>[0];

/** Property titles would become named type aliases that clash across entities: keep them as doc comments. */
function documented(properties: Record<string, Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(properties).map(([name, { title: fieldTitle, ...rest }]) => {
      // Detail rows (x-detail): their columns' titles become doc comments too.
      const items = rest.items as Record<string, unknown> | undefined;
      const rows = items?.properties as Record<string, Record<string, unknown>> | undefined;
      const { title: _rowTitle, ...rowRest } = items ?? {};
      const field = rows ? { ...rest, items: { ...rowRest, properties: documented(rows) } } : rest;
      return [name, { ...field, description: fieldTitle }];
    }),
  );
}

function withoutPropertyTitles(schema: Record<string, unknown>, title: string): JsonSchema {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  return { ...schema, title, properties: documented(properties) } as JsonSchema;
}

async function typesOf(entity: EntityDef): Promise<string> {
  const options = { bannerComment: '', additionalProperties: false, format: true } as const;
  const recordName = `${pascal(entity.name)}Record`;
  const createName = `${pascal(entity.name)}Create`;
  const record = await compile(
    withoutPropertyTitles(recordSchemaOf(entity), recordName),
    recordName,
    options,
  );
  const input = await compile(withoutPropertyTitles(createSchemaOf(entity), createName), createName, options);
  return `${record.trim()}\n\n${input.trim()}\n`;
}

async function render(): Promise<Map<string, string>> {
  const registry = loadRegistry(join(root, 'schemas'));
  const entities = [...registry.all].sort((a, b) => a.name.localeCompare(b.name));
  const types = [BANNER, ''];
  for (const entity of entities) types.push(await typesOf(entity));
  types.push(
    `/** Record types by entity name. */\nexport interface EntityRecords {\n${entities.map((e) => `  ${e.name}: ${pascal(e.name)}Record;`).join('\n')}\n}\n`,
  );
  const document = openApiDocument(entities, {
    title: 'EcoBid generated API',
    version: '1',
    description: 'Generated from schemas/ by `npm run gen`. Do not edit.',
  } as { title: string; version: string });
  // The portal's Chinese texts on their own: imported from locales/zh.json, the portal's first
  // load would carry the whole file the back-office shares with it (every back-office text).
  const zh = JSON.parse(readFileSync(join(root, 'locales/zh.json'), 'utf8')) as { portal: unknown };
  return new Map([
    ['src/generated/entities.ts', types.join('\n')],
    ['src/generated/openapi.json', `${JSON.stringify(document, null, 2)}\n`],
    ['src/generated/portal-zh.json', `${JSON.stringify({ portal: zh.portal }, null, 2)}\n`],
  ]);
}

const isCheck = process.argv.includes('--check');
const files = await render();
const stale: string[] = [];
for (const [path, content] of files) {
  const full = join(root, path);
  const current = existsSync(full) ? readFileSync(full, 'utf8') : undefined;
  if (current === content) continue;
  if (isCheck) {
    stale.push(path);
  } else {
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
    console.log(`wrote ${path}`);
  }
}
if (isCheck && stale.length > 0) {
  console.error(
    `Generated files are out of date with schemas/ or locales/: ${stale.join(', ')}\nRun "npm run gen" and commit the result.`,
  );
  process.exit(1);
}
if (isCheck) console.log('Generated files match schemas/ and locales/.');
