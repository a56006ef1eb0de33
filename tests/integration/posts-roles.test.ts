import { PERSONAL_OFFICE_MENUS } from '../../src/server/features/workflow/menus.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { USER_PASSWORD, createUserWithRole } from '../support/users.js';

/** Menu paths without the personal office, which every back-office role has (issue 13). */
const withoutOffice = (paths: string[]): string[] =>
  paths.filter((path) => !PERSONAL_OFFICE_MENUS.includes(path.slice(1)));

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

interface Node {
  id: number;
  menuCode?: string;
  postCode?: string;
  checked?: boolean;
  postType?: string | null;
  children?: Node[];
}

const flat = (nodes: Node[]): Node[] => nodes.flatMap((node) => [node, ...flat(node.children ?? [])]);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function idOf(table: string, column: string, value: string): Promise<number> {
  const [row] = await t.sql<{ id: number }>(
    `select id from ${table} where ${column} = $1 and tenant_code = 'default'`,
    [value],
  );
  if (!row) throw new Error(`no ${table} ${value}`);
  return Number(row.id);
}

async function addPost(postCode: string, postParent = 0): Promise<number> {
  const added = await t.request({
    method: 'POST',
    url: '/api/admin/syspost/add',
    headers: t.auth,
    payload: { postCode, postName: postCode, postParent },
  });
  expect(added.statusCode, added.body).toBe(200);
  return added.json().data.id as number;
}

async function post(url: string, payload: unknown, headers = t.auth) {
  return t.request({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
}

const authority = (headers: Record<string, string>, query = '') =>
  t.request({ method: 'POST', url: `/api/account/sysuserdetail/queryCurrentAuthority${query}`, headers });

/**
 * A buyer who also holds ROLE_SYS_SUPPLIER, signed in afresh (a session keeps the roles of its
 * sign-in). Buyers are granted the region screen, suppliers the dictionary screen.
 */
let user: { id: number; token: string };
let engineerPost: number;
let managerPost: number;
let otherPost: number;
beforeAll(async () => {
  const created = await createUserWithRole(t, 'twohats', 'ROLE_SYS_BUYER');
  const buyer = await idOf('sys_role', 'role_code', 'ROLE_SYS_BUYER');
  const supplier = await idOf('sys_role', 'role_code', 'ROLE_SYS_SUPPLIER');
  expect(
    (await post('/api/admin/sysrole/authorizeRoleToUser', { userId: created.id, roleIds: [supplier] }))
      .statusCode,
  ).toBe(200);
  expect(
    (
      await post('/api/admin/sysmenu/authorizeMenuToRole', {
        roleId: buyer,
        menuIds: [await idOf('sys_menu', 'menu_code', 'sysregion')],
      })
    ).statusCode,
  ).toBe(200);
  expect(
    (
      await post('/api/admin/sysmenu/authorizeMenuToRole', {
        roleId: supplier,
        menuIds: [await idOf('sys_menu', 'menu_code', 'sysdict')],
      })
    ).statusCode,
  ).toBe(200);
  const signedIn = await t.signIn('twohats', USER_PASSWORD);
  user = { id: created.id, token: signedIn.json().access_token as string };
  managerPost = await addPost('manager');
  engineerPost = await addPost('engineer', managerPost);
  otherPost = await addPost('auditor');
});

describe('user posts', () => {
  it('gives the post tree with the user’s posts marked, after replacing them in one go', async () => {
    const saved = await post('/api/admin/sysuserpost/authorizePostToUser', {
      userId: user.id,
      posts: [
        { postId: engineerPost, postType: 'main', postDescription: 'builds things' },
        { postId: otherPost, postType: 'parttime' },
      ],
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().data).toEqual({ linked: 2 });
    const tree = await t.request({
      method: 'GET',
      url: `/api/admin/sysuserpost/querySysUserPostTree?userId=${user.id}`,
      headers: t.auth,
    });
    expect(tree.statusCode).toBe(200);
    const roots = tree.json().data as Node[];
    expect(roots.map((node) => node.postCode)).toEqual(['manager', 'auditor']);
    expect(roots[0]?.children?.map((node) => node.postCode)).toEqual(['engineer']);
    const marks = Object.fromEntries(
      flat(roots).map((node) => [node.postCode, { checked: node.checked, postType: node.postType }]),
    );
    expect(marks).toEqual({
      manager: { checked: false, postType: null },
      engineer: { checked: true, postType: 'main' },
      auditor: { checked: true, postType: 'parttime' },
    });
    // the generated sysuserpost list shows the same two records
    const rows = await t.request({
      method: 'GET',
      url: `/api/admin/sysuserpost/query?userId=${user.id}`,
      headers: t.auth,
    });
    expect(rows.json().data.total).toBe(2);
  });

  it('lets every user list their own posts for the post switch, main post first', async () => {
    const own = await t.request({
      method: 'GET',
      url: '/api/account/sysuserdetail/queryPostOptions',
      headers: bearer(user.token),
    });
    expect(own.statusCode).toBe(200);
    expect(own.json().data).toEqual([
      { id: engineerPost, postCode: 'engineer', postName: 'engineer', postType: 'main' },
      { id: otherPost, postCode: 'auditor', postName: 'auditor', postType: 'parttime' },
    ]);
    // the administrators' view of someone's posts stays behind URL permissions
    const tree = await t.request({
      method: 'GET',
      url: `/api/admin/sysuserpost/querySysUserPostTree?userId=${user.id}`,
      headers: bearer(user.token),
    });
    expect(tree.statusCode).toBe(403);
    const admins = await t.request({
      method: 'GET',
      url: '/api/account/sysuserdetail/queryPostOptions',
      headers: t.auth,
    });
    expect(admins.json().data).toEqual([]);
  });

  it('refuses unknown users and posts, repeated posts and bad post types', async () => {
    const tree = (query: string) =>
      t.request({
        method: 'GET',
        url: `/api/admin/sysuserpost/querySysUserPostTree${query}`,
        headers: t.auth,
      });
    expect((await tree('')).statusCode).toBe(400);
    expect((await tree('?userId=999999')).statusCode).toBe(404);
    const save = (posts: unknown[], userId = user.id) =>
      post('/api/admin/sysuserpost/authorizePostToUser', { userId, posts });
    const unknown = await save([{ postId: 999999, postType: 'main' }]);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].field).toBe('/posts/0/postId');
    const repeated = await save([
      { postId: otherPost, postType: 'main' },
      { postId: otherPost, postType: 'parttime' },
    ]);
    expect(repeated.json().errors[0].field).toBe('/posts/1/postId');
    const badType = await save([{ postId: otherPost, postType: 'boss' }]);
    expect(badType.statusCode).toBe(400);
    expect(badType.json().errors[0].field).toBe('/posts/0/postType');
    expect((await save([], 999999)).statusCode).toBe(404);
    // nothing of the refused calls stuck
    const [count] = await t.sql<{ n: number }>(
      'select count(*)::int as n from sys_user_post where user_id = $1',
      [user.id],
    );
    expect(count?.n).toBe(2);
  });
});

describe('menus for a post', () => {
  beforeAll(async () => {
    // the engineer post works as a supplier; the auditor post as an administrator
    const supplier = await idOf('sys_role', 'role_code', 'ROLE_SYS_SUPPLIER');
    const admin = await idOf('sys_role', 'role_code', 'ROLE_ADMIN');
    expect(
      (await post('/api/admin/syspost/authorizeRoleToPost', { postId: engineerPost, roleIds: [supplier] }))
        .statusCode,
    ).toBe(200);
    expect(
      (await post('/api/admin/syspost/authorizeRoleToPost', { postId: otherPost, roleIds: [admin] }))
        .statusCode,
    ).toBe(200);
  });

  it('lists the roles of a post, and marks them among the roles', async () => {
    const ids = await t.request({
      method: 'GET',
      url: `/api/admin/syspost/queryRoleIdByPostId?postId=${engineerPost}`,
      headers: t.auth,
    });
    expect(ids.json().data).toEqual([await idOf('sys_role', 'role_code', 'ROLE_SYS_SUPPLIER')]);
    const names = await t.request({
      method: 'GET',
      url: '/api/admin/sysrole/queryRoleName?postCode=engineer&assign=true',
      headers: t.auth,
    });
    expect((names.json().data as { roleCode: string }[]).map((row) => row.roleCode)).toEqual([
      'ROLE_SYS_SUPPLIER',
    ]);
    const mine = await t.request({
      method: 'GET',
      url: `/api/admin/sysrole/queryRoleName?userId=${user.id}&assign=true`,
      headers: t.auth,
    });
    expect((mine.json().data as { roleCode: string }[]).map((row) => row.roleCode)).toEqual([
      'ROLE_SYS_SUPPLIER',
    ]);
    const unknown = await t.request({
      method: 'GET',
      url: '/api/admin/sysrole/queryRoleName?postCode=nobody',
      headers: t.auth,
    });
    expect(unknown.statusCode).toBe(400);
  });

  it('gives the menus of the post’s roles among the user’s, and refuses a post the user does not hold', async () => {
    const headers = bearer(user.token);
    const all = (await authority(headers)).json().data;
    expect(all.roles).toEqual(['ROLE_SYS_BUYER', 'ROLE_SYS_SUPPLIER']);
    expect(withoutOffice(flat(all.menus).map((node: Node) => `/${node.menuCode}`))).toEqual([
      '/admin',
      '/sysdict',
      '/sysregion',
    ]);

    const engineer = await authority(headers, `?postCode=engineer&username=twohats&userId=${user.id}`);
    expect(engineer.statusCode).toBe(200);
    expect(engineer.json().data).toMatchObject({
      roles: ['ROLE_SYS_SUPPLIER'],
      currentRole: 'ROLE_SYS_SUPPLIER',
      postCode: 'engineer',
    });
    expect(withoutOffice(engineer.json().data.menu)).toEqual(['/system', '/sysdict']);
    // the auditor post works as ROLE_ADMIN, which the user does not hold: a post never grants
    const auditor = (await authority(headers, '?postCode=auditor')).json().data;
    expect(auditor.roles).toEqual([]);
    expect(auditor.menus).toEqual([]);

    expect((await authority(headers, '?postCode=manager')).statusCode).toBe(403);
    expect((await authority(headers, '?postCode=nobody')).statusCode).toBe(403);
    expect((await authority(headers, '?username=admin')).statusCode).toBe(403);
    expect((await authority(headers, '?userId=1')).statusCode).toBe(403);
    expect((await authority(headers, '?userId=x')).statusCode).toBe(400);
  });
});

describe('switching role', () => {
  it('answers for the role chosen by the RoleCode header and refuses a role not held', async () => {
    const as = (role?: string) => ({ ...bearer(user.token), ...(role ? { rolecode: role } : {}) });
    const me = (role?: string) =>
      t.request({ method: 'GET', url: '/api/uaa/users/getSysUser', headers: as(role) });

    const everyRole = (await me()).json().data;
    expect(everyRole).toMatchObject({
      roles: ['ROLE_SYS_BUYER', 'ROLE_SYS_SUPPLIER'],
      currentRole: 'ROLE_SYS_BUYER',
    });
    const supplier = await me('ROLE_SYS_SUPPLIER');
    expect(supplier.json().data).toMatchObject({
      roles: ['ROLE_SYS_BUYER', 'ROLE_SYS_SUPPLIER'],
      currentRole: 'ROLE_SYS_SUPPLIER',
    });
    const bid = await t.request({
      method: 'GET',
      url: '/api/uaa/users/getBidUser',
      headers: as('ROLE_SYS_SUPPLIER'),
    });
    expect(bid.json().data.currentRole).toBe('ROLE_SYS_SUPPLIER');

    const menus = (await authority(as('ROLE_SYS_SUPPLIER'))).json().data;
    expect(menus).toMatchObject({ roles: ['ROLE_SYS_SUPPLIER'], currentRole: 'ROLE_SYS_SUPPLIER' });
    expect(withoutOffice(menus.menu)).toEqual(['/system', '/sysdict']);
    const both = (await authority(as('ROLE_SYS_SUPPLIER,ROLE_SYS_BUYER'))).json().data;
    expect(both.roles).toEqual(['ROLE_SYS_BUYER', 'ROLE_SYS_SUPPLIER']);
    // the role switch and the post narrow together: the engineer post works only as a supplier
    expect((await authority(as('ROLE_SYS_BUYER'), '?postCode=engineer')).json().data.roles).toEqual([]);

    for (const response of [await me('ROLE_ADMIN'), await authority(as('ROLE_SYS_BUYER,ROLE_ADMIN'))]) {
      expect(response.statusCode).toBe(403);
      expect(response.json().message).toContain('ROLE_ADMIN');
    }
  });

  it('checks URL permissions against the chosen role only', async () => {
    const url = await post('/api/admin/sysurl/add', {
      url: '/api/admin/sysregion/**',
      description: 'regions',
    });
    const buyer = await idOf('sys_role', 'role_code', 'ROLE_SYS_BUYER');
    expect(
      (await post('/api/admin/sysurl/authorizeRoleToUrl', { urlId: url.json().data.id, roleIds: [buyer] }))
        .statusCode,
    ).toBe(200);
    const regions = (role?: string) =>
      t.request({
        method: 'GET',
        url: '/api/admin/sysregion/query?regionParent=0',
        headers: { ...bearer(user.token), ...(role ? { rolecode: role } : {}) },
      });
    expect((await regions()).statusCode).toBe(200);
    expect((await regions('ROLE_SYS_BUYER')).statusCode).toBe(200);
    expect((await regions('ROLE_SYS_SUPPLIER')).statusCode).toBe(403);
  });

  it('never takes "<ROLE>-token" for a credential', async () => {
    for (const token of ['ROLE_ADMIN-token', 'ROLE_SYS_BUYER-token']) {
      const response = await t.request({
        method: 'GET',
        url: '/api/uaa/users/getSysUser',
        headers: bearer(token),
      });
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toBe('invalid_token');
    }
  });
});

interface TreeNode {
  key: string;
  type: 'org' | 'user';
  id: number;
  username?: string;
  checked?: boolean;
  isMainRole?: boolean;
  children?: TreeNode[];
}
const flatTree = (nodes: TreeNode[]): TreeNode[] =>
  nodes.flatMap((node) => [node, ...flatTree(node.children ?? [])]);

describe('organisation and user trees', () => {
  let branch: number;
  beforeAll(async () => {
    const added = await post('/api/admin/sysorg/add', {
      orgName: 'Branch',
      orgType: 'company',
      orgParent: 1,
    });
    expect(added.statusCode, added.body).toBe(200);
    branch = added.json().data.id as number;
    const [version] = await t.sql<{ version: number }>('select version from sys_user where id = $1', [
      user.id,
    ]);
    const moved = await t.request({
      method: 'PUT',
      url: '/api/admin/sysuser/update',
      headers: t.auth,
      payload: { id: user.id, version: version?.version, orgId: branch },
    });
    expect(moved.statusCode, moved.body).toBe(200);
  });

  it('puts users under their organisation and marks those holding the role', async () => {
    const supplier = await idOf('sys_role', 'role_code', 'ROLE_SYS_SUPPLIER');
    const response = await t.request({
      method: 'GET',
      url: `/api/admin/sysorg/queryOrgUserTree?roleId=${supplier}`,
      headers: t.auth,
    });
    expect(response.statusCode).toBe(200);
    const roots = response.json().data as TreeNode[];
    expect(roots.map((node) => node.key)).toEqual(['org-1']);
    const branchNode = flatTree(roots).find((node) => node.key === `org-${branch}`);
    expect(branchNode?.children?.map((node) => node.key)).toEqual([`user-${user.id}`]);
    const users = flatTree(roots).filter((node) => node.type === 'user');
    expect(users.map((node) => node.username).sort()).toEqual(['admin', 'twohats']);
    expect(users.find((node) => node.username === 'twohats')).toMatchObject({
      checked: true,
      isMainRole: false,
    });
    expect(users.find((node) => node.username === 'admin')).toMatchObject({ checked: false });

    const buyer = await idOf('sys_role', 'role_code', 'ROLE_SYS_BUYER');
    const assigned = await t.request({
      method: 'GET',
      url: `/api/admin/sysorg/queryOrgUserTree?roleId=${buyer}&assign=true`,
      headers: t.auth,
    });
    const kept = flatTree(assigned.json().data as TreeNode[]);
    expect(kept.map((node) => node.key)).toEqual(['org-1', `org-${branch}`, `user-${user.id}`]);
    expect(kept.at(-1)).toMatchObject({ checked: true, isMainRole: true });

    const bad = await t.request({
      method: 'GET',
      url: '/api/admin/sysorg/queryOrgUserTree?roleId=999999',
      headers: t.auth,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('/roleId');
  });

  it('gives the same tree for a workflow model, with nobody assigned yet', async () => {
    const tree = (query: string) =>
      t.request({ method: 'GET', url: `/api/admin/sysorg/queryModelOrgUserTree${query}`, headers: t.auth });
    const model = await t.request({
      method: 'POST',
      url: '/api/activiti/model/add',
      headers: t.auth,
      payload: { name: 'Tree model', key: 'tree_model' },
    });
    expect(model.statusCode, model.body).toBe(200);
    const modelId = model.json().data.id as number;
    const all = flatTree((await tree(`?modelId=${modelId}`)).json().data as TreeNode[]);
    expect(all.filter((node) => node.type === 'user').map((node) => node.checked)).toEqual([false, false]);
    expect((await tree(`?modelId=${modelId}&assign=true`)).json().data).toEqual([]);
    // a model the tenant does not have is a 404
    expect((await tree('?modelId=model-1')).statusCode).toBe(404);
    expect((await tree('?modelId=999999')).statusCode).toBe(404);
    expect((await tree('?assign=maybe')).statusCode).toBe(400);
  });
});
