import { describe, expect, it } from 'vitest';
import { proposeAdoption, reverseTable, titlesOfComment, type TableInfo } from '../../generators/reverse.js';
import { checkEntitySchema } from '../../src/engine/index.js';

const column = (name: string, type: string, comment: string | null = null): TableInfo['columns'][number] => ({
  name,
  type,
  isNotNull: false,
  defaultSql: null,
  isIdentity: false,
  comment,
});

describe('reverse generator: comments become titles', () => {
  it('takes a Chinese comment as the title and the zh title, the English one from the name', () => {
    expect(titlesOfComment('商品名称', 'item_name')).toEqual({
      title: '商品名称',
      titles: { zh: '商品名称', en: 'Item name' },
    });
  });

  it('keeps the name part of an explained Chinese comment as the title and the whole as the description', () => {
    expect(titlesOfComment('帐号状态（0正常 1停用）', 'status')).toEqual({
      title: '帐号状态',
      titles: { zh: '帐号状态', en: 'Status' },
      description: '帐号状态（0正常 1停用）',
    });
    expect(titlesOfComment('性别：0 男，1 女', 'sex')).toMatchObject({
      title: '性别',
      description: '性别：0 男，1 女',
    });
    // A mixed comment is Chinese as soon as it holds a Chinese character.
    expect(titlesOfComment('SKU 编码', 'sku')).toMatchObject({
      title: 'SKU 编码',
      titles: { zh: 'SKU 编码' },
    });
  });

  it('takes a short English comment as the title and a sentence as the description', () => {
    expect(titlesOfComment('Unit price', 'price')).toEqual({ title: 'Unit price' });
    expect(titlesOfComment('The price of one unit, in yuan, before any discount.', 'unit_price')).toEqual({
      title: 'Unit price',
      description: 'The price of one unit, in yuan, before any discount.',
    });
    expect(titlesOfComment('Status (0 active, 1 disabled)', 'status')).toEqual({
      title: 'Status',
      description: 'Status (0 active, 1 disabled)',
    });
  });

  it('falls back to the name without a comment, and ignores blank ones', () => {
    expect(titlesOfComment(null, 'region_code')).toEqual({ title: 'Region code' });
    expect(titlesOfComment('   ', 'region_code')).toEqual({ title: 'Region code' });
    expect(titlesOfComment(null, 'parent_id')).toEqual({ title: 'Parent ID' });
  });

  it('writes the titles into a schema the engine accepts, table and columns alike', () => {
    const table: TableInfo = {
      name: 'shop_goods',
      comment: '商品表（门店的在售商品）',
      columns: [
        { ...column('id', 'integer'), isNotNull: true, isIdentity: true },
        column('goods_name', 'character varying(40)', '商品名称'),
        column('status', 'character(1)', '状态（0正常 1停用）'),
        column('price', 'numeric(10,2)', 'Unit price'),
        column('remark', 'text', 'Free text the shop keeps about the goods.'),
      ],
      primaryKey: ['id'],
      uniqueColumns: [],
      foreignKeys: [],
      checks: [],
    };
    const { schema } = reverseTable(table, new Map());
    expect(checkEntitySchema('shop_goods', 'shopgoods', schema)).toEqual([]);
    expect(schema.title).toBe('商品表');
    expect(schema['x-ui']).toEqual({ titles: { zh: '商品表', en: 'Shop goods' } });
    expect(schema.description).toBe('商品表（门店的在售商品）');
    expect(schema.properties.goodsName).toMatchObject({
      title: '商品名称',
      'x-ui': { titles: { zh: '商品名称', en: 'Goods name' } },
    });
    expect(schema.properties.status).toMatchObject({ title: '状态', description: '状态（0正常 1停用）' });
    expect(schema.properties.price).toMatchObject({ title: 'Unit price' });
    expect(schema.properties.price?.['x-ui']).toBeUndefined();
    expect(schema.properties.remark).toMatchObject({
      title: 'Remark',
      description: 'Free text the shop keeps about the goods.',
    });
  });
});

describe('reverse generator: tables referring to an adopted one become its details', () => {
  const orders: TableInfo = {
    name: 'orders',
    comment: '订单',
    columns: [
      { ...column('id', 'integer'), isNotNull: true, defaultSql: "nextval('orders_id_seq'::regclass)" },
      { ...column('order_no', 'character varying(20)'), isNotNull: true },
    ],
    primaryKey: ['id'],
    uniqueColumns: ['order_no'],
    foreignKeys: [],
    checks: [],
  };
  const orderLine = (extra: Partial<TableInfo> = {}): TableInfo => ({
    name: 'order_line',
    comment: '订单明细',
    columns: [
      { ...column('id', 'integer'), isNotNull: true, defaultSql: "nextval('order_line_id_seq'::regclass)" },
      { ...column('order_id', 'integer'), isNotNull: true },
      { ...column('product', 'character varying(40)', '商品'), isNotNull: true },
      column('qty', 'integer'),
      column('sku', 'character varying(20)'),
    ],
    primaryKey: ['id'],
    uniqueColumns: ['sku'],
    foreignKeys: [{ column: 'order_id', refTable: 'orders', refColumn: 'id' }],
    checks: [],
    ...extra,
  });

  it('adds an x-detail field over the child table as it is: its parent column, no seq, rows in key order', () => {
    const result = reverseTable(orders, new Map(), [orderLine()]);
    expect(result.details).toEqual(['order_line']);
    expect(checkEntitySchema('orders', 'orders', result.schema)).toEqual([]);
    const lines = result.schema.properties.orderLine;
    expect(lines).toMatchObject({
      type: 'array',
      title: '订单明细',
      'x-detail': { table: 'order_line', parentColumn: 'order_id', seq: null },
      items: { type: 'object', required: ['product'] },
    });
    // Neither the child's key nor its parent column is a row field; a row's column is never unique.
    expect(Object.keys(lines?.items?.properties ?? {})).toEqual(['product', 'qty', 'sku']);
    expect(lines?.items?.properties?.sku?.['x-unique']).toBeUndefined();
  });

  it('takes an integer seq column as the position and names a key other than id', () => {
    const child = orderLine({
      columns: [
        { ...column('line_id', 'bigint'), isNotNull: true, isIdentity: true },
        { ...column('order_id', 'integer'), isNotNull: true },
        { ...column('seq', 'smallint'), isNotNull: true },
        column('product', 'text'),
      ],
      primaryKey: ['line_id'],
    });
    const { schema } = reverseTable(orders, new Map(), [child]);
    expect(schema.properties.orderLine?.['x-detail']).toEqual({
      table: 'order_line',
      parentColumn: 'order_id',
      seq: 'seq',
      key: 'line_id',
    });
    expect(checkEntitySchema('orders', 'orders', schema)).toEqual([]);
  });

  it('leaves out, with the reason, a child whose key is not generated or whose required column cannot be a field', () => {
    const notGenerated = orderLine({
      columns: [
        { ...column('id', 'integer'), isNotNull: true },
        { ...column('order_id', 'integer'), isNotNull: true },
        column('product', 'text'),
      ],
    });
    const blob = orderLine({
      columns: [...orderLine().columns, { ...column('scan', 'bytea'), isNotNull: true }],
    });
    for (const [child, why] of [
      [notGenerated, 'its primary key is not one generated column (identity or serial)'],
      [blob, 'scan must be given on insert but cannot be a field'],
    ] as const) {
      const result = reverseTable(orders, new Map(), [child]);
      expect(result.details).toEqual([]);
      expect(result.schema.properties.orderLine).toBeUndefined();
      expect(result.warnings.join('\n')).toContain(`order_line: ${why}; not a detail`);
    }
  });
});

describe('proposeAdoption', () => {
  const column = (name: string, type: string, extra: Partial<TableInfo['columns'][number]> = {}) => ({
    name,
    type,
    isNotNull: false,
    defaultSql: null,
    isIdentity: false,
    comment: null,
    ...extra,
  });
  const table = (columns: TableInfo['columns']): TableInfo => ({
    name: 'system_users',
    comment: null,
    columns: [column('id', 'bigint', { isNotNull: true }), ...columns],
    primaryKey: ['id'],
    uniqueColumns: [],
    foreignKeys: [],
    checks: [],
  });

  it("proposes a table's bookkeeping, soft-delete, tenant and secret columns", () => {
    const proposal = proposeAdoption(
      table([
        column('username', 'character varying(30)'),
        column('password', 'character varying(100)'),
        column('client_secret', 'character varying(100)'),
        column('access_token', 'character varying(255)'),
        column('pass', 'character varying(60)', { comment: '邮箱密码' }),
        column('config_key', 'character varying(100)'),
        column('creator', 'character varying(64)'),
        column('create_time', 'timestamp without time zone'),
        column('updater', 'character varying(64)'),
        column('update_time', 'timestamp without time zone'),
        column('deleted', 'smallint', { defaultSql: '0' }),
        column('tenant_id', 'bigint', { defaultSql: '0' }),
      ]),
    );
    expect(proposal.bookkeeping).toEqual({
      createdAt: 'create_time',
      createdBy: 'creator',
      updatedAt: 'update_time',
      updatedBy: 'updater',
    });
    expect(proposal.softDelete).toEqual({ column: 'deleted', deleted: 1, active: 0 });
    expect(proposal.tenantColumn).toEqual({ column: 'tenant_id', type: 'bigint', defaultValue: '0' });
    expect(proposal.secrets.map((secret) => secret.column)).toEqual([
      'password',
      'client_secret',
      'access_token',
      'pass',
    ]);
  });

  it("takes a text soft-delete column's default as the live value (RuoYi's del_flag '0')", () => {
    const proposal = proposeAdoption(
      table([column('del_flag', 'character(1)', { defaultSql: "'0'::bpchar" })]),
    );
    expect(proposal.softDelete).toEqual({ column: 'del_flag', deleted: '1', active: '0' });
  });
});

describe('reverse generator: values kept exactly (issue 33)', () => {
  const table = (columns: TableInfo['columns'], extra: Partial<TableInfo> = {}): TableInfo => ({
    name: 'sys_menu',
    comment: null,
    columns,
    primaryKey: ['menu_id'],
    uniqueColumns: [],
    foreignKeys: [],
    checks: [],
    ...extra,
  });
  const key = { ...column('menu_id', 'bigint'), isNotNull: true };

  it('carries simple numeric CHECKs as bounds, leaves the others to the database', () => {
    const { schema } = reverseTable(
      table(
        [key, column('weight', 'integer'), column('score', 'integer'), column('ratio', 'double precision')],
        {
          checks: [
            { column: 'weight', definition: 'CHECK ((weight > 0))' },
            { column: 'score', definition: 'CHECK (((score >= 0) AND (score <= 100)))' },
            { column: 'ratio', definition: 'CHECK ((ratio > (0)::double precision))' },
          ],
        },
      ),
      new Map(),
    );
    expect(schema.properties.weight).toMatchObject({ minimum: 1 });
    expect(schema.properties.score).toMatchObject({ minimum: 0, maximum: 100 });
    expect(schema.properties.ratio?.minimum).toBeUndefined();
  });

  it('feeds a key from <table>_seq, keeps CURRENT_TIMESTAMP and bit(1) defaults, refuses an unfillable bytea', () => {
    const { schema } = reverseTable(
      table(
        [
          key,
          { ...column('create_time', 'timestamp without time zone'), defaultSql: 'CURRENT_TIMESTAMP' },
          { ...column('visible', 'bit(1)'), isNotNull: true, defaultSql: `'1'::"bit"` },
          column('icon', 'bytea'),
        ],
        { sequences: ['sys_menu_seq'] },
      ),
      new Map(),
    );
    expect(checkEntitySchema('sysmenu', 'sysmenu', schema)).toEqual([]);
    expect(schema.properties.menuId).toMatchObject({
      readOnly: true,
      'x-column': { default: { sequence: 'sys_menu_seq' } },
    });
    expect(schema.properties.createTime).toMatchObject({ 'x-column': { type: 'timestamp', default: 'now' } });
    expect(schema.properties.visible).toMatchObject({
      type: 'boolean',
      default: true,
      'x-column': { type: 'bit' },
    });
    expect(schema.properties.icon).toBeUndefined();
    expect(schema.required).toEqual([]);
    expect(() =>
      reverseTable(table([key, { ...column('payload', 'bytea'), isNotNull: true }]), new Map()),
    ).toThrow(/payload \(bytea\) must be given on every insert/);
  });
});

describe('reverse generator: exact numbers (issues 32 and 33)', () => {
  it('maps numeric(p,s) to a decimal, numeric to a wide one, bigint to int64 (a generated key and a reference to an integer key stay integers)', () => {
    const table: TableInfo = {
      name: 'snow_order',
      comment: null,
      columns: [
        { ...column('id', 'bigint'), isNotNull: true },
        { ...column('seq_no', 'bigint'), isNotNull: true, isIdentity: true },
        column('user_id', 'bigint'),
        column('amount', 'numeric(10,2)'),
        { ...column('fee', 'numeric(12,4)'), defaultSql: '0.0000' },
        column('ratio', 'numeric'),
        column('title', 'text'),
      ],
      primaryKey: ['id'],
      uniqueColumns: [],
      foreignKeys: [{ column: 'user_id', refTable: 'sys_user', refColumn: 'id' }],
      checks: [],
    };
    const { schema } = reverseTable(
      table,
      new Map([['sys_user', { entity: 'sysuser', keyColumn: 'id', isIntegerKey: true }]]),
    );
    expect(checkEntitySchema('snow_order', 'snoworder', schema)).toEqual([]);
    const p = schema.properties;
    expect(p.id).toMatchObject({ type: 'string', format: 'int64' });
    expect(p.seqNo).toMatchObject({ type: 'integer' });
    expect(p.userId).toMatchObject({ type: 'integer', 'x-ref': 'sysuser' });
    expect(p.amount).toMatchObject({
      type: 'string',
      format: 'decimal',
      'x-decimal': { precision: 10, scale: 2 },
    });
    expect(p.fee).toMatchObject({
      format: 'decimal',
      'x-decimal': { precision: 12, scale: 4 },
      default: '0.0000',
    });
    expect(p.ratio).toMatchObject({ format: 'decimal', 'x-decimal': { precision: 38, scale: 10 } });
  });
});
