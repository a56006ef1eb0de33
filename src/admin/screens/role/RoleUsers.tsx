import { useList, type BaseRecord } from '@refinedev/core';
import { App, Input, Table } from 'antd';
import type { Key } from 'react';
import { useEffect, useState } from 'react';
import { useT } from '../../i18n.js';
import { useApiGet, useApiWrite } from '../api.js';
import { API, errorText, fieldTitle, SaveBar } from '../common.js';

const PAGE_SIZE = 10;

/**
 * Assigns users to a role (SPEC §6 "assigning users"): the tenant's users, server-paged and
 * searchable by user name, ticked when they hold the role; ticks survive paging. SPEC §5: the
 * selected user list must not be empty.
 */
export function RoleUsers({ roleId, canSave }: { roleId: number; canSave: boolean }) {
  const t = useT();
  const { message } = App.useApp();
  const linked = useApiGet<number[]>(`${API.role}/queryUserIdByRoleId`, { roleId });
  const [selected, setSelected] = useState<Key[] | undefined>(undefined);
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const { send, isSending } = useApiWrite();
  useEffect(() => {
    if (linked.data && selected === undefined) setSelected(linked.data);
  }, [linked.data, selected]);

  const { result, query } = useList<BaseRecord>({
    resource: 'sysuser',
    pagination: { currentPage: page, pageSize: PAGE_SIZE },
    filters: search ? [{ field: 'username', operator: 'contains', value: search }] : [],
    sorters: [{ field: 'username', order: 'asc' }],
  });

  const save = async (): Promise<void> => {
    const userIds = (selected ?? []).map(Number);
    if (userIds.length === 0) {
      void message.warning(t('admin.screens.role.usersRequired'));
      return;
    }
    try {
      await send('post', `${API.role}/authorizeUserToRole`, { roleId, userIds });
      void message.success(t('admin.common.operateSuccess'));
      await linked.refetch();
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  return (
    <div data-testid="role-users">
      <Input.Search
        allowClear
        placeholder={fieldTitle(t, 'sysuser', 'username')}
        onSearch={(value) => {
          setSearch(value.trim());
          setPage(1);
        }}
        className="admin-screen-search"
      />
      <Table<BaseRecord>
        size="small"
        rowKey={(record) => String(record.id)}
        loading={query.isLoading || linked.isLoading}
        dataSource={result.data}
        columns={['username', 'nickname', 'mobile'].map((name) => ({
          key: name,
          dataIndex: name,
          title: fieldTitle(t, 'sysuser', name),
        }))}
        rowSelection={{
          selectedRowKeys: (selected ?? []).map(String),
          preserveSelectedRowKeys: true,
          onChange: (keys) => setSelected(keys),
        }}
        pagination={{
          current: page,
          pageSize: PAGE_SIZE,
          total: result.total,
          showSizeChanger: false,
          onChange: setPage,
        }}
      />
      <SaveBar
        t={t}
        canSave={canSave}
        isSaving={isSending}
        onSave={() => void save()}
        hint={t('admin.screens.selectedCount', { count: selected?.length ?? 0 })}
        testId="role-users-save"
      />
    </div>
  );
}
