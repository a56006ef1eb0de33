import { App, Button, Card, Empty, Flex, Table, Tag } from 'antd';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { routeTitle, useT } from '../../i18n.js';
import type { AdoptAnswer, TableSummary } from '../../../engine/api-types.js';
import type { AppRoute } from '../../lib/menus.js';
import { useApiGet, useApiWrite, withQuery } from '../../lib/api.js';
import { errorText } from '../../lib/screen-parts.js';
import { CodeView } from './CodeView.js';
import { AdoptPreviewModal, adoptBody, choicesOf, type AdoptChoices } from './AdoptPreview.js';
import './codegen.css';

/**
 * Reverse generator (docs/product.md §2.3 reversegenerator): the database's tables that are not entities
 * yet; one of them as an entity schema. Adopting it shows the preview (AdoptPreview.tsx): the
 * table's conventions, secrets, sub-table candidates and the columns and indexes the engine could
 * add, each a choice, none by default; once confirmed it makes a draft designed form that opens in
 * the form designer, to review and publish there.
 */
export default function ReverseGenerator({ route }: { route: AppRoute }) {
  const t = useT();
  const { message } = App.useApp();
  const tables = useApiGet<TableSummary[]>('/api/generator/reverse/tables');
  const { send, isSending } = useApiWrite();
  const navigate = useNavigate();
  const [schema, setSchema] = useState<{ tableName: string; text: string } | undefined>(undefined);
  const [plan, setPlan] = useState<(AdoptAnswer & { tableName: string }) | undefined>(undefined);
  const label = (key: string): string => t(`codegen.reverse.${key}`);

  const [choices, setChoices] = useState<AdoptChoices | undefined>(undefined);

  /** The preview: first with the proposals, then again with each choice changed. */
  const planAdoption = async (tableName: string, chosen?: AdoptChoices): Promise<void> => {
    try {
      const answer = await send<AdoptAnswer>('post', '/api/generator/reverse/adopt', {
        tableName,
        confirm: false,
        ...(chosen && plan ? adoptBody(plan, chosen) : {}),
      });
      setChoices(choicesOf(answer));
      // A convention turned off is still shown (from the first preview), to turn it on again.
      const first = chosen ? plan?.preview : undefined;
      const softDelete = answer.preview.softDelete ?? first?.softDelete;
      const tenantColumn = answer.preview.tenantColumn ?? first?.tenantColumn;
      setPlan({
        ...answer,
        tableName,
        preview: {
          ...answer.preview,
          ...(softDelete ? { softDelete } : {}),
          ...(tenantColumn ? { tenantColumn } : {}),
        },
      });
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  const adopt = async (): Promise<void> => {
    if (!plan || !choices) return;
    try {
      const answer = await send<AdoptAnswer>('post', '/api/generator/reverse/adopt', {
        tableName: plan.tableName,
        formCode: plan.formCode,
        confirm: true,
        ...adoptBody(plan, choices),
      });
      setPlan(undefined);
      void message.success(t('codegen.reverse.adopted', { form: answer.formCode }));
      if (answer.form) void navigate(`/formdesign?id=${answer.form.id}`);
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  const generate = async (tableName: string): Promise<void> => {
    try {
      const answer = await send<Record<string, unknown>>(
        'post',
        withQuery('/api/generator/reverse/schema', { tableName }),
      );
      setSchema({ tableName, text: JSON.stringify(answer, null, 2) });
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Flex gap={16} align="start" wrap>
        <Table<TableSummary>
          size="middle"
          rowKey="tableName"
          loading={tables.isLoading}
          dataSource={tables.data ?? []}
          pagination={false}
          data-testid="reverse-tables"
          locale={{ emptyText: <Empty description={label('noTables')} /> }}
          columns={[
            { key: 'tableName', dataIndex: 'tableName', title: label('tableName') },
            { key: 'tableComment', dataIndex: 'tableComment', title: label('tableComment') },
            {
              key: 'columns',
              title: label('columns'),
              render: (_value: unknown, row: TableSummary) => <Tag>{row.columns.length}</Tag>,
            },
            {
              key: 'actions',
              title: label('actions'),
              render: (_value: unknown, row: TableSummary) =>
                row.adoptedBy ? (
                  <Flex gap={4} align="center" wrap data-testid={`reverse-adopted-${row.tableName}`}>
                    <Tag
                      color="green"
                      title={t('codegen.reverse.adoptedBy', { form: row.adoptedBy.formCode })}
                    >
                      {label('adoptedTag')}
                    </Tag>
                    <Button
                      type="link"
                      onClick={() => void navigate(`/formdesign?id=${row.adoptedBy?.formId ?? ''}`)}
                    >
                      {label('openInDesigner')}
                    </Button>
                  </Flex>
                ) : (
                  <Button
                    type="link"
                    loading={isSending && schema?.tableName !== row.tableName}
                    onClick={() => void generate(row.tableName)}
                  >
                    {label('generate')}
                  </Button>
                ),
            },
          ]}
        />
        {schema && (
          <div style={{ flex: 1, minWidth: 320 }}>
            <Flex justify="space-between" align="center">
              <h3>{schema.tableName}</h3>
              <Button
                type="primary"
                loading={isSending}
                onClick={() => void planAdoption(schema.tableName)}
                data-testid="reverse-adopt"
              >
                {label('adopt')}
              </Button>
            </Flex>
            <CodeView code={schema.text} path="schema.json" testId="reverse-schema" />
          </div>
        )}
      </Flex>
      {plan && choices && (
        <AdoptPreviewModal
          tableName={plan.tableName}
          answer={plan}
          choices={choices}
          isSending={isSending}
          onChange={(next) => {
            setChoices(next);
            void planAdoption(plan.tableName, next);
          }}
          onConfirm={() => void adopt()}
          onCancel={() => setPlan(undefined)}
        />
      )}
    </Card>
  );
}
