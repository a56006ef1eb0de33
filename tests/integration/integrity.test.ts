import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityDef, FieldDef } from '../../src/engine/index.js';
import { loadRegistry } from '../../src/server/lib/registry.js';
import { Api, data, errorFields, tableCounts, type ErrorBody, type Page, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { Samples } from '../support/samples.js';

/** Trees, references and dictionaries: the rules that keep the data consistent. */
const declared = loadRegistry(fileURLToPath(new URL('../../schemas', import.meta.url))).all;
const treeNames = declared.filter((entity) => entity.tree).map((entity) => entity.name);
const references = declared.flatMap((entity) =>
  entity.fields
    .filter((field) => field.ref && entity.tree?.parent !== field.name)
    .map((field) => `${entity.name}.${field.name}`),
);
const allRefs = declared.flatMap((entity) =>
  entity.fields.filter((field) => field.ref).map((field) => `${entity.name}.${field.name}`),
);
const dictFields = declared.flatMap((entity) =>
  entity.fields.filter((field) => field.dict).map((field) => `${entity.name}.${field.name}`),
);

let t: TestApp;
let api: Api;
let samples: Samples;
beforeAll(async () => {
  t = await startTestApp();
  api = new Api(t);
  samples = new Samples(api);
});
afterAll(async () => {
  await t?.close();
});

function fieldOf(path: string): { entity: EntityDef; field: FieldDef } {
  const [entityName = '', fieldName = ''] = path.split('.');
  const entity = t.app.ctx.registry.require(entityName);
  const field = entity.fieldsByName.get(fieldName);
  if (!field) throw new Error(`no field ${path}`);
  return { entity, field };
}

/** Runs a request that must fail and checks that no table changed. */
async function refused(
  run: () => Promise<{ statusCode: number; body: string }>,
  status: number,
): Promise<string[]> {
  const before = await tableCounts(t);
  const response = await run();
  expect(response.statusCode, response.body).toBe(status);
  expect(await tableCounts(t)).toEqual(before);
  const answer = JSON.parse(response.body) as ErrorBody;
  expect(answer.code).toBe(status);
  return (answer.errors ?? []).map((error) => error.field);
}

it('knows the tree entities of DESIGN.md', () => {
  expect(treeNames.sort()).toEqual(['sysdict', 'sysmenu', 'sysorg', 'syspost', 'sysregion']);
  expect(references).toEqual(expect.arrayContaining(['sysuser.roleId', 'sysuser.orgId']));
});

type TreeNode = Row & { children?: TreeNode[] };

for (const name of treeNames) {
  describe(`tree ${name}`, () => {
    let entity: EntityDef;
    let parentName: string;
    let sequence: string | undefined;
    const nodes: Record<'top' | 'first' | 'second' | 'grandchild', unknown> = {
      top: undefined,
      first: undefined,
      second: undefined,
      grandchild: undefined,
    };
    const key = (row: Row): unknown => row[entity.key.name];

    beforeAll(async () => {
      entity = t.app.ctx.registry.require(name);
      const tree = entity.tree;
      if (!tree) throw new Error(`${name} is not a tree`);
      parentName = tree.parent;
      sequence = tree.sequence;
      const seq = (value: number): Row => (sequence ? { [sequence]: value } : {});
      nodes.top = key(await samples.create(entity, { [parentName]: tree.root, ...seq(0) }));
      // created first but with the larger sequence: the tree must order by sequence, not by creation
      nodes.first = key(await samples.create(entity, { [parentName]: nodes.top, ...seq(20) }));
      nodes.second = key(await samples.create(entity, { [parentName]: nodes.top, ...seq(10) }));
      nodes.grandchild = key(await samples.create(entity, { [parentName]: nodes.first, ...seq(5) }));
    });

    it('returns nested children in sequence order', async () => {
      const response = await api.get(
        `/api/${entity.api}/querySys${name.replace(/^sys/, '').replace(/^./, (c) => c.toUpperCase())}Tree`,
      );
      expect(response.statusCode, response.body).toBe(200);
      const roots = data<TreeNode[]>(response);
      const top = roots.find((node) => key(node) === nodes.top);
      expect(top, 'the new top-level node is a root').toBeDefined();
      const children = (top?.children ?? []).map(key);
      expect(children).toEqual(sequence ? [nodes.second, nodes.first] : [nodes.first, nodes.second]);
      const first = top?.children?.find((node) => key(node) === nodes.first);
      expect(first?.children?.map(key)).toEqual([nodes.grandchild]);
      expect(top?.children?.find((node) => key(node) === nodes.second)?.children ?? []).toEqual([]);
      // every sibling list of the whole tree is in sequence order (the key breaks ties)
      const compareKeys = (a: unknown, b: unknown): number =>
        typeof a === 'number' && typeof b === 'number'
          ? a - b
          : String(a) < String(b)
            ? -1
            : String(a) > String(b)
              ? 1
              : 0;
      const orderKey = (node: TreeNode): [number, unknown] => [
        sequence ? Number(node[sequence]) : 0,
        key(node),
      ];
      const check = (siblings: TreeNode[]): void => {
        const keys = siblings.map(orderKey);
        const sorted = [...keys].sort((a, b) => a[0] - b[0] || compareKeys(a[1], b[1]));
        expect(keys).toEqual(sorted);
        for (const node of siblings) {
          for (const child of node.children ?? []) expect(child[parentName]).toBe(key(node));
          check(node.children ?? []);
        }
      };
      check(roots);
    });

    it('refuses to delete a node with children: 409, nothing deleted', async () => {
      const fields = await refused(() => api.remove(entity, [nodes.top]), 409);
      expect(fields).toEqual([`/${entity.key.name}`]);
      await refused(() => api.remove(entity, [nodes.first]), 409);
      // a batch that leaves a child behind is refused as a whole
      await refused(() => api.remove(entity, [nodes.second, nodes.first]), 409);
      expect(data<Page>(await api.query(entity, { [entity.key.name]: String(nodes.second) })).total).toBe(1);
    });

    it('refuses to move a node under itself or its own descendant: 400 naming the parent field', async () => {
      const current = data<Page>(await api.query(entity, { [entity.key.name]: String(nodes.top) }))
        .records[0] as Row;
      for (const target of [nodes.grandchild, nodes.first, nodes.top]) {
        const fields = await refused(
          () =>
            api.update(entity, {
              [entity.key.name]: nodes.top,
              version: current.version,
              [parentName]: target,
            }),
          400,
        );
        expect(fields).toEqual([`/${parentName}`]);
      }
      const after = data<Page>(await api.query(entity, { [entity.key.name]: String(nodes.top) })).records[0];
      expect(after).toEqual(current);
      // a legal move still works: the grandchild moves up under the top node
      const grandchild = data<Page>(await api.query(entity, { [entity.key.name]: String(nodes.grandchild) }))
        .records[0] as Row;
      const moved = await api.update(entity, {
        [entity.key.name]: nodes.grandchild,
        version: grandchild.version,
        [parentName]: nodes.top,
      });
      expect(moved.statusCode, moved.body).toBe(200);
      expect(data(moved)[parentName]).toBe(nodes.top);
    });

    it('deletes a parent with all its children in one batch', async () => {
      const response = await api.remove(entity, [nodes.top, nodes.first, nodes.second, nodes.grandchild]);
      expect(response.statusCode, response.body).toBe(200);
      expect(data(response)).toEqual({ deleted: 4 });
      for (const node of Object.values(nodes)) {
        expect(data<Page>(await api.query(entity, { [entity.key.name]: String(node) })).total).toBe(0);
      }
    });
  });
}

describe('references', () => {
  it.each(references)('refuses to delete a record referenced by %s: 409, nothing deleted', async (path) => {
    const { entity, field } = fieldOf(path);
    const target = t.app.ctx.registry.require(field.ref ?? '');
    const used = await samples.create(target);
    const usedKey = used[target.key.name];
    const referrer = await samples.create(entity, { [field.name]: usedKey });
    expect(referrer[field.name]).toBe(usedKey);
    const fields = await refused(() => api.remove(target, [usedKey]), 409);
    expect(fields).toEqual([`/${target.key.name}`]);
    // once the reference is gone the record can be deleted
    expect((await api.remove(entity, [referrer[entity.key.name]])).statusCode).toBe(200);
    const response = await api.remove(target, [usedKey]);
    expect(response.statusCode, response.body).toBe(200);
    expect(data(response)).toEqual({ deleted: 1 });
  });

  it('refuses to delete the role and the organisation of the admin user', async () => {
    const admin = data<Page>(await api.query(t.app.ctx.registry.require('sysuser'), { username: 'admin' }))
      .records[0] as Row;
    const role = await refused(() => api.remove(t.app.ctx.registry.require('sysrole'), [admin.roleId]), 409);
    expect(role).toEqual(['/id']);
    const org = await refused(() => api.remove(t.app.ctx.registry.require('sysorg'), [admin.orgId]), 409);
    expect(org).toEqual(['/id']);
  });

  it.each(allRefs)('refuses %s pointing at a missing record: 400 naming the field', async (path) => {
    const { entity, field } = fieldOf(path);
    const missing = field.type === 'integer' ? 987_654_321 : '99999999999999';
    const record = await samples.record(entity, { [field.name]: missing });
    expect(await refused(() => api.add(entity, record), 400)).toEqual([`/${field.name}`]);
    const existing = await samples.create(entity);
    const change = {
      [entity.key.name]: existing[entity.key.name],
      version: existing.version,
      [field.name]: missing,
    };
    expect(await refused(() => api.update(entity, change), 400)).toEqual([`/${field.name}`]);
    expect((await api.remove(entity, [existing[entity.key.name]])).statusCode).toBe(200);
  });
});

describe('dictionaries', () => {
  it.each(dictFields)(
    'refuses a value of %s that is not in its dictionary: 400 naming the field',
    async (path) => {
      const { entity, field } = fieldOf(path);
      const itemType = field.type === 'array' ? (field.schema.items?.type ?? 'string') : field.type;
      const wrong = itemType === 'integer' || itemType === 'number' ? 987_654 : 'not_in_dict';
      const value = field.type === 'array' ? [wrong] : wrong;
      expect(
        await refused(
          async () => api.add(entity, await samples.record(entity, { [field.name]: value })),
          400,
        ),
      ).toEqual([`/${field.name}`]);
      const existing = await samples.create(entity);
      const change = {
        [entity.key.name]: existing[entity.key.name],
        version: existing.version,
        [field.name]: value,
      };
      expect(await refused(() => api.update(entity, change), 400)).toEqual([`/${field.name}`]);
      expect((await api.remove(entity, [existing[entity.key.name]])).statusCode).toBe(200);
    },
  );

  it('queryDictByDictType returns the items of one dictionary in sequence order', async () => {
    const dict = t.app.ctx.registry.require('sysdict');
    const url = `/api/${dict.api}/queryDictByDictType`;
    const seeded = data<Row[]>(await api.get(url, { dictType: 'user_status' }));
    expect(seeded.map((row) => row.dictValue)).toEqual(['1', '0']);
    expect(seeded.map((row) => row.dictName)).toEqual(['正常', '停用']);

    const group = await samples.create(dict, {
      dictType: 'qzx_colour',
      dictName: 'Colour',
      dictValue: null,
      dictParent: 0,
      dictSequence: 0,
    });
    for (const [value, sequence] of [
      ['red', 30],
      ['green', 10],
      ['blue', 20],
    ] as const) {
      await samples.create(dict, {
        dictType: 'qzx_colour',
        dictName: value,
        dictValue: value,
        dictSequence: sequence,
        dictParent: group.id,
      });
    }
    // another dictionary whose type starts the same way stays out
    const other = await samples.create(dict, {
      dictType: 'qzx_colour_2',
      dictName: 'Other',
      dictValue: null,
      dictParent: 0,
    });
    await samples.create(dict, {
      dictType: 'qzx_colour_2',
      dictName: 'x',
      dictValue: 'x',
      dictSequence: 1,
      dictParent: other.id,
    });
    const items = data<Row[]>(await api.get(url, { dictType: 'qzx_colour' }));
    expect(items.map((row) => row.dictValue)).toEqual(['green', 'blue', 'red']);
    expect(items.every((row) => row.dictType === 'qzx_colour' && row.dictParent === group.id)).toBe(true);

    expect(data<Row[]>(await api.get(url, { dictType: 'no_such_dictionary' }))).toEqual([]);
    const missing = await api.get(url);
    expect(missing.statusCode).toBe(400);
    expect(errorFields(missing)).toEqual(['/dictType']);
  });
});

describe('paging limits', () => {
  it('lists organisations with pageSize=10000 and refuses pageSize=10001', async () => {
    const org = t.app.ctx.registry.require('sysorg');
    const ok = await api.query(org, { pageSize: '10000' });
    expect(ok.statusCode, ok.body).toBe(200);
    const page = data<Page>(ok);
    expect(page).toMatchObject({ pageSize: 10000, currentPage: 1 });
    expect(page.records.length).toBe(page.total);
    expect(page.total).toBeGreaterThanOrEqual(1);
    const tooBig = await api.query(org, { pageSize: '10001' });
    expect(tooBig.statusCode).toBe(400);
    expect(errorFields(tooBig)).toEqual(['/pageSize']);
  });
});

describe('dictionary option endpoints of SPEC §7', () => {
  it('serve the items of the dictionary each field names', async () => {
    const cases: [string, string][] = [
      ['/api/admin/sysorg/queryOrgType', 'org_type'],
      ['/api/admin/sysregion/queryRegionType', 'region_type'],
      ['/api/admin/notification/queryNotificationType', 'notification_type'],
      ['/api/admin/notification/queryNotificationPriority', 'notification_priority'],
      ['/api/admin/sysmenu/queryMenuButtonCheckbox', 'menu_button'],
    ];
    for (const [url, dictType] of cases) {
      const response = await t.request({ method: 'GET', url, headers: t.auth });
      expect(response.statusCode, url).toBe(200);
      const items = response.json().data as { dictType: string; dictValue: string }[];
      expect(items.length, url).toBeGreaterThan(0);
      expect(
        items.every((item) => item.dictType === dictType && item.dictValue),
        url,
      ).toBe(true);
    }
  });
});
