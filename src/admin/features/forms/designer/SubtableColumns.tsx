import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Input, Select, Switch } from 'antd';
import { memo, useEffect, useState } from 'react';
import type { FieldSchema } from '../../../../engine/types.js';
import { useLanguage, type Translate } from '../../../i18n.js';
import type { DesignFieldSchema } from './model.js';
import {
  addColumn,
  columnProblem,
  COLUMN_TYPES,
  removeColumn,
  renameColumn,
  subtableColumns,
  typedColumn,
  updateColumn,
  type ColumnType,
  type SubtableColumn,
} from './subtable.js';

type Patch = (key: string, change: (schema: DesignFieldSchema) => DesignFieldSchema) => void;

/** A column name input that keeps what is typed until it is a valid, free name. */
function ColumnName({
  schema,
  column,
  index,
  patch,
  t,
}: {
  schema: DesignFieldSchema;
  column: SubtableColumn;
  index: number;
  patch: Patch;
  t: Translate;
}) {
  const [draft, setDraft] = useState(column.name);
  useEffect(() => setDraft(column.name), [column.name]);
  const problem = draft === column.name ? undefined : columnProblem(schema, column.name, draft);
  return (
    <Input
      size="small"
      value={draft}
      status={problem ? 'error' : undefined}
      title={problem ? t(`formDesigner.nameProblem.${problem}`) : undefined}
      aria-label={`${t('formDesigner.subtable.name')} ${index + 1}`}
      data-testid={`subtable-name-${index}`}
      onChange={(event) => {
        const name = event.target.value;
        setDraft(name);
        if (!columnProblem(schema, column.name, name))
          patch(`column.name.${index}`, (current) => renameColumn(current, column.name, name));
      }}
    />
  );
}

/**
 * The columns of a sub-table field in the property panel: name, title in the user's language,
 * type and required, in order; columns are added at the end and removed (one always stays).
 */
export const SubtableColumns = memo(function SubtableColumns({
  schema,
  patch,
  t,
}: {
  schema: DesignFieldSchema;
  patch: Patch;
  t: Translate;
}) {
  const language = useLanguage();
  const columns = subtableColumns(schema);
  const titleOf = (column: FieldSchema): string =>
    language === 'en' ? (column.title ?? '') : (column['x-ui']?.titles?.[language] ?? '');
  const retitled = (column: FieldSchema, text: string): FieldSchema => {
    if (language === 'en') return { ...column, title: text };
    const ui = column['x-ui'] ?? {};
    return { ...column, 'x-ui': { ...ui, titles: { ...ui.titles, [language]: text } } };
  };
  return (
    <fieldset className="formdesign-subtable" data-testid="subtable-columns">
      <legend>{t('formDesigner.subtable.columns')}</legend>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('formDesigner.subtable.name')}</th>
            <th scope="col">{t('formDesigner.subtable.title')}</th>
            <th scope="col">{t('formDesigner.subtable.type')}</th>
            <th scope="col">{t('formDesigner.subtable.required')}</th>
            <th scope="col" aria-label={t('formDesigner.delete')} />
          </tr>
        </thead>
        <tbody>
          {columns.map((column, index) => (
            <tr key={index}>
              <td>
                <ColumnName schema={schema} column={column} index={index} patch={patch} t={t} />
              </td>
              <td>
                <Input
                  size="small"
                  value={titleOf(column.schema)}
                  aria-label={`${t('formDesigner.subtable.title')} ${index + 1}`}
                  data-testid={`subtable-title-${index}`}
                  onChange={(event) =>
                    patch(`column.title.${index}`, (current) =>
                      updateColumn(current, column.name, {
                        schema: retitled(column.schema, event.target.value),
                      }),
                    )
                  }
                />
              </td>
              <td>
                <Select
                  size="small"
                  value={column.type}
                  aria-label={`${t('formDesigner.subtable.type')} ${index + 1}`}
                  data-testid={`subtable-type-${index}`}
                  popupMatchSelectWidth={false}
                  options={COLUMN_TYPES.map((type) => ({
                    value: type,
                    label: t(`formDesigner.subtable.types.${type}`),
                  }))}
                  onChange={(type: ColumnType) =>
                    patch(`column.type.${index}`, (current) =>
                      updateColumn(current, column.name, { schema: typedColumn(column.schema, type) }),
                    )
                  }
                />
              </td>
              <td>
                <Switch
                  size="small"
                  checked={column.isRequired}
                  aria-label={`${t('formDesigner.subtable.required')} ${index + 1}`}
                  onChange={(checked) =>
                    patch(`column.required.${index}`, (current) =>
                      updateColumn(current, column.name, { isRequired: checked }),
                    )
                  }
                />
              </td>
              <td>
                <Button
                  size="small"
                  type="text"
                  danger
                  icon={<DeleteOutlined />}
                  disabled={columns.length <= 1}
                  aria-label={t('formDesigner.subtable.remove', { column: column.name })}
                  onClick={() => patch('column.remove', (current) => removeColumn(current, column.name))}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Button
        size="small"
        icon={<PlusOutlined />}
        data-testid="subtable-add"
        onClick={() => patch('column.add', (current) => addColumn(current))}
      >
        {t('formDesigner.subtable.add')}
      </Button>
    </fieldset>
  );
});
