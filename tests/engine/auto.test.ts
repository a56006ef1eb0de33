import { describe, expect, it } from 'vitest';
import {
  autoValues,
  checkEntitySchema,
  createAjv,
  createSchemaOf,
  formFields,
  formSchemaOf,
  prepareInput,
  uiSchemaOf,
  updateSchemaOf,
} from '../../src/engine/index.js';
import { entityOf, FILE, validatorsOf, widgetJson, type Json } from './fixtures.js';

/** x-auto: values the server fills on create (actor = the caller's name, now = the time of the create). */
const properties: Json = {
  publisher: { type: 'string', maxLength: 64, 'x-auto': 'actor' },
  publishTime: { type: 'string', format: 'date-time', 'x-auto': 'now' },
  publishDay: { type: 'string', format: 'date', 'x-auto': 'now' },
  recipients: {
    type: 'array',
    items: { type: 'integer' },
    default: [],
    'x-ui': { widget: 'recipients' },
  },
};
const json = widgetJson({ properties });
const widget = entityOf('widget', json);
const problems = (overrides: Json): string[] =>
  checkEntitySchema(FILE, 'widget', widgetJson({ properties: overrides })).map(
    (problem) => `${problem.pointer}: ${problem.message}`,
  );

describe('x-auto', () => {
  it('is part of the vocabulary: the meta-schema and ajv accept it', () => {
    expect(checkEntitySchema(FILE, 'widget', json)).toEqual([]);
    // a strict ajv compiles a schema carrying the keyword (it would throw on an unknown one)
    expect(() => createAjv().compile(properties.publisher as Json)).not.toThrow();
  });

  it('takes actor or now only, each on a field that can hold it', () => {
    expect(problems({ by: { type: 'string', 'x-auto': 'someone' } }).join('\n')).toMatch(
      /\/properties\/by\/x-auto: must be one of \["actor","now"\]/,
    );
    expect(problems({ by: { type: 'integer', 'x-auto': 'actor' } })).toEqual([
      '/properties/by/x-auto: x-auto "actor" needs a plain string field',
    ]);
    expect(problems({ at: { type: 'string', 'x-auto': 'now' } })).toEqual([
      '/properties/at/x-auto: x-auto "now" needs a date or date-time string field',
    ]);
    expect(problems({ by: { type: 'string', 'x-auto': 'actor', 'x-dict': 'names' } })).toEqual([
      '/properties/by/x-auto: x-auto cannot fill a key, a secret, a reference or a dictionary value',
    ]);
    expect(
      problems({ to: { type: 'array', items: { type: 'string' }, 'x-ui': { widget: 'recipients' } } }),
    ).toEqual(['/properties/to/x-ui/widget: the recipients widget needs an array of integer user ids']);
  });

  it('makes the field read-only: not in create or update bodies, nor in the forms', () => {
    const publisher = widget.fieldsByName.get('publisher');
    expect(publisher).toMatchObject({ isReadOnly: true, auto: 'actor' });
    expect(widget.fieldsByName.get('publishTime')).toMatchObject({ isReadOnly: true, auto: 'now' });
    for (const schema of [createSchemaOf(widget), updateSchemaOf(widget)]) {
      expect(Object.keys(schema.properties as Json)).not.toContain('publisher');
      expect(Object.keys(schema.properties as Json)).not.toContain('publishTime');
    }
    for (const mode of ['create', 'update'] as const) {
      const names = formFields(widget, mode).map((field) => field.name);
      expect(names).not.toContain('publisher');
      expect(names).not.toContain('publishTime');
      expect(Object.keys(formSchemaOf(widget, mode).properties as Json)).not.toContain('publisher');
    }
  });

  it('drops a value a client sends anyway (the server sets it)', () => {
    const { values } = prepareInput(
      widget,
      validatorsOf(widget),
      { name: 'n', publisher: 'mallory', publishTime: '2000-01-01T00:00:00Z' },
      'create',
    );
    expect(values).toEqual({ name: 'n', recipients: [] });
  });

  it('gives the server the caller and the time of the create', () => {
    const now = new Date('2026-11-24T03:04:05.678Z');
    expect(autoValues(widget, { actor: 'alice', now })).toEqual({
      publisher: 'alice',
      publishTime: '2026-11-24T03:04:05.678Z',
      publishDay: '2026-11-24',
    });
    expect(autoValues(entityOf('widget', widgetJson()), { actor: 'alice', now })).toEqual({});
  });
});

describe('the recipients widget', () => {
  it('is a full-row choice in the forms', () => {
    const field = formFields(widget, 'create').find((candidate) => candidate.name === 'recipients');
    expect(field).toMatchObject({ widget: 'recipients', options: { span: 24, isMultiple: true } });
    expect(uiSchemaOf(widget, 'create').recipients).toMatchObject({ 'ui:widget': 'recipients' });
  });
});
