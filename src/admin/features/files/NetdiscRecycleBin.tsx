import { DeleteOutlined, FileOutlined, FolderOutlined, UndoOutlined } from '@ant-design/icons';
import { App, Button, Flex, Space, Table, Typography } from 'antd';
import { useState } from 'react';
import type { RecycledItem } from '../../../engine/api-types.js';
import { useT } from '../../i18n.js';
import { useApiGet } from '../../lib/api.js';
import { useSubmit } from '../../lib/screen-parts.js';
import { binColumns } from '../../entity/recycle-columns.js';
import { formatBytes, itemKey, itemOfKey, NETDISC_API, type NetdiscWrites } from './netdisc-api.js';

/**
 * 回收站: what the caller deleted, kept until its purge date (the tenant's netdiscRecycleDays);
 * restore (into the folder it came from, or the root when that is gone) or delete for good.
 */
export function NetdiscRecycleBin({
  writes,
  onChanged,
}: {
  writes: NetdiscWrites;
  onChanged: () => unknown;
}) {
  const t = useT();
  const { modal, message } = App.useApp();
  const submit = useSubmit();
  const bin = useApiGet<RecycledItem[]>(`${NETDISC_API}/recycleBin`);
  const [checked, setChecked] = useState<string[]>([]);
  const refs = (keys: string[]) => keys.flatMap((key) => itemOfKey(key) ?? []);
  const after = async (): Promise<void> => {
    setChecked([]);
    await Promise.all([bin.refetch(), onChanged()]);
  };
  const restore = (keys: string[]): Promise<void> =>
    submit(() => writes.restore(refs(keys)), { success: t('netdiscUi.restored'), after });
  const purge = (keys: string[]): Promise<void> =>
    submit(() => writes.purge(refs(keys)), { success: t('netdiscUi.purged'), after });
  const withChecked = (action: (keys: string[]) => void): void => {
    if (checked.length === 0) void message.warning(t('netdiscUi.checkFirst'));
    else action(checked);
  };

  return (
    <div data-testid="netdisc-recycle-bin">
      <Flex gap={8} wrap className="netdisc-toolbar">
        <Button icon={<UndoOutlined />} onClick={() => withChecked((keys) => void restore(keys))}>
          {t('netdiscUi.restore')}
        </Button>
        <Button
          danger
          icon={<DeleteOutlined />}
          onClick={() =>
            withChecked((keys) =>
              modal.confirm({
                title: t('netdiscUi.purgeConfirm'),
                okText: t('admin.common.confirm'),
                cancelText: t('admin.common.cancel'),
                onOk: () => purge(keys),
              }),
            )
          }
        >
          {t('netdiscUi.purge')}
        </Button>
        <Typography.Text type="secondary">{t('netdiscUi.recycleHint')}</Typography.Text>
      </Flex>
      <Table<RecycledItem>
        size="middle"
        rowKey={(row) => itemKey(row)}
        loading={bin.isLoading}
        dataSource={bin.data ?? []}
        pagination={false}
        scroll={{ x: 'max-content' }}
        rowSelection={{
          selectedRowKeys: checked,
          onChange: (keys) => setChecked(keys.map(String)),
          getCheckboxProps: (row) => ({ title: row.name }),
        }}
        columns={[
          {
            key: 'name',
            title: t('netdiscUi.name'),
            render: (_value, row) => (
              <Space>
                {row.type === 'folder' ? <FolderOutlined aria-hidden /> : <FileOutlined aria-hidden />}
                <span data-netdisc-bin={row.name}>{row.name}</span>
              </Space>
            ),
          },
          { key: 'size', title: t('netdiscUi.size'), render: (_value, row) => formatBytes(row.sizeBytes) },
          ...binColumns<RecycledItem>({
            t,
            keys: {
              deletedAt: 'netdiscUi.deletedAt',
              expiresAt: 'netdiscUi.expiresAt',
              actions: 'netdiscUi.actions',
              restore: 'netdiscUi.restore',
              purge: 'netdiscUi.purge',
              purgeConfirm: 'netdiscUi.purgeConfirm',
            },
            nameOf: (row) => row.name,
            keyOf: itemKey,
            restore,
            purge,
            testIds: { restore: 'netdisc-restore' },
          }),
        ]}
      />
    </div>
  );
}
