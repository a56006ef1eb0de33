import { useList, type BaseRecord } from '@refinedev/core';
import { App, Input, Table } from 'antd';
import { useEffect, useMemo, useState, type Key } from 'react';
import { useT } from '../../i18n.js';
import { useApiGet, useApiWrite } from '../api.js';
import { API, errorText, fieldTitle, SaveBar } from '../common.js';

/**
 * The URL permissions of a role (SPEC §6): every URL pattern of the tenant, ticked where the role
 * holds it; without one, the role's calls to those paths are refused (403).
 */
export function RoleUrls({ roleId, canSave }: { roleId: number; canSave: boolean }) {
  const t = useT();
  const { message } = App.useApp();
  const granted = useApiGet<number[]>(`${API.url}/queryUrlIdByRoleId`, { roleId });
  const { result, query } = useList<BaseRecord>({
    resource: 'sysurl',
    pagination: { mode: 'off' },
    sorters: [{ field: 'url', order: 'asc' }],
  });
  const [selected, setSelected] = useState<Key[] | undefined>(undefined);
  const [search, setSearch] = useState('');
  const { send, isSending } = useApiWrite();
  useEffect(() => {
    if (granted.data && selected === undefined) setSelected(granted.data.map(String));
  }, [granted.data, selected]);
  const rows = useMemo(() => {
    const text = search.toLowerCase();
    return result.data.filter(
      (row) =>
        !text ||
        String(row.url ?? '')
          .toLowerCase()
          .includes(text) ||
        String(row.description ?? '')
          .toLowerCase()
          .includes(text),
    );
  }, [result.data, search]);

  const save = async (): Promise<void> => {
    try {
      await send('post', `${API.url}/authorizeUrlToRole`, {
        roleId,
        urlIds: (selected ?? []).map(Number),
      });
      void message.success(t('admin.common.operateSuccess'));
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  return (
    <div data-testid="role-urls">
      <Input.Search
        allowClear
        placeholder={fieldTitle(t, 'sysurl', 'url')}
        onChange={(event) => setSearch(event.target.value.trim())}
        className="admin-screen-search"
      />
      <Table<BaseRecord>
        size="small"
        rowKey={(row) => String(row.id)}
        loading={query.isLoading || granted.isLoading}
        dataSource={rows}
        pagination={{ pageSize: 10, showSizeChanger: false }}
        columns={['url', 'description'].map((name) => ({
          key: name,
          dataIndex: name,
          title: fieldTitle(t, 'sysurl', name),
          ellipsis: true,
        }))}
        rowSelection={{
          selectedRowKeys: selected ?? [],
          preserveSelectedRowKeys: true,
          onChange: (keys) => setSelected(keys),
        }}
      />
      <SaveBar
        t={t}
        canSave={canSave}
        isSaving={isSending}
        onSave={() => void save()}
        hint={t('admin.screens.selectedCount', { count: selected?.length ?? 0 })}
        testId="role-urls-save"
      />
    </div>
  );
}
