/**
 * Credential and role changes reach the user's sessions at once (issue 11, point 4): a password
 * set by an administrator, a disabled user, a user moved to another tenant end them; a role taken
 * away (as a role link, as the main role) or renamed re-scopes them on the user's next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { bearer, freshMobile, tokenRequest } from '../support/identity.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

interface Signed {
  id: number;
  version: number;
  access: string;
  refresh: string;
}

async function roleId(code: string): Promise<number> {
  const [role] = await t.sql<{ id: number }>(
    "select id from sys_role where role_code = $1 and tenant_code = 'default'",
    [code],
  );
  return Number(role?.id);
}

/** A user of the default tenant with a main role, signed in once. */
async function signedInUser(username: string, mainRole: string): Promise<Signed> {
  const added = await t.request({
    method: 'POST',
    url: '/api/admin/sysuser/add',
    headers: t.auth,
    payload: {
      username,
      nickname: username,
      password: 'secret-1',
      email: `${username}@example.com`,
      mobile: freshMobile(),
      phone: '010-1234',
      roleId: await roleId(mainRole),
      orgId: 1,
    },
  });
  expect(added.statusCode, added.body).toBe(200);
  const signed = await t.signIn(username, 'secret-1');
  expect(signed.statusCode, signed.body).toBe(200);
  const { id, version } = added.json().data as { id: number; version: number };
  return { id, version, access: signed.json().access_token, refresh: signed.json().refresh_token };
}

const whoAmI = (token: string) =>
  t.request({ method: 'GET', url: '/api/uaa/users/getSysUser', headers: bearer(token) });

const listUsers = (token: string) =>
  t.request({ method: 'GET', url: '/api/admin/sysuser/query', headers: bearer(token) });

async function expectEnded(user: Signed): Promise<void> {
  const refused = await whoAmI(user.access);
  expect(refused.statusCode).toBe(401);
  expect(refused.json()).toMatchObject({ code: 401, error: 'invalid_token' });
  const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: user.refresh });
  expect(refreshed.statusCode).toBe(400);
  expect(refreshed.json().access_token).toBeUndefined();
  expect(refreshed.json().errors).toEqual([{ field: '/refresh_token', message: expect.any(String) }]);
}

const updateUser = (user: Signed, changes: Record<string, unknown>) =>
  t.request({
    method: 'PUT',
    url: '/api/admin/sysuser/update',
    headers: t.auth,
    payload: { id: user.id, version: user.version, ...changes },
  });

describe('sessions after an administrator changes a user', () => {
  it('a password set with admin/sysuser/update ends every session of the user', async () => {
    const user = await signedInUser('reset_by_admin', 'ROLE_SYS_BUYER');
    const other = await signedInUser('bystander', 'ROLE_SYS_BUYER');
    expect((await whoAmI(user.access)).statusCode).toBe(200);
    const changed = await updateUser(user, { password: 'secret-2' });
    expect(changed.statusCode, changed.body).toBe(200);
    await expectEnded(user);
    expect((await t.signIn('reset_by_admin', 'secret-1')).statusCode).toBe(400);
    expect((await t.signIn('reset_by_admin', 'secret-2')).statusCode).toBe(200);
    // Another user's session is not touched.
    expect((await whoAmI(other.access)).statusCode).toBe(200);
  });

  it('an update without a password leaves the sessions alone', async () => {
    const user = await signedInUser('renamed_only', 'ROLE_SYS_BUYER');
    const changed = await updateUser(user, { nickname: 'renamed' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await whoAmI(user.access)).statusCode).toBe(200);
  });

  it('a disabled user stays signed out when enabled again', async () => {
    const user = await signedInUser('disabled_once', 'ROLE_SYS_BUYER');
    const disabled = await updateUser(user, { status: '0' });
    expect(disabled.statusCode, disabled.body).toBe(200);
    await expectEnded(user);
    const enabled = await updateUser({ ...user, version: disabled.json().data.version }, { status: '1' });
    expect(enabled.statusCode, enabled.body).toBe(200);
    await expectEnded(user);
  });

  it('a user moved to another tenant is signed out of the old one', async () => {
    const user = await signedInUser('moved_away', 'ROLE_SYS_BUYER');
    expect((await whoAmI(user.access)).statusCode).toBe(200);
    await t.sql("update sys_user set tenant_code = 'elsewhere' where id = $1", [user.id]);
    await expectEnded(user);
  });
});

describe('sessions after a role change', () => {
  it('a role link taken away stops granting its URLs on the next request', async () => {
    const user = await signedInUser('lost_admin', 'ROLE_SYS_BUYER');
    const admin = await roleId('ROLE_ADMIN');
    const authorize = (roleIds: number[]) =>
      t.request({
        method: 'POST',
        url: '/api/admin/sysrole/authorizeRoleToUser',
        headers: t.auth,
        payload: { userId: user.id, roleIds },
      });
    expect((await listUsers(user.access)).statusCode).toBe(403);
    expect((await authorize([admin])).statusCode).toBe(200);
    // Given a role, the session holds it at once (no new sign-in).
    expect((await listUsers(user.access)).statusCode).toBe(200);
    expect((await whoAmI(user.access)).json().data.roles).toEqual(['ROLE_ADMIN', 'ROLE_SYS_BUYER']);
    expect((await authorize([])).statusCode).toBe(200);
    expect((await listUsers(user.access)).statusCode).toBe(403);
    expect((await whoAmI(user.access)).json().data.roles).toEqual(['ROLE_SYS_BUYER']);
    // A refresh keeps the narrower roles.
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: user.refresh });
    expect(refreshed.statusCode).toBe(200);
    expect((await listUsers(refreshed.json().access_token)).statusCode).toBe(403);
  });

  it('taking a user out of a role from the role side re-scopes that user only', async () => {
    const leaving = await signedInUser('leaving_admin', 'ROLE_SYS_BUYER');
    const staying = await signedInUser('staying_admin', 'ROLE_SYS_BUYER');
    const admin = await roleId('ROLE_ADMIN');
    const authorize = (userIds: number[]) =>
      t.request({
        method: 'POST',
        url: '/api/admin/sysrole/authorizeUserToRole',
        headers: t.auth,
        payload: { roleId: admin, userIds },
      });
    const holders = await t.sql<{ user_id: number }>('select user_id from sys_role_user where role_id = $1', [
      admin,
    ]);
    const others = holders.map((row) => Number(row.user_id));
    expect((await authorize([...others, leaving.id, staying.id])).statusCode).toBe(200);
    expect((await listUsers(leaving.access)).statusCode).toBe(200);
    expect((await authorize([...others, staying.id])).statusCode).toBe(200);
    expect((await listUsers(leaving.access)).statusCode).toBe(403);
    expect((await listUsers(staying.access)).statusCode).toBe(200);
    // The admin's own session, whose roles did not change, goes on.
    expect((await listUsers(t.auth.authorization.slice('Bearer '.length))).statusCode).toBe(200);
  });

  it('a main role changed with admin/sysuser/update re-scopes the sessions', async () => {
    const user = await signedInUser('demoted_admin', 'ROLE_ADMIN');
    expect((await listUsers(user.access)).statusCode).toBe(200);
    const changed = await updateUser(user, { roleId: await roleId('ROLE_SYS_SUPPLIER') });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await listUsers(user.access)).statusCode).toBe(403);
    expect((await whoAmI(user.access)).json().data.roles).toEqual(['ROLE_SYS_SUPPLIER']);
  });

  it('a renamed role keeps granting its URLs under its new code', async () => {
    const role = await t.request({
      method: 'POST',
      url: '/api/admin/sysrole/add',
      headers: t.auth,
      payload: { roleCode: 'ROLE_REGION_READER', roleName: '区域查看' },
    });
    expect(role.statusCode, role.body).toBe(200);
    const url = await t.request({
      method: 'POST',
      url: '/api/admin/sysurl/add',
      headers: t.auth,
      payload: { url: '/api/admin/sysregion/query', description: 'regions' },
    });
    expect(url.statusCode, url.body).toBe(200);
    const granted = await t.request({
      method: 'POST',
      url: '/api/admin/sysurl/authorizeRoleToUrl',
      headers: t.auth,
      payload: { urlId: url.json().data.id, roleIds: [role.json().data.id] },
    });
    expect(granted.statusCode, granted.body).toBe(200);
    const user = await signedInUser('region_reader', 'ROLE_REGION_READER');
    const regions = () =>
      t.request({ method: 'GET', url: '/api/admin/sysregion/query', headers: bearer(user.access) });
    expect((await regions()).statusCode).toBe(200);
    const renamed = await t.request({
      method: 'PUT',
      url: '/api/admin/sysrole/update',
      headers: t.auth,
      payload: { id: role.json().data.id, version: role.json().data.version, roleCode: 'ROLE_REGION_VIEWER' },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect((await regions()).statusCode).toBe(200);
    expect((await whoAmI(user.access)).json().data.roles).toEqual(['ROLE_REGION_VIEWER']);
  });
});

describe('sessions after a delete', () => {
  it('a deleted user is signed out at once', async () => {
    const user = await signedInUser('deleted_user', 'ROLE_SYS_BUYER');
    expect((await whoAmI(user.access)).statusCode).toBe(200);
    const deleted = await t.request({
      method: 'POST',
      url: `/api/admin/sysuser/delete?id=${user.id}`,
      headers: t.auth,
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    await expectEnded(user);
  });

  it('a deleted role stops granting its URLs to the users it was linked to', async () => {
    const role = await t.request({
      method: 'POST',
      url: '/api/admin/sysrole/add',
      headers: t.auth,
      payload: { roleCode: 'ROLE_POST_READER', roleName: '岗位查看' },
    });
    expect(role.statusCode, role.body).toBe(200);
    const address = '/api/admin/syspost/query';
    const [known] = await t.sql<{ id: number }>(
      "select id from sys_url where url = $1 and tenant_code = 'default'",
      [address],
    );
    const urlId =
      known?.id ??
      (
        await t.request({
          method: 'POST',
          url: '/api/admin/sysurl/add',
          headers: t.auth,
          payload: { url: address, description: 'posts' },
        })
      ).json().data.id;
    const granted = await t.request({
      method: 'POST',
      url: '/api/admin/sysurl/authorizeRoleToUrl',
      headers: t.auth,
      payload: { urlId: Number(urlId), roleIds: [role.json().data.id] },
    });
    expect(granted.statusCode, granted.body).toBe(200);
    const user = await signedInUser('post_reader', 'ROLE_SYS_BUYER');
    const linked = await t.request({
      method: 'POST',
      url: '/api/admin/sysrole/authorizeRoleToUser',
      headers: t.auth,
      payload: { userId: user.id, roleIds: [role.json().data.id] },
    });
    expect(linked.statusCode, linked.body).toBe(200);
    const posts = () => t.request({ method: 'GET', url: address, headers: bearer(user.access) });
    expect((await posts()).statusCode).toBe(200);

    const deleted = await t.request({
      method: 'POST',
      url: `/api/admin/sysrole/delete?id=${role.json().data.id}`,
      headers: t.auth,
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    // the same session, no new sign-in: the role is gone from it
    expect((await posts()).statusCode).toBe(403);
    expect((await whoAmI(user.access)).json().data.roles).toEqual(['ROLE_SYS_BUYER']);
  });
});
