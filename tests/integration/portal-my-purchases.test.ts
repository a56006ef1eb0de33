import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';

/** GET /api/notification/purchase/queryMyPurchase: a buyer's 我的采购公告 in the portal's personal centre. */
let t: TestApp;
let buyer: { id: number; token: string };
let orgName: string;

async function addPurchase(
  title: string,
  buyerName: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const added = await t.request({
    method: 'POST',
    url: '/api/notification/purchase/add',
    headers: t.auth,
    payload: { title, buyerName, budget: 1_000_000, ...extra },
  });
  expect(added.statusCode, added.body).toBe(200);
}

const mine = (token: string | undefined, query = '') =>
  t.request({
    method: 'GET',
    url: `/api/notification/purchase/queryMyPurchase${query}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });

beforeAll(async () => {
  t = await startTestApp();
  buyer = await createUserWithRole(t, 'mypurchasebuyer', 'ROLE_SYS_BUYER');
  const [org] = await t.sql<{ org_name: string }>(
    'select o.org_name from sys_user u join sys_org o on o.id = u.org_id where u.id = $1',
    [buyer.id],
  );
  orgName = org?.org_name ?? '';
  await addPurchase('mine, published', orgName, { published: true, publishTime: '2030-01-02T08:00:00Z' });
  await addPurchase('mine, draft', orgName, { published: false, publishTime: '2030-01-03T08:00:00Z' });
  await addPurchase('another buyer', `${orgName}分公司`, { published: true });
});
afterAll(async () => {
  await t.close();
});

describe('my purchase notices', () => {
  it("lists the caller's organisation's notices, published or not, newest first, and no other's", async () => {
    const response = await mine(buyer.token);
    expect(response.statusCode, response.body).toBe(200);
    const page = response.json().data as { records: { title: string; published: boolean }[]; total: number };
    expect(page.records.map((row) => [row.title, row.published])).toEqual([
      ['mine, draft', false],
      ['mine, published', true],
    ]);
    expect(page.total).toBe(2);
    const second = (await mine(buyer.token, '?currentPage=2&pageSize=1')).json().data;
    expect(second).toMatchObject({ currentPage: 2, pageSize: 1, total: 2 });
    expect(second.records[0].title).toBe('mine, published');
  });

  it('needs a signed-in user, and names a bad paging field', async () => {
    expect((await mine(undefined)).statusCode).toBe(401);
    const bad = await mine(buyer.token, '?pageSize=abc');
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json().errors)).toContain('/pageSize');
  });
});
