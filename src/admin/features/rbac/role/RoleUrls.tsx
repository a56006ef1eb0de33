import { useList, type BaseRecord } from '@refinedev/core';
import { Input, Table } from 'antd';
import { useMemo, useState, type Key } from 'react';
import { useT } from '../../../i18n.js';
import { useApiGet, useApiWrite } from '../../../lib/api.js';
import { API, fieldTitle, SavePanel, useDraft, useSubmit } from '../../../lib/screen-parts.js';

/**
 * The URL permissions of a role (docs/product.md §6): every URL pattern of the tenant, ticked where the role
 * holds it; without one, the role's calls to those paths are refused (403).
 */
export function RoleUrls({ roleId, canSave }: { roleId: number; canSave: boolean }) {
  const t = useT();
  const granted = useApiGet<number[]>(`${API.url}/queryUrlIdByRoleId`, { roleId });
  const { result, query } = useList<BaseRecord>({
    resource: 'sysurl',
    pagination: { mode: 'off' },
    sorters: [{ field: 'url', order: 'asc' }],
  });
  const grantedKeys = useMemo(() => granted.data?.map((id): Key => String(id)), [granted.data]);
  const [selected, setSelected] = useDraft(grantedKeys);
  const [search, setSearch] = useState('');
  const { send, isSending } = useApiWrite();
  const submit = useSubmit();
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
    const urlIds = (selected ?? []).map(Number);
    await submit(() => send('post', `${API.url}/authorizeUrlToRole`, { roleId, urlIds }));
  };

  return (
    <SavePanel
      testId="role-urls"
      top={
        <Input.Search
          allowClear
          placeholder={fieldTitle(t, 'sysurl', 'url')}
          onChange={(event) => setSearch(event.target.value.trim())}
          className="admin-screen-search"
        />
      }
      canSave={canSave}
      isSaving={isSending}
      onSave={() => void save()}
      hint={t('admin.screens.selectedCount', { count: selected?.length ?? 0 })}
    >
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
    </SavePanel>
  );
}
