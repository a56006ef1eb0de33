import { Radio, Table, Tabs, Tag, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import {
  articleFieldTitle,
  articleText,
  useArticleOptions,
  useArticles,
  type Article,
  type ArticleField,
} from './article.js';
import { DemoPage } from './parts.js';

const FIELDS: ArticleField[] = ['id', 'title', 'author', 'importance', 'status', 'displayTime'];
type Placement = 'top' | 'left';

function TypeTable({ type }: { type: string }) {
  const t = useT();
  const [page, setPage] = useState(1);
  const { articles, total, isLoading } = useArticles(page, 5, { type });
  const columns: TableColumnsType<Article> = FIELDS.map((field) => ({
    key: field,
    dataIndex: field,
    title: articleFieldTitle(t, field),
    render: (value: unknown) => articleText(t, field, value),
  }));
  return (
    <Table<Article>
      rowKey="id"
      size="small"
      loading={isLoading}
      columns={columns}
      dataSource={articles}
      data-testid={`tab-table-${type}`}
      pagination={{ current: page, pageSize: 5, total, onChange: setPage, showSizeChanger: false }}
    />
  );
}

/**
 * /tab/index: one tab per article type (the dictionary), each a list of that type's articles;
 * a tab's content is made when it is first opened and kept while others show.
 */
export default function TabDemo({ route }: { route: AppRoute }) {
  const t = useT();
  const types = useArticleOptions('type');
  const [opened, setOpened] = useState<string[]>([]);
  const [placement, setPlacement] = useState<Placement>('top');
  const active = opened.at(-1) ?? types[0]?.value;
  // the tabs whose content exists: the first one and each opened since
  const made = new Set([...(types[0] ? [types[0].value] : []), ...opened]).size;
  return (
    <DemoPage route={route} intro={t('examples.tab.intro')}>
      <div className="example-toolbar">
        <Radio.Group
          value={placement}
          onChange={(event) => setPlacement(event.target.value as Placement)}
          optionType="button"
          aria-label={t('examples.tab.placement')}
          options={[
            { value: 'top', label: t('examples.tab.top') },
            { value: 'left', label: t('examples.tab.left') },
          ]}
        />{' '}
        <Tag color="blue">
          {t('examples.tab.created')}: <span data-testid="tabs-made">{made}</span>
        </Tag>
      </div>
      <div data-testid="type-tabs">
        <Tabs
          tabPosition={placement}
          activeKey={active}
          onChange={(key) => setOpened((list) => [...list.filter((item) => item !== key), key])}
          destroyOnHidden={false}
          items={types.map((type) => ({
            key: type.value,
            label: type.label,
            children: <TypeTable type={type.value} />,
          }))}
        />
      </div>
    </DemoPage>
  );
}
