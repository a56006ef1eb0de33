import { Checkbox, Table, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import {
  ARTICLE_FIELDS,
  articleFieldTitle,
  articleText,
  useArticles,
  type Article,
  type ArticleField,
} from './article.js';
import { DemoPage } from './parts.js';

const FIRST_COLUMNS: ArticleField[] = ['id', 'title', 'author', 'importance', 'status'];

/** /table/dynamic-table: the columns are chosen while the page runs, the rows are the articles. */
export default function DynamicTable({ route }: { route: AppRoute }) {
  const t = useT();
  const [fields, setFields] = useState<ArticleField[]>(FIRST_COLUMNS);
  const [page, setPage] = useState(1);
  const { articles, total, isLoading } = useArticles(page, 10);
  // the chosen columns in the entity's order, whatever order they were ticked in
  const columns: TableColumnsType<Article> = ARTICLE_FIELDS.filter((field) => fields.includes(field)).map(
    (field) => ({
      key: field,
      dataIndex: field,
      title: articleFieldTitle(t, field),
      render: (value: unknown) => articleText(t, field, value),
    }),
  );
  return (
    <DemoPage route={route} intro={t('examples.dynamic.intro')}>
      <fieldset className="example-toolbar">
        <legend className="ant-typography">{t('examples.dynamic.columns')}</legend>
        <Checkbox.Group
          value={fields}
          onChange={(values) => setFields(values)}
          options={ARTICLE_FIELDS.map((field) => ({ value: field, label: articleFieldTitle(t, field) }))}
          data-testid="dynamic-columns"
        />
      </fieldset>
      <Table<Article>
        rowKey="id"
        size="middle"
        loading={isLoading}
        columns={columns}
        dataSource={articles}
        data-testid="dynamic-table"
        pagination={{ current: page, pageSize: 10, total, onChange: setPage, showSizeChanger: false }}
      />
    </DemoPage>
  );
}
