/**
 * Issue 40 point 12, the designer's server side: 以默认值回填现有记录 (a required field with a
 * default added to a published form fills the existing rows in the publish's transaction; without
 * a default it is still refused), 恢复 of an older version as a new draft, and the dictionaries
 * the 字典 picker offers.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 300_000);
afterAll(async () => {
  await t?.close();
});

type Json = Record<string, unknown>;
const dataOf = <T = Json>(response: LightMyRequestResponse): T => (response.json() as Json).data as T;
const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
  t.request({
    method,
    url,
    headers: { ...t.auth, 'accept-language': 'zh-CN' },
    ...(payload === undefined ? {} : { payload: payload as Json }),
  });

const visits = (extra: Json = {}, required: string[] = ['visitor']): Json => ({
  title: 'Visits',
  type: 'object',
  required,
  properties: {
    visitor: { type: 'string', title: 'Visitor', maxLength: 40, 'x-ui': { titles: { zh: '访客' } } },
    ...extra,
  },
});

describe('以默认值回填现有记录 and 恢复 (issue 40 point 12)', () => {
  let formId = 0;
  let version = 0;

  it('lists the dictionaries with items for the 字典 picker, by code with their names', async () => {
    const listed = await call('GET', '/api/generator/form/dictionaries');
    expect(listed.statusCode, listed.body).toBe(200);
    const dictionaries = dataOf<{ dictType: string; dictName: string | null; items: number }[]>(listed);
    expect(dictionaries).toEqual(
      expect.arrayContaining([{ dictType: 'yes_no', dictName: expect.any(String), items: 2 }]),
    );
    expect(dictionaries.find((dict) => dict.dictType === 'user_status')?.dictName).toBe('用户状态');
    expect(dictionaries.every((dict) => dict.items > 0)).toBe(true);
  });

  it('publishes a form and takes two records', async () => {
    const added = await call('POST', '/api/generator/form/add', {
      formCode: 'visitsbf',
      formName: 'Visits',
      formContent: visits(),
    });
    expect(added.statusCode, added.body).toBe(200);
    formId = dataOf<{ id: number }>(added).id;
    const published = await call('POST', '/api/generator/form/publish', {
      id: formId,
      menuParent: 'formgenerator',
    });
    expect(published.statusCode, published.body).toBe(200);
    for (const visitor of ['张三', '李四'])
      expect((await call('POST', '/api/online/visitsbf/add', { visitor })).statusCode).toBe(200);
  });

  it('a new required field with a default: refused without backfill, filled in the rows with it', async () => {
    const withGate = visits(
      {
        gate: {
          type: 'string',
          title: 'Gate',
          maxLength: 10,
          default: 'A1',
          'x-ui': { titles: { zh: '门岗' } },
        },
        badge: { type: 'string', title: 'Badge', maxLength: 10 },
      },
      ['visitor', 'gate'],
    );
    const saved = await call('PUT', '/api/generator/form/update', {
      id: formId,
      version: 1,
      formContent: withGate,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    version = dataOf<{ version: number }>(saved).version;

    const checked = await call('POST', '/api/generator/form/check', { id: formId, formContent: withGate });
    expect(checked.statusCode, checked.body).toBe(200);
    const report = dataOf<{ isValid: boolean; impact: { items: Json[] } }>(checked);
    expect(report.isValid).toBe(false);
    expect(report.impact.items).toContainEqual(
      expect.objectContaining({ field: 'gate', rule: 'required', rows: 2, isSafe: false, canBackfill: true }),
    );
    const checkedBackfill = await call('POST', '/api/generator/form/check', {
      id: formId,
      formContent: withGate,
      backfill: true,
    });
    expect(dataOf<{ isValid: boolean }>(checkedBackfill).isValid).toBe(true);

    const refused = await call('POST', '/api/generator/form/publish', {
      id: formId,
      menuParent: 'formgenerator',
    });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(
      await t.sql(
        `select 1 from information_schema.columns where table_name = 'online_visitsbf' and column_name = 'gate'`,
      ),
    ).toEqual([]);

    const filled = await call('POST', '/api/generator/form/publish', {
      id: formId,
      menuParent: 'formgenerator',
      backfill: true,
    });
    expect(filled.statusCode, filled.body).toBe(200);
    expect(await t.sql(`select visitor, gate, badge from online_visitsbf order by id`)).toEqual([
      { visitor: '张三', gate: 'A1', badge: null },
      { visitor: '李四', gate: 'A1', badge: null },
    ]);
    const listed = await call('GET', '/api/online/visitsbf/query?sort=id');
    expect(dataOf<{ records: Json[] }>(listed).records.map((row) => row.gate)).toEqual(['A1', 'A1']);
  });

  it('a field made required without a default is still refused with backfill, nothing changes', async () => {
    const badgeRequired = visits(
      {
        gate: { type: 'string', title: 'Gate', maxLength: 10, default: 'A1' },
        badge: { type: 'string', title: 'Badge', maxLength: 10 },
      },
      ['visitor', 'gate', 'badge'],
    );
    const saved = await call('PUT', '/api/generator/form/update', {
      id: formId,
      version,
      formContent: badgeRequired,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    version = dataOf<{ version: number }>(saved).version;
    const checked = await call('POST', '/api/generator/form/check', {
      id: formId,
      formContent: badgeRequired,
      backfill: true,
    });
    expect(checked.statusCode, checked.body).toBe(200);
    const items = dataOf<{ impact: { items: Json[] } }>(checked).impact.items;
    const badge = items.find((item) => item.field === 'badge');
    expect(badge).toMatchObject({ rule: 'required', rows: 2, isSafe: false });
    expect(badge?.canBackfill).toBeUndefined();
    const refused = await call('POST', '/api/generator/form/publish', {
      id: formId,
      menuParent: 'formgenerator',
      backfill: true,
    });
    expect(refused.statusCode, refused.body).toBe(409);
    expect((refused.json() as { errors: { field: string }[] }).errors.map((error) => error.field)).toEqual([
      '/formContent/properties/badge',
    ]);
    expect(await t.sql(`select badge from online_visitsbf order by id`)).toEqual([
      { badge: null },
      { badge: null },
    ]);
  });

  it('restores an older version as a new draft: versions list it as restore, the live form stays', async () => {
    const versions = dataOf<{ id: number; version: number; action: string; formContent: Json }[]>(
      await call('GET', `/api/generator/form/versions?id=${formId}`),
    );
    const first = versions.find((row) => row.version === 1 && row.action === 'save');
    expect(first).toBeDefined();
    const stale = await call('POST', '/api/generator/form/restore', {
      id: formId,
      version: version - 1,
      versionId: first?.id,
    });
    expect(stale.statusCode).toBe(409);
    const restored = await call('POST', '/api/generator/form/restore', {
      id: formId,
      version,
      versionId: first?.id,
    });
    expect(restored.statusCode, restored.body).toBe(200);
    const record = dataOf<{ version: number; status: string; formContent: Json }>(restored);
    expect(record).toMatchObject({ version: version + 1, status: 'published' });
    expect(Object.keys(record.formContent.properties as Json)).toEqual(['visitor']);
    const after = dataOf<{ version: number; action: string }[]>(
      await call('GET', `/api/generator/form/versions?id=${formId}`),
    );
    expect(after[0]).toMatchObject({ version: version + 1, action: 'restore' });
    // the published form keeps its fields until it is published again
    const listed = await call('GET', '/api/online/visitsbf/query?sort=id');
    expect(dataOf<{ records: Json[] }>(listed).records.map((row) => row.gate)).toEqual(['A1', 'A1']);

    // a publication's content comes back without the menu the publish wrote into it
    const publication = after.find((row) => row.action === 'publish') as { id: number } | undefined;
    const again = await call('POST', '/api/generator/form/restore', {
      id: formId,
      version: version + 1,
      versionId: publication?.id,
    });
    expect(again.statusCode, again.body).toBe(200);
    const options = dataOf<{ formContent: { 'x-entity': Json } }>(again).formContent['x-entity'];
    expect(options.menu).toBeUndefined();
    const missing = await call('POST', '/api/generator/form/restore', {
      id: formId,
      version: version + 2,
      versionId: 999_999,
    });
    expect(missing.statusCode).toBe(400);
    expect((missing.json() as { errors: { field: string }[] }).errors[0]?.field).toBe('/versionId');
  });
});
