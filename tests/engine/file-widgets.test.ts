import { describe, expect, it } from 'vitest';
import { checkEntitySchema, fileFieldUse, formFields, listColumns } from '../../src/engine/index.js';
import { entityOf, FILE, widgetJson, type Json } from './fixtures.js';

/** x-ui widgets richtext, upload and image (issue 16): vocabulary, forms and lists. */
const properties: Json = {
  body: { type: 'string', maxLength: 5000, 'x-ui': { widget: 'richtext' } },
  files: { type: 'array', items: { type: 'integer' }, 'x-ui': { widget: 'upload' } },
  cover: { type: 'integer', 'x-ui': { widget: 'image' } },
  pictureUrl: { type: 'string', maxLength: 500, 'x-ui': { widget: 'image' } },
};
const problems = (overrides: Json): string[] =>
  checkEntitySchema(FILE, 'widget', widgetJson({ properties: overrides })).map(
    (problem) => `${problem.pointer}: ${problem.message}`,
  );

describe('file and rich-text widgets', () => {
  it('are part of the vocabulary, each on a field that can hold its value', () => {
    expect(problems(properties)).toEqual([]);
    expect(problems({ files: { type: 'string', 'x-ui': { widget: 'upload' } } })).toEqual([
      '/properties/files/x-ui/widget: the upload widget needs an integer or an array of integer file ids',
    ]);
    expect(problems({ cover: { type: 'boolean', 'x-ui': { widget: 'image' } } })).toHaveLength(1);
    expect(problems({ body: { type: 'integer', 'x-ui': { widget: 'richtext' } } })).toEqual([
      '/properties/body/x-ui/widget: the richtext widget needs a string field',
    ]);
  });

  it('give forms their widgets and lists their file columns', () => {
    const entity = entityOf('widget', widgetJson({ properties }));
    const widgets = Object.fromEntries(
      formFields(entity, 'create').map((field) => [field.name, field.widget]),
    );
    expect(widgets).toMatchObject({ body: 'richtext', files: 'upload', cover: 'image', pictureUrl: 'image' });
    const files = Object.fromEntries(listColumns(entity).map((column) => [column.field, column.file]));
    expect(files).toMatchObject({
      files: 'attachment',
      cover: 'image',
      pictureUrl: undefined,
      body: undefined,
    });
    expect(fileFieldUse({ schema: { type: 'string', 'x-ui': { widget: 'image' } } })).toBeUndefined();
  });
});
