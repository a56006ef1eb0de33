import { describe, expect, it } from 'vitest';
import { versionDiff } from '../../src/admin/features/forms/published/version-diff.js';

/** 版本历史 → 对比 (issue 40 point 12): fields added, removed and changed, by title. */
describe('versionDiff', () => {
  const older = {
    title: 'Visits',
    required: ['visitor'],
    properties: {
      visitor: { type: 'string', title: 'Visitor', maxLength: 40, 'x-ui': { titles: { zh: '访客' } } },
      note: { type: 'string', title: 'Note', maxLength: 100, 'x-ui': { titles: { zh: '备注' } } },
      kind: { type: 'string', title: 'Kind', enum: ['a', 'b'] },
    },
  };
  const newer = {
    title: 'Visits',
    required: ['visitor', 'gate'],
    properties: {
      visitor: {
        type: 'string',
        title: 'Visitor',
        maxLength: 80,
        'x-ui': { titles: { zh: '访客' }, widget: 'textarea' },
      },
      kind: { type: 'string', title: 'Kind', enum: ['a', 'b'] },
      gate: { type: 'string', title: 'Gate', default: 'A1', 'x-ui': { titles: { zh: '门岗' } } },
    },
  };

  it('names the fields added, removed and changed by their titles, a change by its settings', () => {
    expect(versionDiff(older, newer, 'zh')).toEqual({
      fields: [
        { kind: 'changed', field: 'visitor', title: '访客', settings: ['maxLength', 'widget'] },
        { kind: 'added', field: 'gate', title: '门岗', settings: [] },
        { kind: 'removed', field: 'note', title: '备注', settings: [] },
      ],
      isFormChanged: false,
    });
    expect(versionDiff(older, newer, 'en').fields.map((change) => change.title)).toEqual([
      'Visitor',
      'Gate',
      'Note',
    ]);
  });

  it('a field made required or given a dictionary is a change; a publication menu is none; JSON text is read', () => {
    const required = {
      ...older,
      required: ['visitor', 'kind'],
      properties: { ...older.properties, kind: { ...older.properties.kind, 'x-dict': 'yes_no' } },
    };
    const published = { ...required, 'x-entity': { api: 'online/v', menu: { parent: 'oa' } } };
    const draft = { ...older, 'x-entity': { api: 'online/v' } };
    const diff = versionDiff(JSON.stringify(draft), published, 'zh');
    expect(diff.fields).toEqual([
      { kind: 'changed', field: 'kind', title: 'Kind', settings: ['required', 'dict'] },
    ]);
    expect(diff.isFormChanged).toBe(false);
    expect(versionDiff(older, { ...older, title: 'Other' }, 'zh')).toEqual({
      fields: [],
      isFormChanged: true,
    });
  });
});
