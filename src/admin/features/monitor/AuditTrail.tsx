import { Button, Card, DatePicker, Flex, Input, Select, Table, Tag } from 'antd';
import type { Dayjs } from 'dayjs';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { formatDateTime } from '../../../web/format.js';
import { routeTitle, useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import { useApiGet, type ApiQuery } from '../../lib/api.js';
import { ChangeList } from './AuditHistory.js';
import { MONITOR_API, type AuditPage, type AuditEntry } from './monitor-api.js';
import './monitor.css';

const PAGE_SIZE = 20;
const ACTIONS = ['add', 'update', 'delete', 'restore', 'purge', 'signIn'];

interface Filters {
  entity: string;
  recordKey: string;
  username: string;
  action?: string;
  range?: [Dayjs | null, Dayjs | null] | null;
}

function queryOf(filters: Filters, page: number): ApiQuery {
  const [from, to] = filters.range ?? [];
  return {
    currentPage: page,
    pageSize: PAGE_SIZE,
    ...(filters.entity.trim() ? { entity: filters.entity.trim() } : {}),
    ...(filters.recordKey.trim() ? { recordKey: filters.recordKey.trim() } : {}),
    ...(filters.username.trim() ? { username: filters.username.trim() } : {}),
    ...(filters.action ? { action: filters.action } : {}),
    ...(from ? { from: from.toISOString() } : {}),
    ...(to ? { to: to.toISOString() } : {}),
  };
}

/**
 * Audit trail (sys_audit_log): who changed which record when, filtered by entity, record, user,
 * action and time; each row opens its fields before and after. A list's record action "history"
 * opens the same changes for one record (RecordHistory); ?entity=&recordKey= preselects one here.
 */
export default function AuditTrail({ route }: { route: AppRoute }) {
  const t = useT();
  const [search] = useSearchParams();
  const initial: Filters = {
    entity: search.get('entity') ?? '',
    recordKey: search.get('recordKey') ?? '',
    username: '',
  };
  const [filters, setFilters] = useState<Filters>(initial);
  const [applied, setApplied] = useState<Filters>(initial);
  const [page, setPage] = useState(1);
  const audit = useApiGet<AuditPage>(`${MONITOR_API}/audit/query`, queryOf(applied, page));
  const set = (patch: Partial<Filters>): void => setFilters({ ...filters, ...patch });
  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Flex gap={8} wrap className="monitor-toolbar">
        <Input
          placeholder={t('monitor.audit.entity')}
          aria-label={t('monitor.audit.entity')}
          value={filters.entity}
          onChange={(event) => set({ entity: event.target.value })}
          style={{ width: 160 }}
        />
        <Input
          placeholder={t('monitor.audit.record')}
          aria-label={t('monitor.audit.record')}
          value={filters.recordKey}
          onChange={(event) => set({ recordKey: event.target.value })}
          style={{ width: 120 }}
        />
        <Input
          placeholder={t('monitor.audit.user')}
          aria-label={t('monitor.audit.user')}
          value={filters.username}
          onChange={(event) => set({ username: event.target.value })}
          style={{ width: 140 }}
        />
        <Select
          allowClear
          placeholder={t('monitor.audit.action')}
          aria-label={t('monitor.audit.action')}
          value={filters.action}
          onChange={(action?: string) => set({ action })}
          options={ACTIONS.map((value) => ({ value, label: t(`monitor.audit.actions.${value}`) }))}
          style={{ width: 130 }}
        />
        <DatePicker.RangePicker showTime value={filters.range ?? null} onChange={(range) => set({ range })} />
        <Button
          type="primary"
          onClick={() => {
            setApplied(filters);
            setPage(1);
          }}
          data-testid="audit-search"
        >
          {t('monitor.common.search')}
        </Button>
      </Flex>
      <Table<AuditEntry>
        size="small"
        rowKey="id"
        loading={audit.isLoading}
        dataSource={audit.data?.records ?? []}
        data-testid="audit-rows"
        expandable={{
          expandedRowRender: (row) => <ChangeList changes={row.changes} />,
          rowExpandable: (row) => row.changes.length > 0,
        }}
        pagination={{
          current: page,
          pageSize: PAGE_SIZE,
          total: audit.data?.total ?? 0,
          onChange: setPage,
          showSizeChanger: false,
        }}
        columns={[
          {
            title: t('monitor.audit.at'),
            dataIndex: 'at',
            width: 170,
            render: (at: string) => formatDateTime(at),
          },
          { title: t('monitor.audit.entity'), dataIndex: 'entity', width: 140 },
          { title: t('monitor.audit.record'), dataIndex: 'recordKey', width: 100 },
          {
            title: t('monitor.audit.action'),
            dataIndex: 'action',
            width: 100,
            render: (action: string) => (
              <Tag>{t(`monitor.audit.actions.${action}`, { defaultValue: action })}</Tag>
            ),
          },
          { title: t('monitor.audit.user'), dataIndex: 'username', width: 120 },
          {
            title: t('monitor.audit.changed'),
            key: 'changed',
            render: (_, row) => row.changes.map((change) => change.field).join(', '),
          },
        ]}
      />
    </Card>
  );
}
