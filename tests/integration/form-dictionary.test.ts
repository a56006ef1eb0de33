import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Issue 40 point 12: a designed field's 字典 (x-dict) names a dictionary that exists; an unknown
 * code is refused at 校验 and 发布 with the field's title and the code, in the caller's language.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 300_000);
afterAll(async () => {
  await t?.close();
});

type Json = Record<string, unknown>;
const call = (url: string, payload: unknown, language = 'zh-CN') =>
  t.request({
    method: 'POST',
    url,
    headers: { ...t.auth, 'accept-language': language },
    payload: payload as Json,
  });
const errorsOf = (response: LightMyRequestResponse): { field: string; message: string }[] =>
  (response.json() as { errors: { field: string; message: string }[] }).errors;

const content = (dict: string, lineDict: string): Json => ({
  title: 'Tickets',
  properties: {
    subject: { type: 'string', title: 'Subject', maxLength: 40, 'x-ui': { titles: { zh: '主题' } } },
    state: { type: 'string', title: 'State', 'x-dict': dict, 'x-ui': { titles: { zh: '状态' } } },
    lines: {
      type: 'array',
      title: 'Lines',
      'x-detail': {},
      'x-ui': { titles: { zh: '明细' } },
      items: {
        type: 'object',
        properties: {
          kind: { type: 'string', title: 'Kind', 'x-dict': lineDict, 'x-ui': { titles: { zh: '类别' } } },
        },
      },
    },
  },
});

describe('字典 of a designed field (issue 40 point 12)', () => {
  it('refuses an unknown dictionary at check and publish, naming the field by its title; a known one passes', async () => {
    const unknown = await call('/api/generator/form/check', {
      formCode: 'tickets',
      formContent: content('no_such_dict', 'nope_dict'),
    });
    expect(unknown.statusCode, unknown.body).toBe(400);
    expect(errorsOf(unknown)).toEqual([
      {
        field: '/formContent/properties/state/x-dict',
        message: '状态：没有字典「no_such_dict」，请从字典列表中选择',
      },
      {
        field: '/formContent/properties/lines/items/properties/kind/x-dict',
        message: '明细 / 类别：没有字典「nope_dict」，请从字典列表中选择',
      },
    ]);
    const english = await call(
      '/api/generator/form/check',
      { formCode: 'tickets', formContent: content('no_such_dict', 'user_status') },
      'en',
    );
    expect(errorsOf(english).map((error) => error.message)).toEqual([
      'State: there is no dictionary "no_such_dict"; choose one from the dictionary list',
    ]);

    const added = await call('/api/generator/form/add', {
      formCode: 'tickets',
      formName: 'Tickets',
      formContent: content('no_such_dict', 'user_status'),
    });
    expect(added.statusCode, added.body).toBe(200);
    const id = (added.json() as { data: { id: number } }).data.id;
    const refused = await call('/api/generator/form/publish', { id, menuParent: 'formgenerator', roles: [] });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(errorsOf(refused)[0]?.field).toBe('/formContent/properties/state/x-dict');
    expect(
      await t.sql(`select 1 from information_schema.tables where table_name = 'online_tickets'`),
    ).toEqual([]);

    const known = await call('/api/generator/form/check', {
      id,
      formContent: content('user_status', 'user_status'),
    });
    expect(known.statusCode, known.body).toBe(200);
  });
});
