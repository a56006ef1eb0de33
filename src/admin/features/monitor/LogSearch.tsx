import { Button, Card, DatePicker, Flex, Input, InputNumber, Select, Switch, Table, Tag } from 'antd';
import type { Dayjs } from 'dayjs';
import { useCallback, useEffect, useRef, useState } from 'react';
import { formatDateTime } from '../../../web/format.js';
import { routeTitle, useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import { useTableScrollRegion } from '../../lib/scroll-region.js';
import { useApiCall } from '../../providers/api.js';
import { MONITOR_API, type RequestLogEntry } from './monitor-api.js';
import './monitor.css';

const TAIL_MS = 2_000;
const KEEP = 500;
const LEVEL_COLOR = { info: 'default', warn: 'orange', error: 'red' } as const;

interface Filters {
  range?: [Dayjs | null, Dayjs | null] | null;
  level?: string;
  text?: string;
  requestId?: string;
  username?: string;
  status?: number | null;
}

function queryOf(filters: Filters): Record<string, string | number> {
  const query: Record<string, string | number> = { limit: 200 };
  const [from, to] = filters.range ?? [];
  if (from) query.from = from.toISOString();
  if (to) query.to = to.toISOString();
  for (const name of ['level', 'text', 'requestId', 'username'] as const) {
    const value = filters[name]?.trim();
    if (value) query[name] = value;
  }
  if (filters.status) query.status = filters.status;
  return query;
}

/**
 * Log search (docs/product.md §2.3 /distributedlog/elk): the request logs every server process keeps in the
 * database, by time range, level, text, request id, user and status, with a live tail that
 * fetches only the lines after the newest one shown.
 */
export default function LogSearch({ route }: { route: AppRoute }) {
  const t = useT();
  const call = useApiCall();
  const [filters, setFilters] = useState<Filters>({});
  const [rows, setRows] = useState<RequestLogEntry[]>([]);
  const [isLoading, setLoading] = useState(false);
  const [isTailing, setTailing] = useState(false);
  const applied = useRef<Filters>({});
  const tableBox = useRef<HTMLDivElement>(null);
  useTableScrollRegion(tableBox, t('admin.crud.tableRegion', { title: routeTitle(route) }));

  const search = useCallback(
    async (next: Filters) => {
      applied.current = next;
      setLoading(true);
      try {
        setRows(
          await call<RequestLogEntry[]>({
            method: 'get',
            url: `${MONITOR_API}/logs/query`,
            query: queryOf(next),
          }),
        );
      } finally {
        setLoading(false);
      }
    },
    [call],
  );
  useEffect(() => {
    void search({});
  }, [search]);
  const newest = useRef(0);
  useEffect(() => {
    newest.current = rows[0]?.id ?? newest.current;
  }, [rows]);
  useEffect(() => {
    if (!isTailing) return undefined;
    const timer = setInterval(() => {
      const query = { ...queryOf({ ...applied.current, range: null }), afterId: newest.current };
      void call<RequestLogEntry[]>({
        method: 'get',
        url: `${MONITOR_API}/logs/query`,
        query,
        isSilent: true,
      }).then((fresh) => {
        if (fresh.length > 0) setRows((latest) => [...fresh, ...latest].slice(0, KEEP));
      });
    }, TAIL_MS);
    return () => clearInterval(timer);
  }, [isTailing, call]);

  const set = (patch: Filters): void => setFilters({ ...filters, ...patch });
  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Flex gap={8} wrap className="monitor-toolbar">
        <DatePicker.RangePicker
          showTime
          value={filters.range ?? null}
          onChange={(range) => set({ range })}
          aria-label={t('monitor.logs.range')}
        />
        <Select
          allowClear
          placeholder={t('monitor.logs.level')}
          aria-label={t('monitor.logs.level')}
          className="monitor-level"
          value={filters.level}
          onChange={(level?: string) => set({ level })}
          options={['info', 'warn', 'error'].map((value) => ({ value, label: value }))}
          style={{ width: 110 }}
        />
        <Input
          placeholder={t('monitor.logs.text')}
          aria-label={t('monitor.logs.text')}
          value={filters.text}
          onChange={(event) => set({ text: event.target.value })}
          style={{ width: 180 }}
          data-testid="log-text"
        />
        <Input
          placeholder={t('monitor.logs.requestId')}
          aria-label={t('monitor.logs.requestId')}
          value={filters.requestId}
          onChange={(event) => set({ requestId: event.target.value })}
          style={{ width: 300 }}
          data-testid="log-request-id"
        />
        <Input
          placeholder={t('monitor.logs.user')}
          aria-label={t('monitor.logs.user')}
          value={filters.username}
          onChange={(event) => set({ username: event.target.value })}
          style={{ width: 120 }}
        />
        <InputNumber
          placeholder={t('monitor.logs.status')}
          aria-label={t('monitor.logs.status')}
          min={100}
          max={599}
          value={filters.status ?? null}
          onChange={(status) => set({ status })}
        />
        <Button type="primary" onClick={() => void search(filters)} data-testid="log-search">
          {t('monitor.common.search')}
        </Button>
        <span>
          <Switch
            checked={isTailing}
            onChange={setTailing}
            aria-label={t('monitor.logs.tail')}
            data-testid="log-tail"
          />{' '}
          {t('monitor.logs.tail')}
        </span>
      </Flex>
      <div ref={tableBox}>
        <Table<RequestLogEntry>
          size="small"
          rowKey="id"
          loading={isLoading}
          dataSource={rows}
          pagination={{ pageSize: 50 }}
          // The columns are wider than the page: the table scrolls inside its card.
          scroll={{ x: 'max-content' }}
          data-testid="log-rows"
          columns={[
            {
              title: t('monitor.logs.at'),
              dataIndex: 'at',
              width: 170,
              render: (at: string) => formatDateTime(at),
            },
            {
              title: t('monitor.logs.level'),
              dataIndex: 'level',
              width: 80,
              render: (level: RequestLogEntry['level']) => <Tag color={LEVEL_COLOR[level]}>{level}</Tag>,
            },
            { title: t('monitor.logs.status'), dataIndex: 'status', width: 80 },
            { title: t('monitor.logs.method'), dataIndex: 'method', width: 80 },
            { title: t('monitor.logs.path'), dataIndex: 'path', width: 300, ellipsis: true },
            { title: t('monitor.logs.duration'), dataIndex: 'durationMs', width: 100 },
            {
              title: t('monitor.logs.message'),
              dataIndex: 'message',
              width: 280,
              ellipsis: { showTitle: true },
              render: (message: string | null) => message ?? '',
            },
            { title: t('monitor.logs.user'), dataIndex: 'username', width: 110 },
            { title: t('monitor.logs.tenant'), dataIndex: 'tenantCode', width: 100 },
            {
              title: t('monitor.logs.requestId'),
              dataIndex: 'requestId',
              width: 300,
              render: (id: string) => <span className="monitor-mono">{id}</span>,
            },
          ]}
        />
      </div>
    </Card>
  );
}
