import type { BaseRecord } from '@refinedev/core';
import { Col, Form, Input, Row } from 'antd';
import { autoFields, computeFields, listColumns, type EntityDef } from '../../engine/index.js';
import { useT } from '../i18n.js';
import { cellText, titleOf } from './labels.js';

/**
 * The values the server sets on a record (x-auto fields: 发布人, 发布时间, …; computed fields),
 * read-only beside the form that edits the rest: labelled, in the grid of the form, as the list
 * shows them. They are not form data, so they are never sent back nor checked by the form's
 * validators. Computed fields are computed as the user types (`values`: the form's data), by the
 * same expressions the server runs; a new record shows only those.
 */
export function AutoFields({
  entity,
  record,
  values,
}: {
  entity: EntityDef;
  record?: BaseRecord | undefined;
  values?: Record<string, unknown> | undefined;
}) {
  const t = useT();
  const fields = autoFields(entity).filter(
    (field) => record !== undefined || entity.fieldsByName.get(field.name)?.computed !== undefined,
  );
  if (fields.length === 0) return null;
  const computed = values
    ? computeFields(entity.schema, { ...record, ...values }, (key, params) => t(key, params)).values
    : {};
  const shown: Record<string, unknown> = { ...record, ...computed };
  const columns = new Map(listColumns(entity).map((column) => [column.field, column]));
  return (
    <Form component={false}>
      <Row gutter={16} className="entity-auto-fields" data-testid="entity-auto-fields">
        {fields.map((field) => {
          const id = `auto_${field.name}`;
          const column = columns.get(field.name);
          const format = entity.fieldsByName.get(field.name)?.schema.format;
          const text = cellText(column ?? { format }, shown[field.name], t);
          return (
            <Col key={field.name} span={field.options.span}>
              <Form.Item label={titleOf(t, field.titleKeys, field.fallbackTitle)} htmlFor={id}>
                <Input id={id} value={text} readOnly variant="filled" data-testid={id} />
              </Form.Item>
            </Col>
          );
        })}
      </Row>
    </Form>
  );
}
