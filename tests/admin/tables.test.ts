import { describe, expect, it } from 'vitest';
import { cellText } from '../../src/admin/entity/labels.js';
import type { Translate } from '../../src/admin/i18n.js';
import { compileEntities, listColumns, type EntityDef } from '../../src/engine/index.js';
import { createI18n } from '../../src/web/i18n.js';
import { realSources } from '../engine/fixtures.js';

const entities = new Map(compileEntities(realSources()).map((entity) => [entity.name, entity]));
function column(entity: string, field: string) {
  const found = listColumns(entities.get(entity) as EntityDef).find((item) => item.field === field);
  if (!found) throw new Error(`no column ${entity}.${field}`);
  return found;
}
const translate = (language: 'zh' | 'tw' | 'en'): Translate => {
  const i18n = createI18n(language);
  return (key, options) => i18n.t(key, options ?? {});
};

describe('list tables of the seeded entities (issue 19.7)', () => {
  it('show money with thousands separators and the unit the schema names, in each language', () => {
    const budget = column('purchase', 'budget');
    expect(cellText(budget, 12860000, translate('zh'))).toBe('12,860,000 元');
    expect(cellText(budget, '3450000.5', translate('tw'))).toBe('3,450,000.5 元');
    expect(cellText(budget, 12860000, translate('en'))).toBe('12,860,000 CNY');
    expect(cellText(column('idleequipment', 'price'), 8800, translate('zh'))).toBe('8,800 元');
    expect(cellText(budget, null, translate('zh'))).toBe('');
  });

  it('参数管理 shows 参数值', () => {
    expect(column('sysparam', 'paramValue').isVisible).toBe(true);
  });
});
