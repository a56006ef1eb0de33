import { DeleteOutlined, UndoOutlined } from '@ant-design/icons';
import { Button, Popconfirm, Space } from 'antd';
import type { ColumnType } from 'antd/es/table';
import { formatDateTime } from '../../web/format.js';
import type { Translate } from '../i18n.js';

/** The texts of a bin's columns, as i18n keys (an entity's bin and the netdisc's have their own). */
export interface BinColumnKeys {
  deletedAt: string;
  expiresAt: string;
  actions: string;
  restore: string;
  purge: string;
  purgeConfirm: string;
}

/**
 * The columns every recycle bin shows after its own (RecycleBin of an entity, NetdiscRecycleBin):
 * when the row was deleted, when it goes for good, and its restore and purge buttons.
 */
export function binColumns<T extends { deletedAt: string; expiresAt: string }>({
  t,
  keys,
  nameOf,
  keyOf,
  restore,
  purge,
  testIds,
}: {
  t: Translate;
  keys: BinColumnKeys;
  nameOf: (row: T) => string;
  keyOf: (row: T) => string;
  restore: (keys: string[]) => Promise<void>;
  purge: (keys: string[]) => Promise<void>;
  testIds: { restore: string; purge?: string };
}): ColumnType<T>[] {
  return [
    { key: 'deletedAt', title: t(keys.deletedAt), render: (_value, row) => formatDateTime(row.deletedAt) },
    { key: 'expiresAt', title: t(keys.expiresAt), render: (_value, row) => formatDateTime(row.expiresAt) },
    {
      key: 'actions',
      title: t(keys.actions),
      render: (_value, row) => (
        <Space size={4}>
          <Button
            size="small"
            icon={<UndoOutlined />}
            aria-label={`${t(keys.restore)} ${nameOf(row)}`}
            onClick={() => void restore([keyOf(row)])}
            data-testid={testIds.restore}
          >
            {t(keys.restore)}
          </Button>
          <Popconfirm
            title={t(keys.purgeConfirm)}
            okText={t('admin.common.confirm')}
            cancelText={t('admin.common.cancel')}
            onConfirm={() => purge([keyOf(row)])}
          >
            <Button
              size="small"
              danger
              icon={<DeleteOutlined />}
              aria-label={`${t(keys.purge)} ${nameOf(row)}`}
              {...(testIds.purge ? { 'data-testid': testIds.purge } : {})}
            >
              {t(keys.purge)}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];
}
