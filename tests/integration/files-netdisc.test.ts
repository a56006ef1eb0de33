import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFileStorage } from '../../src/server/lib/storage/index.js';
import { purgeExpired } from '../../src/server/features/files/services/netdisc.js';
import { seedDatabase } from '../../src/server/features/tenants/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';
import { localBackend, type StorageBackend } from './files-backends.js';
import { fileUpload } from '../support/multipart.js';

/**
 * The netdisc (issue 16): folder trees per user, moves, the recycle bin and its expiry, read-only
 * shares with users, roles and organisations, the quota per user, search; isolation between
 * owners and tenants.
 */
let t: TestApp;
let backend: StorageBackend;
const ND = '/api/file/netdisc';
type Headers = { authorization: string };
let alice: Headers;
let bob: Headers;
let carol: Headers;
let otherTenant: Headers;
let aliceId: number;
let bobId: number;
let supplierRoleId: number;
let carolOrgId: number;

async function uploadTo(
  headers: Headers,
  filename: string,
  body: Buffer | string,
  folderId?: number,
  url = `${ND}/upload`,
) {
  const form = fileUpload(filename, body, {
    fields: folderId === undefined ? {} : { folderId: String(folderId) },
  });
  return t.request({ method: 'POST', url, headers: { ...headers, ...form.headers }, payload: form.payload });
}

async function call(headers: Headers, method: 'GET' | 'POST', path: string, payload?: unknown) {
  return t.request({
    method,
    url: `${ND}${path}`,
    headers,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

async function data<T = Record<string, unknown>>(
  headers: Headers,
  method: 'GET' | 'POST',
  path: string,
  payload?: unknown,
): Promise<T> {
  const response = await call(headers, method, path, payload);
  expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(200);
  return response.json().data as T;
}

async function folder(headers: Headers, name: string, parentId: number | null = null): Promise<number> {
  return (await data<{ id: number }>(headers, 'POST', '/folder/create', { name, parentId })).id;
}

async function fileIn(headers: Headers, name: string, body: string, folderId?: number): Promise<number> {
  const response = await uploadTo(headers, name, body, folderId);
  expect(response.statusCode, response.body).toBe(200);
  return Number(response.json().data.id);
}

interface Listing {
  folder: { id: number; name: string } | null;
  path: { id: number; name: string }[];
  folders: { id: number; name: string }[];
  files: { id: number; name: string; url: string; folderId: number | null }[];
  readOnly: boolean;
}
const list = (headers: Headers, folderId?: number): Promise<Listing> =>
  data<Listing>(headers, 'GET', `/list${folderId === undefined ? '' : `?folderId=${folderId}`}`);
const names = (items: { name: string }[]): string[] => items.map((item) => item.name);
const download = (headers: Headers, id: number) =>
  t.request({ method: 'GET', url: `/api/file/file/download?id=${id}`, headers });

async function setParam(key: string, value: string): Promise<void> {
  const [existing] = await t.sql<{ id: number }>(
    "select id from sys_param where param_key = $1 and tenant_code = 'default'",
    [key],
  );
  if (existing) await t.sql('delete from sys_param where id = $1', [existing.id]);
  const added = await t.request({
    method: 'POST',
    url: '/api/admin/sysparam/add',
    headers: t.auth,
    payload: { paramName: key, paramKey: key, paramValue: value },
  });
  expect(added.statusCode, added.body).toBe(200);
}

beforeAll(async () => {
  backend = localBackend();
  t = await startTestApp({ env: await backend.start() });
  const url = await t.request({
    method: 'POST',
    url: '/api/admin/sysurl/add',
    headers: t.auth,
    payload: { url: '/api/file/**', description: 'files and netdisc' },
  });
  expect(url.statusCode, url.body).toBe(200);
  const roles = await t.sql<{ id: number; role_code: string }>(
    "select id, role_code from sys_role where tenant_code = 'default' and role_code in ('ROLE_SYS_BUYER', 'ROLE_SYS_SUPPLIER')",
  );
  supplierRoleId = Number(roles.find((role) => role.role_code === 'ROLE_SYS_SUPPLIER')?.id);
  const granted = await t.request({
    method: 'POST',
    url: '/api/admin/sysurl/authorizeRoleToUrl',
    headers: t.auth,
    payload: { urlId: url.json().data.id, roleIds: roles.map((role) => role.id) },
  });
  expect(granted.statusCode, granted.body).toBe(200);
  const a = await createUserWithRole(t, 'ndalice', 'ROLE_SYS_BUYER');
  const b = await createUserWithRole(t, 'ndbob', 'ROLE_SYS_BUYER');
  const c = await createUserWithRole(t, 'ndcarol', 'ROLE_SYS_SUPPLIER');
  aliceId = a.id;
  bobId = b.id;
  alice = { authorization: `Bearer ${a.token}` };
  bob = { authorization: `Bearer ${b.token}` };
  carol = { authorization: `Bearer ${c.token}` };
  // Carol works in an organisation of her own.
  const org = await t.request({
    method: 'POST',
    url: '/api/admin/sysorg/add',
    headers: t.auth,
    payload: { orgName: '供应商联络部', orgType: 'company', orgParent: 1, orgSequence: 99 },
  });
  expect(org.statusCode, org.body).toBe(200);
  carolOrgId = Number(org.json().data.id);
  const orgColumn = t.app.ctx.registry.require('sysuser').fieldsByName.get('orgId')?.column ?? 'org_id';
  await t.sql(`update sys_user set ${orgColumn} = $1 where id = $2`, [carolOrgId, c.id]);
  const tenant = await t.request({
    method: 'POST',
    url: '/api/admin/systenant/add',
    headers: t.auth,
    payload: {
      tenantCode: 'ndco',
      tenantName: '网盘公司',
      tenantEmail: 'it@ndco.example',
      tenantTel: '010-2',
    },
  });
  expect(tenant.statusCode, tenant.body).toBe(200);
  const admin = tenant.json().data.admin as { username: string; initialPassword: string };
  const signedIn = await t.signIn(admin.username, admin.initialPassword, 'ndco');
  expect(signedIn.statusCode, signedIn.body).toBe(200);
  otherTenant = { authorization: `Bearer ${signedIn.json().access_token as string}` };
}, 180_000);
afterAll(async () => {
  await t?.close();
  await backend?.stop();
});

describe('folders', () => {
  it('builds a tree, renames and moves files and folders, and refuses a folder into itself', async () => {
    const docs = await folder(alice, '文档');
    const bids = await folder(alice, '投标', docs);
    const y2026 = await folder(alice, '2026', bids);
    const archive = await folder(alice, '归档');
    const clash = await call(alice, 'POST', '/folder/create', { name: '投标', parentId: docs });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().errors[0].field).toBe('/name');
    const blank = await call(alice, 'POST', '/folder/create', { name: '   ' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().errors[0].field).toBe('/name');
    const traversal = await folder(alice, '../../etc');
    expect(names((await list(alice)).folders)).toContain('etc');
    await data(alice, 'POST', '/delete', { items: [{ type: 'folder', id: traversal }] });

    const tree = await data<{ name: string; children: { name: string; children: { name: string }[] }[] }[]>(
      alice,
      'GET',
      '/tree',
    );
    const docsNode = tree.find((node) => node.name === '文档');
    expect(docsNode?.children.map((node) => node.name)).toEqual(['投标']);
    expect(docsNode?.children[0]?.children.map((node) => node.name)).toEqual(['2026']);

    const file = await fileIn(alice, '标书.txt', '投标文件内容', y2026);
    const inner = await list(alice, y2026);
    expect(names(inner.files)).toEqual(['标书.txt']);
    expect(inner.path.map((item) => item.name)).toEqual(['文档', '投标', '2026']);
    expect(inner.readOnly).toBe(false);

    await data(alice, 'POST', '/rename', { type: 'file', id: file, name: '技术标.txt' });
    await data(alice, 'POST', '/rename', { type: 'folder', id: y2026, name: '2026年' });
    expect(names((await list(alice, y2026)).files)).toEqual(['技术标.txt']);
    expect((await list(alice, y2026)).folder?.name).toBe('2026年');

    // Into itself or below itself: refused, nothing moved.
    for (const target of [docs, bids, y2026]) {
      const refused = await call(alice, 'POST', '/move', {
        items: [{ type: 'folder', id: docs }],
        targetFolderId: target,
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().errors[0]).toMatchObject({ field: '/targetFolderId' });
    }
    // All or nothing: a good file and a folder into itself move neither.
    const refusedBoth = await call(alice, 'POST', '/move', {
      items: [
        { type: 'file', id: file },
        { type: 'folder', id: bids },
      ],
      targetFolderId: y2026,
    });
    expect(refusedBoth.statusCode).toBe(400);
    expect(names((await list(alice, y2026)).files)).toEqual(['技术标.txt']);

    await data(alice, 'POST', '/move', {
      items: [
        { type: 'folder', id: bids },
        { type: 'file', id: file },
      ],
      targetFolderId: archive,
    });
    const moved = await list(alice, archive);
    expect(names(moved.folders)).toEqual(['投标']);
    expect(names(moved.files)).toEqual(['技术标.txt']);
    expect((await list(alice, bids)).path.map((item) => item.name)).toEqual(['归档', '投标']);
    await data(alice, 'POST', '/move', { items: [{ type: 'file', id: file }], targetFolderId: null });
    expect(names((await list(alice)).files)).toContain('技术标.txt');
  });

  it("keeps each user's and each tenant's netdisc to themselves (404)", async () => {
    const secret = await folder(alice, '私人');
    const file = await fileIn(alice, 'secret.txt', 'alice only', secret);
    for (const stranger of [bob, otherTenant]) {
      expect((await call(stranger, 'GET', `/list?folderId=${secret}`)).statusCode).toBe(404);
      expect((await download(stranger, file)).statusCode).toBe(404);
      expect(names((await list(stranger)).folders)).not.toContain('私人');
      expect(
        (await call(stranger, 'POST', '/rename', { type: 'folder', id: secret, name: 'x' })).statusCode,
      ).toBe(404);
      expect(
        (await call(stranger, 'POST', '/move', { items: [{ type: 'file', id: file }], targetFolderId: null }))
          .statusCode,
      ).toBe(404);
      expect(
        (await call(stranger, 'POST', '/delete', { items: [{ type: 'folder', id: secret }] })).statusCode,
      ).toBe(404);
      const into = await uploadTo(stranger, 'x.txt', 'intruder', secret);
      expect(into.statusCode).toBe(404);
      expect(into.json().errors[0].field).toBe('/folderId');
      const search = await data<{ files: unknown[] }>(stranger, 'GET', `/search?name=secret`);
      expect(search.files).toEqual([]);
    }
    // Moving into someone else's folder is refused too.
    const bobFile = await fileIn(bob, 'bob.txt', 'bob');
    const intoAlice = await call(bob, 'POST', '/move', {
      items: [{ type: 'file', id: bobFile }],
      targetFolderId: secret,
    });
    expect(intoAlice.statusCode).toBe(404);
    expect(intoAlice.json().errors[0].field).toBe('/targetFolderId');
    expect(names((await list(alice, secret)).files)).toEqual(['secret.txt']);
  });

  it('takes folderId on the file upload too, and searches by name', async () => {
    const box = await folder(alice, '搜索盒');
    const viaFileApi = await uploadTo(alice, '搜索-报价单.txt', '报价', box, '/api/file/file/upload');
    expect(viaFileApi.statusCode, viaFileApi.body).toBe(200);
    expect(Object.keys(viaFileApi.json().data).sort()).toEqual(
      [
        'contentType',
        'createdAt',
        'fileType',
        'id',
        'originalFilename',
        'ownerName',
        'size',
        'sizeBytes',
        'url',
        'use',
      ].sort(),
    );
    expect(names((await list(alice, box)).files)).toEqual(['搜索-报价单.txt']);
    const badFolder = await uploadTo(alice, 'a.txt', 'a', undefined, '/api/file/file/upload?folderId=abc');
    expect(badFolder.statusCode).toBe(400);
    expect(badFolder.json().errors[0].field).toBe('/folderId');
    const found = await data<{ folders: { name: string }[]; files: { name: string; readOnly: boolean }[] }>(
      alice,
      'GET',
      `/search?name=${encodeURIComponent('搜索')}`,
    );
    expect(names(found.folders)).toEqual(['搜索盒']);
    expect(found.files).toEqual([expect.objectContaining({ name: '搜索-报价单.txt', readOnly: false })]);
    const literal = await data<{ files: unknown[] }>(alice, 'GET', `/search?name=${encodeURIComponent('%')}`);
    expect(literal.files).toEqual([]);
  });
});

describe('names and types (issue 39)', () => {
  interface Listed {
    id: number;
    name: string;
    fileType: string;
    contentType: string;
  }
  const filesIn = async (folderId: number): Promise<Listed[]> =>
    (await data<{ files: Listed[] }>(alice, 'GET', `/list?folderId=${folderId}`)).files;

  it('refuses a rename or a move onto a name the folder holds (409 naming the field) and keeps both on upload', async () => {
    const box = await folder(alice, '同名盒');
    const other = await folder(alice, '别处');
    const quote = await fileIn(alice, '报价.txt', '一', box);
    const plan = await fileIn(alice, '方案.txt', '二', box);

    // A rename onto another file's name, whatever its case: refused, naming the name.
    const renamed = await call(alice, 'POST', '/rename', { type: 'file', id: plan, name: '报价.TXT' });
    expect(renamed.statusCode, renamed.body).toBe(409);
    expect(renamed.json().errors[0]).toMatchObject({ field: '/name' });
    expect(renamed.json().errors[0].message).toContain('报价.TXT');
    expect(names(await filesIn(box)).sort()).toEqual(['报价.txt', '方案.txt'].sort());
    // Its own name in another case is no clash.
    await data(alice, 'POST', '/rename', { type: 'file', id: quote, name: '报价.TXT' });
    await data(alice, 'POST', '/rename', { type: 'file', id: quote, name: '报价.txt' });

    // An upload of a name the folder holds keeps both: "报价 (1).txt", then "报价 (2).txt".
    const again = await uploadTo(alice, '报价.txt', '三', box);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data.originalFilename).toBe('报价 (1).txt');
    const third = await uploadTo(alice, '报价.txt', '四', box, '/api/file/file/upload');
    expect(third.json().data.originalFilename).toBe('报价 (2).txt');

    // A move onto a name the target holds: refused, naming the item; all or nothing.
    const elsewhere = await fileIn(alice, '报价.txt', '五', other);
    const unique = await fileIn(alice, '独有.txt', '六', other);
    const moved = await call(alice, 'POST', '/move', {
      items: [
        { type: 'file', id: unique },
        { type: 'file', id: elsewhere },
      ],
      targetFolderId: box,
    });
    expect(moved.statusCode, moved.body).toBe(409);
    expect(moved.json().errors[0]).toMatchObject({ field: '/items/1' });
    expect(names(await filesIn(other)).sort()).toEqual(['报价.txt', '独有.txt'].sort());
    // A folder of a name the target holds: 409 too.
    const twin = await folder(alice, '别处', box);
    const folderMove = await call(alice, 'POST', '/move', {
      items: [{ type: 'folder', id: other }],
      targetFolderId: box,
    });
    expect(folderMove.statusCode).toBe(409);
    expect(folderMove.json().errors[0]).toMatchObject({ field: '/items/0' });
    await data(alice, 'POST', '/delete', { items: [{ type: 'folder', id: twin }] });

    // A deleted file whose name was taken meanwhile comes back under a free name.
    await data(alice, 'POST', '/delete', { items: [{ type: 'file', id: quote }] });
    const taken = await uploadTo(alice, '报价.txt', '七', box);
    expect(taken.json().data.originalFilename).toBe('报价.txt');
    await data(alice, 'POST', '/restore', { items: [{ type: 'file', id: quote }] });
    expect((await filesIn(box)).find((file) => file.id === quote)?.name).toBe('报价 (3).txt');
  });

  it('recomputes the type when a rename changes the extension', async () => {
    const box = await folder(alice, '类型盒');
    const list = await fileIn(alice, '名单.txt', '张三,李四', box);
    await data(alice, 'POST', '/rename', { type: 'file', id: list, name: '名单.csv' });
    const csv = (await filesIn(box)).find((file) => file.id === list);
    expect(csv).toMatchObject({ name: '名单.csv', fileType: 'csv' });
    expect(csv?.contentType).toMatch(/^text\/csv/);
    // Bytes decide what they can tell: a picture renamed .pdf stays a picture.
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    const picture = await fileIn(alice, 'logo.png', png as unknown as string, box);
    await data(alice, 'POST', '/rename', { type: 'file', id: picture, name: 'logo.pdf' });
    expect((await filesIn(box)).find((file) => file.id === picture)).toMatchObject({ fileType: 'png' });
  });

  it('seeds the quota and recycle-day params for each tenant, where the 参数 page lists them', async () => {
    const seeded = async (headers: Headers) => {
      const found = await t.request({
        method: 'GET',
        url: '/api/admin/sysparam/query?currentPage=1&pageSize=100&paramKey=netdisc',
        headers,
      });
      expect(found.statusCode, found.body).toBe(200);
      const records = found.json().data.records as {
        paramKey: string;
        paramValue: string;
        paramName: string;
      }[];
      return Object.fromEntries(records.map((record) => [record.paramKey, record]));
    };
    const mine = await seeded(t.auth);
    expect(mine.netdiscQuotaMb).toMatchObject({ paramValue: '1024', paramName: '网盘：每人空间（MB）' });
    expect(mine.netdiscRecycleDays).toMatchObject({ paramValue: '30', paramName: '网盘：回收站保留天数' });
    // A tenant added later has them too.
    const theirs = await seeded(otherTenant);
    expect(theirs.netdiscQuotaMb?.paramValue).toBe('1024');
    // The netdisc reads what the administrator sets there.
    const updated = await t.request({
      method: 'PUT',
      url: '/api/admin/sysparam/update',
      headers: t.auth,
      payload: { ...mine.netdiscQuotaMb, paramValue: '2048' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    try {
      expect((await data<{ quotaMb: number }>(alice, 'GET', '/quota')).quotaMb).toBe(2048);
    } finally {
      await setParam('netdiscQuotaMb', '1024');
    }
    // A database seeded before these params existed gets them at the next start.
    await t.sql("delete from sys_param where param_key = 'netdiscRecycleDays'");
    await seedDatabase(t.app.ctx, t.app.i18n);
    expect((await seeded(t.auth)).netdiscRecycleDays?.paramValue).toBe('30');
    expect((await seeded(otherTenant)).netdiscRecycleDays?.paramValue).toBe('30');
  });
});

describe('sharing', () => {
  it('shares a folder read-only with a user, a role or an organisation, and stops when unshared', async () => {
    const shared = await folder(alice, '共享资料');
    const sub = await folder(alice, '子目录', shared);
    const file = await fileIn(alice, '共享.txt', 'shared bytes', sub);
    const single = await fileIn(alice, '单个文件.txt', 'one file');
    expect((await call(bob, 'GET', `/list?folderId=${shared}`)).statusCode).toBe(404);

    const shares = await data<{ type: string; id: number; name: string }[]>(alice, 'POST', '/share', {
      type: 'folder',
      id: shared,
      targets: [{ type: 'user', id: bobId }],
    });
    expect(shares).toEqual([{ type: 'user', id: bobId, name: 'ndbob' }]);
    const withBob = await data<{ folders: { id: number; ownerName: string }[] }>(bob, 'GET', '/sharedWithMe');
    expect(withBob.folders).toEqual([expect.objectContaining({ id: shared, ownerName: 'ndalice' })]);
    const inside = await list(bob, sub);
    expect(inside.readOnly).toBe(true);
    expect(inside.path.map((item) => item.name)).toEqual(['共享资料', '子目录']);
    expect(names(inside.files)).toEqual(['共享.txt']);
    const downloaded = await download(bob, file);
    expect(downloaded.statusCode).toBe(200);
    expect(downloaded.body).toBe('shared bytes');
    // Read-only: no rename, move, delete, share or upload into it.
    expect((await call(bob, 'POST', '/rename', { type: 'folder', id: sub, name: 'x' })).statusCode).toBe(404);
    expect((await call(bob, 'POST', '/rename', { type: 'file', id: file, name: 'x.txt' })).statusCode).toBe(
      404,
    );
    expect((await call(bob, 'POST', '/delete', { items: [{ type: 'file', id: file }] })).statusCode).toBe(
      404,
    );
    expect(
      (await call(bob, 'POST', '/move', { items: [{ type: 'file', id: file }], targetFolderId: null }))
        .statusCode,
    ).toBe(404);
    expect(
      (
        await call(bob, 'POST', '/share', {
          type: 'folder',
          id: shared,
          targets: [{ type: 'user', id: bobId }],
        })
      ).statusCode,
    ).toBe(404);
    expect((await uploadTo(bob, 'y.txt', 'y', sub)).statusCode).toBe(404);
    const bobDelete = await t.request({
      method: 'POST',
      url: `/api/file/file/delete?id=${file}`,
      headers: bob,
    });
    expect(bobDelete.statusCode).toBe(404);
    const bobSearch = await data<{ files: { name: string; readOnly: boolean }[] }>(
      bob,
      'GET',
      `/search?name=${encodeURIComponent('共享')}`,
    );
    expect(bobSearch.files).toEqual([expect.objectContaining({ name: '共享.txt', readOnly: true })]);
    // Carol (another role and organisation) and the other tenant see nothing.
    expect((await download(carol, file)).statusCode).toBe(404);
    expect((await download(otherTenant, file)).statusCode).toBe(404);

    // By role: the supplier role reaches Carol; by organisation: Carol's organisation.
    await data(alice, 'POST', '/share', {
      type: 'folder',
      id: shared,
      targets: [{ type: 'role', id: supplierRoleId }],
    });
    expect((await download(carol, file)).statusCode).toBe(200);
    expect((await download(bob, file)).statusCode).toBe(404);
    await data(alice, 'POST', '/share', {
      type: 'file',
      id: single,
      targets: [{ type: 'org', id: carolOrgId }],
    });
    expect((await download(carol, single)).statusCode).toBe(200);
    expect((await download(bob, single)).statusCode).toBe(404);
    const carolShared = await data<{ files: { id: number }[] }>(carol, 'GET', '/sharedWithMe');
    expect(carolShared.files.map((item) => item.id)).toContain(single);

    // Unknown targets are refused by position; a share of another tenant's user is unknown too.
    const unknown = await call(alice, 'POST', '/share', {
      type: 'file',
      id: single,
      targets: [
        { type: 'org', id: carolOrgId },
        { type: 'user', id: 999_999 },
      ],
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].field).toBe('/targets/1');
    expect((await download(carol, single)).statusCode).toBe(200);

    // Unshared: gone for them.
    await data(alice, 'POST', '/share', { type: 'folder', id: shared, targets: [] });
    await data(alice, 'POST', '/share', { type: 'file', id: single, targets: [] });
    expect((await download(carol, file)).statusCode).toBe(404);
    expect((await download(carol, single)).statusCode).toBe(404);
    expect((await call(carol, 'GET', `/list?folderId=${shared}`)).statusCode).toBe(404);
    expect(await data(alice, 'GET', `/shares?type=folder&id=${shared}`)).toEqual([]);

    // A shared file deleted through the file API takes its shares with it.
    await data(alice, 'POST', '/share', { type: 'file', id: single, targets: [{ type: 'user', id: bobId }] });
    const removed = await t.request({
      method: 'POST',
      url: `/api/file/file/delete?id=${single}`,
      headers: alice,
    });
    expect(removed.json().data).toEqual({ deleted: 1 });
    expect(
      await t.sql("select id from sys_netdisc_share where item_type = 'file' and item_id = $1", [single]),
    ).toEqual([]);
    expect((await download(bob, single)).statusCode).toBe(404);
  });
});

describe('quota', () => {
  it('shows the usage and refuses an upload past the quota with 413 naming it, leaving nothing', async () => {
    await setParam('netdiscQuotaMb', '1');
    try {
      const quota = await data<{ usedBytes: number; quotaMb: number }>(bob, 'GET', '/quota');
      expect(quota.quotaMb).toBe(1);
      const before = quota.usedBytes;
      const first = await uploadTo(bob, 'part1.txt', Buffer.alloc(600 * 1024 - before, 0x61));
      expect(first.statusCode, first.body).toBe(200);
      expect((await data<{ usedBytes: number }>(bob, 'GET', '/quota')).usedBytes).toBe(600 * 1024);
      const rows = (await t.sql('select id from sys_file')).length;
      const objects = (await backend.objectKeys()).length;
      const second = await uploadTo(bob, 'part2.txt', Buffer.alloc(600 * 1024, 0x62));
      expect(second.statusCode).toBe(413);
      expect(second.json().message).toMatch(/1 MB/);
      expect(second.json().message).toMatch(/网盘/);
      expect((await t.sql('select id from sys_file')).length).toBe(rows);
      expect((await backend.objectKeys()).length).toBe(objects);
      expect(backend.partials()).toEqual([]);
      // What fits still goes in; files outside the netdisc are not counted.
      const fits = await uploadTo(bob, 'part3.txt', Buffer.alloc(424 * 1024, 0x63));
      expect(fits.statusCode, fits.body).toBe(200);
      const full = await uploadTo(bob, 'byte.txt', 'x');
      expect(full.statusCode).toBe(413);
      const outside = await uploadTo(
        bob,
        'plain.txt',
        Buffer.alloc(600 * 1024, 0x64),
        undefined,
        '/api/file/file/upload',
      );
      expect(outside.statusCode, outside.body).toBe(200);
      expect((await data<{ usedBytes: number }>(bob, 'GET', '/quota')).usedBytes).toBe(1024 * 1024);
      // Files in the recycle bin still count; purged ones do not.
      await data(bob, 'POST', '/delete', { items: [{ type: 'file', id: Number(fits.json().data.id) }] });
      expect((await data<{ usedBytes: number }>(bob, 'GET', '/quota')).usedBytes).toBe(1024 * 1024);
      await data(bob, 'POST', '/purge', { items: [{ type: 'file', id: Number(fits.json().data.id) }] });
      expect((await data<{ usedBytes: number }>(bob, 'GET', '/quota')).usedBytes).toBe(600 * 1024);
    } finally {
      await setParam('netdiscQuotaMb', '1024');
    }
  });
});

describe('recycle bin', () => {
  it('deletes a folder with what it holds, lists it with its expiry, restores and purges it', async () => {
    await setParam('netdiscRecycleDays', '7');
    const project = await folder(alice, '项目');
    const inner = await folder(alice, '图纸', project);
    const drawing = await fileIn(alice, 'plan.txt', 'drawing', inner);
    await data(alice, 'POST', '/share', {
      type: 'folder',
      id: project,
      targets: [{ type: 'user', id: bobId }],
    });
    expect((await download(bob, drawing)).statusCode).toBe(200);

    await data(alice, 'POST', '/delete', { items: [{ type: 'folder', id: project }] });
    expect(names((await list(alice)).folders)).not.toContain('项目');
    expect((await call(alice, 'GET', `/list?folderId=${inner}`)).statusCode).toBe(404);
    expect((await download(bob, drawing)).statusCode).toBe(404);
    const bin = await data<
      { type: string; id: number; name: string; sizeBytes: number; deletedAt: string; expiresAt: string }[]
    >(alice, 'GET', '/recycleBin');
    const entry = bin.find((item) => item.id === project && item.type === 'folder');
    expect(entry).toMatchObject({ name: '项目', sizeBytes: 'drawing'.length });
    expect(new Date(entry?.expiresAt ?? 0).getTime() - new Date(entry?.deletedAt ?? 0).getTime()).toBe(
      7 * 24 * 60 * 60 * 1000,
    );
    expect(bin.some((item) => item.id === inner && item.type === 'folder')).toBe(false);
    expect(await data(bob, 'GET', '/recycleBin')).not.toContainEqual(
      expect.objectContaining({ id: project }),
    );
    expect(
      (await call(bob, 'POST', '/restore', { items: [{ type: 'folder', id: project }] })).statusCode,
    ).toBe(404);

    await data(alice, 'POST', '/restore', { items: [{ type: 'folder', id: project }] });
    expect(names((await list(alice, inner)).files)).toEqual(['plan.txt']);
    expect((await download(bob, drawing)).statusCode).toBe(200);
    const notInBin = await call(alice, 'POST', '/purge', { items: [{ type: 'folder', id: project }] });
    expect(notInBin.statusCode).toBe(404);
    expect(notInBin.json().errors[0].field).toBe('/items');

    const [{ storage_key: key } = { storage_key: '' }] = await t.sql<{ storage_key: string }>(
      'select storage_key from sys_file where id = $1',
      [drawing],
    );
    await data(alice, 'POST', '/delete', { items: [{ type: 'folder', id: project }] });
    expect(await data(alice, 'POST', '/purge', { items: [{ type: 'folder', id: project }] })).toEqual({
      purged: 1,
    });
    expect(await t.sql('select id from sys_netdisc_folder where id in ($1, $2)', [project, inner])).toEqual(
      [],
    );
    expect(await t.sql('select id from sys_file where id = $1', [drawing])).toEqual([]);
    expect(await backend.objectKeys()).not.toContain(key);
    expect(
      await t.sql("select id from sys_netdisc_share where item_type = 'folder' and item_id = $1", [project]),
    ).toEqual([]);
  });

  it('restores a file whose folder is in the recycle bin or gone to the root', async () => {
    const box = await folder(alice, '临时');
    const note = await fileIn(alice, 'note.txt', 'note', box);
    const other = await fileIn(alice, 'other.txt', 'other', box);
    await data(alice, 'POST', '/delete', { items: [{ type: 'file', id: note }] });
    await data(alice, 'POST', '/delete', { items: [{ type: 'folder', id: box }] });
    const bin = await data<{ type: string; id: number }[]>(alice, 'GET', '/recycleBin');
    expect(bin).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'file', id: note }),
        expect.objectContaining({ type: 'folder', id: box }),
      ]),
    );
    await data(alice, 'POST', '/restore', { items: [{ type: 'file', id: note }] });
    const root = await list(alice);
    expect(root.files.find((file) => file.id === note)).toMatchObject({ folderId: null });
    // The folder comes back with what went with it, not with the file restored before.
    await data(alice, 'POST', '/restore', { items: [{ type: 'folder', id: box }] });
    expect(names((await list(alice, box)).files)).toEqual(['other.txt']);
    expect(other).toBeGreaterThan(0);
  });

  it('purges what has been in the recycle bin longer than netdiscRecycleDays, by the clock given', async () => {
    await setParam('netdiscRecycleDays', '7');
    const old = await fileIn(alice, 'old.txt', 'old');
    const [{ storage_key: key } = { storage_key: '' }] = await t.sql<{ storage_key: string }>(
      'select storage_key from sys_file where id = $1',
      [old],
    );
    await data(alice, 'POST', '/delete', { items: [{ type: 'file', id: old }] });
    const storage = await openFileStorage(t.app.ctx.config);
    try {
      const day = 24 * 60 * 60 * 1000;
      await purgeExpired({ ctx: t.app.ctx, storage, now: new Date(Date.now() + 6 * day) });
      expect(await t.sql('select id from sys_file where id = $1', [old])).toHaveLength(1);
      expect(await backend.objectKeys()).toContain(key);
      await purgeExpired({ ctx: t.app.ctx, storage, now: new Date(Date.now() + 8 * day) });
      expect(await t.sql('select id from sys_file where id = $1', [old])).toEqual([]);
      expect(await backend.objectKeys()).not.toContain(key);
      const bin = await data<{ id: number }[]>(alice, 'GET', '/recycleBin');
      expect(bin.map((item) => item.id)).not.toContain(old);
    } finally {
      storage.close();
    }
  });
});

describe('the API document', () => {
  it('lists every netdisc call', async () => {
    const document = (await t.request({ method: 'GET', url: '/api/openapi.json' })).json<{
      paths: Record<string, unknown>;
    }>();
    const paths = Object.keys(document.paths).filter((path) => path.startsWith(ND));
    expect(paths.sort()).toEqual(
      [
        'delete',
        'folder/create',
        'list',
        'move',
        'purge',
        'quota',
        'recycleBin',
        'rename',
        'restore',
        'search',
        'share',
        'sharedWithMe',
        'shares',
        'tree',
        'upload',
      ]
        .map((name) => `${ND}/${name}`)
        .sort(),
    );
    expect(aliceId).toBeGreaterThan(0);
  });
});
