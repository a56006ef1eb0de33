import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import ExcelJS from 'exceljs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityDef, FieldDef } from '../../src/engine/index.js';
import { formatDateTime } from '../../src/server/features/crud/export/records.js';
import { Api, data, errorFields, type Page, type Row } from '../support/api.js';
import { ADMIN_PASSWORD, startTestApp, type TestApp } from '../support/app.js';
import { Samples } from '../support/samples.js';

/** POST …/export: the filtered rows as an .xlsx, in the reader's language. */
type Language = 'zh' | 'en' | 'tw';
interface Locale {
  entities: Record<string, { title?: string; fields?: Record<string, string> }>;
  dicts: Record<string, Record<string, string>>;
  export: { yes: string; no: string };
}
const locales = Object.fromEntries(
  (['zh', 'en', 'tw'] as const).map((language) => [
    language,
    JSON.parse(readFileSync(new URL(`../../locales/${language}.json`, import.meta.url), 'utf8')) as Locale,
  ]),
) as Record<Language, Locale>;
const ACCEPT: Record<Language, string> = { zh: 'zh-CN,zh;q=0.9', en: 'en', tw: 'zh-TW' };

/** The column title a reader of this language expects: locales/<lang>.json, else the schema title. */
function titleOf(language: Language, entity: EntityDef, field: FieldDef): string {
  const locale = locales[language];
  return (
    locale.entities[entity.name]?.fields?.[field.name] ??
    (field.isSystem ? locale.entities._common?.fields?.[field.name] : undefined) ??
    field.schema.title ??
    field.name
  );
}

let t: TestApp;
let api: Api;
let samples: Samples;
beforeAll(async () => {
  t = await startTestApp();
  api = new Api(t);
  samples = new Samples(api);
});
afterAll(async () => {
  await t?.close();
});

type Cell = ExcelJS.CellValue;
interface Sheet {
  name: string;
  headers: string[];
  rows: Cell[][];
}

async function readSheet(response: LightMyRequestResponse): Promise<Sheet> {
  expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
  expect(response.headers['content-type']).toBe(
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  );
  expect(String(response.headers['content-disposition'])).toMatch(
    /^attachment; filename="[a-z0-9]+-\d{14}\.xlsx"/,
  );
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(response.rawPayload as unknown as ArrayBuffer);
  const sheet = workbook.worksheets[0];
  if (!sheet) throw new Error('no worksheet');
  const width = sheet.columnCount;
  const rows: Cell[][] = [];
  sheet.eachRow({ includeEmpty: true }, (row) => {
    rows.push(Array.from({ length: width }, (_, index) => row.getCell(index + 1).value));
  });
  const [header = [], ...body] = rows;
  return { name: sheet.name, headers: header.map(String), rows: body };
}

/** The sheet's column of one field, found by its translated title. */
function columnOf(sheet: Sheet, language: Language, entity: EntityDef, field: string): Cell[] {
  const def = entity.fieldsByName.get(field);
  if (!def) throw new Error(`no field ${field}`);
  const index = sheet.headers.indexOf(titleOf(language, entity, def));
  expect(
    index,
    `column ${field} (${titleOf(language, entity, def)}) in ${JSON.stringify(sheet.headers)}`,
  ).toBeGreaterThanOrEqual(0);
  return sheet.rows.map((row) => row[index] ?? null);
}

describe('user export', () => {
  let user: EntityDef;
  let orgs: Row[];
  let role: Row;
  const users: Row[] = [];

  beforeAll(async () => {
    user = t.app.ctx.registry.require('sysuser');
    const org = t.app.ctx.registry.require('sysorg');
    orgs = [
      await samples.create(org, { orgName: 'Export Org North' }),
      await samples.create(org, { orgName: 'Export Org South' }),
    ];
    role = await samples.create(t.app.ctx.registry.require('sysrole'), { roleName: 'Export Role' });
    const plan: [string, string, number][] = [
      ['expo_b', '1', 0],
      ['expo_a', '1', 1],
      ['expo_c', '0', 0],
      ['expo_d', '1', 1],
      ['expoxe', '1', 0], // "expo_" filter: _ is a literal underscore, not a wildcard
    ];
    for (const [username, status, orgIndex] of plan) {
      users.push(
        await samples.create(user, {
          username,
          status,
          userType: 2,
          orgId: orgs[orgIndex]?.id,
          roleId: role.id,
          password: 'Plain-secret-77',
        }),
      );
    }
  });

  const filters = { username: 'expo_', status: '1', sort: '-username' };

  it('exports exactly the filtered rows in the requested order', async () => {
    const sheet = await readSheet(await api.export(user, filters, { 'accept-language': ACCEPT.zh }));
    expect(columnOf(sheet, 'zh', user, 'username')).toEqual(['expo_d', 'expo_b', 'expo_a']);
    // the same rows the list shows for the same filters
    const listed = data<Page>(await api.query(user, { ...filters, pageSize: '100' })).records;
    expect(columnOf(sheet, 'zh', user, 'id')).toEqual(listed.map((row) => row.id));
    // ascending sort reverses it
    const ascending = await readSheet(await api.export(user, { ...filters, sort: 'username' }));
    expect(columnOf(ascending, 'zh', user, 'username')).toEqual(['expo_a', 'expo_b', 'expo_d']);
    // paging parameters do not cut an export short
    const paged = await readSheet(await api.export(user, { ...filters, pageSize: '1', currentPage: '2' }));
    expect(paged.rows.length).toBe(3);
  });

  it('translates headers, dictionary labels and the sheet name by the request language', async () => {
    for (const language of ['zh', 'en', 'tw'] as const) {
      const sheet = await readSheet(await api.export(user, filters, { 'accept-language': ACCEPT[language] }));
      expect(sheet.name).toBe(locales[language].entities.sysuser?.title);
      for (const field of [
        'username',
        'nickname',
        'email',
        'mobile',
        'status',
        'userType',
        'roleId',
        'orgId',
        'createdAt',
      ]) {
        expect(sheet.headers, language).toContain(
          titleOf(language, user, user.fieldsByName.get(field) as FieldDef),
        );
      }
      expect(columnOf(sheet, language, user, 'status')).toEqual(
        Array(3).fill(locales[language].dicts.user_status?.['1']),
      );
      expect(columnOf(sheet, language, user, 'userType')).toEqual(
        Array(3).fill(locales[language].dicts.user_type?.['2']),
      );
    }
    const zh = await readSheet(await api.export(user, filters, { 'accept-language': ACCEPT.zh }));
    expect(zh.headers).toContain('用户名');
    expect(columnOf(zh, 'zh', user, 'status')).toEqual(['正常', '正常', '正常']);
    const en = await readSheet(await api.export(user, filters, { 'accept-language': ACCEPT.en }));
    expect(en.headers).toContain('User name');
    expect(columnOf(en, 'en', user, 'status')).toEqual(['Active', 'Active', 'Active']);
    // the language cookie of the front-ends wins over the header
    const cookie = await readSheet(
      await api.export(user, filters, { 'accept-language': 'zh-CN', cookie: 'language=en' }),
    );
    expect(cookie.headers).toContain('User name');
  });

  it("names the file with the list's title in the reader's language, the internal name as ASCII fallback (issue 39 point 8)", async () => {
    for (const language of ['zh', 'en', 'tw'] as const) {
      const response = await api.export(user, filters, { 'accept-language': ACCEPT[language] });
      expect(response.statusCode).toBe(200);
      const disposition = String(response.headers['content-disposition']);
      const encoded = /filename\*=UTF-8''([^;]+)/.exec(disposition)?.[1] ?? '';
      const title = locales[language].entities.sysuser?.title ?? '';
      expect(decodeURIComponent(encoded), language).toMatch(new RegExp(`^${title}-\\d{14}\\.xlsx$`));
      expect(disposition).toMatch(/^attachment; filename="sysuser-\d{14}\.xlsx"; filename\*=UTF-8''/);
    }
  });

  it('shows references by their label and dates in the display format', async () => {
    const sheet = await readSheet(await api.export(user, filters, { 'accept-language': ACCEPT.en }));
    expect(columnOf(sheet, 'en', user, 'orgId')).toEqual([
      'Export Org South',
      'Export Org North',
      'Export Org South',
    ]);
    expect(columnOf(sheet, 'en', user, 'roleId')).toEqual(['Export Role', 'Export Role', 'Export Role']);
    for (const value of columnOf(sheet, 'en', user, 'createdAt'))
      expect(String(value)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('has no secret column and no secret value', async () => {
    for (const language of ['zh', 'en'] as const) {
      const response = await api.export(user, {}, { 'accept-language': ACCEPT[language] });
      const sheet = await readSheet(response);
      const password = user.fieldsByName.get('password') as FieldDef;
      expect(sheet.headers).not.toContain(titleOf(language, user, password));
      expect(sheet.headers).not.toContain('password');
      const cells = sheet.rows.flat().map(String);
      expect(
        cells.some(
          (cell) =>
            cell.startsWith('scrypt$') || cell.includes('Plain-secret-77') || cell.includes(ADMIN_PASSWORD),
        ),
      ).toBe(false);
      expect(sheet.rows.length).toBe(data<Page>(await api.query(user, {})).total);
    }
  });

  it('orders numbers as numbers, also across a change of digit count', async () => {
    // Keys are read as text on the way out: 9 must still come before 10.
    for (let count = 0; count < 12; count += 1) await samples.create(user, { username: `expo_n${count}` });
    for (const sort of ['id', '-id']) {
      const sheet = await readSheet(await api.export(user, { sort }, { 'accept-language': ACCEPT.en }));
      const listed = data<Page>(await api.query(user, { sort, pageSize: '10000' })).records;
      const ids = listed.map((row) => row.id as number);
      expect(ids.some((id) => id < 10) && ids.some((id) => id >= 10), sort).toBe(true);
      expect(columnOf(sheet, 'en', user, 'id'), sort).toEqual(ids);
    }
  });

  it('keeps text exactly: markup characters, spaces at either end, line breaks, no forbidden characters', async () => {
    const profile = '  <b>Tom & "Jerry"</b>\nsecond line\tend  ';
    const created = await samples.create(user, {
      username: 'expo_text',
      nickname: '全角（括号）・テスト',
      profile,
      address: 'bell\u0007 here',
    });
    const sheet = await readSheet(
      await api.export(user, { username: 'expo_text' }, { 'accept-language': ACCEPT.en }),
    );
    expect(sheet.rows.length).toBe(1);
    expect(columnOf(sheet, 'en', user, 'profile')).toEqual([profile]);
    expect(columnOf(sheet, 'en', user, 'nickname')).toEqual(['全角（括号）・テスト']);
    // XML cannot carry control characters; the cell keeps the rest.
    expect(columnOf(sheet, 'en', user, 'address')).toEqual(['bell here']);
    expect(columnOf(sheet, 'en', user, 'id')).toEqual([created.id]);
  });

  it('puts every value in its own column, also after empty cells', async () => {
    const sheet = await readSheet(
      await api.export(user, { username: 'expo_' }, { 'accept-language': ACCEPT.en }),
    );
    const listed = data<Page>(await api.query(user, { username: 'expo_', pageSize: '10000' })).records;
    expect(sheet.rows.length).toBe(listed.length);
    const plain = user.fields.filter(
      (field) =>
        !field.isSecret &&
        !field.dict &&
        !field.ref &&
        field.sqlType === 'text' &&
        sheet.headers.includes(titleOf('en', user, field)),
    );
    expect(plain.length).toBeGreaterThan(5);
    // eslint-disable-next-line no-control-regex -- the characters XML cannot carry
    const forbidden = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g;
    const inSheet = (value: unknown): unknown =>
      typeof value === 'string' ? value.replace(forbidden, '') : value;
    for (const field of plain) {
      const expected = listed.map((row) =>
        row[field.name] === '' ? null : inSheet(row[field.name] ?? null),
      );
      expect(columnOf(sheet, 'en', user, field.name), field.name).toEqual(expected);
    }
    // Timestamps in the server's time zone, to the second.
    expect(columnOf(sheet, 'en', user, 'createdAt')).toEqual(
      listed.map((row) => formatDateTime(new Date(String(row.createdAt)))),
    );
  });

  it('serves many exports in a row and stays usable for changes', async () => {
    const total = data<Page>(await api.query(user, filters)).total;
    for (let round = 0; round < 12; round += 1) {
      const sheet = await readSheet(await api.export(user, filters));
      expect(sheet.rows.length).toBe(total);
    }
    const changed = await samples.create(user, { username: 'expo_after' });
    expect(changed.id).toBeDefined();
  });

  it('refuses bad filters like the list does', async () => {
    const response = await api.export(user, { nosuchfield: 'x', sort: 'password' });
    expect(response.statusCode).toBe(400);
    expect(errorFields(response).sort()).toEqual(['/nosuchfield', '/sort']);
  });
});

describe('a large export', () => {
  it('streams thousands of rows in the order of the list, across its reading batches', async () => {
    const user = t.app.ctx.registry.require('sysuser');
    // More rows than one batch of the reader (2000), inserted directly; their ids cross from
    // two digits to three and four on the way, and half of them have no nickname (empty cells).
    await t.sql(
      `insert into ${user.table} (username, nickname, password, country_code, mobile, status, user_type, tenant_code, created_by, updated_by)
       select 'bulk_' || lpad(i::text, 5, '0'), case when i % 2 = 0 then 'Bulk ' || i end, admin.password, '+86',
         (16000000000 + i)::text, '1', 0, 'default', 'test', 'test'
       from generate_series(1, 4500) as i,
         (select password from ${user.table} where username = 'admin' and tenant_code = 'default') as admin`,
    );
    for (const sort of ['-id', 'nickname', '-username']) {
      const response = await api.export(user, { username: 'bulk_', sort }, { 'accept-language': ACCEPT.en });
      const sheet = await readSheet(response);
      const listed = data<Page>(
        await api.query(user, { username: 'bulk_', sort, pageSize: '10000' }),
      ).records;
      expect(sheet.rows.length, sort).toBe(4500);
      expect(columnOf(sheet, 'en', user, 'id'), sort).toEqual(listed.map((row) => row.id));
      expect(columnOf(sheet, 'en', user, 'nickname'), sort).toEqual(
        listed.map((row) => row.nickname ?? null),
      );
    }
  });
});

describe('a client that goes away', () => {
  it('ends the export: its database statement stops and the app goes on serving', async () => {
    const user = t.app.ctx.registry.require('sysuser');
    // Far more rows than the sockets between the database, the app and the client hold.
    await t.sql(
      `insert into ${user.table} (username, nickname, password, country_code, mobile, status, user_type, tenant_code, created_by, updated_by)
       select 'gone_' || lpad(i::text, 6, '0'), '离开 ' || i, 'x', '+86', (17000000000 + i)::text, '1', 0, 'default', 'test', 'test'
       from generate_series(1, 60000) as i`,
    );
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const payload = JSON.stringify({ username: 'gone_' });
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/api/admin/${user.name}/export`,
        headers: {
          ...t.auth,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      });
      request.once('response', resolve).once('error', reject).end(payload);
    });
    expect(response.statusCode).toBe(200);
    const [first] = (await response.take(1).toArray()) as Buffer[];
    expect(first?.length).toBeGreaterThan(0);
    response.destroy(); // gone after its first bytes

    if (process.env.TEST_DATABASE_URL) {
      // No connection of this database is left with the export's statement (its timestamps
      // are read through to_json, which no other statement here does).
      const exporting = async (): Promise<number> =>
        Number(
          (
            await t.sql<{ count: string }>(
              `select count(*) as count from pg_stat_activity
               where datname = current_database() and pid <> pg_backend_pid() and query like '%to_json(%'`,
            )
          )[0]?.count,
        );
      const deadline = Date.now() + 10_000;
      while ((await exporting()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(await exporting()).toBe(0);
    }
    const listed = data<Page>(await api.query(user, { username: 'gone_', pageSize: '1' }));
    expect(listed.total).toBe(60000);
    await t.sql(`delete from ${user.table} where username like 'gone\\_%'`);
  });
});

describe('every entity', () => {
  it('exports all rows of the list, in its default order, without secret columns', async () => {
    for (const entity of t.app.ctx.registry.all) {
      const sheet = await readSheet(await api.export(entity, {}, { 'accept-language': ACCEPT.en }));
      const listed = data<Page>(await api.query(entity, { pageSize: '10000' })).records;
      expect(sheet.rows.length, entity.name).toBe(listed.length);
      expect(columnOf(sheet, 'en', entity, entity.key.name), entity.name).toEqual(
        listed.map((row) => row[entity.key.name]),
      );
      for (const field of entity.fields) {
        if (field.isSecret)
          expect(sheet.headers, `${entity.name}.${field.name}`).not.toContain(titleOf('en', entity, field));
      }
      for (const field of entity.fields.filter((f) => f.dict && !f.isSecret && f.type !== 'array')) {
        // a dictionary column holds labels, not codes
        const labels = Object.entries(locales.en.dicts[field.dict ?? ''] ?? {}).filter(
          ([code]) => code !== '_',
        );
        const column = columnOf(sheet, 'en', entity, field.name);
        listed.forEach((row, index) => {
          const label = labels.find(([code]) => code === String(row[field.name]))?.[1];
          if (label) expect(column[index], `${entity.name}.${field.name}`).toBe(label);
        });
      }
    }
  });
});

describe('rich text in an export (issue 40 point 10)', () => {
  it('writes the text of rich text, a line per paragraph, not its markup', async () => {
    const notice = t.app.ctx.registry.require('notice');
    await samples.create(notice, {
      title: 'expo_rich',
      content: '<p>第一段 <strong>加粗</strong> &amp; 更多</p><p>第二段<br>换行</p>',
    });
    const sheet = await readSheet(
      await api.export(notice, { title: 'expo_rich' }, { 'accept-language': ACCEPT.zh }),
    );
    expect(columnOf(sheet, 'zh', notice, 'content')).toEqual(['第一段 加粗 & 更多\n第二段\n换行']);
  });
});
