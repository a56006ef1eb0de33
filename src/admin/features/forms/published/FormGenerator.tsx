import { ReloadOutlined } from '@ant-design/icons';
import {
  App,
  Button,
  Card,
  Checkbox,
  Drawer,
  Flex,
  Form,
  Input,
  Modal,
  Popconfirm,
  Select,
  Space,
  Table,
  Tag,
  TreeSelect,
} from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import type { FormCheck, ImpactItem, Page } from '../../../../engine/api-types.js';
import { formatDateTime } from '../../../../web/format.js';
import { routeTitle, useLanguage, useT } from '../../../i18n.js';
import { ICON_NAMES, MenuIcon } from '../../../layout/icons.js';
import type { AppRoute } from '../../../lib/menus.js';
import { useApiGet, useApiWrite, useTree, withQuery } from '../../../lib/api.js';
import { errorMessage, fieldMessages } from '../../../providers/data.js';
import { API, menuTitle, PagedTable, roleLabel, useSubmit } from '../../../lib/screen-parts.js';
import {
  fillPath,
  formTitle,
  FORMS_API,
  useEntitiesChanged,
  type FormRecord,
  type FormVersion,
  type PublishAnswer,
} from './forms-api.js';
import { versionDiff } from './version-diff.js';

const PAGE_SIZE = 10;

interface MenuTreeNode {
  id: number;
  menuCode: string;
  menuName: string;
  menuComponent?: string;
  menuIcon?: string | null;
  children?: MenuTreeNode[];
}

interface MenuOption {
  value: number;
  title: string;
  children: MenuOption[];
}

interface RoleRow {
  id: number;
  roleCode: string;
  roleName: string;
}

interface PublishValues {
  menuParent: number;
  icon?: string;
  roles: string[];
  /** 以默认值回填现有记录 (offered when a new required rule has a default to fill the rows with). */
  backfill?: boolean;
}

/**
 * The designed forms (docs/product.md §2.3 /formgenerator): the generated-list look, with the form's
 * actions: design (the /formdesign designer), publish (menu parent, icon, roles), unpublish,
 * the version history and the link where signed-in users fill the form in.
 */
export default function FormGenerator({ route }: { route: AppRoute }) {
  const t = useT();
  const language = useLanguage();
  const navigate = useNavigate();
  const { message } = App.useApp();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const forms = useApiGet<Page<FormRecord>>(`${FORMS_API}/query`, {
    currentPage: page,
    pageSize: PAGE_SIZE,
    ...(search ? { formName: search } : {}),
  });
  const { send, isSending } = useApiWrite();
  const submit = useSubmit();
  const entitiesChanged = useEntitiesChanged();
  const [publishing, setPublishing] = useState<FormRecord | undefined>(undefined);
  const [history, setHistory] = useState<FormRecord | undefined>(undefined);
  const title = (key: string, params?: Record<string, unknown>): string => t(`forms.list.${key}`, params);

  const unpublish = (form: FormRecord): Promise<void> =>
    submit(() => send('post', withQuery(`${FORMS_API}/unpublish`, { id: form.id })), {
      after: async () => {
        await entitiesChanged();
        await forms.refetch();
      },
    });
  const remove = (form: FormRecord): Promise<void> =>
    submit(() => send('post', withQuery(`${FORMS_API}/delete`, { id: form.id })), {
      after: () => forms.refetch(),
    });
  const published = async (answer: PublishAnswer): Promise<void> => {
    setPublishing(undefined);
    await entitiesChanged();
    await forms.refetch();
    void message.success({
      content: (
        <span>
          {title('published', { path: answer.menuPath })}{' '}
          <Button
            type="link"
            size="small"
            onClick={() => navigate(answer.menuPath)}
            data-testid="open-published"
          >
            {title('open')}
          </Button>
        </span>
      ),
    });
  };

  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Flex gap={8} className="admin-screen-toolbar">
        <Input.Search
          allowClear
          aria-label={title('formName')}
          placeholder={title('formName')}
          onSearch={(value) => {
            setSearch(value.trim());
            setPage(1);
          }}
          className="admin-screen-search-inline"
          data-testid="forms-search"
        />
        <Button type="primary" onClick={() => navigate('/formdesign')} data-testid="form-new">
          {title('new')}
        </Button>
        <Button icon={<ReloadOutlined />} onClick={() => void forms.refetch()}>
          {t('admin.tags.refresh')}
        </Button>
      </Flex>
      <PagedTable<FormRecord>
        read={forms}
        page={page}
        pageSize={PAGE_SIZE}
        onPage={setPage}
        data-testid="forms-list"
        columns={[
          { key: 'formCode', dataIndex: 'formCode', title: title('formCode') },
          { key: 'formName', title: title('formName'), render: (_value, row) => formTitle(row, language) },
          {
            key: 'formDescription',
            dataIndex: 'formDescription',
            title: title('formDescription'),
            ellipsis: true,
          },
          {
            key: 'status',
            title: title('status'),
            render: (_value, row) => (
              <Tag color={row.status === 'published' ? 'green' : 'default'} data-status={row.status}>
                {title(`status_${row.status}`)}
              </Tag>
            ),
          },
          {
            key: 'version',
            title: title('version'),
            render: (_value, row) =>
              row.publishedVersion !== null && row.status === 'published'
                ? title('versionPublished', { version: row.version, published: row.publishedVersion })
                : String(row.version),
          },
          {
            key: 'updatedBy',
            title: title('updatedBy'),
            render: (_value, row) => row.updatedBy ?? row.createdBy,
          },
          {
            key: 'updatedAt',
            title: title('updatedAt'),
            render: (_value, row) => formatDateTime(row.updatedAt ?? row.createdAt),
          },
          {
            key: 'actions',
            title: title('actions'),
            fixed: 'right' as const,
            render: (_value, row) => (
              <Space size={0} wrap data-form={row.formCode}>
                <Button type="link" size="small" onClick={() => navigate(`/formdesign?id=${row.id}`)}>
                  {title('design')}
                </Button>
                <Button
                  type="link"
                  size="small"
                  onClick={() => setPublishing(row)}
                  data-testid="form-publish"
                >
                  {row.status === 'published' ? title('republish') : title('publish')}
                </Button>
                {row.status === 'published' ? (
                  <>
                    <Popconfirm
                      title={title('unpublishConfirm', { name: formTitle(row, language) })}
                      onConfirm={() => unpublish(row)}
                      okText={t('admin.common.confirm')}
                      cancelText={t('admin.common.cancel')}
                    >
                      <Button type="link" size="small" data-testid="form-unpublish">
                        {title('unpublish')}
                      </Button>
                    </Popconfirm>
                    <Button
                      type="link"
                      size="small"
                      href={`/admin${fillPath(row.formCode)}`}
                      data-testid="form-fill"
                    >
                      {title('fill')}
                    </Button>
                  </>
                ) : (
                  <Popconfirm
                    title={title('deleteConfirm', { name: formTitle(row, language) })}
                    onConfirm={() => remove(row)}
                    okText={t('admin.common.confirm')}
                    cancelText={t('admin.common.cancel')}
                  >
                    <Button type="link" size="small" danger>
                      {t('dicts.menu_button.delete')}
                    </Button>
                  </Popconfirm>
                )}
                <Button type="link" size="small" onClick={() => setHistory(row)} data-testid="form-history">
                  {title('history')}
                </Button>
              </Space>
            ),
          },
        ]}
      />
      {publishing ? (
        <PublishDialog
          form={publishing}
          isSending={isSending}
          onCancel={() => setPublishing(undefined)}
          onPublish={(values) =>
            send<PublishAnswer>('post', `${FORMS_API}/publish`, { id: publishing.id, ...values }).then(
              published,
            )
          }
        />
      ) : null}
      <Drawer
        open={history !== undefined}
        onClose={() => setHistory(undefined)}
        title={history ? title('historyOf', { name: formTitle(history, language) }) : ''}
        width={720}
        destroyOnHidden
      >
        {history ? <VersionHistory form={history} onRestored={() => forms.refetch()} /> : null}
      </Drawer>
    </Card>
  );
}

function PublishDialog({
  form,
  isSending,
  onCancel,
  onPublish,
}: {
  form: FormRecord;
  isSending: boolean;
  onCancel: () => void;
  onPublish: (values: PublishValues) => Promise<void>;
}) {
  const t = useT();
  const language = useLanguage();
  const [values] = Form.useForm<PublishValues>();
  // A refusal: one line per problem (each impact rule names its field, rows and keys).
  const [failure, setFailure] = useState<string[] | undefined>(undefined);
  const menus = useTree<MenuTreeNode>('sysmenu');
  const roles = useApiGet<Page<RoleRow>>(`${API.role}/query`, { pageSize: 100 });
  const title = (key: string): string => t(`forms.publish.${key}`);
  // Only groups can hold the new entry: a generated screen or page is no parent.
  const treeData = useMemo(() => {
    const toNodes = (nodes: readonly MenuTreeNode[]): MenuOption[] =>
      nodes
        .filter((node) => !node.menuComponent || node.menuComponent === 'layout')
        .map((node) => ({
          value: node.id,
          title: menuTitle(t, node),
          children: toNodes(node.children ?? []),
        }));
    return toNodes(menus.data ?? []);
  }, [menus.data, t]);
  const parentOfForms = useMemo(() => {
    const find = (nodes: readonly MenuTreeNode[]): number | undefined => {
      for (const node of nodes) {
        if (node.menuCode === 'formgenerator') return node.id;
        const found = find(node.children ?? []);
        if (found !== undefined) return found;
      }
      return undefined;
    };
    return find(menus.data ?? []);
  }, [menus.data]);
  // 重新发布: the published menu's parent and icon (its roles come with the form's record)
  const published = useMemo(() => {
    const find = (
      nodes: readonly MenuTreeNode[],
      parent: number | undefined,
    ): { parent: number | undefined; icon: string | undefined } | undefined => {
      for (const node of nodes) {
        if (node.id === form.menuId) return { parent, icon: node.menuIcon ?? undefined };
        const found = find(node.children ?? [], node.id);
        if (found) return found;
      }
      return undefined;
    };
    return form.menuId === null ? undefined : find(menus.data ?? [], undefined);
  }, [menus.data, form.menuId]);
  const initialParent = published?.parent ?? parentOfForms;
  // A form published before: the check says which new required fields a default can fill.
  const { send: sendCheck } = useApiWrite();
  const [backfillable, setBackfillable] = useState<ImpactItem[]>([]);
  useEffect(() => {
    if (form.publishedVersion === null) return;
    let isCurrent = true;
    sendCheck<FormCheck>(
      'post',
      `${FORMS_API}/check`,
      { id: form.id, formContent: form.formContent },
      { silent: true },
    )
      .then((answer) => {
        const items = (answer.impact?.items ?? []).filter((item) => item.canBackfill && !item.isSafe);
        if (isCurrent) setBackfillable(items);
      })
      // a content the check refuses is the publish's to name
      .catch(() => undefined);
    return () => {
      isCurrent = false;
    };
  }, [sendCheck, form.id, form.formContent, form.publishedVersion]);

  return (
    <Modal
      open
      title={`${title('title')}: ${formTitle(form, language)}`}
      okText={title('ok')}
      cancelText={t('admin.common.cancel')}
      confirmLoading={isSending}
      onCancel={onCancel}
      onOk={() =>
        void values
          .validateFields()
          .then((chosen) => onPublish(chosen).catch((error: unknown) => setFailure(failureLines(error))))
      }
      destroyOnHidden
      data-testid="publish-dialog"
    >
      <Form<PublishValues>
        form={values}
        layout="vertical"
        // the refusal named what the last 发布 was sent with: a changed choice (the backfill box
        // ticked, another parent) is a new attempt, so the old refusal goes
        onValuesChange={() => setFailure(undefined)}
        initialValues={{
          icon: published?.icon ?? 'form',
          roles: form.menuRoles ?? [],
          ...(initialParent ? { menuParent: initialParent } : {}),
        }}
        key={initialParent ?? 'loading'}
      >
        <Form.Item
          name="menuParent"
          label={title('menuParent')}
          // a validator rather than `required`: antd would put aria-required on the select's wrapper
          rules={[
            {
              validator: (_rule, value) =>
                value === undefined
                  ? Promise.reject(new Error(title('menuParentRequired')))
                  : Promise.resolve(),
            },
          ]}
        >
          <TreeSelect
            treeData={treeData}
            treeDefaultExpandAll
            showSearch
            treeNodeFilterProp="title"
            data-testid="publish-parent"
          />
        </Form.Item>
        <Form.Item name="icon" label={title('icon')}>
          <Select
            showSearch
            data-testid="publish-icon"
            options={ICON_NAMES.map((name) => ({
              value: name,
              label: (
                <span>
                  <MenuIcon name={name} /> {name}
                </span>
              ),
            }))}
          />
        </Form.Item>
        {backfillable.length > 0 ? (
          <Form.Item
            name="backfill"
            valuePropName="checked"
            extra={t('forms.publish.backfillHelp', {
              fields: backfillable
                .map((item) => `${fieldTitle(form, item.field, language)}（${item.rows}）`)
                .join('、'),
            })}
          >
            <Checkbox data-testid="publish-backfill">{title('backfill')}</Checkbox>
          </Form.Item>
        ) : null}
        <Form.Item name="roles" label={title('roles')} extra={title('rolesHelp')}>
          <Select
            mode="multiple"
            data-testid="publish-roles"
            options={(roles.data?.records ?? []).map((role) => ({
              value: role.roleCode,
              label: roleLabel(role),
            }))}
          />
        </Form.Item>
      </Form>
      {failure ? (
        <div role="alert" className="forms-publish-failure" data-testid="publish-failure">
          <strong>{title('refused')}</strong>
          <ul>
            {failure.map((line, index) => (
              <li key={index}>{line}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </Modal>
  );
}

/** A field of the form's content (or `detail.column`) by its title in the reader's language. */
function fieldTitle(form: FormRecord, field: string, language: string): string {
  const content = (
    typeof form.formContent === 'string' ? JSON.parse(form.formContent) : form.formContent
  ) as {
    properties?: Record<string, FieldLike>;
  };
  const [name = '', column] = field.split('.');
  const owner = content.properties?.[name];
  const target = column === undefined ? owner : owner?.items?.properties?.[column];
  const own = target?.['x-ui']?.titles?.[language as 'zh'];
  return own || target?.title || field;
}

interface FieldLike {
  title?: string;
  'x-ui'?: { titles?: { zh?: string; tw?: string; en?: string } };
  items?: { properties?: Record<string, FieldLike> };
}

/** What a refused publish says: its field messages, one a line, else its message. */
function failureLines(error: unknown): string[] {
  const lines = Object.values(fieldMessages(error)).flat();
  return lines.length > 0 ? lines : [errorMessage(error)];
}

/** Where the designer keeps this browser's draft of a saved form (FormDesigner.tsx DRAFT_KEY). */
const designerDraftKey = (id: number): string => `formDesigner.draft.${id}`;

function VersionHistory({ form, onRestored }: { form: FormRecord; onRestored: () => Promise<unknown> }) {
  const t = useT();
  const language = useLanguage();
  const { message } = App.useApp();
  const versions = useApiGet<FormVersion[]>(`${FORMS_API}/versions`, { id: form.id });
  const { send } = useApiWrite();
  const submit = useSubmit();
  const title = (key: string, params?: Record<string, unknown>): string => t(`forms.list.${key}`, params);
  const rows = useMemo(() => versions.data ?? [], [versions.data]);
  // 对比: an older and a newer version row (by id), the two newest to begin with
  const [picked, setPicked] = useState<{ from?: number; to?: number }>({});
  const to = rows.find((row) => row.id === picked.to) ?? rows[0];
  // the version before the newest (a publish repeats the version it published: not that one)
  const from =
    rows.find((row) => row.id === picked.from) ??
    rows.find((row) => to !== undefined && row.version < to.version) ??
    rows[1];
  const diff = useMemo(
    () => (from && to ? versionDiff(from.formContent, to.formContent, language) : undefined),
    [from, to, language],
  );
  const label = (row: FormVersion): string =>
    `${title('versionN', { version: row.version })} · ${title(`action_${row.action}`)} · ${formatDateTime(row.createdAt)}`;
  const options = rows.map((row) => ({ value: row.id, label: label(row) }));
  const restore = (row: FormVersion): Promise<void> =>
    submit(
      () =>
        send('post', `${FORMS_API}/restore`, {
          id: form.id,
          version: rows[0]?.version ?? form.version,
          versionId: row.id,
        }),
      {
        after: async () => {
          // the designer opens the restored draft, not an older one this browser kept
          window.localStorage.removeItem(designerDraftKey(form.id));
          setPicked({});
          await versions.refetch();
          await onRestored();
          void message.success(title('restored', { version: row.version }));
        },
      },
    );
  return (
    <>
      <Table<FormVersion>
        size="small"
        rowKey="id"
        loading={versions.isLoading}
        dataSource={rows}
        pagination={false}
        data-testid="form-versions"
        columns={[
          { key: 'version', dataIndex: 'version', title: title('version') },
          { key: 'action', title: title('action'), render: (_value, row) => title(`action_${row.action}`) },
          { key: 'createdBy', dataIndex: 'createdBy', title: title('updatedBy') },
          {
            key: 'createdAt',
            title: title('updatedAt'),
            render: (_value, row) => formatDateTime(row.createdAt),
          },
          {
            key: 'actions',
            title: title('actions'),
            render: (_value, row, index) =>
              index === 0 ? null : (
                <Popconfirm
                  title={title('restoreConfirm', { version: row.version })}
                  onConfirm={() => restore(row)}
                  okText={t('admin.common.confirm')}
                  cancelText={t('admin.common.cancel')}
                >
                  <Button type="link" size="small" data-testid="version-restore" data-version={row.version}>
                    {title('restore')}
                  </Button>
                </Popconfirm>
              ),
          },
        ]}
      />
      {rows.length > 1 && from && to ? (
        <section className="forms-version-diff" data-testid="version-diff" aria-label={title('compare')}>
          <h4>{title('compare')}</h4>
          <Flex gap={8} wrap align="center">
            <Select
              aria-label={title('compareFrom')}
              data-testid="diff-from"
              value={from.id}
              options={options}
              onChange={(id: number) => setPicked({ ...picked, from: id, to: to.id })}
              style={{ minWidth: 220 }}
            />
            <span aria-hidden>→</span>
            <Select
              aria-label={title('compareTo')}
              data-testid="diff-to"
              value={to.id}
              options={options}
              onChange={(id: number) => setPicked({ ...picked, to: id, from: from.id })}
              style={{ minWidth: 220 }}
            />
          </Flex>
          {diff && (diff.fields.length > 0 || diff.isFormChanged) ? (
            <ul className="forms-version-diff-list">
              {diff.fields.map((change) => (
                <li key={`${change.kind}-${change.field}`} data-change={change.kind}>
                  <Tag color={change.kind === 'added' ? 'green' : change.kind === 'removed' ? 'red' : 'blue'}>
                    {title(`diff_${change.kind}`)}
                  </Tag>
                  {change.title}
                  {change.settings.length > 0
                    ? `：${change.settings.map((setting) => t(`forms.diff.${setting}`)).join('、')}`
                    : ''}
                </li>
              ))}
              {diff.isFormChanged ? (
                <li data-change="form">
                  <Tag color="blue">{title('diff_changed')}</Tag>
                  {title('diff_form')}
                </li>
              ) : null}
            </ul>
          ) : (
            <p data-testid="diff-none">{title('diff_none')}</p>
          )}
        </section>
      ) : null}
    </>
  );
}
