/**
 * A published form's titles read before the back-office's texts are loaded (a cold load reads the
 * schemas at boot to ask for the first list, issue 19) still title its screens.
 */
import { describe, expect, it } from 'vitest';
import { addSchemaTexts, initI18n, t } from '../../src/admin/i18n.js';
import { detectLanguage } from '../../src/web/i18n.js';

describe('schema texts and the first language load', () => {
  it('texts added before initI18n are there once it has loaded the language', async () => {
    const language = detectLanguage('en', true);
    addSchemaTexts({
      [language]: { entities: { requisition: { title: '请购单', details: { lines: { item: '物品' } } } } },
    });
    await initI18n();
    expect(t('entities.requisition.title')).toBe('请购单');
    expect(t('entities.requisition.details.lines.item')).toBe('物品');
    // the back-office's own texts are loaded too
    expect(t('admin.crud.yes')).not.toBe('admin.crud.yes');
  });
});
