import { DeleteOutlined, UndoOutlined } from '@ant-design/icons';
import { App, Button, Flex, Table, Typography } from 'antd';
import { useState } from 'react';
import { fieldTitleKeys, type EntityDef } from '../../engine/index.js';
import { useT } from '../i18n.js';
import { useApiGet, useApiWrite, withQuery } from '../lib/api.js';
import { useSubmit } from '../lib/screen-parts.js';
import { titleOf } from './labels.js';
import { binColumns } from './recycle-columns.js';

/** A record of the bin as <api>/recycle answers it. */
type BinnedRecord = Record<string, unknown> & {
  deletedAt: string;
  deletedBy: string | null;
  expiresAt: string;
};
interface BinPage {
  records: BinnedRecord[];
  total: number;
  recycleDays: number;
}

const PAGE_SIZE = 20;

/**
 * 回收站 of an entity with x-entity.softDelete: the records deleted, newest first, kept until
 * their purge date (the tenant's recycleBinDays param); restore them or delete them for good.
 */
export default function RecycleBin({ entity, onChanged }: { entity: EntityDef; onChanged: () => void }) {
  const t = useT();
  const { modal, message } = App.useApp();
  const submit = useSubmit();
  const { send } = useApiWrite();
  const [page, setPage] = useState(1);
  const base = `/api/${entity.api}/recycle`;
  const bin = useApiGet<BinPage>(base, { currentPage: page, pageSize: PAGE_SIZE });
  const [checked, setChecked] = useState<string[]>([]);
  const keyName = entity.key.name;
  const label = entity.fieldsByName.get(entity.label);
  const keysOf = (keys: string[]): (string | number)[] =>
    entity.key.type === 'integer' ? keys.map(Number) : keys;
  const after = async (): Promise<void> => {
    setChecked([]);
    await bin.refetch();
    onChanged();
  };
  const restore = (keys: string[]): Promise<void> =>
    submit(() => send('post', withQuery(`${base}/restore`, { [keyName]: keysOf(keys) })), {
      success: t('admin.recycle.restored'),
      after,
    });
  const purge = (keys: string[]): Promise<void> =>
    submit(() => send('post', withQuery(`${base}/purge`, { [keyName]: keysOf(keys) })), {
      success: t('admin.recycle.purged'),
      after,
    });
  const withChecked = (action: (keys: string[]) => void): void => {
    if (checked.length === 0) void message.warning(t('admin.recycle.checkFirst'));
    else action(checked);
  };
  const nameOf = (row: BinnedRecord): string => String(row[entity.label] ?? row[keyName] ?? '');

  return (
    <div data-testid="recycle-bin">
      <Flex gap={8} wrap align="center" className="entity-toolbar">
        <Button
          icon={<UndoOutlined />}
          onClick={() => withChecked((keys) => void restore(keys))}
          data-testid="recycle-restore-checked"
        >
          {t('admin.recycle.restore')}
        </Button>
        <Button
          danger
          icon={<DeleteOutlined />}
          onClick={() =>
            withChecked((keys) =>
              modal.confirm({
                title: t('admin.recycle.purgeConfirm'),
                okText: t('admin.common.confirm'),
                cancelText: t('admin.common.cancel'),
                onOk: () => purge(keys),
              }),
            )
          }
        >
          {t('admin.recycle.purge')}
        </Button>
        {bin.data ? (
          <Typography.Text type="secondary">
            {t('admin.recycle.hint', { days: bin.data.recycleDays })}
          </Typography.Text>
        ) : null}
      </Flex>
      <Table<BinnedRecord>
        size="middle"
        rowKey={(row) => String(row[keyName])}
        loading={bin.isLoading}
        dataSource={bin.data?.records ?? []}
        locale={{ emptyText: t('admin.recycle.empty') }}
        pagination={{
          current: page,
          pageSize: PAGE_SIZE,
          total: bin.data?.total ?? 0,
          onChange: setPage,
          hideOnSinglePage: true,
        }}
        scroll={{ x: 'max-content' }}
        rowSelection={{
          selectedRowKeys: checked,
          onChange: (keys) => setChecked(keys.map(String)),
          getCheckboxProps: (row) => ({ title: nameOf(row) }),
        }}
        columns={[
          {
            key: 'label',
            title: label
              ? titleOf(t, fieldTitleKeys(entity, label), label.schema.title ?? label.name)
              : keyName,
            render: (_value, row) => <span data-recycled={nameOf(row)}>{nameOf(row)}</span>,
          },
          {
            key: 'deletedBy',
            title: t('admin.recycle.deletedBy'),
            render: (_value, row) => row.deletedBy ?? '—',
          },
          ...binColumns<BinnedRecord>({
            t,
            keys: {
              deletedAt: 'admin.recycle.deletedAt',
              expiresAt: 'admin.recycle.expiresAt',
              actions: 'admin.recycle.actions',
              restore: 'admin.recycle.restore',
              purge: 'admin.recycle.purge',
              purgeConfirm: 'admin.recycle.purgeConfirm',
            },
            nameOf,
            keyOf: (row) => String(row[keyName]),
            restore,
            purge,
            testIds: { restore: 'recycle-restore', purge: 'recycle-purge' },
          }),
        ]}
      />
    </div>
  );
}
