import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, data, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { fileUpload } from '../support/multipart.js';

/**
 * A notice's attachments on the portal (issue 16): the detail lists them (name, size, address)
 * and a visitor without a sign-in downloads them under their names while the notice is
 * published; nothing else is reachable through that address.
 */
let t: TestApp;
let api: Api;
const DETAIL = '/api/notification/notice/queryNoticeDetail';
const ATTACHMENT = '/api/notification/notice/attachment';

interface Attachment {
  id: number;
  originalFilename: string;
  size: number;
  sizeBytes: number;
  fileType: string;
  url: string;
}

async function upload(name: string, body: Buffer): Promise<number> {
  const form = fileUpload(name, body);
  const response = await t.request({
    method: 'POST',
    url: '/api/file/file/upload?use=attachment',
    headers: { ...t.auth, ...form.headers },
    payload: form.payload,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json().data as { id: number }).id;
}

async function addNotice(record: Record<string, unknown>): Promise<Row> {
  const response = await api.add(t.app.ctx.registry.require('notice'), {
    content: '<p>附件见下。</p>',
    ...record,
  });
  expect(response.statusCode, response.body).toBe(200);
  return data(response);
}

const SPEC = Buffer.from('技术规范 text\n'.repeat(300));
const PRICE = Buffer.from('报价单 text\n');
let specId: number;
let priceId: number;
let otherId: number;
let published: Row;
let draft: Row;

beforeAll(async () => {
  t = await startTestApp();
  api = new Api(t);
  specId = await upload('技术规范.txt', SPEC);
  priceId = await upload('报价单.txt', PRICE);
  otherId = await upload('内部.txt', Buffer.from('内部 text\n'));
  published = await addNotice({
    title: '带附件的公告',
    attachments: [specId, priceId],
    published: true,
  });
  draft = await addNotice({ title: '带附件的草稿', attachments: [specId], published: false });
});

afterAll(async () => {
  await t?.close();
});

describe('notice attachments on the portal', () => {
  it('lists a published notice’s attachments in order with name, size and a download address', async () => {
    const response = await t.request({ method: 'POST', url: DETAIL, payload: { id: published.id } });
    expect(response.statusCode, response.body).toBe(200);
    const answer = data<{ attachments: Attachment[] }>(response);
    expect(answer.attachments.map((file) => file.originalFilename)).toEqual(['技术规范.txt', '报价单.txt']);
    expect(answer.attachments[0]).toMatchObject({
      id: specId,
      sizeBytes: SPEC.length,
      size: Math.round((SPEC.length / 1024) * 100) / 100,
      fileType: 'txt',
      url: `${ATTACHMENT}?id=${String(published.id)}&fileId=${specId}`,
    });
  });

  it('lets a visitor download an attachment under its name, with ranges', async () => {
    const url = `${ATTACHMENT}?id=${String(published.id)}&fileId=${specId}`;
    const response = await t.request({ method: 'GET', url });
    expect(response.statusCode).toBe(200);
    expect(response.rawPayload.equals(SPEC)).toBe(true);
    expect(response.headers['content-type']).toBe('application/octet-stream');
    expect(String(response.headers['content-disposition'])).toBe(
      `attachment; filename="____.txt"; filename*=UTF-8''${encodeURIComponent('技术规范.txt')}`,
    );
    const part = await t.request({ method: 'GET', url, headers: { range: 'bytes=0-9' } });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.equals(SPEC.subarray(0, 10))).toBe(true);
    const head = await t.request({ method: 'HEAD', url });
    expect(head.statusCode).toBe(200);
    expect(Number(head.headers['content-length'])).toBe(SPEC.length);
  });

  it('refuses (404) a file the notice does not list, an unpublished notice and an unknown one', async () => {
    const cases = [
      `${ATTACHMENT}?id=${String(published.id)}&fileId=${otherId}`,
      `${ATTACHMENT}?id=${String(draft.id)}&fileId=${specId}`,
      `${ATTACHMENT}?id=999999999&fileId=${specId}`,
    ];
    for (const url of cases) {
      const response = await t.request({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
    }
    const missing = await t.request({ method: 'GET', url: `${ATTACHMENT}?id=${String(published.id)}` });
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('/fileId');
  });

  it('stops serving the attachments once the notice is unpublished', async () => {
    const notice = await addNotice({ title: '将下线的公告', attachments: [priceId], published: true });
    const url = `${ATTACHMENT}?id=${String(notice.id)}&fileId=${priceId}`;
    expect((await t.request({ method: 'GET', url })).statusCode).toBe(200);
    const entity = t.app.ctx.registry.require('notice');
    const updated = await api.update(entity, { ...notice, published: false });
    expect(updated.statusCode, updated.body).toBe(200);
    expect((await t.request({ method: 'GET', url })).statusCode).toBe(404);
  });

  it('lists no attachments for a notice without any', async () => {
    const notice = await addNotice({ title: '无附件的公告', published: true });
    const response = await t.request({ method: 'POST', url: DETAIL, payload: { id: notice.id } });
    expect(data<{ attachments: Attachment[] }>(response).attachments).toEqual([]);
  });
});
