import { describe, expect, it } from 'vitest';
import { reverseTable, titlesOfComment, type TableInfo } from '../../generators/reverse.js';
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
