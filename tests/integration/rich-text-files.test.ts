import ExcelJS from 'exceljs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';
import { fileUpload } from '../support/multipart.js';

/**
 * Rich text and file fields (issue 16, back-office part): every rich-text field is sanitised by
 * the server before it is stored, on add and update, whatever the entity; file fields take only
 * files the caller may see; pictures have a public address that names their content.
 */
let t: TestApp;
let filesDir: string;
const BASE = '/api/file/file';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

type Headers = { authorization: string };

async function upload(name: string, body: Buffer, use: 'image' | 'attachment', headers: Headers = t.auth) {
  const form = fileUpload(name, body);
  const response = await t.request({
    method: 'POST',
    url: `${BASE}/upload?use=${use}`,
    headers: { ...headers, ...form.headers },
    payload: form.payload,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as { id: number; url: string };
}

const HOSTILE = [
  '<script>alert(1)</script>',
  '<p onclick="steal()">正文 <a href="javascript:alert(2)">链接</a> <a href="https://example.com/x">官网</a></p>',
  '<img src="/api/file/file/picture?id=1&amp;h=0000000000000000" onerror="steal()" alt="图">',
  '<img src="javascript:alert(3)">',
  '<span style="font-size: 12pt; background-image: url(javascript:alert(4))">大字</span>',
  '<span style="position: fixed; top: 0">盖住页面</span>',
  '<iframe src="https://evil.example"></iframe><style>body{display:none}</style>',
  '<svg onload="steal()"><circle /></svg><div style="font-size: 99pt">太大</div>',
].join('');

/** What a user would check: nothing that runs or restyles the page is left. */
function expectClean(html: string): void {
  expect(html).not.toMatch(
    /<script|<iframe|<style|<svg|onclick|onerror|onload|javascript:|position|background/i,
  );
  expect(html).not.toContain('99pt');
  expect(html).toContain('<span style="font-size:12pt">大字</span>');
  expect(html).toContain('href="https://example.com/x"');
  expect(html).toContain('rel="noopener noreferrer"');
  expect(html).toContain('<img src="/api/file/file/picture?id=1&amp;h=0000000000000000" alt="图" />');
  expect(html).toContain('正文');
  expect(html).toContain('盖住页面');
}

beforeAll(async () => {
  filesDir = mkdtempSync(join(tmpdir(), 'ecobid-richtext-'));
  t = await startTestApp({ env: { FILES_DIR: filesDir } });
}, 120_000);
afterAll(async () => {
  await t?.close();
  rmSync(filesDir, { recursive: true, force: true });
});

describe('rich text is sanitised before it is stored', () => {
  it('cleans a notice on add and on update, in the answer and in the database', async () => {
    const added = await t.request({
      method: 'POST',
      url: '/api/notification/notice/add',
      headers: t.auth,
      payload: { title: '富文本清洗', content: HOSTILE },
    });
    expect(added.statusCode, added.body).toBe(200);
    const notice = added.json().data as { id: number; version: number; content: string };
    expectClean(notice.content);
    const [stored] = await t.sql<{ content: string }>('select content from portal_notice where id = $1', [
      notice.id,
    ]);
    expectClean(stored?.content ?? '');

    const updated = await t.request({
      method: 'PUT',
      url: '/api/notification/notice/update',
      headers: t.auth,
      payload: { id: notice.id, version: notice.version, content: `<p>改过</p>${HOSTILE}` },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    const [after] = await t.sql<{ content: string }>('select content from portal_notice where id = $1', [
      notice.id,
    ]);
    expectClean(after?.content ?? '');
    expect(after?.content).toContain('<p>改过</p>');
  });

  it('cleans every entity whose field declares rich text (notifications too)', async () => {
    const added = await t.request({
      method: 'POST',
      url: '/api/admin/notification/add',
      headers: t.auth,
      payload: { title: '通知清洗', content: HOSTILE, type: 'announcement', priority: '1' },
    });
    expect(added.statusCode, added.body).toBe(200);
    const [stored] = await t.sql<{ content: string }>('select content from sys_notification where id = $1', [
      added.json().data.id,
    ]);
    expectClean(stored?.content ?? '');
  });

  it('refuses a required rich text that held nothing but a script, naming the field', async () => {
    const added = await t.request({
      method: 'POST',
      url: '/api/notification/notice/add',
      headers: t.auth,
      payload: { title: '只有脚本', content: '<script>alert(1)</script>' },
    });
    expect(added.statusCode).toBe(400);
    expect(added.json().errors).toEqual([expect.objectContaining({ field: '/content' })]);
    const rows = await t.sql("select 1 from portal_notice where title = '只有脚本'");
    expect(rows).toHaveLength(0);
  });
});

describe('pictures have a public address', () => {
  it('answers names and addresses by id, and serves a picture without sign-in by its address only', async () => {
    const picture = await upload('图.png', PNG, 'image');
    const attachment = await upload('说明.txt', Buffer.from('附件内容 text\n'), 'attachment');
    const info = await t.request({
      method: 'GET',
      url: `${BASE}/info?id=${picture.id}&id=${attachment.id}&id=999999`,
      headers: t.auth,
    });
    expect(info.statusCode, info.body).toBe(200);
    const [link, file, ...rest] = info.json().data.records as {
      id: number;
      pictureUrl?: string;
      originalFilename: string;
    }[];
    expect(rest).toHaveLength(0);
    expect(link).toMatchObject({ id: picture.id, originalFilename: '图.png' });
    expect(file).toMatchObject({ id: attachment.id, originalFilename: '说明.txt' });
    expect(file).not.toHaveProperty('pictureUrl');
    expect(link?.pictureUrl).toMatch(new RegExp(`^${BASE}/picture\\?id=${picture.id}&h=[0-9a-f]{16}$`));

    const shown = await t.request({ method: 'GET', url: link?.pictureUrl ?? '' });
    expect(shown.statusCode).toBe(200);
    expect(shown.rawPayload.equals(PNG)).toBe(true);
    expect(shown.headers['content-type']).toBe('image/png');
    expect(String(shown.headers['cache-control'])).toContain('immutable');

    const guessed = await t.request({
      method: 'GET',
      url: `${BASE}/picture?id=${picture.id}&h=0000000000000000`,
    });
    expect(guessed.statusCode).toBe(404);
    const [row] = await t.sql<{ sha256: string }>('select sha256 from sys_file where id = $1', [
      attachment.id,
    ]);
    const notPicture = await t.request({
      method: 'GET',
      url: `${BASE}/picture?id=${attachment.id}&h=${row?.sha256.slice(0, 16) ?? ''}`,
    });
    expect(notPicture.statusCode).toBe(404);
    const anonymousInfo = await t.request({ method: 'GET', url: `${BASE}/info?id=${picture.id}` });
    expect(anonymousInfo.statusCode).toBe(401);
  });
});

describe('file fields take files the caller may see', () => {
  let buyer: Headers;
  let supplier: Headers;

  beforeAll(async () => {
    const roles = await t.sql<{ id: number }>(
      "select id from sys_role where tenant_code = 'default' and role_code in ('ROLE_SYS_BUYER', 'ROLE_SYS_SUPPLIER')",
    );
    for (const url of ['/api/file/file/**', '/api/notification/notice/**']) {
      const added = await t.request({
        method: 'POST',
        url: '/api/admin/sysurl/add',
        headers: t.auth,
        payload: { url, description: url },
      });
      expect(added.statusCode, added.body).toBe(200);
      const granted = await t.request({
        method: 'POST',
        url: '/api/admin/sysurl/authorizeRoleToUrl',
        headers: t.auth,
        payload: { urlId: added.json().data.id, roleIds: roles.map((role) => role.id) },
      });
      expect(granted.statusCode, granted.body).toBe(200);
    }
    buyer = { authorization: `Bearer ${(await createUserWithRole(t, 'rtbuyer', 'ROLE_SYS_BUYER')).token}` };
    supplier = {
      authorization: `Bearer ${(await createUserWithRole(t, 'rtsupplier', 'ROLE_SYS_SUPPLIER')).token}`,
    };
  });

  const addNotice = (headers: Headers, attachments: number[]) =>
    t.request({
      method: 'POST',
      url: '/api/notification/notice/add',
      headers,
      payload: { title: `附件公告 ${attachments.join(',')}`, content: '<p>见附件</p>', attachments },
    });

  it('stores the ids of the caller’s own files and answers them', async () => {
    const own = await upload('标书.txt', Buffer.from('标书 text\n'), 'attachment', supplier);
    const added = await addNotice(supplier, [own.id]);
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json().data.attachments).toEqual([own.id]);
  });

  it('refuses another user’s private file, an unknown id and another tenant’s file, naming the field', async () => {
    const others = await upload('私有.txt', Buffer.from('私有 text\n'), 'attachment', buyer);
    const refused = await addNotice(supplier, [others.id]);
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().errors).toEqual([
      expect.objectContaining({ field: '/attachments', message: expect.stringContaining(String(others.id)) }),
    ]);

    expect((await addNotice(t.auth, [987654])).statusCode).toBe(400);

    const [foreign] = await t.sql<{ id: number }>(
      `insert into sys_file (tenant_code, owner_id, owner_name, file_use, original_filename, size_bytes,
         content_type, file_type, sha256, storage_key)
       values ('othertenant', 1, 'admin', 'attachment', 'x.txt', 1, 'text/plain', 'txt', $1, 'zz/foreign') returning id`,
      ['0'.repeat(64)],
    );
    const crossTenant = await addNotice(t.auth, [foreign?.id ?? 0]);
    expect(crossTenant.statusCode, crossTenant.body).toBe(400);
    expect(crossTenant.json().errors).toEqual([expect.objectContaining({ field: '/attachments' })]);
  });

  it('exports the names of the files, in the field’s order', async () => {
    const first = await upload('技术规范.txt', Buffer.from('规范 text\n'), 'attachment');
    const second = await upload('报价单.txt', Buffer.from('报价 text\n'), 'attachment');
    const title = '导出附件公告';
    const added = await t.request({
      method: 'POST',
      url: '/api/notification/notice/add',
      headers: t.auth,
      payload: { title, content: '<p>见附件</p>', attachments: [second.id, first.id] },
    });
    expect(added.statusCode, added.body).toBe(200);
    const exported = await t.request({
      method: 'POST',
      url: '/api/notification/notice/export',
      headers: { ...t.auth, 'accept-language': 'zh' },
      payload: { title },
    });
    expect(exported.statusCode, exported.body.slice(0, 300)).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(exported.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0];
    const headers = (sheet?.getRow(1).values as unknown[]).map(String);
    const column = headers.indexOf('附件');
    expect(column).toBeGreaterThan(0);
    expect(sheet?.rowCount).toBe(2);
    expect(sheet?.getRow(2).getCell(column).value).toBe('报价单.txt, 技术规范.txt');
  });

  it('lets an administrator attach any file of the tenant', async () => {
    const buyers = await upload('采购需求.txt', Buffer.from('需求 text\n'), 'attachment', buyer);
    const added = await addNotice(t.auth, [buyers.id]);
    expect(added.statusCode, added.body).toBe(200);
  });
});
