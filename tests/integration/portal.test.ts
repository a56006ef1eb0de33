import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { Api, data, type Page, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * The public, read-only portal endpoints of SPEC §7 "Notification and home": published records
 * only, no sign-in, paging where lists are long, whitelisted params.
 */
let t: TestApp;
let api: Api;
const TAG = `pt${Date.now().toString(36)}`;

/** A visitor: no Authorization header at all. */
function visitor(options: InjectOptions): Promise<LightMyRequestResponse> {
  return t.request(options);
}
const get = (url: string): Promise<LightMyRequestResponse> => visitor({ method: 'GET', url });
const post = (url: string, payload?: Record<string, unknown>): Promise<LightMyRequestResponse> =>
  visitor(payload === undefined ? { method: 'POST', url } : { method: 'POST', url, payload });

async function add(entity: string, record: Record<string, unknown>): Promise<Row> {
  const response = await api.add(t.app.ctx.registry.require(entity), record);
  expect(response.statusCode, response.body).toBe(200);
  return data(response);
}

const titles = (rows: Row[]): unknown[] => rows.map((row) => row.title);

let publishedNotice: Row;
let draftNotice: Row;
let pinnedNotice: Row;

beforeAll(async () => {
  t = await startTestApp();
  api = new Api(t);
  publishedNotice = await add('notice', {
    title: `${TAG} 关于平台升级的公告`,
    content: '<p>平台将于本周六升级。</p>',
    publishTime: '2031-01-02T08:00:00Z',
    published: true,
  });
  draftNotice = await add('notice', {
    title: `${TAG} 草稿公告`,
    content: '<p>尚未发布</p>',
    publishTime: '2031-01-03T08:00:00Z',
    published: false,
  });
  pinnedNotice = await add('notice', {
    title: `${TAG} 置顶公告`,
    content: '<p>置顶</p>',
    publishTime: '2032-01-01T08:00:00Z',
    pinned: true,
    published: true,
  });
  for (let index = 0; index < 12; index += 1) {
    await add('notice', {
      title: `${TAG} 批量公告 ${String(index).padStart(2, '0')}`,
      content: '<p>内容</p>',
      publishTime: `2030-02-${String(index + 1).padStart(2, '0')}T08:00:00Z`,
      published: true,
    });
  }
});
afterAll(async () => {
  await t?.close();
});

describe('notices', () => {
  it('previews the first 4 published notices without sign-in, pinned first, no content in lists', async () => {
    const response = await get('/api/notification/notice/queryFirst4');
    expect(response.statusCode, response.body).toBe(200);
    const rows = data<Row[]>(response);
    expect(rows).toHaveLength(4);
    expect(rows[0]?.title).toBe(pinnedNotice.title);
    // pinned ones first (the seeded pinned notice too), then the newest
    expect(rows.slice(0, 2).every((row) => row.pinned === true)).toBe(true);
    expect(rows[2]?.title).toBe(publishedNotice.title);
    expect(titles(rows)).not.toContain(draftNotice.title);
    for (const row of rows) {
      expect(row.published).toBe(true);
      expect(row).not.toHaveProperty('content');
      expect(row).not.toHaveProperty('tenantCode');
      expect(row).not.toHaveProperty('createdBy');
    }
  });

  it('pages the published notices and filters by title', async () => {
    const first = await get(`/api/notification/notice/queryNotices?currentPage=1&pageSize=5&title=${TAG}`);
    expect(first.statusCode, first.body).toBe(200);
    const page = data<Page>(first);
    expect(page.total).toBe(14);
    expect(page.records).toHaveLength(5);
    expect(page).toMatchObject({ currentPage: 1, pageSize: 5 });
    const last = data<Page>(
      await get(`/api/notification/notice/queryNotices?currentPage=3&pageSize=5&title=${TAG}`),
    );
    expect(last.records).toHaveLength(4);
    const all = [...page.records, ...last.records];
    expect(titles(all)).not.toContain(draftNotice.title);
    const other = data<Page>(
      await get(`/api/notification/notice/queryNotices?title=${encodeURIComponent('草稿')}`),
    );
    expect(titles(other.records)).not.toContain(draftNotice.title);
  });

  it('refuses page sizes beyond the public limit and junk paging with a 400', async () => {
    expect((await get('/api/notification/notice/queryNotices?pageSize=500')).statusCode).toBe(400);
    expect((await get('/api/notification/notice/queryNotices?currentPage=abc')).statusCode).toBe(400);
    expect((await get('/api/notification/notice/queryNotices?currentPage=0')).statusCode).toBe(400);
  });

  it('shows one published notice with its content; a draft or missing one is a 404', async () => {
    const found = await get(`/api/notification/notice/queryNotice?id=${String(publishedNotice.id)}`);
    expect(found.statusCode, found.body).toBe(200);
    expect(data(found)).toMatchObject({ id: publishedNotice.id, content: '<p>平台将于本周六升级。</p>' });
    expect((await get(`/api/notification/notice/queryNotice?id=${String(draftNotice.id)}`)).statusCode).toBe(
      404,
    );
    expect((await get('/api/notification/notice/queryNotice?id=999999')).statusCode).toBe(404);
    expect((await get('/api/notification/notice/queryNotice')).statusCode).toBe(400);
    expect((await get('/api/notification/notice/queryNotice?id=1%20or%201=1')).statusCode).toBe(400);
  });

  it('answers the detail with the latest other notices', async () => {
    const response = await post('/api/notification/notice/queryNoticeDetail', { id: publishedNotice.id });
    expect(response.statusCode, response.body).toBe(200);
    const detail = data<{ notice: Row; latest: Row[] }>(response);
    expect(detail.notice.title).toBe(publishedNotice.title);
    expect(detail.latest.length).toBeGreaterThan(0);
    expect(detail.latest.map((row) => row.id)).not.toContain(publishedNotice.id);
    expect(titles(detail.latest)).not.toContain(draftNotice.title);
    expect(
      (await post('/api/notification/notice/queryNoticeDetail', { id: draftNotice.id })).statusCode,
    ).toBe(404);
  });

  it('follows publishing in the back-office: a draft appears once published', async () => {
    const notice = t.app.ctx.registry.require('notice');
    const draft = data(await api.query(notice, { title: `${TAG} 草稿` })) as unknown as Page;
    const record = draft.records[0];
    expect(record).toBeDefined();
    const updated = await api.update(notice, { id: record?.id, version: record?.version, published: true });
    expect(updated.statusCode, updated.body).toBe(200);
    const first4 = data<Row[]>(await get('/api/notification/notice/queryFirst4'));
    expect(titles(first4)).toContain(draftNotice.title);
    const back = await api.update(notice, {
      id: record?.id,
      version: Number(record?.version) + 1,
      published: false,
    });
    expect(back.statusCode, back.body).toBe(200);
    expect(titles(data<Row[]>(await get('/api/notification/notice/queryFirst4')))).not.toContain(
      draftNotice.title,
    );
  });

  it('keeps the generated CRUD of notices behind sign-in', async () => {
    expect((await get('/api/notification/notice/query')).statusCode).toBe(401);
    expect(
      (await post('/api/notification/notice/add', { title: 'x', content: 'y', published: true })).statusCode,
    ).toBe(401);
  });
});

describe('home', () => {
  let purchaseTitle = '';
  let draftPurchaseTitle = '';
  let idleRanked: Row;
  let idleDraft: Row;
  beforeAll(async () => {
    await add('homepicture', { title: `${TAG} 图二`, imageUrl: '/b2.jpg', sequence: 2, published: true });
    await add('homepicture', {
      title: `${TAG} 图一`,
      imageUrl: 'https://cdn.example.com/b1.jpg',
      sequence: 1,
      published: true,
    });
    await add('homepicture', {
      title: `${TAG} 未发布图`,
      imageUrl: '/b3.jpg',
      sequence: 0,
      published: false,
    });
    purchaseTitle = String(
      (
        await add('purchase', {
          title: `${TAG} 污水处理厂提标改造设备采购`,
          buyerName: '某市水务集团',
          category: '水处理',
          region: '江苏',
          budget: 3_200_000,
          publishTime: '2031-03-01T00:00:00Z',
          content: '<p>详见附件</p>',
          published: true,
        })
      ).title,
    );
    draftPurchaseTitle = String(
      (await add('purchase', { title: `${TAG} 未发布采购`, buyerName: '某公司', published: false })).title,
    );
    idleRanked = await add('idleequipment', {
      name: `${TAG} 板框压滤机`,
      category: '污泥处理',
      price: 68000,
      rank: 900,
      description: '九成新',
      published: true,
    });
    await add('idleequipment', { name: `${TAG} 离心风机`, category: '大气治理', rank: 10, published: true });
    idleDraft = await add('idleequipment', {
      name: `${TAG} 未发布设备`,
      category: '污泥处理',
      rank: 9999,
      published: false,
    });
  });

  it('lists published pictures in sequence order', async () => {
    const rows = data<Row[]>(await post('/api/notification/home/pictures', {}));
    const mine = rows.filter((row) => String(row.title).startsWith(TAG));
    expect(titles(mine)).toEqual([`${TAG} 图一`, `${TAG} 图二`]);
    // a POST without any body is fine too
    expect((await post('/api/notification/home/pictures')).statusCode).toBe(200);
  });

  it('rotates published purchase announcements and pages them with filters', async () => {
    const rotation = data<Row[]>(await post('/api/notification/notice/queryOrderRotation', {}));
    expect(titles(rotation)).toContain(purchaseTitle);
    expect(titles(rotation)).not.toContain(draftPurchaseTitle);
    expect(rotation[0]).not.toHaveProperty('content');
    const page = data<Page>(
      await post(
        `/api/notification/home/order/notices?currentPage=1&pageSize=5&title=${TAG}&region=${encodeURIComponent('江苏')}`,
      ),
    );
    expect(titles(page.records)).toEqual([purchaseTitle]);
    expect(page.total).toBe(1);
    const id = page.records[0]?.id;
    const detail = await post('/api/notification/home/order/detail', { id });
    expect(detail.statusCode, detail.body).toBe(200);
    expect(data(detail)).toMatchObject({
      title: purchaseTitle,
      content: '<p>详见附件</p>',
      budget: '3200000.00',
    });
  });

  it('lists idle equipment paged and ranked, published only', async () => {
    const page = data<Page>(await post('/api/notification/home/show/attr', { name: TAG, pageSize: 1 }));
    expect(page.total).toBe(2);
    expect(page.records).toHaveLength(1);
    const rank = data<Row[]>(await post('/api/notification/home/show/attr/rank?limit=20'));
    const names = rank.map((row) => row.name);
    expect(names.indexOf(idleRanked.name)).toBeLessThan(names.indexOf(`${TAG} 离心风机`));
    expect(names).not.toContain(idleDraft.name);
    const detail = await post('/api/notification/home/show/detail', { id: idleRanked.id });
    expect(data(detail)).toMatchObject({ name: idleRanked.name, description: '九成新' });
    expect((await post('/api/notification/home/show/detail', { id: idleDraft.id })).statusCode).toBe(404);
  });

  it('serves only the whitelisted params', async () => {
    const param = t.app.ctx.registry.require('sysparam');
    const added = await api.add(param, {
      paramName: 'secret',
      paramKey: 'smtpPassword',
      paramValue: 'hunter2',
    });
    expect(added.statusCode, added.body).toBe(200);
    const response = await get('/api/notification/home/params');
    expect(response.statusCode, response.body).toBe(200);
    const values = data<Record<string, string>>(response);
    expect(values).toMatchObject({ product: 'ecobid', productTitle: '环保产业采购招投标平台' });
    expect(values.hotline).toMatch(/\d/);
    expect(values.mailbox).toContain('@');
    expect(values).toHaveProperty('buyerProgramUrl');
    expect(values).toHaveProperty('supplierProgramUrl');
    expect(values).toHaveProperty('customerServiceUrl');
    expect(values).not.toHaveProperty('smtpPassword');
  });
});
