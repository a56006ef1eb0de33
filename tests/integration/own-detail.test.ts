import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { bearer } from '../support/identity.js';
import { createUserWithRole } from '../support/users.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const detail = async (headers: { authorization: string }) => {
  const response = await t.request({
    method: 'GET',
    url: '/api/account/sysuserdetail/querySysUserDetail',
    headers,
  });
  return { status: response.statusCode, data: response.json().data as Record<string, unknown> };
};

describe('the profile form reads its own record', () => {
  it('gives a portal user their own editable fields with the version, never the password', async () => {
    const { id, token } = await createUserWithRole(t, 'owndetail', 'ROLE_SYS_BUYER');
    const read = await detail(bearer(token));
    expect(read.status).toBe(200);
    expect(Object.keys(read.data).sort()).toEqual(
      [
        'address',
        'avatar',
        'email',
        'geographic',
        'id',
        'mobile',
        'nickname',
        'phone',
        'profile',
        'username',
        'version',
      ].sort(),
    );
    expect(read.data).toMatchObject({ id, username: 'owndetail', nickname: 'owndetail', phone: '010-1234' });

    const updated = await t.request({
      method: 'PUT',
      url: '/api/account/sysuserdetail/updateSysUserDetail',
      headers: bearer(token),
      payload: { id, version: read.data.version, nickname: '张三', address: '北京市朝阳区' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    const after = await detail(bearer(token));
    expect(after.data).toMatchObject({ nickname: '张三', address: '北京市朝阳区' });
    expect(after.data.version).toBe(Number(read.data.version) + 1);
  });

  it('answers 401 without a token', async () => {
    const response = await t.request({ method: 'GET', url: '/api/account/sysuserdetail/querySysUserDetail' });
    expect(response.statusCode).toBe(401);
  });
});
