import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { decodeSvgQr } from '../support/qr.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const qr = (param: string, headers: Record<string, string> = {}) =>
  t.request({ method: 'GET', url: `/api/notification/home/qrcode?param=${param}`, headers });

async function setParam(paramKey: string, paramValue: string): Promise<void> {
  const [row] = await t.sql<{ id: number; version: number }>(
    'select id, version from sys_param where param_key = $1',
    [paramKey],
  );
  const response = await t.request({
    method: 'PUT',
    url: '/api/admin/sysparam/update',
    headers: t.auth,
    payload: { id: row?.id, version: row?.version, paramValue },
  });
  expect(response.statusCode, response.body).toBe(200);
}

describe('portal QR codes (footer and side panel)', () => {
  it('without an address configured, opens the sign-up information page of the site the visitor used', async () => {
    const response = await qr('buyerAccountUrl', { host: 'portal.example.cn' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(decodeSvgQr(response.body)).toBe('http://portal.example.cn/buysettlein');
    // built from this visitor's Host: never for a shared cache
    expect(response.headers['cache-control']).toBe('private, max-age=600');
    const supplier = await qr('supplierAccountUrl', { host: 'portal.example.cn' });
    expect(decodeSvgQr(supplier.body)).toBe('http://portal.example.cn/sellsettlein');
  });

  it('encodes the address configured in the params, cacheable by anyone, revalidated by ETag', async () => {
    const address = 'https://mp.weixin.qq.com/mp/profile_ext?action=home&__biz=MzA5NzEwNjQ0Mg==';
    await setParam('buyerAccountUrl', address);
    const response = await qr('buyerAccountUrl');
    expect(decodeSvgQr(response.body)).toBe(address);
    expect(response.headers['cache-control']).toBe('public, max-age=600');
    const etag = String(response.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await qr('buyerAccountUrl', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');

    await setParam('buyerAccountUrl', 'https://weixin.qq.com/r/other');
    const changed = await qr('buyerAccountUrl', { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(decodeSvgQr(changed.body)).toBe('https://weixin.qq.com/r/other');
  });

  it('answers 400 naming the field for a param that is not a QR code (no other param can be read)', async () => {
    for (const param of ['hotline', 'smtpPassword', '', '__proto__', 'toString']) {
      const response = await qr(param);
      expect(response.statusCode, param).toBe(400);
      expect(response.json().errors).toEqual([{ field: '/param', message: expect.any(String) }]);
    }
  });
});
