import { Alert, Checkbox, Modal, Select, Space, Table, Typography } from 'antd';
import type { AdoptAnswer, AdoptChange } from '../../../engine/api-types.js';
import { useT } from '../../i18n.js';
import { CodeView } from './CodeView.js';

/** What the admin chose in the adoption preview (the body of generator/reverse/adopt). */
export interface AdoptChoices {
  details: string[];
  secrets: string[];
  addColumns: string[];
  indexes: string[];
  /** false: the table's soft-delete column is not used (null in the body). */
  isSoftDelete: boolean;
  /** false: the table's tenant column is not used; otherwise the value rows are fixed to. */
  tenantValue: string | number | boolean | null;
}

/** The choices a preview answered with (each proposal's isChosen). */
export function choicesOf(answer: AdoptAnswer): AdoptChoices {
  const { preview } = answer;
  return {
    details: preview.detailCandidates.filter((item) => item.isChosen).map((item) => item.table),
    secrets: preview.secrets.filter((item) => item.isChosen).map((item) => item.column),
    addColumns: preview.columns.filter((item) => item.isChosen).map((item) => item.name),
    indexes: preview.indexes.filter((item) => item.isChosen).map((item) => item.name),
    isSoftDelete: preview.softDelete !== undefined,
    tenantValue: preview.tenantColumn ? (preview.tenantColumn.value ?? null) : null,
  };
}

/** The request body of the choices (confirm added by the caller). */
export function adoptBody(answer: AdoptAnswer, choices: AdoptChoices): Record<string, unknown> {
  const { preview } = answer;
  return {
    details: choices.details,
    secrets: choices.secrets,
    addColumns: choices.addColumns,
    indexes: choices.indexes,
    bookkeeping: preview.bookkeeping,
    softDelete: choices.isSoftDelete ? (preview.softDelete ?? null) : null,
    tenantColumn:
      preview.tenantColumn && choices.tenantValue !== null
        ? { column: preview.tenantColumn.column, value: choices.tenantValue }
        : null,
  };
}

const bytes = (value: number): string =>
  value < 1024
    ? `${value} B`
    : value < 1024 ** 2
      ? `${(value / 1024).toFixed(1)} kB`
      : `${(value / 1024 ** 2).toFixed(1)} MB`;

/**
 * The adoption preview: the table as it is, its conventions, secrets and sub-table candidates,
 * and the columns and indexes the engine could add with their estimated size and insert cost,
 * each a choice (none chosen by default); the statements adopting would run.
 */
export function AdoptPreviewModal({
  tableName,
  answer,
  choices,
  isSending,
  onChange,
  onConfirm,
  onCancel,
}: {
  tableName: string;
  answer: AdoptAnswer;
  choices: AdoptChoices;
  isSending: boolean;
  onChange: (choices: AdoptChoices) => void;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const t = useT();
  const label = (key: string, values?: Record<string, unknown>): string =>
    t(`codegen.reverse.${key}`, values);
  const { preview } = answer;
  const toggle = (list: string[], item: string, isOn: boolean): string[] =>
    isOn ? [...new Set([...list, item])] : list.filter((entry) => entry !== item);
  /** A bookkeeping field (createdAt …) as the admin knows it: 创建时间. */
  const fieldTitle = (field: string): string => t(`entities._common.fields.${field}`);
  /** An offered change by name: the engine's column with its title, or the index's name. */
  const changeName = (kind: 'addColumns' | 'indexes', name: string): string =>
    kind === 'addColumns' ? `${fieldTitle(name)} (${name})` : name;
  const changeTable = (kind: 'addColumns' | 'indexes', items: AdoptChange[]) => (
    <Table<AdoptChange>
      size="small"
      rowKey="name"
      pagination={false}
      dataSource={items}
      data-testid={`reverse-adopt-${kind}`}
      rowSelection={{
        selectedRowKeys: choices[kind],
        // Each one on its own: no "all" box, and each box names what it adds.
        hideSelectAll: true,
        getCheckboxProps: (row) => {
          // antd passes aria-label on to the input (CheckboxProps does not declare it).
          const name = label('choose', { name: changeName(kind, row.name) });
          const props = { title: name, 'aria-label': name };
          return props;
        },
        onChange: (keys) => onChange({ ...choices, [kind]: keys.map(String) }),
      }}
      columns={[
        {
          key: 'name',
          title: label(kind === 'addColumns' ? 'offeredColumn' : 'offeredIndex'),
          render: (_v: unknown, row: AdoptChange) => changeName(kind, row.name),
        },
        {
          key: 'size',
          title: label('size'),
          render: (_v: unknown, row: AdoptChange) => bytes(row.estimatedBytes),
        },
        {
          key: 'cost',
          title: label('writeCost'),
          render: (_v: unknown, row: AdoptChange) => `×${row.writeCost}`,
        },
      ]}
    />
  );
  return (
    <Modal
      open
      width={820}
      title={t('codegen.reverse.adoptTitle', { table: tableName })}
      okText={label('adoptConfirm')}
      onOk={onConfirm}
      okButtonProps={{ loading: isSending }}
      onCancel={onCancel}
    >
      <p>
        {label('formCode')}: <code>{answer.formCode}</code>
      </p>
      <p data-testid="reverse-adopt-table">
        {label('previewTable', {
          rows: preview.table.rows,
          size: bytes(preview.table.bytes),
          indexes: preview.table.indexes,
          indexSize: bytes(preview.table.indexBytes),
          columns: preview.table.columns,
        })}
      </p>
      <Typography.Title level={5}>{label('subTables')}</Typography.Title>
      {preview.detailCandidates.length === 0 ? (
        <p>{label('none')}</p>
      ) : (
        <Space direction="vertical" data-testid="reverse-adopt-details">
          {preview.detailCandidates.map((item) => (
            <Checkbox
              key={item.table}
              checked={choices.details.includes(item.table)}
              disabled={item.refusal !== undefined}
              onChange={(event) =>
                onChange({ ...choices, details: toggle(choices.details, item.table, event.target.checked) })
              }
            >
              {label('subTableItem', { table: item.table, column: item.column })}
              {item.refusal !== undefined && (
                <Typography.Text type="secondary"> ({item.refusal})</Typography.Text>
              )}
            </Checkbox>
          ))}
        </Space>
      )}
      <Typography.Title level={5}>{label('secrets')}</Typography.Title>
      {preview.secrets.length === 0 ? (
        <p>{label('none')}</p>
      ) : (
        <Space direction="vertical" data-testid="reverse-adopt-secrets">
          {preview.secrets.map((item) => (
            <Checkbox
              key={item.column}
              checked={choices.secrets.includes(item.column)}
              onChange={(event) =>
                onChange({ ...choices, secrets: toggle(choices.secrets, item.column, event.target.checked) })
              }
            >
              {item.column} <Typography.Text type="secondary">({item.reason})</Typography.Text>
            </Checkbox>
          ))}
        </Space>
      )}
      <Typography.Title level={5}>{label('conventions')}</Typography.Title>
      <Space direction="vertical" data-testid="reverse-adopt-conventions">
        <span>
          {label('bookkeeping')}:{' '}
          {Object.entries(preview.bookkeeping)
            .map(([field, column]) => `${fieldTitle(field)} ← ${column}`)
            .join(', ') || label('none')}
        </span>
        {preview.softDelete && (
          <Checkbox
            checked={choices.isSoftDelete}
            onChange={(event) => onChange({ ...choices, isSoftDelete: event.target.checked })}
          >
            {label('softDelete', {
              column: preview.softDelete.column,
              deleted: String(preview.softDelete.deleted),
            })}
          </Checkbox>
        )}
        {preview.tenantColumn && (
          <Space>
            <Checkbox
              checked={choices.tenantValue !== null}
              onChange={(event) =>
                onChange({
                  ...choices,
                  tenantValue: event.target.checked
                    ? (preview.tenantColumn?.value ?? preview.tenantColumn?.values[0]?.value ?? null)
                    : null,
                })
              }
            >
              {label('tenantColumn', { column: preview.tenantColumn.column })}
            </Checkbox>
            <Select
              style={{ minWidth: 160 }}
              aria-label={label('tenantValue', { column: preview.tenantColumn.column })}
              disabled={choices.tenantValue === null}
              value={choices.tenantValue === null ? undefined : String(choices.tenantValue)}
              options={preview.tenantColumn.values
                .filter((entry) => entry.value !== null)
                .map((entry) => ({
                  value: String(entry.value),
                  label: `${String(entry.value)} (${entry.rows})`,
                }))}
              onChange={(value: string) => {
                const found = preview.tenantColumn?.values.find((entry) => String(entry.value) === value);
                onChange({ ...choices, tenantValue: found?.value ?? value });
              }}
            />
          </Space>
        )}
      </Space>
      <Typography.Title level={5}>{label('offeredColumns')}</Typography.Title>
      {changeTable('addColumns', preview.columns)}
      <Typography.Title level={5}>{label('offeredIndexes')}</Typography.Title>
      {changeTable('indexes', preview.indexes)}
      {answer.details.length > 0 && (
        <p>{t('codegen.reverse.adoptDetails', { tables: answer.details.join(', ') })}</p>
      )}
      <p>{label('adoptIntro')}</p>
      {answer.statements.length > 0 ? (
        <CodeView code={answer.statements.join(';\n')} path="adopt.sql" testId="reverse-adopt-sql" />
      ) : (
        <Alert type="info" message={label('adoptNothing')} />
      )}
    </Modal>
  );
}
