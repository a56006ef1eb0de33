import { Table, type TableColumnsType } from 'antd';
import { useMemo } from 'react';
import { useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { articleFieldTitle, articleText, useArticles, type Article } from './article.js';
import { DemoPage } from './parts.js';

interface Row extends Article {
  /** Rows of this author's block for its first row, 0 for the others (merged cells). */
  authorSpan: number;
}

/**
 * /table/complex-table: headers in two levels (grouped columns) and body cells merged down a
 * column: the articles grouped by author, the author's cell spanning the group.
 */
export default function ComplexTable({ route }: { route: AppRoute }) {
  const t = useT();
  const { articles, isLoading } = useArticles(1, 30);
  const rows = useMemo((): Row[] => {
    const sorted = [...articles].sort((a, b) => a.author.localeCompare(b.author) || a.id - b.id);
    return sorted.map((article, index) => {
      const isFirst = index === 0 || sorted[index - 1]?.author !== article.author;
      const span = isFirst ? sorted.slice(index).findIndex((other) => other.author !== article.author) : 0;
      return { ...article, authorSpan: isFirst ? (span === -1 ? sorted.length - index : span) : 0 };
    });
  }, [articles]);
  const text = (field: 'type' | 'status' | 'displayTime' | 'platforms') => (value: unknown) =>
    articleText(t, field, value);
  const columns: TableColumnsType<Row> = [
    {
      key: 'author',
      dataIndex: 'author',
      title: articleFieldTitle(t, 'author'),
      width: 110,
      onCell: (record) => ({ rowSpan: record.authorSpan }),
    },
    {
      key: 'article',
      title: t('examples.complex.article'),
      children: [
        { key: 'id', dataIndex: 'id', title: articleFieldTitle(t, 'id'), width: 70 },
        { key: 'title', dataIndex: 'title', title: articleFieldTitle(t, 'title') },
        {
          key: 'type',
          dataIndex: 'type',
          title: articleFieldTitle(t, 'type'),
          width: 90,
          render: text('type'),
        },
      ],
    },
    {
      key: 'publishing',
      title: t('examples.complex.publishing'),
      children: [
        {
          key: 'status',
          dataIndex: 'status',
          title: articleFieldTitle(t, 'status'),
          width: 90,
          render: text('status'),
        },
        {
          key: 'displayTime',
          dataIndex: 'displayTime',
          title: articleFieldTitle(t, 'displayTime'),
          width: 170,
          render: text('displayTime'),
        },
      ],
    },
    {
      key: 'figures',
      title: t('examples.complex.figures'),
      children: [
        { key: 'importance', dataIndex: 'importance', title: articleFieldTitle(t, 'importance'), width: 90 },
        { key: 'pageviews', dataIndex: 'pageviews', title: articleFieldTitle(t, 'pageviews'), width: 100 },
        { key: 'forecast', dataIndex: 'forecast', title: articleFieldTitle(t, 'forecast'), width: 90 },
      ],
    },
  ];
  return (
    <DemoPage route={route} intro={t('examples.complex.intro')}>
      <Table<Row>
        rowKey="id"
        size="small"
        bordered
        loading={isLoading}
        columns={columns}
        dataSource={rows}
        pagination={false}
        data-testid="complex-table"
      />
    </DemoPage>
  );
}
