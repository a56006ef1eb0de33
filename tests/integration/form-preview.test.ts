import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blankSchema } from '../../src/admin/features/forms/designer/model.js';
import { startTestApp, type TestApp } from '../support/app.js';

type Validate = ((data: unknown) => boolean) & { errors?: { instancePath: string }[] | null };

/**
 * The form designer's preview validates an unsaved design with validators the server compiles
 * for it (POST /api/generator/form/validator), and its JSON view checks with the meta-schema
 * validator of /api/schemas/validators.js (entity_meta).
 */
describe('form designer: server-compiled preview and meta-schema validators', () => {
  let t: TestApp;
  const dir = mkdtempSync(join(tmpdir(), 'ecobid-preview-'));
  const load = async (code: string, name: string): Promise<Record<string, Validate>> => {
    const file = join(dir, `${name}.mjs`);
    writeFileSync(file, code);
    return (await import(pathToFileURL(file).href)) as Record<string, Validate>;
  };

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const design = {
    ...blankSchema(),
    required: ['kind'],
    properties: {
      id: { type: 'integer', title: 'ID', readOnly: true },
      kind: { type: 'string', enum: ['a', 'b'] },
      note: { type: 'string', maxLength: 5 },
    },
    'x-ui': {
      items: [
        {
          kind: 'grid',
          columns: [
            { span: 12, items: ['kind'] },
            { span: 12, items: ['note'] },
          ],
        },
      ],
    },
    allOf: [
      {
        if: { properties: { kind: { const: 'b' } }, required: ['kind'] },
        then: { required: ['note'] },
        else: { properties: { note: false } },
      },
    ],
  };

  it('compiles the create form of a posted design, validating as the server does', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/generator/form/validator',
      headers: t.auth,
      payload: { formContent: design },
    });
    expect(response.statusCode).toBe(200);
    const { module } = response.json<{ data: { module: string } }>().data;
    expect(module).not.toMatch(/new Function|\beval\(/);
    const validators = await load(module, 'preview');
    const create = validators.formpreview_create;
    expect(typeof create).toBe('function');
    expect(create?.({ kind: 'a' })).toBe(true);
    expect(create?.({ kind: 'a', note: 'too long' })).toBe(false);
    expect(create?.({})).toBe(false);
  });

  it('answers a design the meta-schema refuses with a 400 naming the place', async () => {
    const bad = { ...design, properties: { ...design.properties, note: { type: 'string', colour: 'red' } } };
    const response = await t.request({
      method: 'POST',
      url: '/api/generator/form/validator',
      headers: t.auth,
      payload: { formContent: bad },
    });
    expect(response.statusCode).toBe(400);
    const fields = response.json<{ errors: { field: string }[] }>().errors.map((error) => error.field);
    expect(fields).toContain('/formContent/properties/note/colour');
  });

  it('needs a signed-in caller', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/generator/form/validator',
      payload: { formContent: design },
    });
    expect(response.statusCode).toBe(401);
  });

  it('serves the meta-schema validator beside the forms', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/schemas/validators.js' });
    const validators = await load(response.body, 'all');
    const meta = validators.entity_meta;
    expect(meta?.(structuredClone(design))).toBe(true);
    expect(meta?.({ ...structuredClone(design), colour: 'red' })).toBe(false);
  });
});
