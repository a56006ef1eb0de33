import { useTable } from '@refinedev/antd';
import type { BaseRecord } from '@refinedev/core';
import { Card, Table, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useEffect, useState } from 'react';
import { formatDateTime } from '../../web/format.js';
import { useT } from '../i18n.js';
import { resourceApi, type ResourceField } from '../providers/resources.js';

const MAX_COLUMNS = 8;

function cell(
  field: ResourceField,
  value: unknown,
  t: (key: string, options?: Record<string, unknown>) => string,
): string {
  if (value === null || value === undefined) return '';
  if (field.dict) {
    const values = Array.isArray(value) ? value : [value];
    return values
      .map((item) => t(`dicts.${field.dict}.${String(item)}`, { defaultValue: String(item) }))
      .join(', ');
  }
  if (field.format === 'date-time') return formatDateTime(String(value));
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * The interim list screen of a generated entity (the full screens are the next issue): a
 * Refine-powered, server-paged and sortable table of GET <base>/query.
 */
export default function EntityTable({ resource, title }: { resource: string; title: string }) {
  const t = useT();
  const [fields, setFields] = useState<ResourceField[] | undefined>(undefined);
  const [key, setKey] = useState('id');
  useEffect(() => {
    let isCurrent = true;
    void resourceApi(resource).then((api) => {
      if (!isCurrent) return;
      setFields(api.fields);
      setKey(api.deleteKey);
    });
    return () => {
      isCurrent = false;
    };
  }, [resource]);

  const { tableProps } = useTable<BaseRecord>({
    resource,
    syncWithLocation: false,
    pagination: { pageSize: 10 },
    queryOptions: { enabled: fields !== undefined },
  });

  const shown = (fields ?? []).filter((field) => field.name !== key || key !== 'id').slice(0, MAX_COLUMNS);
  const columns: ColumnsType<BaseRecord> = shown.map((field) => ({
    key: field.name,
    dataIndex: field.name,
    title: t(`entities.${resource}.fields.${field.name}`, {
      defaultValue: t(`entities._common.fields.${field.name}`, { defaultValue: field.title }),
    }),
    width: field.width,
    ellipsis: true,
    sorter: true,
    render: (value: unknown) => {
      const text = cell(field, value, t);
      return field.dict && text ? <Tag>{text}</Tag> : text;
    },
  }));

  return (
    <Card title={title} className="admin-page" data-testid="page-title">
      <Table<BaseRecord>
        {...tableProps}
        rowKey={(record) => String(record[key] ?? record.id)}
        columns={columns}
        scroll={{ x: 'max-content' }}
        size="middle"
        data-testid="entity-table"
      />
    </Card>
  );
}
