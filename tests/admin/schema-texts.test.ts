/** A published form's titles and help as the locale keys of its generated screens (issue 14). */
import { describe, expect, it } from 'vitest';
import type { EntitySchema } from '../../src/engine/index.js';
import { schemaTexts } from '../../src/admin/entity/schema-texts.js';

describe('schemaTexts', () => {
  it('turns x-ui titles and help into entities.<name>… keys per language', () => {
    const schema = {
      title: 'Requisition',
      type: 'object',
      'x-entity': { api: 'online/requisition', table: 'online_requisition', key: 'id', label: 'subject' },
      'x-ui': { titles: { zh: '请购单', tw: '請購單' } },
      properties: {
        id: { type: 'integer', readOnly: true },
        subject: {
          type: 'string',
          title: 'Subject',
          'x-ui': { titles: { zh: '主题', en: 'Subject' }, help: 'What is bought' },
        },
        lines: {
          type: 'array',
          'x-detail': {},
          items: {
            type: 'object',
            properties: { item: { type: 'string', 'x-ui': { titles: { zh: '物品' } } } },
          },
        },
      },
    } as unknown as EntitySchema;
    const texts = schemaTexts([{ name: 'requisition', schema }]);
    expect(texts.zh).toEqual({
      entities: {
        requisition: {
          title: '请购单',
          fields: { subject: '主题' },
          help: { subject: 'What is bought' },
          details: { lines: { item: '物品' } },
        },
      },
    });
    expect(texts.tw).toEqual({
      entities: { requisition: { title: '請購單', help: { subject: 'What is bought' } } },
    });
    expect(texts.en).toEqual({
      entities: { requisition: { fields: { subject: 'Subject' }, help: { subject: 'What is bought' } } },
    });
  });
});
