import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compileEntities,
  createAjv,
  entryOf,
  fieldMessage,
  formFields,
  formSchemaOf,
  type MessageField,
} from '../../src/engine/index.js';
import { realSources } from './fixtures.js';

type Tree = { [key: string]: string | Tree };
const locales = Object.fromEntries(
  (['zh', 'tw', 'en'] as const).map((lang) => [
    lang,
    JSON.parse(readFileSync(`locales/${lang}.json`, 'utf8')) as Tree,
  ]),
) as Record<'zh' | 'tw' | 'en', Tree>;

/** The locale text of a key with its parameters filled in, as i18next does. */
function text(lang: 'zh' | 'tw' | 'en', key: string, params: Record<string, unknown>): string {
  let node: string | Tree | undefined = locales[lang];
  for (const part of key.split('.')) node = typeof node === 'object' ? node[part] : undefined;
  if (typeof node !== 'string') throw new Error(`${lang}: no text for ${key}`);
  return node.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(params[name] ?? ''));
}

const user = compileEntities(realSources()).find((entity) => entity.name === 'sysuser');
if (!user) throw new Error('no sysuser');
const TITLES: Record<string, string> = {
  username: '用户名',
  roleId: '角色',
  email: '邮箱',
  mobile: '手机号',
};

/** The messages of an empty or wrong user form, field by field, in Chinese. */
function messages(values: Record<string, unknown>): Map<string, string> {
  const validate = createAjv().compile(formSchemaOf(user!, 'create'));
  validate(values);
  const fields = new Map(
    formFields(user!, 'create').map((field): [string, MessageField] => [
      field.name,
      { title: TITLES[field.name] ?? field.name, entry: entryOf(field.widget) },
    ]),
  );
  const result = new Map<string, string>();
  for (const error of validate.errors ?? []) {
    const params = error.params as Record<string, unknown>;
    const name = error.keyword === 'required' ? String(params.missingProperty) : error.instancePath.slice(1);
    const field = fields.get(name);
    if (!field || result.has(name)) continue;
    const message = fieldMessage(error.keyword, params, field);
    result.set(name, text('zh', message.key, message.params));
  }
  return result;
}

describe('validation messages a person reads', () => {
  it('asks to enter a typed field and to select a chosen one, by its title', () => {
    const shown = messages({});
    expect(shown.get('username')).toBe('请输入用户名');
    expect(shown.get('roleId')).toBe('请选择角色');
  });

  it('words a bad email address without the format name, and a bad pattern by the title', () => {
    const shown = messages({ email: 'not-an-address', mobile: '12' });
    expect(shown.get('email')).toBe('请输入正确的邮箱地址');
    expect(shown.get('email')).not.toMatch(/email/);
    expect(shown.get('mobile')).toBe('请输入正确的手机号');
  });

  it('has the wording in zh, tw and en for every message it can give', () => {
    const cases: [string, Record<string, unknown>][] = [
      ['required', {}],
      ['format', { format: 'email' }],
      ['format', { format: 'uri' }],
      ['format', { format: 'ipv4' }],
      ['format', { format: 'date' }],
      ['pattern', {}],
      ['type', {}],
      ['enum', {}],
      ['minLength', { limit: 3 }],
      ['maxLength', { limit: 64 }],
      ['minimum', { limit: 1 }],
      ['maximum', { limit: 9 }],
      ['minItems', { limit: 1 }],
      ['maxItems', { limit: 2 }],
      ['uniqueItems', {}],
      ['const', {}],
    ];
    for (const lang of ['zh', 'tw', 'en'] as const) {
      for (const entry of ['input', 'choice'] as const) {
        for (const [keyword, params] of cases) {
          const message = fieldMessage(keyword, params, { title: 'T', entry });
          expect(text(lang, message.key, message.params), `${lang} ${keyword}`).not.toMatch(/\{\{/);
        }
      }
    }
    const tw = fieldMessage('required', {}, { title: '角色', entry: 'choice' });
    expect(text('tw', tw.key, tw.params)).toBe('請選擇角色');
    const en = fieldMessage('minLength', { limit: 3 }, { title: 'Username', entry: 'input' });
    expect(text('en', en.key, en.params)).toBe('Username must be at least 3 characters');
  });
});
