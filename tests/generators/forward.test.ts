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

describe("master-detail in the peer's three layouts (issue 35)", () => {
  const listOf = async (entity: string, detailLayout?: 'form' | 'inner' | 'tab') => {
    const files = await generateForward(
      {
        ...request,
        templateType: 'frontend',
        entities: [entityInput(entity)],
        ...(detailLayout ? { detailLayout } : {}),
      },
      templates,
    );
    return files.find((file) => file.path.endsWith('List.tsx'))?.content ?? '';
  };

  it('form (the default): the detail rows are edited in the form only', async () => {
    for (const list of [await listOf('bizorder'), await listOf('bizorder', 'form')]) {
      expect(list).not.toContain('DetailRows');
      expect(list).not.toContain('expandable');
    }
  });

  it('inner: each row of the list expands into its detail rows, read with the record by key', async () => {
    const list = await listOf('bizorder', 'inner');
    expect(list).toContain("import { DetailRows } from '../../../admin/entity/DetailRows.js';");
    expect(list).toMatch(/expandable=\{\{\s*expandedRowRender: \(record\) =>/);
    // The rows' columns with the engine's title keys and their reference (lines.buyerId → sysuser).
    expect(list).toContain("'entities.bizorder.details.lines.buyerId'");
    expect(list).toContain("ref: 'sysuser'");
    expect(list).not.toContain('<Tabs');
  });

  it("tab: the clicked row's detail rows in tabs below the list", async () => {
    const list = await listOf('legacyorder', 'tab');
    expect(list).toContain('onRow={(record) => ({ onClick: () => setSelected(record) })}');
    expect(list).toContain('<Tabs');
    expect(list).toContain('data-testid="entity-detail-tabs"');
    expect(list).not.toContain('expandable');
    // An entity without detail rows is the same in every layout.
    expect(await listOf('gadget', 'tab')).toBe(await listOf('gadget'));
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
    // With the text generated last time, an edit outside the regions is merged three ways.
    const merged = mergeGenerated(service.path, newer, outside, service.content);
    expect(merged.kind).toBe('merged');
    if (merged.kind !== 'merged') throw new Error(merged.kind);
    expect(merged.text).toContain('// a hand edit\nexport function');
    expect(merged.text).toContain('Removes the caller');
    expect(merged.text).toContain("return 'mine';");
    // The same line changed both ways: a conflict, written with markers, nothing dropped.
    const clash = mergeGenerated(
      service.path,
      newer,
      outside.replace('Deletes the caller', 'Erases the caller'),
      service.content,
    );
    expect(clash).toMatchObject({ kind: 'conflict', reason: 'mergeConflict', conflicts: 1 });
    if (clash.kind !== 'conflict' || clash.reason !== 'mergeConflict') throw new Error('no conflict');
    expect(clash.text).toMatch(
      /<<<<<<< yours\n.*Erases the caller[\s\S]*=======\n.*Removes the caller[\s\S]*>>>>>>> generated now/,
    );
    expect(clash.text).toContain('// a hand edit');

    // Formatting is no edit: CRLF line endings, another indentation.
    const crlf = mergeGenerated(service.path, service.content, edited.replace(/\n/g, '\r\n'));
    expect(crlf.kind).toBe('updated');
    if (crlf.kind !== 'updated') throw new Error(crlf.kind);
    expect(crlf.text).toContain("return 'mine';");
    const reindented = edited.replace(/^ {2}/gm, '\t');
    expect(mergeGenerated(service.path, service.content, reindented).kind).toBe('updated');

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
