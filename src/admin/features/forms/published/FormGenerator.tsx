import { ReloadOutlined } from '@ant-design/icons';
import {
  App,
  Button,
  Card,
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
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import type { Page } from '../../../../engine/api-types.js';
import { formatDateTime } from '../../../../web/format.js';
import { routeTitle, useT } from '../../../i18n.js';
import { ICON_NAMES, MenuIcon } from '../../../layout/icons.js';
import type { AppRoute } from '../../../lib/menus.js';
import { useApiGet, useApiWrite, useTree, withQuery } from '../../../lib/api.js';
import { errorMessage, fieldMessages } from '../../../providers/data.js';
import { API, menuTitle, PagedTable, roleLabel, useSubmit } from '../../../lib/screen-parts.js';
import {
  fillPath,
  FORMS_API,
  useEntitiesChanged,
  type FormRecord,
  type FormVersion,
  type PublishAnswer,
} from './forms-api.js';

const PAGE_SIZE = 10;

interface MenuTreeNode {
  id: number;
  menuCode: string;
  menuName: string;
  menuComponent?: string;
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
}

/**
 * The designed forms (docs/product.md §2.3 /formgenerator): the generated-list look, with the form's
 * actions: design (the /formdesign designer), publish (menu parent, icon, roles), unpublish,
 * the version history and the link where signed-in users fill the form in.
 */
export default function FormGenerator({ route }: { route: AppRoute }) {
  const t = useT();
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
          { key: 'formName', dataIndex: 'formName', title: title('formName') },
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
                      title={title('unpublishConfirm', { name: row.formName })}
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
                    title={title('deleteConfirm', { name: row.formName })}
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
        title={history ? title('historyOf', { name: history.formName }) : ''}
        width={560}
        destroyOnHidden
      >
        {history ? <VersionHistory form={history} /> : null}
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

  return (
    <Modal
      open
      title={`${title('title')}: ${form.formName}`}
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
        initialValues={{ icon: 'form', roles: [], ...(parentOfForms ? { menuParent: parentOfForms } : {}) }}
        key={parentOfForms ?? 'loading'}
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

/** What a refused publish says: its field messages, one a line, else its message. */
function failureLines(error: unknown): string[] {
  const lines = Object.values(fieldMessages(error)).flat();
  return lines.length > 0 ? lines : [errorMessage(error)];
}

function VersionHistory({ form }: { form: FormRecord }) {
  const t = useT();
  const versions = useApiGet<FormVersion[]>(`${FORMS_API}/versions`, { id: form.id });
  const title = (key: string): string => t(`forms.list.${key}`);
  return (
    <Table<FormVersion>
      size="small"
      rowKey={(row) => `${row.version}-${row.action}-${row.createdAt}`}
      loading={versions.isLoading}
      dataSource={versions.data ?? []}
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
      ]}
    />
  );
}
