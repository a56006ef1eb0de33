import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { kebabCase } from './engine.js';
import { builtInTemplates, generateForward, TEMPLATE_TYPES, type TemplateType } from './forward.js';
import { DETAIL_LAYOUTS, type DetailLayout } from './model.js';
import { srcRootFrom, writeGenerated } from './write.js';

/**
 * npm run generate -- <entity…> --out <dir> [--service <name>] [--package <name>] [--type backend|frontend|sql]
 *   [--detail-layout form|inner|tab]
 *
 * An entity is a name of schemas/ (sysregion) or a path to a schema file. A file a person changed
 * outside its <custom> regions is merged three ways with the text generated last time (kept in
 * .generated/ beside it); conflicts are written as markers and listed (exit code 2).
 */
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const USAGE =
  'usage: npm run generate -- <entity…> --out <dir> [--service <name>] [--package <name>] [--type backend|frontend|sql] [--detail-layout form|inner|tab]\n' +
  '       npm run gen:mount -- <entity…> [--package <name>] [--out <modules dir, default src/modules>]';

interface EntityArgument {
  name: string;
  schema: unknown;
  /** Not an entity of schemas/: the module brings its schema (<module>/schemas/). */
  isBrought: boolean;
}

/**
 * An entity: a name of schemas/, a path to a schema file, or (mounting) the name of a module
 * already generated whose schemas/ folder holds its schema.
 */
function readEntity(argument: string, moduleSchema: (name: string) => string): EntityArgument {
  const candidates = existsSync(argument)
    ? [argument]
    : [join(projectRoot, 'schemas', `${argument}.schema.json`), moduleSchema(argument)];
  const path = candidates.find((candidate) => existsSync(candidate));
  if (!path) throw new Error(`no entity ${argument} (looked for ${candidates.join(', ')})`);
  const name = basename(path).replace(/\.schema\.json$|\.json$/, '');
  return {
    name,
    schema: JSON.parse(readFileSync(path, 'utf8')),
    isBrought: !existsSync(join(projectRoot, 'schemas', `${name}.schema.json`)),
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
      // Master-detail: detail rows in the form only, also expanded inside the list, or in tabs below it.
      'detail-layout': { type: 'string' },
      // gen:mount: into src/modules (the module mechanism's folder), schemas brought along.
      mount: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const out = values.out ?? (values.mount ? join(projectRoot, 'src', 'modules') : undefined);
  if (values.help || positionals.length === 0 || !out) {
    console.log(USAGE);
    return values.help ? 0 : 1;
  }
  const templateType = values.type as TemplateType | undefined;
  if (templateType && !TEMPLATE_TYPES.includes(templateType)) {
    console.error(`--type must be one of ${TEMPLATE_TYPES.join(', ')}`);
    return 1;
  }
  const detailLayout = values['detail-layout'] as DetailLayout | undefined;
  if (detailLayout && !DETAIL_LAYOUTS.includes(detailLayout)) {
    console.error(`--detail-layout must be one of ${DETAIL_LAYOUTS.join(', ')}`);
    return 1;
  }
  const packageName = values.package ?? values.service;
  const entities = positionals.map((argument) =>
    readEntity(argument, (name) => join(out, packageName, kebabCase(name), 'schemas', `${name}.schema.json`)),
  );
  const files = await generateForward(
    {
      entities: entities.map(({ name, schema }) => ({ name, schema })),
      serviceName: values.service,
      packageName,
      srcRoot: srcRootFrom(out, packageName, projectRoot),
      ...(templateType ? { templateType } : {}),
      ...(detailLayout ? { detailLayout } : {}),
      ...(values.mount
        ? { bringSchemas: entities.filter((entity) => entity.isBrought).map((entity) => entity.name) }
        : {}),
    },
    builtInTemplates(join(projectRoot, 'generators', 'templates')),
  );
  const report = writeGenerated(out, files);
  for (const entry of report) {
    const note =
      entry.reason === 'editedOutsideRegions'
        ? ' (changed outside its <custom> regions, no previous generated text to merge with: not overwritten)'
        : entry.reason === 'notGenerated'
          ? ' (not a generated file: not overwritten)'
          : entry.reason === 'mergeConflict'
            ? ` (${entry.conflicts ?? 0} conflict(s) written as <<<<<<< markers: resolve them)`
            : '';
    console.log(`${entry.outcome.padEnd(9)} ${entry.path}${note}`);
  }
  const conflicts = report.filter((entry) => entry.outcome === 'conflict');
  if (conflicts.length > 0) {
    console.error(
      `${conflicts.length} file(s) changed by hand could not be merged cleanly: ${conflicts
        .map((entry) => entry.path)
        .join(', ')}`,
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
