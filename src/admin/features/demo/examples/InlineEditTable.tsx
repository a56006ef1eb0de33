import { useUpdate, type HttpError } from '@refinedev/core';
import { App, Button, Input, InputNumber, Select, Space, Table, type TableColumnsType } from 'antd';
import { useMemo, useState, type ReactNode } from 'react';
import type { EntityDef } from '../../../../engine/index.js';
import {
  formDataOf,
  messageFieldsOf,
  translatedSchema,
  translateErrors,
  usePrecompiledValidator,
} from '../../../entity/EntityForm.js';
import { useEntity } from '../../../entity/resources.js';
import { useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { fieldMessages } from '../../../providers/data.js';
import {
  ARTICLE,
  articleFieldTitle,
  articleText,
  useArticleOptions,
  useArticles,
  type Article,
  type ArticleField,
} from './article.js';
import { DemoPage } from './parts.js';

type Draft = Partial<Pick<Article, 'title' | 'author' | 'importance' | 'status' | 'pageviews'>>;
type Editable = keyof Draft;

/**
 * /table/inline-edit-table: a row's cells become inputs; 保存 checks the row with the validator
 * the server compiled from the article schema (the same rules as the API) and shows each problem
 * under its cell; only a row without problems is sent, and the server's own answer is shown the same way.
 */
export default function InlineEditTable({ route }: { route: AppRoute }) {
  const t = useT();
  const entity = useEntity(ARTICLE);
  return (
    <DemoPage route={route} intro={t('examples.inline.intro')}>
      {entity ? <EditableArticles entity={entity} /> : null}
    </DemoPage>
  );
}

function EditableArticles({ entity }: { entity: EntityDef }) {
  const t = useT();
  const { message } = App.useApp();
  const [page, setPage] = useState(1);
  const { articles, total, isLoading } = useArticles(page, 10);
  const statusOptions = useArticleOptions('status');
  const schema = useMemo(() => translatedSchema(entity, 'update', t), [entity, t]);
  const validator = usePrecompiledValidator(schema);
  const transformErrors = useMemo(
    () => translateErrors(t, messageFieldsOf(entity, 'update', schema, t)),
    [entity, schema, t],
  );
  const [editing, setEditing] = useState<number | undefined>(undefined);
  const [draft, setDraft] = useState<Draft>({});
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const { mutateAsync: update, mutation } = useUpdate<Article>();

  const start = (record: Article): void => {
    setEditing(record.id);
    setDraft({
      title: record.title,
      author: record.author,
      importance: record.importance,
      status: record.status,
      pageviews: record.pageviews ?? 0,
    });
    setErrors({});
  };
  const save = async (record: Article): Promise<void> => {
    if (!validator) return;
    const values = { ...formDataOf(entity, 'update', record), ...draft };
    const checked = validator.validateFormData(values, schema, undefined, transformErrors);
    const found: Record<string, string[]> = {};
    for (const error of checked.errors) {
      const name = (error.property ?? '').replace(/^\./, '').split('.')[0] ?? '';
      (found[name] ??= []).push(error.message ?? '');
    }
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    try {
      await update({
        resource: ARTICLE,
        id: record.id,
        values: { ...values, version: record.version },
        successNotification: false,
        errorNotification: false,
      });
      void message.success(t('admin.crud.saved'));
      setEditing(undefined);
    } catch (error) {
      setErrors(fieldMessages(error as HttpError));
    }
  };
  const cell = (record: Article, field: Editable, input: ReactNode, shown: ReactNode): ReactNode => {
    if (record.id !== editing) return shown;
    return (
      <>
        {input}
        {(errors[field] ?? []).map((text) => (
          <div key={text} className="example-cell-error" role="alert" data-testid={`error-${field}`}>
            {text}
          </div>
        ))}
      </>
    );
  };
  const label = (field: ArticleField): string => articleFieldTitle(t, field);
  const columns: TableColumnsType<Article> = [
    { key: 'id', dataIndex: 'id', title: label('id'), width: 70 },
    {
      key: 'title',
      dataIndex: 'title',
      title: label('title'),
      render: (value: string, record) =>
        cell(
          record,
          'title',
          <Input
            aria-label={label('title')}
            value={draft.title ?? ''}
            status={errors.title ? 'error' : undefined}
            onChange={(event) => setDraft({ ...draft, title: event.target.value })}
            data-testid="edit-title"
          />,
          value,
        ),
    },
    {
      key: 'author',
      dataIndex: 'author',
      title: label('author'),
      width: 150,
      render: (value: string, record) =>
        cell(
          record,
          'author',
          <Input
            aria-label={label('author')}
            value={draft.author ?? ''}
            status={errors.author ? 'error' : undefined}
            onChange={(event) => setDraft({ ...draft, author: event.target.value })}
          />,
          value,
        ),
    },
    {
      key: 'importance',
      dataIndex: 'importance',
      title: label('importance'),
      width: 120,
      render: (value: number, record) =>
        cell(
          record,
          'importance',
          <InputNumber
            aria-label={label('importance')}
            value={draft.importance}
            status={errors.importance ? 'error' : undefined}
            onChange={(next) => setDraft({ ...draft, importance: next ?? undefined })}
            data-testid="edit-importance"
          />,
          value,
        ),
    },
    {
      key: 'status',
      dataIndex: 'status',
      title: label('status'),
      width: 130,
      render: (value: string, record) =>
        cell(
          record,
          'status',
          <Select
            aria-label={label('status')}
            value={draft.status}
            options={statusOptions}
            onChange={(next: string) => setDraft({ ...draft, status: next })}
            style={{ width: '100%' }}
          />,
          articleText(t, 'status', value),
        ),
    },
    {
      key: 'pageviews',
      dataIndex: 'pageviews',
      title: label('pageviews'),
      width: 120,
      render: (value: number, record) =>
        cell(
          record,
          'pageviews',
          <InputNumber
            aria-label={label('pageviews')}
            value={draft.pageviews ?? undefined}
            status={errors.pageviews ? 'error' : undefined}
            onChange={(next) => setDraft({ ...draft, pageviews: next ?? undefined })}
          />,
          value,
        ),
    },
    {
      key: 'actions',
      title: t('examples.actions'),
      width: 170,
      render: (_: unknown, record) =>
        record.id === editing ? (
          <Space>
            <Button
              type="primary"
              size="small"
              loading={mutation.isPending}
              disabled={!validator}
              onClick={() => void save(record)}
              data-testid="inline-save"
            >
              {t('admin.crud.save')}
            </Button>
            <Button size="small" onClick={() => setEditing(undefined)}>
              {t('admin.common.cancel')}
            </Button>
          </Space>
        ) : (
          <Button
            size="small"
            onClick={() => start(record)}
            disabled={editing !== undefined}
            // antd would put a space between two Chinese characters: 编 辑 is no part of the name
            autoInsertSpace={false}
            aria-label={`${t('admin.crud.edit')} ${record.title}`}
            data-testid={`inline-edit-${record.id}`}
          >
            {t('admin.crud.edit')}
          </Button>
        ),
    },
  ];
  return (
    <Table<Article>
      rowKey="id"
      size="middle"
      loading={isLoading}
      columns={columns}
      dataSource={articles}
      data-testid="inline-table"
      pagination={{ current: page, pageSize: 10, total, onChange: setPage, showSizeChanger: false }}
    />
  );
}
