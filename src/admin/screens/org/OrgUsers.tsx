import { useList, type BaseRecord } from '@refinedev/core';
import { Table, Tag } from 'antd';
import { useState } from 'react';
import type { RecordScreenProps } from '../../entity/extensions.js';
import { useT } from '../../i18n.js';
import { fieldTitle } from '../common.js';

const PAGE_SIZE = 10;

/** The users of one organisation (SPEC §2.3 "org tree with its users"), from the org list. */
export default function OrgUsers({ record }: RecordScreenProps) {
  const t = useT();
  const [page, setPage] = useState(1);
  const { result, query } = useList<BaseRecord>({
    resource: 'sysuser',
    pagination: { currentPage: page, pageSize: PAGE_SIZE },
    filters: [{ field: 'orgId', operator: 'eq', value: record.id }],
    sorters: [{ field: 'username', order: 'asc' }],
  });
  return (
    <div data-testid="org-users">
      <p>
        <strong>{String(record.orgName ?? '')}</strong>
      </p>
      <Table<BaseRecord>
        size="small"
        rowKey={(row) => String(row.id)}
        loading={query.isLoading}
        dataSource={result.data}
        columns={[
          ...['username', 'nickname', 'mobile'].map((name) => ({
            key: name,
            dataIndex: name,
            title: fieldTitle(t, 'sysuser', name),
          })),
          {
            key: 'status',
            dataIndex: 'status',
            title: fieldTitle(t, 'sysuser', 'status'),
            render: (value: unknown) =>
              value === undefined || value === null ? null : (
                <Tag>{t(`dicts.user_status.${String(value)}`, { defaultValue: String(value) })}</Tag>
              ),
          },
        ]}
        pagination={{
          current: page,
          pageSize: PAGE_SIZE,
          total: result.total,
          showSizeChanger: false,
          onChange: setPage,
        }}
      />
    </div>
  );
}
