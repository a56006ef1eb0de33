import { KeyOutlined, PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import {
  Alert,
  App,
  Button,
  Card,
  DatePicker,
  Drawer,
  Flex,
  Form,
  Input,
  InputNumber,
  Modal,
  Popconfirm,
  Select,
  Space,
  Tag,
  Typography,
} from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useState } from 'react';
import {
  API_KEY_DEFAULT_RATE_PER_MINUTE,
  type ApiKeyStatus,
  type ApiKeyUse,
  type ApiKeyView,
  type Page,
} from '../../../engine/api-types.js';
import { formatDateTime } from '../../../web/format.js';
import { routeTitle, useT } from '../../i18n.js';
import { useApiGet, useApiWrite, useCanButton, withQuery } from '../../lib/api.js';
import type { AppRoute } from '../../lib/menus.js';
import { PagedTable, useSubmit } from '../../lib/screen-parts.js';
import { errorText } from '../../providers/data.js';
import { showFieldErrors } from '../../lib/form-errors.js';

const KEYS = '/api/admin/sysapikey';
const PAGE_SIZE = 20;

const STATUS_COLOR: Record<ApiKeyStatus, string> = { active: 'green', expired: 'default', revoked: 'red' };

/**
 * API keys of the tenant (系统管理 › API 密钥): made for a user in some of its roles, shown once
 * when made, revoked at once; each key's calls in a drawer.
 */
export default function ApiKeys({ route }: { route: AppRoute }) {
  const t = useT();
  const can = useCanButton(route.code);
  const [page, setPage] = useState(1);
  const keys = useApiGet<Page<ApiKeyView>>(`${KEYS}/query`, { currentPage: page, pageSize: PAGE_SIZE });
  const { send } = useApiWrite();
  const submit = useSubmit();
  const [isCreating, setCreating] = useState(false);
  const [shownKey, setShownKey] = useState<string | undefined>();
  const [usesOf, setUsesOf] = useState<ApiKeyView | undefined>();
  const label = (field: string): string => t(`apiKeys.${field}`);

  const revoke = (row: ApiKeyView): Promise<void> =>
    submit(() => send('post', withQuery(`${KEYS}/revoke`, { id: row.id })), {
      success: label('revoked'),
      after: () => keys.refetch(),
    });

  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Typography.Paragraph type="secondary">{label('intro')}</Typography.Paragraph>
      <Flex gap={8} className="admin-screen-toolbar">
        {can('add') && (
          <Button
            type="primary"
            icon={<PlusOutlined />}
            onClick={() => setCreating(true)}
            data-testid="apikey-add"
          >
            {label('add')}
          </Button>
        )}
        <Button icon={<ReloadOutlined />} onClick={() => void keys.refetch()}>
          {t('admin.tags.refresh')}
        </Button>
      </Flex>
      <PagedTable<ApiKeyView>
        read={keys}
        page={page}
        pageSize={PAGE_SIZE}
        onPage={setPage}
        data-testid="apikey-list"
        columns={[
          { key: 'name', dataIndex: 'name', title: label('name') },
          {
            key: 'prefix',
            title: label('prefix'),
            render: (_value, row) => <Typography.Text code>{`ek_${row.prefix}_…`}</Typography.Text>,
          },
          { key: 'username', dataIndex: 'username', title: label('user') },
          {
            key: 'roles',
            title: label('roles'),
            render: (_value, row) => row.roles.map((role) => <Tag key={role}>{role}</Tag>),
          },
          {
            key: 'expiresAt',
            title: label('expiresAt'),
            render: (_value, row) => formatDateTime(row.expiresAt),
          },
          {
            key: 'lastUse',
            title: label('lastUse'),
            render: (_value, row) =>
              row.lastUsedAt ? `${formatDateTime(row.lastUsedAt)} · ${row.lastUsedIp ?? ''}` : label('never'),
          },
          {
            key: 'status',
            title: label('status'),
            render: (_value, row) => (
              <Tag color={STATUS_COLOR[row.status]} data-status={row.status}>
                {label(`statuses.${row.status}`)}
              </Tag>
            ),
          },
          {
            key: 'actions',
            title: label('actions'),
            fixed: 'right' as const,
            render: (_value, row) => (
              <Space>
                <Button size="small" onClick={() => setUsesOf(row)} data-testid="apikey-uses">
                  {label('uses')}
                </Button>
                {can('revoke') && row.status === 'active' && (
                  <Popconfirm
                    title={label('revokeConfirm')}
                    onConfirm={() => revoke(row)}
                    okText={t('admin.common.confirm')}
                    cancelText={t('admin.common.cancel')}
                  >
                    <Button danger size="small" data-testid="apikey-revoke">
                      {label('revoke')}
                    </Button>
                  </Popconfirm>
                )}
              </Space>
            ),
          },
        ]}
      />
      {isCreating && (
        <CreateKey
          onClose={(key) => {
            setCreating(false);
            if (key) {
              setShownKey(key);
              void keys.refetch();
            }
          }}
        />
      )}
      {shownKey !== undefined && <ShownOnce apiKey={shownKey} onClose={() => setShownKey(undefined)} />}
      {usesOf && <KeyUses apiKey={usesOf} onClose={() => setUsesOf(undefined)} />}
    </Card>
  );
}

interface KeyForm {
  name: string;
  userId?: number;
  roles: string[];
  expiresAt?: Dayjs;
  allowList?: string;
  ratePerMinute?: number;
}

const FORM_FIELDS = ['name', 'userId', 'roles', 'expiresAt', 'allowList', 'ratePerMinute'] as const;

/** The dialog that makes a key; closes with the key (shown next, once) or without. */
function CreateKey({ onClose }: { onClose: (key?: string) => void }) {
  const t = useT();
  const { message } = App.useApp();
  const { send, isSending } = useApiWrite();
  const [form] = Form.useForm<KeyForm>();
  const [userSearch, setUserSearch] = useState('');
  const userId = Form.useWatch('userId', form);
  const users = useApiGet<Page<{ id: number; username: string; nickname?: string | null }>>(
    '/api/admin/sysuser/query',
    { currentPage: 1, pageSize: 20, ...(userSearch ? { username: userSearch } : {}) },
  );
  const roles = useApiGet<{ code: string; name: string }[]>(
    `${KEYS}/queryUserRoles`,
    { userId: userId ?? 0 },
    userId !== undefined,
  );
  const label = (field: string): string => t(`apiKeys.${field}`);

  const save = async (): Promise<void> => {
    const values = await form.validateFields();
    const allowList = (values.allowList ?? '')
      .split(/[\n,]/)
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    try {
      const made = await send<{ key: string }>(
        'post',
        `${KEYS}/add`,
        {
          name: values.name,
          userId: values.userId,
          roles: values.roles,
          expiresAt: values.expiresAt?.toISOString(),
          allowList,
          ratePerMinute: values.ratePerMinute ?? API_KEY_DEFAULT_RATE_PER_MINUTE,
        },
        { silent: true },
      );
      void message.success(label('created'));
      onClose(made.key);
    } catch (error) {
      if (!showFieldErrors(form, FORM_FIELDS, error)) void message.error(errorText(error));
    }
  };

  return (
    <Modal
      open
      title={label('add')}
      onCancel={() => onClose()}
      onOk={() => void save()}
      okButtonProps={{ loading: isSending, 'data-testid': 'apikey-save' } as never}
      okText={t('admin.common.confirm')}
      cancelText={t('admin.common.cancel')}
      destroyOnHidden
      data-testid="apikey-form"
    >
      <Form<KeyForm>
        form={form}
        layout="vertical"
        initialValues={{
          roles: [],
          ratePerMinute: API_KEY_DEFAULT_RATE_PER_MINUTE,
          expiresAt: dayjs().add(90, 'day'),
        }}
      >
        <Form.Item name="name" label={label('name')} rules={[{ required: true, max: 64 }]}>
          <Input data-testid="apikey-name" maxLength={64} />
        </Form.Item>
        <Form.Item name="userId" label={label('user')} rules={[{ required: true }]}>
          <Select
            showSearch
            filterOption={false}
            onSearch={setUserSearch}
            onChange={() => form.setFieldValue('roles', [])}
            options={(users.data?.records ?? []).map((user) => ({
              value: user.id,
              label: user.nickname ? `${user.username} (${user.nickname})` : user.username,
            }))}
            data-testid="apikey-user"
          />
        </Form.Item>
        <Form.Item name="roles" label={label('roles')} rules={[{ required: true }]}>
          <Select
            mode="multiple"
            placeholder={userId === undefined ? label('pickUserFirst') : undefined}
            disabled={userId === undefined}
            options={(roles.data ?? []).map((role) => ({
              value: role.code,
              label: `${role.name} (${role.code})`,
            }))}
            data-testid="apikey-roles"
          />
        </Form.Item>
        <Form.Item name="expiresAt" label={label('expiresAt')} rules={[{ required: true }]}>
          <DatePicker
            showTime
            disabledDate={(day) => day.isBefore(dayjs().startOf('day'))}
            style={{ width: '100%' }}
            data-testid="apikey-expires"
          />
        </Form.Item>
        <Form.Item name="allowList" label={label('allowList')} extra={label('allowListHelp')}>
          <Input.TextArea rows={2} data-testid="apikey-allow" />
        </Form.Item>
        <Form.Item name="ratePerMinute" label={label('ratePerMinute')}>
          <InputNumber min={1} max={100_000} precision={0} style={{ width: '100%' }} />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** The new key, this once: a copy button and the warning that it cannot be seen again. */
function ShownOnce({ apiKey, onClose }: { apiKey: string; onClose: () => void }) {
  const t = useT();
  const label = (field: string): string => t(`apiKeys.${field}`);
  return (
    <Modal
      open
      title={
        <Space>
          <KeyOutlined />
          {label('created')}
        </Space>
      }
      closable={false}
      maskClosable={false}
      footer={
        <Button type="primary" onClick={onClose} data-testid="apikey-done">
          {label('done')}
        </Button>
      }
      data-testid="apikey-shown"
    >
      <Alert type="warning" showIcon message={label('shownOnce')} style={{ marginBottom: 16 }} />
      <Typography.Paragraph
        code
        copyable={{ text: apiKey, tooltips: [label('copy'), label('copied')] }}
        data-testid="apikey-secret"
        style={{ wordBreak: 'break-all' }}
      >
        {apiKey}
      </Typography.Paragraph>
    </Modal>
  );
}

/** The calls made with a key, newest first. */
function KeyUses({ apiKey, onClose }: { apiKey: ApiKeyView; onClose: () => void }) {
  const t = useT();
  const [page, setPage] = useState(1);
  const uses = useApiGet<Page<ApiKeyUse>>(`${KEYS}/queryUses`, {
    id: apiKey.id,
    currentPage: page,
    pageSize: PAGE_SIZE,
  });
  const label = (field: string): string => t(`apiKeys.${field}`);
  return (
    <Drawer
      open
      width={720}
      title={t('apiKeys.usesTitle', { name: apiKey.name })}
      onClose={onClose}
      data-testid="apikey-uses-drawer"
    >
      <PagedTable<ApiKeyUse>
        read={uses}
        page={page}
        pageSize={PAGE_SIZE}
        onPage={setPage}
        columns={[
          { key: 'at', title: label('at'), render: (_value, row) => formatDateTime(row.at) },
          { key: 'method', dataIndex: 'method', title: label('method') },
          { key: 'path', dataIndex: 'path', title: label('path') },
          {
            key: 'status',
            title: label('answer'),
            render: (_value, row) => <Tag color={row.status < 400 ? 'green' : 'red'}>{row.status}</Tag>,
          },
          { key: 'ip', dataIndex: 'ip', title: label('ip') },
        ]}
      />
    </Drawer>
  );
}
