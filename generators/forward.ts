import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileTemplate, kebabCase, TemplateError } from './engine.js';
import { entityModel, type EntityModel, type GeneratorInput, type GeneratorOptions } from './model.js';
import { formatGenerated } from './format.js';
import { withBanner } from './regions.js';

/**
 * The forward generator: entity schemas in, a module in this project's style out. Each template
 * item (the seeded dictionary template_item) gives one file per entity; its type (template_type)
 * says which part of the module it belongs to.
 */

export type TemplateType = 'backend' | 'frontend' | 'sql';

export interface TemplateItem {
  item: string;
  type: TemplateType;
  /** Where the file goes, under <packageName>/<entity kebab>/. */
  fileName: (model: EntityModel) => string;
}

export const TEMPLATE_ITEMS: readonly TemplateItem[] = [
  { item: 'entity', type: 'backend', fileName: () => 'types.ts' },
  { item: 'service', type: 'backend', fileName: () => 'service.ts' },
  { item: 'controller', type: 'backend', fileName: () => 'routes.ts' },
  { item: 'api', type: 'backend', fileName: () => 'openapi.json' },
  { item: 'test', type: 'backend', fileName: () => 'service.test.ts' },
  { item: 'list-view', type: 'frontend', fileName: (model) => `${model.pascal}List.tsx` },
  { item: 'form-view', type: 'frontend', fileName: (model) => `${model.pascal}Form.tsx` },
  { item: 'ddl', type: 'sql', fileName: () => 'schema.sql' },
  { item: 'menu', type: 'sql', fileName: () => 'menu.sql' },
  // The module mechanism's two parts (docs/extending.md): placing the folder mounts it.
  { item: 'module-server', type: 'backend', fileName: () => 'server.ts' },
  { item: 'module-admin', type: 'frontend', fileName: () => 'admin.tsx' },
];

export const TEMPLATE_TYPES: readonly TemplateType[] = ['backend', 'frontend', 'sql'];

/** The built-in templates shipped in generators/templates/default/<item>.hbs. */
export function builtInTemplates(templatesDir: string): Map<string, string> {
  return new Map(
    TEMPLATE_ITEMS.map((item) => [
      item.item,
      readFileSync(join(templatesDir, 'default', `${item.item}.hbs`), 'utf8'),
    ]),
  );
}

export interface ForwardRequest extends Omit<GeneratorOptions, 'srcRoot'> {
  entities: GeneratorInput[];
  /** Only the items of this type; all when absent. */
  templateType?: TemplateType;
  /**
   * Names of the entities whose schema the module brings in its schemas/ folder (an entity the
   * project's schemas/ does not have): the server loads it with the module.
   */
  bringSchemas?: readonly string[];
  /**
   * From <packageName>/<entity>/ to the project's src/. The default places the module at
   * src/modules/<packageName>/<entity>/.
   */
  srcRoot?: string;
}

export interface GeneratedFile {
  path: string;
  content: string;
  /**
   * The entity's schema a module brings (<module>/schemas/<name>.schema.json): the developer's
   * source from then on, written only when missing, never merged or overwritten.
   */
  isSource?: boolean;
}

/** A problem of one template: which item, and where in it. */
export class GeneratorTemplateError extends Error {
  readonly item: string;
  readonly problem: TemplateError['problem'];
  constructor(item: string, error: TemplateError) {
    super(`template ${item}: ${error.message}`);
    this.name = 'GeneratorTemplateError';
    this.item = item;
    this.problem = error.problem;
  }
}

export const DEFAULT_SRC_ROOT = '../../..';

/** One template to render with one entity's model; `item` names the template in a problem. */
export interface RenderJob {
  item: string;
  source: string;
  model: object;
}

/**
 * Renders jobs in order, each output at the job's index. A template problem throws
 * GeneratorTemplateError naming the job's item. The server renders in a worker thread under its
 * budgets (src/server/features/generator/render); the command line renders here.
 */
export type RenderAll = (jobs: readonly RenderJob[]) => Promise<string[]>;

export const renderInProcess: RenderAll = async (jobs) => {
  const compiled = new Map<string, (model: object) => string>();
  return jobs.map((job) => {
    try {
      let render = compiled.get(job.source);
      if (!render) {
        render = compileTemplate(job.source);
        compiled.set(job.source, render);
      }
      return render(job.model);
    } catch (error) {
      if (error instanceof TemplateError) throw new GeneratorTemplateError(job.item, error);
      throw error;
    }
  });
};

/**
 * Renders every selected template for every entity. `templates` maps an item to its text (the
 * built-in ones, or the tenant's saved versions over them); `render` does the rendering.
 */
export async function generateForward(
  request: ForwardRequest,
  templates: ReadonlyMap<string, string>,
  render: RenderAll = renderInProcess,
): Promise<GeneratedFile[]> {
  const items = TEMPLATE_ITEMS.filter((item) => !request.templateType || item.type === request.templateType);
  for (const item of items) {
    const source = templates.get(item.item);
    if (source === undefined) throw new Error(`no template for ${item.item}`);
    // A compile error names its item before any model is built.
    try {
      compileTemplate(source);
    } catch (error) {
      if (error instanceof TemplateError) throw new GeneratorTemplateError(item.item, error);
      throw error;
    }
  }
  const planned: { item: TemplateItem; model: EntityModel; path: string }[] = [];
  // A referenced entity (x-ref): one generated with it, else the caller's, else the project's schemas/.
  const schemaOf = (name: string): unknown =>
    request.entities.find((input) => input.name === name)?.schema ??
    request.schemaOf?.(name) ??
    projectSchema(name);
  for (const input of request.entities) {
    const model = await entityModel(input, {
      serviceName: request.serviceName,
      packageName: request.packageName,
      srcRoot: request.srcRoot ?? DEFAULT_SRC_ROOT,
      schemaOf,
      ...(request.detailLayout ? { detailLayout: request.detailLayout } : {}),
    });
    for (const item of items)
      planned.push({ item, model, path: `${request.packageName}/${model.kebab}/${item.fileName(model)}` });
  }
  const bodies = await render(
    planned.map(({ item, model }) => ({ item: item.item, source: templates.get(item.item) ?? '', model })),
  );
  const files: GeneratedFile[] = [];
  for (const [index, { item, model, path }] of planned.entries()) {
    // As the project's formatter writes it (prettier --check passes on the module as generated);
    // the checksum of the banner is of the formatted text.
    try {
      const body = await formatGenerated(path, normalise(path, bodies[index] ?? ''));
      const content = await formatGenerated(path, withBanner(path, body, `${item.item} · ${model.name}`));
      files.push({ path, content });
    } catch (error) {
      // A template whose output does not parse (JSON, TypeScript): its author sees why.
      const message =
        error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
      throw new GeneratorTemplateError(item.item, new TemplateError({ message: `output: ${message}` }));
    }
  }
  for (const input of request.entities)
    if (request.bringSchemas?.includes(input.name) && !request.templateType)
      files.push({
        path: `${request.packageName}/${kebabCase(input.name)}/schemas/${input.name}.schema.json`,
        content: await formatGenerated('schema.json', `${JSON.stringify(input.schema, null, 2)}\n`),
        isSource: true,
      });
  return files;
}

/** An entity schema of the project's schemas/ folder (beside generators/), when there is one. */
function projectSchema(name: string): unknown {
  if (!/^[a-z][a-z0-9]*$/.test(name)) return undefined;
  const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'schemas', `${name}.schema.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as unknown) : undefined;
}

/** One trailing newline, no trailing spaces; JSON output re-indented (a template's JSON may be loose). */
function normalise(path: string, text: string): string {
  if (path.endsWith('.json')) return `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
  return `${text
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}
