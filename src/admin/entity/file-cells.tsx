import type { BaseRecord } from '@refinedev/core';
import { Image, Space } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import type { ListColumn } from '../../engine/index.js';
import { useFileLinks } from './FileWidgets.js';
import type { FileLink } from './file-api.js';

/**
 * File columns of a generated list (ListColumn.file): pictures as thumbnails, attachments by
 * name, read for the whole page in one request.
 */

const idsIn = (value: unknown): number[] =>
  (Array.isArray(value) ? (value as unknown[]) : [value]).filter(
    (item): item is number => typeof item === 'number',
  );

/** The names and addresses of the files the page's file columns hold. */
export function usePageFileLinks(
  columns: readonly ListColumn[],
  records: readonly BaseRecord[],
): ReadonlyMap<number, FileLink> {
  const fileColumns = columns.filter((column) => column.file);
  const ids =
    fileColumns.length === 0
      ? []
      : records.flatMap((record) => fileColumns.flatMap((column) => idsIn(record[column.field])));
  return useFileLinks(ids);
}

function FileCell({
  ids,
  links,
  isPicture,
}: {
  ids: number[];
  links: ReadonlyMap<number, FileLink>;
  isPicture: boolean;
}) {
  return (
    <Space size={4} wrap>
      {ids.map((id) => {
        const link = links.get(id);
        if (isPicture && link?.pictureUrl)
          return <Image key={id} src={link.pictureUrl} width={32} height={32} alt={link.originalFilename} />;
        return <span key={id}>{link?.originalFilename ?? `#${id}`}</span>;
      })}
    </Space>
  );
}

/** The list's columns with file columns shown by thumbnail or name. */
export function withFileCells(
  tableColumns: ColumnsType<BaseRecord>,
  columns: readonly ListColumn[],
  links: ReadonlyMap<number, FileLink>,
): ColumnsType<BaseRecord> {
  const files = new Map(columns.filter((column) => column.file).map((column) => [column.field, column.file]));
  if (files.size === 0) return tableColumns;
  return tableColumns.map((tableColumn) => {
    const use = typeof tableColumn.key === 'string' ? files.get(tableColumn.key) : undefined;
    return use
      ? {
          ...tableColumn,
          render: (value: unknown) => (
            <FileCell ids={idsIn(value)} links={links} isPicture={use === 'image'} />
          ),
        }
      : tableColumn;
  });
}
