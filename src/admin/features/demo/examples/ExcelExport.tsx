import { DownloadOutlined } from '@ant-design/icons';
import { Button, Progress, Space, Table, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { useExport } from '../../../entity/export.js';
import { useResources } from '../../../entity/resources.js';
import { useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import type { ResourceApi } from '../../../providers/resources.js';
import type { EntityDef } from '../../../../engine/index.js';
import {
  ARTICLE,
  articleFieldTitle,
  articleText,
  useArticles,
  type Article,
  type ArticleField,
} from './article.js';
import { DemoPage } from './parts.js';

const FIELDS: ArticleField[] = [
  'id',
  'title',
  'author',
  'importance',
  'type',
  'status',
  'displayTime',
  'pageviews',
];

/**
 * /excel/export-excel and /excel/export-selected-excel: the article entity's own export (POST
 * demo/article/export, the engine's streamed .xlsx with translated headers and dictionary
 * labels), of every article or of the ticked rows only.
 */
export default function ExcelExport({ route }: { route: AppRoute }) {
  const t = useT();
  const resource = useResources()?.get(ARTICLE);
  const isSelection = route.component === 'demo/excel/selected';
  return (
    <DemoPage
      route={route}
      intro={t(isSelection ? 'examples.excel.selectedIntro' : 'examples.excel.allIntro')}
    >
      {resource?.entity ? (
        <ArticleExport api={resource} entity={resource.entity} isSelection={isSelection} />
      ) : null}
    </DemoPage>
  );
}

function ArticleExport({
  api,
  entity,
  isSelection,
}: {
  api: ResourceApi;
  entity: EntityDef;
  isSelection: boolean;
}) {
  const t = useT();
  const [page, setPage] = useState({ current: 1, size: 10 });
  const { articles, total, isLoading } = useArticles(page.current, page.size);
  const [selected, setSelected] = useState<number[]>([]);
  const exporter = useExport(api, entity);
  const columns: TableColumnsType<Article> = FIELDS.map((field) => ({
    key: field,
    dataIndex: field,
    title: articleFieldTitle(t, field),
    render: (value: unknown) => articleText(t, field, value),
  }));
  const run = (): void => {
    const filters = isSelection ? [{ field: 'id', operator: 'in' as const, value: selected }] : [];
    void exporter.run(filters, 'id');
  };
  return (
    <>
      <Space className="example-toolbar" wrap>
        <Button
          type="primary"
          icon={<DownloadOutlined />}
          loading={exporter.isExporting}
          disabled={isSelection && selected.length === 0}
          onClick={run}
          data-testid="excel-export"
        >
          {isSelection
            ? t('examples.excel.exportSelected', { count: selected.length })
            : t('examples.excel.exportAll', { count: total })}
        </Button>
        {exporter.percent !== undefined && exporter.isExporting ? (
          <Progress percent={exporter.percent} size="small" style={{ width: 160 }} />
        ) : null}
      </Space>
      <Table<Article>
        rowKey="id"
        size="middle"
        loading={isLoading}
        columns={columns}
        dataSource={articles}
        data-testid="excel-table"
        rowSelection={
          isSelection
            ? {
                selectedRowKeys: selected,
                preserveSelectedRowKeys: true,
                onChange: (keys) => setSelected(keys.map(Number)),
                // each row's checkbox is named after its article (WCAG 4.1.2)
                getCheckboxProps: (record) => ({ title: t('admin.crud.selectRow', { label: record.title }) }),
              }
            : undefined
        }
        pagination={{
          current: page.current,
          pageSize: page.size,
          total,
          onChange: (current, size) => setPage({ current, size }),
        }}
      />
    </>
  );
}
