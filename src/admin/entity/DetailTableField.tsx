import { ArrowDownOutlined, ArrowUpOutlined, DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import type { ErrorSchema, FieldProps, RJSFSchema, WidgetProps } from '@rjsf/utils';
import { Button, Space } from 'antd';
import { useRef, type ComponentType } from 'react';
import type { DetailColumn, FormFieldOptions } from '../../engine/index.js';
import { useT } from '../i18n.js';
import { titleOf } from './labels.js';
import { adminModules } from '../lib/admin-modules.js';

type Row = Record<string, unknown>;

/**
 * A detail (x-detail) field edited inline: one table row per detail row, one cell per column with
 * the widget its type asks for (dictionary and reference selects included), rows added, removed
 * and moved up or down. Each cell shows its own errors, the form's (the same row schema as the
 * server's) and the server's (/lines/2/qty).
 */
export function DetailTableField(props: FieldProps) {
  const t = useT();
  const options = (props.uiSchema?.['ui:options'] ?? {}) as unknown as FormFieldOptions;
  const columns: DetailColumn[] = options.columns ?? [];
  const rows: Row[] = Array.isArray(props.formData) ? (props.formData as Row[]) : [];
  const items = (props.schema.items ?? {}) as RJSFSchema;
  const columnSchemas = (items.properties ?? {}) as Record<string, RJSFSchema>;
  const id = props.fieldPathId.$id;
  // Stable keys for React: a row keeps its inputs (and their typed text) when rows move.
  const keys = useRef<number[]>([]);
  const nextKey = useRef(0);
  while (keys.current.length < rows.length) keys.current.push((nextKey.current += 1));
  keys.current.length = rows.length;
  const errors = (props.errorSchema ?? {}) as Record<string, ErrorSchema | undefined>;
  const fieldErrors = (errors.__errors as unknown as string[] | undefined) ?? [];

  const change = (next: Row[], moved?: (keys: number[]) => number[]): void => {
    if (moved) keys.current = moved(keys.current);
    props.onChange(next, props.fieldPathId.path, undefined, id);
  };
  const setCell = (index: number, name: string, value: unknown): void => {
    const next = rows.map((row, at) => {
      if (at !== index) return row;
      const copy: Row = { ...row };
      if (value === undefined || value === '') delete copy[name];
      else copy[name] = value;
      return copy;
    });
    change(next);
  };
  const move = (index: number, by: -1 | 1): void => {
    const target = index + by;
    if (target < 0 || target >= rows.length) return;
    const swap = <T,>(list: T[]): T[] => {
      const copy = [...list];
      const [item] = copy.splice(index, 1);
      if (item !== undefined) copy.splice(target, 0, item);
      return copy;
    };
    change(swap(rows), swap);
  };
  const remove = (index: number): void =>
    change(
      rows.filter((_, at) => at !== index),
      (list) => list.filter((_, at) => at !== index),
    );
  const add = (): void => change([...rows, {}]);

  const titles = columns.map((column) => titleOf(t, column.titleKeys, column.fallbackTitle));
  const isDisabled = props.disabled === true || props.readonly === true;
  // shown, not edited (an approver's view of a request): no row actions to grey out
  const isShownOnly = props.readonly === true;
  return (
    <div className="detail-table" id={id}>
      <div className="detail-table-title" id={`${id}__title`}>
        {props.required ? <span className="detail-table-required">*</span> : null}
        {String(props.schema.title ?? props.name)}
      </div>
      <table className="detail-table-grid" aria-labelledby={`${id}__title`}>
        <thead>
          <tr>
            <th scope="col" className="detail-table-seq">
              {t('detailTable.rowNumber')}
            </th>
            {columns.map((column, index) => (
              <th scope="col" key={column.name}>
                {column.isRequired ? <span className="detail-table-required">*</span> : null}
                {titles[index]}
              </th>
            ))}
            {isShownOnly ? null : (
              <th scope="col" className="detail-table-actions">
                {t('detailTable.actions')}
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length + (isShownOnly ? 1 : 2)} className="detail-table-empty">
                {t('detailTable.empty')}
              </td>
            </tr>
          ) : null}
          {rows.map((row, index) => {
            const rowErrors = (errors[String(index)] ?? {}) as Record<
              string,
              { __errors?: string[] } | undefined
            >;
            const n = index + 1;
            return (
              <tr key={keys.current[index]} data-row={index}>
                <td className="detail-table-seq">{n}</td>
                {columns.map((column, at) => {
                  const Widget = adminModules.widgets()[column.widget] as
                    ComponentType<WidgetProps> | undefined;
                  const cellId = `${id}_${index}_${column.name}`;
                  const cellErrors = rowErrors[column.name]?.__errors ?? [];
                  const label = t('detailTable.cell', { n, column: titles[at] ?? column.name });
                  return (
                    <td key={column.name} className={cellErrors.length > 0 ? 'has-error' : undefined}>
                      <label htmlFor={cellId} className="detail-table-label">
                        {label}
                      </label>
                      {Widget ? (
                        <Widget
                          {...({} as WidgetProps)}
                          id={cellId}
                          name={cellId}
                          label={titles[at] ?? column.name}
                          hideLabel
                          schema={columnSchemas[column.name] ?? {}}
                          uiSchema={{}}
                          options={column.options as unknown as WidgetProps['options']}
                          value={row[column.name]}
                          required={column.isRequired}
                          disabled={isDisabled}
                          readonly={isDisabled}
                          autofocus={false}
                          rawErrors={cellErrors}
                          registry={props.registry}
                          formContext={props.formContext}
                          onChange={(value: unknown) => setCell(index, column.name, value)}
                          onBlur={() => props.onBlur(id, rows)}
                          onFocus={() => props.onFocus(id, rows)}
                        />
                      ) : null}
                      {cellErrors.map((message) => (
                        <div key={message} className="detail-table-error" role="alert">
                          {message}
                        </div>
                      ))}
                    </td>
                  );
                })}
                {isShownOnly ? null : (
                  <td className="detail-table-actions">
                    <Space size={2}>
                      <Button
                        size="small"
                        type="text"
                        icon={<ArrowUpOutlined />}
                        aria-label={t('detailTable.moveUp', { n })}
                        disabled={isDisabled || index === 0}
                        onClick={() => move(index, -1)}
                      />
                      <Button
                        size="small"
                        type="text"
                        icon={<ArrowDownOutlined />}
                        aria-label={t('detailTable.moveDown', { n })}
                        disabled={isDisabled || index === rows.length - 1}
                        onClick={() => move(index, 1)}
                      />
                      <Button
                        size="small"
                        type="text"
                        danger
                        icon={<DeleteOutlined />}
                        aria-label={t('detailTable.remove', { n })}
                        disabled={isDisabled}
                        onClick={() => remove(index)}
                      />
                    </Space>
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      {fieldErrors.map((message) => (
        <div key={message} className="detail-table-error" role="alert">
          {message}
        </div>
      ))}
      {isShownOnly ? null : (
        <Button
          className="detail-table-add"
          type="dashed"
          icon={<PlusOutlined />}
          disabled={isDisabled}
          onClick={add}
          block
        >
          {t('detailTable.addRow')}
        </Button>
      )}
    </div>
  );
}
