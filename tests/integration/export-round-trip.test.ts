import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { fileUpload } from '../support/multipart.js';
import { firstSheetRows } from '../support/workbook.js';

/**
 * Issue 40 point 10: a designed form's own export imports back, with its times written in the
 * reader's time zone as their screen shows them (the X-Time-Zone header the front-ends send),
 * its rich text as plain text, and its attachment column (the files' names) left aside.
 */
let t: TestApp;
let filesDir: string;
beforeAll(async () => {
  filesDir = mkdtempSync(join(tmpdir(), 'ecobid-round-trip-'));
  t = await startTestApp({ env: { FILES_DIR: filesDir } });
}, 120_000);
afterAll(async () => {
  await t?.close();
  rmSync(filesDir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;
const dataOf = <T = Json>(response: LightMyRequestResponse): T => (response.json() as Json).data as T;
const call = (method: 'GET' | 'POST', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  t.request({
    method,
    url,
    headers: { ...t.auth, ...headers },
    ...(payload === undefined ? {} : { payload: payload as Json }),
  });

function upload(
  url: string,
  bytes: Buffer,
  headers: Record<string, string>,
): Promise<LightMyRequestResponse> {
  const form = fileUpload('rows.xlsx', bytes, {
    type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  });
  return t.request({
    method: 'POST',
    url,
    headers: { ...t.auth, ...headers, ...form.headers },
    payload: form.payload,
  });
}

describe('a designed form exported and imported back (issue 40 point 10)', () => {
  const api = (action: string): string => `/api/online/visitlog/${action}`;
  const content: Json = {
    title: 'Visits',
    'x-ui': { titles: { zh: '拜访记录' } },
    required: ['visitor'],
    properties: {
      visitor: { type: 'string', title: 'Visitor', maxLength: 50, 'x-ui': { titles: { zh: '访客' } } },
      visitAt: {
        type: 'string',
        format: 'date-time',
        title: 'Visited at',
        'x-ui': { titles: { zh: '拜访时间' } },
      },
      notes: { type: 'string', title: 'Notes', 'x-ui': { widget: 'richtext', titles: { zh: '纪要' } } },
      files: {
        type: 'array',
        title: 'Attachments',
        items: { type: 'integer' },
        maxItems: 10,
        'x-ui': { widget: 'upload', titles: { zh: '附件' } },
      },
    },
  };

  it('writes times in the reader’s zone and rich text as text; the file imports back with the same times', async () => {
    const added = await call('POST', '/api/generator/form/add', {
      formCode: 'visitlog',
      formName: 'Visits',
      formContent: content,
    });
    expect(added.statusCode, added.body).toBe(200);
    const published = await call('POST', '/api/generator/form/publish', {
      id: dataOf(added).id,
      menuParent: 'formgenerator',
      roles: [],
    });
    expect(published.statusCode, published.body).toBe(200);

    const form = fileUpload('合同.pdf', Buffer.from('%PDF-1.4 test'));
    const file = await t.request({
      method: 'POST',
      url: '/api/file/file/upload?use=attachment',
      headers: { ...t.auth, ...form.headers },
      payload: form.payload,
    });
    expect(file.statusCode, file.body).toBe(200);
    const record = await call('POST', api('add'), {
      visitor: '王五',
      visitAt: '2026-12-05T06:23:00.000Z',
      notes: '<p>第一段</p><p>甲 &amp; 乙</p>',
      files: [dataOf<{ id: number }>(file).id],
    });
    expect(record.statusCode, record.body).toBe(200);

    // 14:23 in Shanghai, 01:23 in New York: as each reader's screen shows it
    const shanghai = { 'x-time-zone': 'Asia/Shanghai' };
    const exported = await call('POST', api('export'), {}, shanghai);
    expect(exported.statusCode).toBe(200);
    const rows = await firstSheetRows(exported.rawPayload);
    const header = rows[0] as string[];
    const line = rows[1] as unknown[];
    expect(line[header.indexOf('拜访时间')]).toBe('2026-12-05 14:23:00');
    expect(line[header.indexOf('纪要')]).toBe('第一段\n甲 & 乙');
    expect(line[header.indexOf('附件')]).toBe('合同.pdf');
    const newYork = await firstSheetRows(
      (await call('POST', api('export'), {}, { 'x-time-zone': 'America/New_York' })).rawPayload,
    );
    expect((newYork[1] as unknown[])[header.indexOf('拜访时间')]).toBe('2026-12-05 01:23:00');
    // an unknown zone is the server's own, never a failure
    expect((await call('POST', api('export'), {}, { 'x-time-zone': 'Mars/Olympus' })).statusCode).toBe(200);

    // the export imports back: no 类型应为 integer for the attachment column, the same instant
    const imported = await upload(api('import'), exported.rawPayload, shanghai);
    expect(imported.statusCode, imported.body).toBe(200);
    expect(dataOf(imported)).toMatchObject({ imported: 1, problemCount: 0 });
    const stored = await t.sql<{ visitor: string; at: string }>(
      `select visitor, to_char(visit_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS') as at from online_visitlog order by id`,
    );
    expect(stored).toEqual([
      { visitor: '王五', at: '2026-12-05 06:23:00' },
      { visitor: '王五', at: '2026-12-05 06:23:00' },
    ]);
  });
});
