import { InboxOutlined } from '@ant-design/icons';
import { Alert, App, Table, Upload } from 'antd';
import { useState } from 'react';
import { useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { DemoPage } from './parts.js';
import { readFirstSheet, type SheetPreview } from './xlsx.js';

const MAX_MB = 10;

/**
 * /excel/upload-excel: an .xlsx chosen or dropped here is read in the browser (nothing is sent)
 * and its first sheet shown as a table: the first row as the header, the rows below it.
 */
export default function ExcelUpload({ route }: { route: AppRoute }) {
  const t = useT();
  const { message } = App.useApp();
  const [preview, setPreview] = useState<(SheetPreview & { fileName: string }) | undefined>(undefined);
  const [isReading, setReading] = useState(false);
  const read = async (file: File): Promise<void> => {
    if (file.size > MAX_MB * 1024 * 1024) {
      void message.error(t('examples.upload.tooLarge', { mb: MAX_MB }));
      return;
    }
    setReading(true);
    try {
      const sheet = await readFirstSheet(await file.arrayBuffer());
      setPreview({ ...sheet, fileName: file.name });
    } catch {
      setPreview(undefined);
      void message.error(t('examples.upload.unreadable', { name: file.name }));
    } finally {
      setReading(false);
    }
  };
  const columns = (preview?.header ?? []).map((title, index) => ({
    key: String(index),
    // an empty header cell is named by its column, one under a merged title stays empty
    title: title || (preview?.isHeaderMerged[index] ? '' : `#${index + 1}`),
    dataIndex: String(index),
  }));
  const rows = (preview?.rows ?? []).map((cells, index) => ({
    key: index,
    ...Object.fromEntries(cells.map((cell, column) => [String(column), cell])),
  }));
  return (
    <DemoPage route={route} intro={t('examples.upload.intro')}>
      <div data-testid="excel-upload">
        <Upload.Dragger
          accept=".xlsx,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
          showUploadList={false}
          multiple={false}
          beforeUpload={(file) => {
            void read(file);
            return false;
          }}
        >
          <p className="ant-upload-drag-icon">
            <InboxOutlined />
          </p>
          <p className="ant-upload-text">{t('examples.upload.drop')}</p>
        </Upload.Dragger>
      </div>
      {preview ? (
        <>
          <Alert
            style={{ margin: '16px 0' }}
            type="success"
            showIcon
            message={t('examples.upload.read', {
              name: preview.fileName,
              sheet: preview.sheetName,
              rows: preview.rows.length,
            })}
            data-testid="excel-upload-summary"
          />
          <Table
            size="small"
            bordered
            loading={isReading}
            columns={columns}
            dataSource={rows}
            scroll={{ x: 'max-content' }}
            pagination={{ pageSize: 20, showSizeChanger: false }}
            data-testid="excel-preview"
          />
        </>
      ) : null}
    </DemoPage>
  );
}
