import { Empty, Table, Tag, Timeline } from 'antd';
import { formatDateTime } from '../../../web/format.js';
import { useT } from '../../i18n.js';
import { useApiGet } from '../../lib/api.js';
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

/** Every change of one record, newest first, with who and when. */
export function AuditHistory({ entity, recordKey }: { entity: string; recordKey: string }) {
  const t = useT();
  const history = useApiGet<AuditPage>(`${MONITOR_API}/audit/query`, { entity, recordKey, pageSize: 100 });
  const rows = history.data?.records ?? [];
  if (!history.isLoading && rows.length === 0) return <Empty description={t('monitor.audit.empty')} />;
  return (
    <Timeline
      data-testid="audit-history"
      items={rows.map((row) => ({
        key: row.id,
        children: (
          <div>
            <div>
              <Tag color={row.action === 'delete' ? 'red' : row.action === 'add' ? 'green' : 'blue'}>
                {t(`monitor.audit.actions.${row.action}`, { defaultValue: row.action })}
              </Tag>
              {row.username ?? '—'} · {formatDateTime(row.at)}
            </div>
            <ChangeList changes={row.changes} />
          </div>
        ),
      }))}
    />
  );
}
