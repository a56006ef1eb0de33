import type { Titles } from '../../../../engine/types.js';

/**
 * What changed between two versions of a designed form (版本历史 → 对比): the fields added,
 * removed and changed, each named by its title in the reader's language, a changed one with the
 * settings that differ (as the property panel names them). Pure: unit-tested.
 */

interface FieldLike {
  title?: string;
  'x-ui'?: Record<string, unknown> & { titles?: Titles };
  [key: string]: unknown;
}

interface ContentLike {
  properties?: Record<string, FieldLike>;
  required?: string[];
  [key: string]: unknown;
}

export interface FieldChange {
  kind: 'added' | 'removed' | 'changed';
  /** The field's name (code). */
  field: string;
  /** Its title in the reader's language (the newer version's, for a change). */
  title: string;
  /** changed: the settings that differ, as keys of forms.diff.setting.* */
  settings: string[];
}

export interface VersionDiff {
  fields: FieldChange[];
  /** The form's own settings (title, layout, rules, approval process, …) differ. */
  isFormChanged: boolean;
}

const asContent = (value: unknown): ContentLike => {
  if (typeof value === 'string') {
    try {
      return asContent(JSON.parse(value));
    } catch {
      return {};
    }
  }
  return typeof value === 'object' && value !== null ? (value as ContentLike) : {};
};

/** A field's title in a language: its own title there, else its schema title, else its name. */
export function fieldTitleIn(field: FieldLike | undefined, name: string, language: keyof Titles): string {
  const own = field?.['x-ui']?.titles?.[language];
  if (typeof own === 'string' && own !== '') return own;
  return typeof field?.title === 'string' && field.title !== '' ? field.title : name;
}

/** The settings the diff names; any other keyword is "other". */
const NAMED = new Set([
  'type',
  'format',
  'maxLength',
  'minLength',
  'pattern',
  'minimum',
  'maximum',
  'enum',
  'x-dict',
  'x-ref',
  'default',
  'readOnly',
  'items',
  'x-decimal',
  'x-computed',
  'x-detail',
]);
const UI_NAMED = new Set(['widget', 'placeholder', 'span', 'help', 'patternMessage']);

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function settingsChanged(
  before: FieldLike,
  after: FieldLike,
  wasRequired: boolean,
  isRequired: boolean,
): string[] {
  const found = new Set<string>();
  if (!same(before.title, after.title) || !same(before['x-ui']?.titles, after['x-ui']?.titles))
    found.add('title');
  if (wasRequired !== isRequired) found.add('required');
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const key of keys) {
    if (key === 'title' || key === 'x-ui' || same(before[key], after[key])) continue;
    if (key === 'type' || key === 'format') found.add('type');
    else if (key === 'items') found.add(before['x-detail'] !== undefined ? 'columns' : 'options');
    else if (NAMED.has(key))
      found.add(key === 'x-dict' ? 'dict' : key === 'x-ref' ? 'ref' : key.replace(/^x-/, ''));
    else found.add('other');
  }
  const uiBefore = before['x-ui'] ?? {};
  const uiAfter = after['x-ui'] ?? {};
  for (const key of new Set([...Object.keys(uiBefore), ...Object.keys(uiAfter)])) {
    if (key === 'titles' || same(uiBefore[key], uiAfter[key])) continue;
    found.add(UI_NAMED.has(key) ? key : 'other');
  }
  return [...found].map((key) => (key === 'enum' ? 'options' : key));
}

export function versionDiff(older: unknown, newer: unknown, language: keyof Titles): VersionDiff {
  const before = asContent(older);
  const after = asContent(newer);
  const beforeFields = before.properties ?? {};
  const afterFields = after.properties ?? {};
  const beforeRequired = new Set(before.required ?? []);
  const afterRequired = new Set(after.required ?? []);
  const fields: FieldChange[] = [];
  for (const [name, field] of Object.entries(afterFields)) {
    const previous = beforeFields[name];
    const title = fieldTitleIn(field, name, language);
    if (!previous) {
      fields.push({ kind: 'added', field: name, title, settings: [] });
      continue;
    }
    const settings = settingsChanged(previous, field, beforeRequired.has(name), afterRequired.has(name));
    if (settings.length > 0) fields.push({ kind: 'changed', field: name, title, settings });
  }
  for (const [name, field] of Object.entries(beforeFields))
    if (!Object.hasOwn(afterFields, name))
      fields.push({ kind: 'removed', field: name, title: fieldTitleIn(field, name, language), settings: [] });
  const formOf = (content: ContentLike): unknown => {
    const { properties: _properties, required: _required, ...rest } = content;
    const options = rest['x-entity'];
    // the menu a publication writes into its content is no change of the form
    if (typeof options === 'object' && options !== null) {
      const { menu: _menu, ...own } = options as Record<string, unknown>;
      return { ...rest, 'x-entity': own };
    }
    return rest;
  };
  return { fields, isFormChanged: !same(formOf(before), formOf(after)) };
}
