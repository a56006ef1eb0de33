import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { builtInTemplates, generateForward, TEMPLATE_TYPES, type TemplateType } from './forward.js';
import { srcRootFrom, writeGenerated } from './write.js';

/**
 * npm run generate -- <entity…> --out <dir> [--service <name>] [--package <name>] [--type backend|frontend|sql]
 *
 * An entity is a name of schemas/ (sysregion) or a path to a schema file. Files a person changed
 * outside their <custom> regions are listed and left as they are (exit code 2).
 */
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const USAGE =
  'usage: npm run generate -- <entity…> --out <dir> [--service <name>] [--package <name>] [--type backend|frontend|sql]';

function readEntity(argument: string): { name: string; schema: unknown } {
  const path = existsSync(argument) ? argument : join(projectRoot, 'schemas', `${argument}.schema.json`);
  if (!existsSync(path)) throw new Error(`no entity ${argument} (looked for ${path})`);
  return {
    name: basename(path).replace(/\.schema\.json$|\.json$/, ''),
    schema: JSON.parse(readFileSync(path, 'utf8')),
  };
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      service: { type: 'string', default: 'app' },
      package: { type: 'string' },
      type: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help || positionals.length === 0 || !values.out) {
    console.log(USAGE);
    return values.help ? 0 : 1;
  }
  const templateType = values.type as TemplateType | undefined;
  if (templateType && !TEMPLATE_TYPES.includes(templateType)) {
    console.error(`--type must be one of ${TEMPLATE_TYPES.join(', ')}`);
    return 1;
  }
  const packageName = values.package ?? values.service;
  const files = await generateForward(
    {
      entities: positionals.map(readEntity),
      serviceName: values.service,
      packageName,
      srcRoot: srcRootFrom(values.out, packageName, projectRoot),
      ...(templateType ? { templateType } : {}),
    },
    builtInTemplates(join(projectRoot, 'generators', 'templates')),
  );
  const report = writeGenerated(values.out, files);
  for (const entry of report) {
    const note =
      entry.reason === 'editedOutsideRegions'
        ? ' (changed outside its <custom> regions: not overwritten)'
        : entry.reason === 'notGenerated'
          ? ' (not a generated file: not overwritten)'
          : '';
    console.log(`${entry.outcome.padEnd(9)} ${entry.path}${note}`);
  }
  const conflicts = report.filter((entry) => entry.outcome === 'conflict');
  if (conflicts.length > 0) {
    console.error(
      `${conflicts.length} file(s) were changed by hand outside their <custom> regions and were left as they are.`,
    );
    return 2;
  }
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
