import { Card, Descriptions, Table, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { routeTitle, useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import { useApiGet } from '../../lib/api.js';
import type { CatalogueRow, DatabaseReport } from '../../../engine/api-types.js';
import { formatDateTime } from '../../../web/format.js';
import { bytes, MONITOR_API } from './monitor-api.js';

type Row = CatalogueRow;

/** Columns holding an instant, shown as YYYY-MM-DD HH:mm:ss like every other time, not raw ISO. */
const TIME_KEYS = new Set(['lastAt']);

// reltuples is -1 for a table never analysed: no estimate yet.
const text = (value: unknown): string =>
  value === null || value === undefined || value === -1 ? '—' : String(value);

/** Columns of a report table: one per key, titled from monitor.db.col.<key>. */
function columnsOf(t: (key: string) => string, keys: string[], mono: string[] = []): ColumnsType<Row> {
  return keys.map((key) => ({
    title: t(`monitor.db.col.${key}`),
    dataIndex: key,
    ellipsis: true,
    render: (value: unknown) =>
      key === 'bytes' ? (
        bytes(Number(value))
      ) : TIME_KEYS.has(key) && typeof value === 'string' ? (
        formatDateTime(value)
      ) : mono.includes(key) ? (
        <span className="monitor-mono">{text(value)}</span>
      ) : (
        text(value)
      ),
  }));
}

/**
 * Database monitor (docs/product.md §2.3 monitor/database): on PostgreSQL sessions, sizes, index use,
 * locks and pg_stat_statements; on the embedded database sizes and rows; on both the statements
 * every live process timed above the threshold, with the process, their values never shown.
 */
export default function DatabaseMonitor({ route }: { route: AppRoute }) {
  const t = useT();
  const report = useApiGet<DatabaseReport>(`${MONITOR_API}/database`);
  const data = report.data;
  const section = (key: string, rows: Row[], keys: string[], mono: string[] = []) => (
    <Card size="small" className="monitor-section" title={t(`monitor.db.${key}`)} key={key}>
      <Table<Row>
        size="small"
        rowKey={(_, index) => String(index)}
        dataSource={rows}
        columns={columnsOf(t, keys, mono)}
        pagination={{ pageSize: 10 }}
        data-testid={`db-${key}`}
      />
    </Card>
  );
  return (
    <Card
      title={routeTitle(route)}
      className="admin-page"
      data-testid="page-title"
      loading={report.isLoading}
    >
      {data ? (
        <>
          <Descriptions size="small" column={3} bordered>
            <Descriptions.Item label={t('monitor.db.kind')}>
              <Tag color="blue">{data.kind === 'postgres' ? 'PostgreSQL' : 'PGlite'}</Tag>
            </Descriptions.Item>
            <Descriptions.Item label={t('monitor.db.threshold')}>{data.slowThresholdMs} ms</Descriptions.Item>
            <Descriptions.Item label={t('monitor.db.pool')}>
              {data.pool
                ? `${data.pool.total}/${data.pool.max} (${data.pool.idle} idle, ${data.pool.waiting} waiting)`
                : '—'}
            </Descriptions.Item>
          </Descriptions>
          {section(
            'slow',
            // rows of a table like the others: each statement as a plain record of its fields
            data.slowStatements.map((statement) => ({ ...statement })),
            ['sql', 'parameters', 'count', 'maxMs', 'avgMs', 'lastAt', 'instance'],
            ['sql'],
          )}
          {section('tables', data.tables, ['table', 'liveRows', 'estimatedRows', 'bytes'])}
          {data.kind === 'postgres' ? (
            <>
              {section(
                'activity',
                data.activity,
                ['pid', 'user', 'application', 'state', 'waitEvent', 'runningMs', 'query'],
                ['query'],
              )}
              {section('indexUse', data.indexUse, ['table', 'seqScans', 'indexScans', 'liveRows'])}
              {section('locks', data.locks, ['pid', 'lockType', 'mode', 'granted', 'relation'])}
              {data.statements
                ? section(
                    'statements',
                    data.statements,
                    ['query', 'calls', 'totalMs', 'meanMs', 'rows'],
                    ['query'],
                  )
                : null}
            </>
          ) : null}
        </>
      ) : null}
    </Card>
  );
}
