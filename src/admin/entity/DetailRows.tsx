import { useOne, type BaseRecord } from '@refinedev/core';
import { Table, Tag } from 'antd';
import { useMemo } from 'react';
import type { ListColumn } from '../../engine/index.js';
import { useT } from '../i18n.js';
import { cellText, titleOf } from './labels.js';
import { useLabelLookups } from './lookups.js';

/**
 * The detail rows (x-detail) of one record, read with the record by key, as a read-only table
 * with the same cells as a list (dictionary tags, reference labels, formatted dates and amounts).
 * A generated list's master-detail layouts show it in a row expanded inside the list or in a tab
 * below it; the record's form edits the rows.
 */
export function DetailRows({
  resource,
  id,
  field,
  columns,
}: {
  resource: string;
  id: string | number;
  field: string;
  columns: readonly ListColumn[];
}) {
  const t = useT();
  const { result, query } = useOne<BaseRecord>({ resource, id });
  const rows = useMemo(() => {
    const value = result?.[field];
    return Array.isArray(value) ? value.map((row, index) => ({ ...(row as BaseRecord), $row: index })) : [];
  }, [result, field]);
  const lookups = useLabelLookups(columns, rows);
  return (
    <Table<BaseRecord>
      size="small"
      pagination={false}
      loading={query.isLoading}
      dataSource={rows}
      rowKey={(row) => String(row.$row)}
      columns={columns.map((column) => ({
        key: column.field,
        dataIndex: column.field,
        title: titleOf(t, column.titleKeys, column.fallbackTitle),
        render: (value: unknown) => {
          const text = cellText(column, value, t, lookups.get(column.field));
          return column.dict && text ? <Tag>{text}</Tag> : text;
        },
      }))}
      data-testid={`detail-rows-${field}`}
    />
  );
}
