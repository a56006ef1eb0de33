import { Button, Modal, Table } from 'antd';
import { useT } from '../i18n.js';
import { useApp, type ErrorLogEntry } from '../store.js';

/** docs/product.md §2.4: the error log (message, info and url, stack) with Clear All. */
export default function ErrorLogDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const t = useT();
  const app = useApp();
  return (
    <Modal
      title={t('admin.errorLog.title')}
      open={open}
      onCancel={onClose}
      width="80%"
      footer={
        <Button
          danger
          onClick={() => {
            app.clearErrorLog();
            onClose();
          }}
        >
          {t('admin.errorLog.clearAll')}
        </Button>
      }
    >
      <Table<ErrorLogEntry>
        rowKey="time"
        size="small"
        pagination={false}
        dataSource={app.errorLog}
        columns={[
          { title: t('admin.errorLog.message'), dataIndex: 'message', width: 220 },
          {
            title: t('admin.errorLog.info'),
            render: (_value, entry) => (
              <div>
                <div>{entry.info}</div>
                <div className="admin-muted">{entry.url}</div>
              </div>
            ),
          },
          {
            title: t('admin.errorLog.stack'),
            dataIndex: 'stack',
            // a scrollable region is reached and scrolled with the keyboard too (WCAG 2.1.1)
            render: (stack: string) => (
              <pre className="admin-stack" tabIndex={0} role="region" aria-label={t('admin.errorLog.stack')}>
                {stack}
              </pre>
            ),
          },
        ]}
      />
    </Modal>
  );
}
