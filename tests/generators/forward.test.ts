import { describe, expect, it } from 'vitest';
import {
  builtInTemplates,
  generateForward,
  GeneratorTemplateError,
  TEMPLATE_ITEMS,
} from '../../generators/forward.js';
import { mergeGenerated } from '../../generators/regions.js';
import { entityInput, TEMPLATES_DIR } from './support.js';

const templates = builtInTemplates(TEMPLATES_DIR);
const request = { serviceName: 'demo', packageName: 'shop' };

describe('forward generator: golden output of every template', () => {
  for (const entity of ['gadget', 'sysregion', 'bizorder', 'legacyorder']) {
    it(`renders each template for ${entity} as recorded`, async () => {
      const files = await generateForward({ ...request, entities: [entityInput(entity)] }, templates);
      expect(files.map((file) => file.path.split('/').slice(-1)[0])).toHaveLength(TEMPLATE_ITEMS.length);
      for (const file of files) {
        // Golden files carry a suffix so that the type checker and linters leave them alone.
        await expect(file.content).toMatchFileSnapshot(`golden/${file.path}.golden`);
      }
    });
  }

  it('generates only the items of the template type asked for', async () => {
    const files = await generateForward(
      { ...request, templateType: 'sql', entities: [entityInput('gadget')] },
      templates,
    );
    expect(files.map((file) => file.path)).toEqual(['shop/gadget/schema.sql', 'shop/gadget/menu.sql']);
  });

  it('names the template and the place of a broken one', async () => {
    const broken = new Map(templates);
    broken.set('service', 'export const a = 1;\n{{#each fields}}\n{{/if}}');
    const error = await generateForward({ ...request, entities: [entityInput('gadget')] }, broken).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(GeneratorTemplateError);
    expect(error).toMatchObject({ item: 'service', problem: { line: 2 } });
  });

  it('refuses a schema the engine refuses, naming the place', async () => {
    await expect(
      generateForward(
        { ...request, entities: [{ name: 'bad', schema: { title: 'x', type: 'object' } }] },
        templates,
      ),
    ).rejects.toThrow(/bad\.schema\.json/);
  });
});

describe('regeneration keeps protected regions', () => {
  it('keeps the text inside <custom> regions and reports edits outside them', async () => {
    const [first] = await generateForward(
      { ...request, templateType: 'backend', entities: [entityInput('gadget')] },
      templates,
    );
    const service = (
      await generateForward({ ...request, entities: [entityInput('gadget')] }, templates)
    ).find((file) => file.path.endsWith('service.ts'));
    if (!first || !service) throw new Error('no files');
    const edited = service.content.replace(
      '    // <custom name="methods">\n',
      '    // <custom name="methods">\n    hello(): string {\n      return \'mine\';\n    },\n',
    );
    const regenerated = mergeGenerated(service.path, service.content, edited);
    expect(regenerated.kind).toBe('unchanged');
    if (regenerated.kind === 'conflict') throw new Error('conflict');
    expect(regenerated.text).toContain("return 'mine';");

    // A template change is applied around the kept region.
    const newer = service.content.replace('Deletes the caller', 'Removes the caller');
    const updated = mergeGenerated(service.path, newer, edited);
    expect(updated).toMatchObject({ kind: 'updated' });
    if (updated.kind === 'conflict') throw new Error('conflict');
    expect(updated.text).toContain("return 'mine';");
    expect(updated.text).toContain('Removes the caller');

    const outside = edited.replace('export function', '// a hand edit\nexport function');
    expect(mergeGenerated(service.path, service.content, outside)).toEqual({
      kind: 'conflict',
      reason: 'editedOutsideRegions',
    });
    expect(mergeGenerated(service.path, service.content, 'hand-written\n')).toEqual({
      kind: 'conflict',
      reason: 'notGenerated',
    });
    const json = await generateForward({ ...request, entities: [entityInput('gadget')] }, templates);
    const openapi = json.find((file) => file.path.endsWith('openapi.json'));
    if (!openapi) throw new Error('no openapi');
    expect(mergeGenerated(openapi.path, openapi.content, openapi.content).kind).toBe('unchanged');
    expect(mergeGenerated(openapi.path, openapi.content, openapi.content.replace('"1"', '"2"')).kind).toBe(
      'conflict',
    );
  });
});
