import { FileZipOutlined } from '@ant-design/icons';
import { useDataProvider, useList } from '@refinedev/core';
import { App, Button, Input, Space, Table, type TableColumnsType } from 'antd';
import { useId, useState } from 'react';
import { useResources } from '../../../entity/resources.js';
import { useT, type Translate } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import type { DownloadedFile } from '../../../providers/data.js';
import { ARTICLE, articleFieldTitle, articleText, type Article, type ArticleField } from './article.js';
import { DemoPage, saveFile } from './parts.js';

const FIELDS: ArticleField[] = ['id', 'title', 'author', 'importance', 'type', 'status', 'displayTime'];

/** The articles as tab-separated text, one line per article under a header line. */
function articlesText(t: Translate, articles: readonly Article[]): string {
  const header = FIELDS.map((field) => articleFieldTitle(t, field)).join('\t');
  const lines = articles.map((article) =>
    FIELDS.map((field) => articleText(t, field, article[field]).replace(/[\t\r\n]+/g, ' ')).join('\t'),
  );
  return `${[header, ...lines].join('\r\n')}\r\n`;
}

/**
 * /zip/download: one .zip (jszip, in the browser) holding the article entity's own export (the
 * engine's .xlsx) and the same articles as a text table; the name is the user's.
 */
export default function ZipExport({ route }: { route: AppRoute }) {
  const t = useT();
  const { message } = App.useApp();
  const nameId = useId();
  const provider = useDataProvider()();
  const base = useResources()?.get(ARTICLE)?.base;
  const { result, query } = useList<Article>({
    resource: ARTICLE,
    pagination: { mode: 'off' },
    sorters: [{ field: 'id', order: 'asc' }],
  });
  const articles = result.data ?? [];
  const [name, setName] = useState(() => t('examples.zip.defaultName'));
  const [isZipping, setZipping] = useState(false);
  const zip = async (): Promise<void> => {
    if (!base || !provider.custom) return;
    setZipping(true);
    try {
      const answer = await provider.custom({
        url: `/api/${base}/export`,
        method: 'post',
        payload: { sort: 'id' },
        meta: { download: true },
      });
      const exported = answer.data as unknown as DownloadedFile;
      const { default: JSZip } = await import('jszip');
      const archive = new JSZip();
      archive.file(exported.fileName, exported.blob);
      archive.file(`${t('entities.article.title')}.txt`, articlesText(t, articles));
      const blob = await archive.generateAsync({ type: 'blob', compression: 'DEFLATE' });
      const fileName = (name.trim() || t('examples.zip.defaultName')).replace(/[\\/:*?"<>|]/g, '_');
      saveFile({ blob, fileName: `${fileName}.zip` });
    } catch (error) {
      // a failed export was shown by the HTTP client already
      if (error instanceof Error) void message.error(error.message);
    } finally {
      setZipping(false);
    }
  };
  const columns: TableColumnsType<Article> = FIELDS.map((field) => ({
    key: field,
    dataIndex: field,
    title: articleFieldTitle(t, field),
    render: (value: unknown) => articleText(t, field, value),
  }));
  return (
    <DemoPage route={route} intro={t('examples.zip.intro')}>
      <Space className="example-toolbar" wrap>
        <label htmlFor={nameId}>{t('examples.zip.fileName')}</label>
        <Input
          id={nameId}
          value={name}
          onChange={(event) => setName(event.target.value)}
          style={{ width: 240 }}
        />
        <Button
          type="primary"
          icon={<FileZipOutlined />}
          loading={isZipping}
          disabled={query.isLoading || !base}
          onClick={() => void zip()}
          data-testid="zip-export"
        >
          {t('examples.zip.export')}
        </Button>
      </Space>
      <Table<Article>
        rowKey="id"
        size="small"
        loading={query.isLoading}
        columns={columns}
        dataSource={articles}
        pagination={{ pageSize: 10, showSizeChanger: false }}
        data-testid="zip-table"
      />
    </DemoPage>
  );
}
