import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createPrecompiledValidator, type ValidatorFunctions } from '@rjsf/validator-ajv8';
import { createSchemaUtils, type RJSFSchema } from '@rjsf/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildEntity,
  formSchemaId,
  formSchemaOf,
  type EntitySchema,
  type FormMode,
} from '../../src/engine/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { USER_FORM } from '../support/sample-values.js';

type Validate = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; keyword: string }[] | null;
};

/**
 * The back-office forms validate with functions the server compiled from the same schemas and
 * ajv options (GET /api/schemas/validators.js): loaded here as the browser loads them.
 */
describe('the form validators the server compiles for the browser', () => {
  let t: TestApp;
  let validators: Record<string, Validate>;
  let code = '';
  const dir = mkdtempSync(join(tmpdir(), 'ecobid-validators-'));

  beforeAll(async () => {
    t = await startTestApp();
    const response = await t.app.inject({ method: 'GET', url: '/api/schemas/validators.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/javascript/);
    code = response.body;
    const file = join(dir, 'validators.mjs');
    writeFileSync(file, code);
    validators = (await import(pathToFileURL(file).href)) as Record<string, Validate>;
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const validUser = USER_FORM;

  it('holds a create and an update validator for every entity, and no eval', () => {
    for (const name of ['sysuser', 'sysregion', 'notification', 'appclient']) {
      expect(typeof validators[`${name}_create`]).toBe('function');
      expect(typeof validators[`${name}_update`]).toBe('function');
    }
    expect(code).not.toMatch(/new Function|\beval\(/);
  });

  it('opens every entity form as RJSF does: each schema it resolves has its validator', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/schemas' });
    const body = response.json<{ data: { entities: { name: string; schema: EntitySchema }[] } }>();
    expect(body.data.entities.length).toBeGreaterThan(10);
    for (const { name, schema } of body.data.entities) {
      const entity = buildEntity(name, schema);
      for (const mode of ['create', 'update'] as FormMode[]) {
        const form = { ...formSchemaOf(entity, mode), $id: formSchemaId(name, mode) } as RJSFSchema;
        const validator = createPrecompiledValidator(validators as unknown as ValidatorFunctions, form);
        const utils = createSchemaUtils(validator, form);
        // the first render: defaults, every field's resolved schema, then a submit's validation
        const values = utils.getDefaultFormState(form, {}) as Record<string, unknown>;
        for (const property of Object.values(form.properties ?? {})) {
          expect(
            () => utils.retrieveSchema(property as RJSFSchema, undefined),
            `${name} ${mode}`,
          ).not.toThrow();
        }
        expect(() => validator.validateFormData(values, form), `${name} ${mode}`).not.toThrow();
      }
    }
  });

  it('applies the server rules: lengths, formats, required fields, the tightened dates', () => {
    const create = validators.sysuser_create;
    expect(create?.(validUser)).toBe(true);
    expect(create?.({ ...validUser, username: 'zs' })).toBe(false);
    expect(create?.errors?.map((error) => `${error.instancePath} ${error.keyword}`)).toEqual([
      '/username minLength',
    ]);
    expect(create?.({ ...validUser, email: 'not-mail' })).toBe(false);
    const { nickname: _nickname, ...withoutNickname } = validUser;
    expect(create?.(withoutNickname)).toBe(false);
    expect(create?.errors?.[0]?.keyword).toBe('required');

    const notice = validators.notification_create;
    const valid = { title: 'T', content: 'C', type: '1', priority: '1' };
    expect(notice?.({ ...valid, startTime: '2026-11-21T08:00:00Z' })).toBe(true);
    expect(notice?.({ ...valid, startTime: '0000-01-01T00:00:00Z' })).toBe(false);
    // publisher and publish time are the server's (x-auto): not in the form
    expect(notice?.({ ...valid, publishTime: '2026-11-21T08:00:00Z' })).toBe(false);
  });
});
