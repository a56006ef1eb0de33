import { EditOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Table, Tag, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { articleFieldTitle, articleText, useArticles, type Article } from './article.js';
import { DemoPage } from './parts.js';

/** /example/list: the articles, each opening its edit page (/example/edit/:id). */
export default function ArticleList({ route }: { route: AppRoute }) {
  const t = useT();
  const navigate = useNavigate();
  const [page, setPage] = useState({ current: 1, size: 10 });
  const { articles, total, isLoading } = useArticles(page.current, page.size);
  const columns: TableColumnsType<Article> = [
    { key: 'id', dataIndex: 'id', title: articleFieldTitle(t, 'id'), width: 80 },
    {
      key: 'displayTime',
      dataIndex: 'displayTime',
      title: articleFieldTitle(t, 'displayTime'),
      width: 170,
      render: (value: unknown) => articleText(t, 'displayTime', value),
    },
    {
      key: 'title',
      dataIndex: 'title',
      title: articleFieldTitle(t, 'title'),
      render: (value: string, record) => <Link to={`/example/edit/${record.id}`}>{value}</Link>,
    },
    { key: 'author', dataIndex: 'author', title: articleFieldTitle(t, 'author'), width: 110 },
    {
      key: 'importance',
      dataIndex: 'importance',
      title: articleFieldTitle(t, 'importance'),
      width: 130,
      render: (value: number) => (
        <>
          <span aria-hidden="true" className="example-stars">
            {'★'.repeat(value)}
          </span>
          <span className="example-sr-only">{value}</span>
        </>
      ),
    },
    {
      key: 'status',
      dataIndex: 'status',
      title: articleFieldTitle(t, 'status'),
      width: 100,
      render: (value: string) => (
        <Tag color={value === 'published' ? 'green' : 'default'}>{articleText(t, 'status', value)}</Tag>
      ),
    },
    {
      key: 'actions',
      title: t('examples.actions'),
      width: 110,
      render: (_: unknown, record) => (
        <Link to={`/example/edit/${record.id}`} aria-label={`${t('admin.crud.edit')} ${record.title}`}>
          <EditOutlined /> {t('admin.crud.edit')}
        </Link>
      ),
    },
  ];
  return (
    <DemoPage
      route={route}
      intro={t('examples.list.intro')}
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => void navigate('/example/create')}>
          {t('examples.create')}
        </Button>
      }
    >
      <Table<Article>
        rowKey="id"
        size="middle"
        loading={isLoading}
        columns={columns}
        dataSource={articles}
        data-testid="example-list"
        pagination={{
          current: page.current,
          pageSize: page.size,
          total,
          showSizeChanger: true,
          onChange: (current, size) => setPage({ current, size }),
        }}
      />
    </DemoPage>
  );
}
