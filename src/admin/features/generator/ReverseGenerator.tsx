import { Alert, App, Button, Card, Empty, Flex, Modal, Table, Tag } from 'antd';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { routeTitle, useT } from '../../i18n.js';
import type { AdoptAnswer, TableSummary } from '../../../engine/api-types.js';
import type { AppRoute } from '../../lib/menus.js';
import { useApiGet, useApiWrite, withQuery } from '../../lib/api.js';
import { errorText } from '../../lib/screen-parts.js';
import { CodeView } from './CodeView.js';
import './codegen.css';

/**
 * Reverse generator (docs/product.md §2.3 reversegenerator): the database's tables that are not entities
 * yet; one of them as an entity schema. Adopting it shows the statements it would run on the
 * table (only added bookkeeping columns), and once confirmed makes a draft designed form that
 * opens in the form designer, to review and publish there.
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

  const planAdoption = async (tableName: string): Promise<void> => {
    try {
      const answer = await send<AdoptAnswer>('post', '/api/generator/reverse/adopt', {
        tableName,
        confirm: false,
      });
      setPlan({ ...answer, tableName });
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  const adopt = async (): Promise<void> => {
    if (!plan) return;
    try {
      const answer = await send<AdoptAnswer>('post', '/api/generator/reverse/adopt', {
        tableName: plan.tableName,
        formCode: plan.formCode,
        confirm: true,
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
      {plan && (
        <Modal
          open
          title={t('codegen.reverse.adoptTitle', { table: plan.tableName })}
          okText={label('adoptConfirm')}
          onOk={() => void adopt()}
          okButtonProps={{ loading: isSending }}
          onCancel={() => setPlan(undefined)}
        >
          <p>
            {label('formCode')}: <code>{plan.formCode}</code>
          </p>
          {plan.details.length > 0 && (
            <p data-testid="reverse-adopt-details">
              {t('codegen.reverse.adoptDetails', { tables: plan.details.join(', ') })}
            </p>
          )}
          <p>{label('adoptIntro')}</p>
          {plan.statements.length > 0 ? (
            <CodeView code={plan.statements.join(';\n')} path="adopt.sql" testId="reverse-adopt-sql" />
          ) : (
            <Alert type="info" message={label('adoptNothing')} />
          )}
        </Modal>
      )}
    </Card>
  );
}
