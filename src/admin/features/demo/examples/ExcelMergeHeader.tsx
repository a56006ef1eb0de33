import { DownloadOutlined } from '@ant-design/icons';
import { useList } from '@refinedev/core';
import { App, Button, Table, type TableColumnsType } from 'antd';
import { useState } from 'react';
import { useT, type Translate } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { ARTICLE, articleFieldTitle, articleText, type Article, type ArticleField } from './article.js';
import { DemoPage, saveFile } from './parts.js';
import { loadExcel } from './xlsx.js';

/** The header's groups: a group's title spans its fields' columns in the first header row. */
const GROUPS: { key: string; fields: ArticleField[] }[] = [
  { key: 'article', fields: ['title', 'author', 'type'] },
  { key: 'publishing', fields: ['status', 'displayTime'] },
  { key: 'figures', fields: ['importance', 'pageviews', 'forecast'] },
];

/** Every article as an .xlsx whose header has two rows, group titles merged across their columns. */
async function mergedHeaderWorkbook(t: Translate, articles: readonly Article[]): Promise<Blob> {
  const Excel = await loadExcel();
  const workbook = new Excel.Workbook();
  const sheet = workbook.addWorksheet(t('entities.article.title'));
  const top = [articleFieldTitle(t, 'id')];
  const second = [''];
  for (const group of GROUPS) {
    group.fields.forEach((field, index) => {
      top.push(index === 0 ? t(`examples.complex.${group.key}`) : '');
      second.push(articleFieldTitle(t, field));
    });
  }
  sheet.addRow(top);
  sheet.addRow(second);
  // ID spans both header rows; each group's title spans its columns
  sheet.mergeCells(1, 1, 2, 1);
  let column = 2;
  for (const group of GROUPS) {
    sheet.mergeCells(1, column, 1, column + group.fields.length - 1);
    column += group.fields.length;
  }
  for (const article of articles) {
    sheet.addRow([
      article.id,
      ...GROUPS.flatMap((group) =>
        group.fields.map((field) => {
          const value = article[field];
          return typeof value === 'number' ? value : articleText(t, field, value);
        }),
      ),
    ]);
  }
  for (const row of [sheet.getRow(1), sheet.getRow(2)]) {
    row.font = { bold: true };
    row.alignment = { horizontal: 'center', vertical: 'middle' };
  }
  sheet.columns.forEach((col, index) => {
    col.width = index === 1 ? 36 : 14;
  });
  const bytes = await workbook.xlsx.writeBuffer();
  return new Blob([bytes], { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' });
}

/**
 * /excel/export-merge-header: a header of two levels with merged cells, in the table and in the
 * .xlsx written in the browser (exceljs) from every article.
 */
export default function ExcelMergeHeader({ route }: { route: AppRoute }) {
  const t = useT();
  const { message } = App.useApp();
  const { result, query } = useList<Article>({
    resource: ARTICLE,
    pagination: { mode: 'off' },
    sorters: [{ field: 'id', order: 'asc' }],
  });
  const articles = result.data ?? [];
  const [isWriting, setWriting] = useState(false);
  const columns: TableColumnsType<Article> = [
    { key: 'id', dataIndex: 'id', title: articleFieldTitle(t, 'id'), width: 70 },
    ...GROUPS.map((group) => ({
      key: group.key,
      title: t(`examples.complex.${group.key}`),
      children: group.fields.map((field) => ({
        key: field,
        dataIndex: field,
        title: articleFieldTitle(t, field),
        render: (value: unknown) => articleText(t, field, value),
      })),
    })),
  ];
  const download = async (): Promise<void> => {
    setWriting(true);
    try {
      const blob = await mergedHeaderWorkbook(t, articles);
      saveFile({ blob, fileName: `${t('examples.excel.mergeFile')}.xlsx` });
    } catch (error) {
      void message.error(error instanceof Error ? error.message : String(error));
    } finally {
      setWriting(false);
    }
  };
  return (
    <DemoPage route={route} intro={t('examples.excel.mergeIntro')}>
      <Button
        type="primary"
        icon={<DownloadOutlined />}
        className="example-toolbar"
        loading={isWriting}
        disabled={query.isLoading}
        onClick={() => void download()}
        data-testid="excel-merge-export"
      >
        {t('examples.excel.exportAll', { count: articles.length })}
      </Button>
      <Table<Article>
        rowKey="id"
        size="small"
        bordered
        loading={query.isLoading}
        columns={columns}
        dataSource={articles}
        pagination={{ pageSize: 10, showSizeChanger: false }}
        data-testid="merge-table"
      />
    </DemoPage>
  );
}
