import { Button, Empty, Popconfirm, Table, Tag, Timeline } from 'antd';
import { formatDateTime } from '../../../web/format.js';
import { useT } from '../../i18n.js';
import { useApiGet, useApiWrite } from '../../lib/api.js';
import { useSubmit } from '../../lib/screen-parts.js';
import { MONITOR_API, shown, type AuditPage, type FieldChange } from './monitor-api.js';

/** The fields of one change: before struck through, after beside it. */
export function ChangeList({ changes }: { changes: FieldChange[] }) {
  const t = useT();
  if (changes.length === 0) return <span>{t('monitor.audit.noChange')}</span>;
  return (
    <Table<FieldChange>
      size="small"
      rowKey="field"
      pagination={false}
      dataSource={changes}
      columns={[
        { title: t('monitor.audit.field'), dataIndex: 'field', width: 160 },
        {
          title: t('monitor.audit.before'),
          dataIndex: 'before',
          render: (value: unknown) => <span className="monitor-diff-before">{shown(value)}</span>,
        },
        {
          title: t('monitor.audit.after'),
          dataIndex: 'after',
          render: (value: unknown) => <span className="monitor-diff-after">{shown(value)}</span>,
        },
      ]}
    />
  );
}

/** Changes whose values a record can be set back to (restoreVersion): what it held after them. */
const RESTORABLE = new Set(['add', 'update', 'restore']);

/**
 * Every change of one record, newest first, with who and when. With `restoreUrl` (the entity's
 * <api>/restoreVersion), each earlier version offers 恢复到此版本: a new audited update.
 */
export function AuditHistory({
  entity,
  recordKey,
  restoreUrl,
  onRestored,
}: {
  entity: string;
  recordKey: string;
  restoreUrl?: string;
  onRestored?: () => void;
}) {
  const t = useT();
  const submit = useSubmit();
  const { send, isSending } = useApiWrite();
  const history = useApiGet<AuditPage>(`${MONITOR_API}/audit/query`, { entity, recordKey, pageSize: 100 });
  const rows = history.data?.records ?? [];
  const restore = (auditId: number): Promise<void> =>
    submit(() => send('post', restoreUrl ?? '', { auditId }), {
      success: t('monitor.audit.restoredVersion'),
      after: async () => {
        await history.refetch();
        onRestored?.();
      },
    });
  if (!history.isLoading && rows.length === 0) return <Empty description={t('monitor.audit.empty')} />;
  return (
    <Timeline
      data-testid="audit-history"
      items={rows.map((row, index) => ({
        key: row.id,
        children: (
          <div data-audit-action={row.action}>
            <div>
              <Tag color={row.action === 'delete' ? 'red' : row.action === 'add' ? 'green' : 'blue'}>
                {t(`monitor.audit.actions.${row.action}`, { defaultValue: row.action })}
              </Tag>
              {row.username ?? '—'} · {formatDateTime(row.at)}
              {restoreUrl && index > 0 && RESTORABLE.has(row.action) ? (
                <Popconfirm
                  title={t('monitor.audit.restoreConfirm')}
                  okText={t('admin.common.confirm')}
                  cancelText={t('admin.common.cancel')}
                  onConfirm={() => restore(row.id)}
                >
                  <Button size="small" type="link" disabled={isSending} data-testid="audit-restore-version">
                    {t('monitor.audit.restoreVersion')}
                  </Button>
                </Popconfirm>
              ) : null}
            </div>
            <ChangeList changes={row.changes} />
          </div>
        ),
      }))}
    />
  );
}
