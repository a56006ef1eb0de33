import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TREE_LAZY_ABOVE, treeEndpointName } from '../../src/engine/index.js';
import { data, errorFields, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Trees at scale on the real app and database (PGlite, or PostgreSQL with TEST_DATABASE_URL): an
 * organisation tree of 10,000 nodes is answered one level at a time (top level first, children by
 * parentId, each node with hasChildren), never whole; a small tree still comes whole; another
 * tenant's nodes are neither shown nor counted as children.
 */

interface Node extends Row {
  id: number;
  orgName: string;
  orgParent: number | null;
  orgSequence: number | null;
  hasChildren?: boolean;
  children?: Node[];
}

const TOPS = 100;
const CHILDREN = 99;

let t: TestApp;
let firstTop: Node;
let leaf: Node;
let otherTop: number;

const orgTree = (query = ''): Promise<LightMyRequestResponse> =>
  t.request({
    method: 'GET',
    url: `/api/admin/sysorg/${treeEndpointName('sysorg')}${query}`,
    headers: t.auth,
  });

async function level(query: string): Promise<Node[]> {
  const response = await orgTree(query);
  expect(response.statusCode, response.body).toBe(200);
  return data<Node[]>(response);
}

async function orgNamed(name: string): Promise<Node> {
  const [found] = await t.sql<Node>(
    `select id, org_name as "orgName" from sys_org where tenant_code = 'default' and org_name = $1`,
    [name],
  );
  if (!found) throw new Error(`no organisation ${name}`);
  return { ...found, id: Number(found.id) };
}

beforeAll(async () => {
  t = await startTestApp();
  const insert = `insert into sys_org (org_name, org_type, org_sequence, org_parent, tenant_code, created_by, updated_by)`;
  await t.sql(
    `${insert} select 'lazy-top-' || lpad(i::text, 3, '0'), 'dept', i, 0, 'default', 'test', 'test'
     from generate_series(1, $1::int) as i`,
    [TOPS],
  );
  // Children in reverse sequence to their ids: the level must come in sequence order.
  await t.sql(
    `${insert} select top.org_name || '-' || lpad(j::text, 2, '0'), 'team', $1::int - j, top.id, 'default', 'test', 'test'
     from sys_org as top, generate_series(1, $1::int) as j
     where top.tenant_code = 'default' and top.org_name like 'lazy-top-%'`,
    [CHILDREN],
  );
  firstTop = await orgNamed('lazy-top-001');
  leaf = await orgNamed('lazy-top-001-01');
  // Another tenant: a top-level node of its own, and a child under one of this tenant's leaves.
  const [other] = await t.sql<{ id: number }>(
    `${insert} values ('other-top', 'dept', 1, 0, 'othertenant', 'test', 'test') returning id`,
  );
  otherTop = Number(other?.id);
  await t.sql(`${insert} values ('other-child', 'team', 1, $1, 'othertenant', 'test', 'test')`, [otherTop]);
  await t.sql(`${insert} values ('other-under-leaf', 'team', 1, $1, 'othertenant', 'test', 'test')`, [
    Number(leaf?.id),
  ]);
  await t.sql('analyze sys_org');
});
afterAll(async () => {
  await t?.close();
});

describe('an organisation tree of 10,000 nodes', () => {
  it('is answered by its top level, each node saying whether it has children, never whole', async () => {
    const [{ nodes }] = (await t.sql<{ nodes: number }>(
      `select count(*)::int as nodes from sys_org where tenant_code = 'default'`,
    )) as [{ nodes: number }];
    expect(nodes).toBeGreaterThanOrEqual(TOPS * (CHILDREN + 1));
    expect(nodes).toBeGreaterThan(DEFAULT_TREE_LAZY_ABOVE);
    const tops = await t.sql<{ id: number }>(
      `select id from sys_org where tenant_code = 'default' and (org_parent = 0 or org_parent is null)`,
    );
    const top = await level('');
    expect(top.map((node) => node.id).sort((a, b) => a - b)).toEqual(
      tops.map((row) => Number(row.id)).sort((a, b) => a - b),
    );
    expect(top.every((node) => node.children === undefined && typeof node.hasChildren === 'boolean')).toBe(
      true,
    );
    const lazyTops = top.filter((node) => node.orgName.startsWith('lazy-top-'));
    expect(lazyTops).toHaveLength(TOPS);
    expect(lazyTops.every((node) => node.hasChildren === true)).toBe(true);
    expect(top.map((node) => node.orgName)).not.toContain('other-top');
    // parentId of the root value asks for the same level.
    expect(await level('?parentId=0')).toEqual(top);
  });

  it('answers the children of a node by parentId, in sequence order, with hasChildren', async () => {
    const children = await level(`?parentId=${firstTop.id}`);
    expect(children).toHaveLength(CHILDREN);
    expect(children.every((node) => node.orgParent === firstTop.id && node.children === undefined)).toBe(
      true,
    );
    const sequences = children.map((node) => Number(node.orgSequence));
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(children[0]?.orgName).toBe(`lazy-top-001-${String(CHILDREN).padStart(2, '0')}`);
    expect(children.every((node) => node.hasChildren === false)).toBe(true);
  });

  it('keeps tenants apart: another tenant’s nodes are no children and no level of this one', async () => {
    const children = await level(`?parentId=${firstTop.id}`);
    expect(children.find((node) => node.id === leaf.id)?.hasChildren).toBe(false);
    expect(await level(`?parentId=${leaf.id}`)).toEqual([]);
    expect(await level(`?parentId=${otherTop}`)).toEqual([]);
  });

  it('refuses a limit beyond the largest and a parentId that is no key, naming them', async () => {
    const refused = await orgTree('?lazyAbove=10001');
    expect(refused.statusCode, refused.body).toBe(400);
    expect(errorFields(refused)).toEqual(['/lazyAbove']);
    for (const value of ['abc', '1e3', '-1']) {
      const bad = await orgTree(`?parentId=${encodeURIComponent(value)}`);
      expect(bad.statusCode, `${value}: ${bad.body}`).toBe(400);
      expect(errorFields(bad)).toEqual(['/parentId']);
    }
  });
});

describe('a small tree', () => {
  const postTree = (query = ''): Promise<LightMyRequestResponse> =>
    t.request({
      method: 'GET',
      url: `/api/admin/syspost/${treeEndpointName('syspost')}${query}`,
      headers: t.auth,
    });

  it('comes whole, nested, as before; lazyAbove=0 asks for its top level instead', async () => {
    const insert = `insert into sys_post (post_name, post_code, post_sequence, post_parent, tenant_code, created_by, updated_by)`;
    const [parent] = await t.sql<{ id: number }>(
      `${insert} values ('lazy-post-parent', 'LAZY_P', 1, 0, 'default', 'test', 'test') returning id`,
    );
    await t.sql(`${insert} values ('lazy-post-child', 'LAZY_C', 1, $1, 'default', 'test', 'test')`, [
      Number(parent?.id),
    ]);
    const whole = await postTree();
    expect(whole.statusCode, whole.body).toBe(200);
    const nested = data<Row[]>(whole).find((node) => node.id === parent?.id);
    expect(nested).toMatchObject({
      postName: 'lazy-post-parent',
      children: [{ postName: 'lazy-post-child' }],
    });
    expect(nested?.hasChildren).toBeUndefined();
    const top = await postTree('?lazyAbove=0');
    expect(top.statusCode, top.body).toBe(200);
    const flagged = data<Row[]>(top).find((node) => node.id === parent?.id);
    expect(flagged).toMatchObject({ postName: 'lazy-post-parent', hasChildren: true });
    expect(flagged?.children).toBeUndefined();
  });
});
