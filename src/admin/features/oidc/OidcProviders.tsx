import { PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import {
  App,
  Button,
  Card,
  Checkbox,
  Divider,
  Flex,
  Form,
  Input,
  InputNumber,
  Modal,
  Popconfirm,
  Select,
  Space,
  Switch,
  Table,
  Tag,
  Typography,
} from 'antd';
import { useState } from 'react';
import {
  OIDC_DEFAULT_CLAIMS,
  OIDC_DEFAULT_SCOPES,
  type OidcClaimMap,
  type OidcProviderView,
  type Page,
} from '../../../engine/api-types.js';
import { routeTitle, useT } from '../../i18n.js';
import { useApiGet, useApiWrite, useCanButton, withQuery } from '../../lib/api.js';
import type { AppRoute } from '../../lib/menus.js';
import { useSubmit } from '../../lib/screen-parts.js';
import { errorText } from '../../providers/data.js';
import { showFieldErrors } from '../../lib/form-errors.js';

const BASE = '/api/admin/sysoidc';
/** The address providers send the browser back to (PUBLIC_URL when the site sets one: the same origin). */
const callbackUrl = (): string => `${window.location.origin}/api/oidc/callback`;

/**
 * OpenID Connect providers of the tenant (系统管理 › 单点登录): issuer, client, scopes, the claim
 * map and what new users get; the client secret is written, never shown.
 */
export default function OidcProviders({ route }: { route: AppRoute }) {
  const t = useT();
  const can = useCanButton(route.code);
  const providers = useApiGet<OidcProviderView[]>(`${BASE}/query`);
  const { send } = useApiWrite();
  const submit = useSubmit();
  const [editing, setEditing] = useState<OidcProviderView | 'new' | undefined>();
  const label = (field: string): string => t(`oidc.${field}`);

  const remove = (row: OidcProviderView): Promise<void> =>
    submit(() => send('post', withQuery(`${BASE}/delete`, { id: row.id })), {
      success: label('deleted'),
      after: () => providers.refetch(),
    });

  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Typography.Paragraph type="secondary">{label('intro')}</Typography.Paragraph>
      <Typography.Paragraph>
        {label('callbackUrl')}:{' '}
        <Typography.Text code copyable data-testid="oidc-callback">
          {callbackUrl()}
        </Typography.Text>
      </Typography.Paragraph>
      <Flex gap={8} className="admin-screen-toolbar">
        {can('add') && (
          <Button
            type="primary"
            icon={<PlusOutlined />}
            onClick={() => setEditing('new')}
            data-testid="oidc-add"
          >
            {label('add')}
          </Button>
        )}
        <Button icon={<ReloadOutlined />} onClick={() => void providers.refetch()}>
          {t('admin.tags.refresh')}
        </Button>
      </Flex>
      <Table<OidcProviderView>
        rowKey="id"
        loading={providers.isLoading}
        dataSource={providers.data ?? []}
        pagination={false}
        data-testid="oidc-list"
        scroll={{ x: 'max-content' }}
        columns={[
          { key: 'name', dataIndex: 'name', title: label('name') },
          { key: 'issuer', dataIndex: 'issuer', title: label('issuer') },
          { key: 'clientId', dataIndex: 'clientId', title: label('clientId') },
          {
            key: 'newUserRoles',
            title: label('newUserRoles'),
            render: (_value, row) => row.newUserRoles.map((role) => <Tag key={role}>{role}</Tag>),
          },
          {
            key: 'createUsers',
            title: label('createUsers'),
            render: (_value, row) => (row.createUsers ? label('yes') : label('no')),
          },
          {
            key: 'enabled',
            title: label('status'),
            render: (_value, row) => (
              <Tag color={row.enabled ? 'green' : 'default'}>
                {row.enabled ? label('enabled') : label('disabled')}
              </Tag>
            ),
          },
          {
            key: 'actions',
            title: label('actions'),
            fixed: 'right' as const,
            render: (_value, row) => (
              <Space>
                {can('edit') && (
                  <Button size="small" onClick={() => setEditing(row)} data-testid="oidc-edit">
                    {label('edit')}
                  </Button>
                )}
                {can('delete') && (
                  <Popconfirm
                    title={label('deleteConfirm')}
                    onConfirm={() => remove(row)}
                    okText={t('admin.common.confirm')}
                    cancelText={t('admin.common.cancel')}
                  >
                    <Button danger size="small" data-testid="oidc-delete">
                      {label('delete')}
                    </Button>
                  </Popconfirm>
                )}
              </Space>
            ),
          },
        ]}
      />
      {editing !== undefined && (
        <ProviderForm
          provider={editing === 'new' ? undefined : editing}
          onClose={(saved) => {
            setEditing(undefined);
            if (saved) void providers.refetch();
          }}
        />
      )}
    </Card>
  );
}

interface ProviderValues {
  name: string;
  issuer: string;
  clientId: string;
  clientSecret?: string;
  removeSecret?: boolean;
  scopes: string;
  claims: OidcClaimMap;
  newUserRoles: string[];
  newUserOrgId?: number | null;
  createUsers: boolean;
  allowPrivateNetwork: boolean;
  enabled: boolean;
  sequence: number;
}

const FORM_FIELDS = [
  'name',
  'issuer',
  'clientId',
  'clientSecret',
  'scopes',
  'claims',
  'newUserRoles',
  'newUserOrgId',
  'createUsers',
  'allowPrivateNetwork',
  'enabled',
  'sequence',
] as const;

/** The dialog that adds or changes a provider. */
function ProviderForm({
  provider,
  onClose,
}: {
  provider?: OidcProviderView;
  onClose: (saved: boolean) => void;
}) {
  const t = useT();
  const { message } = App.useApp();
  const { send, isSending } = useApiWrite();
  const [form] = Form.useForm<ProviderValues>();
  const roles = useApiGet<Page<{ id: number; roleCode: string; roleName: string }>>(
    '/api/admin/sysrole/query',
    {
      currentPage: 1,
      pageSize: 500,
    },
  );
  const orgs = useApiGet<Page<{ id: number; orgName: string }>>('/api/admin/sysorg/query', {
    currentPage: 1,
    pageSize: 500,
  });
  const removeSecret = Form.useWatch('removeSecret', form);
  const label = (field: string): string => t(`oidc.${field}`);

  const save = async (): Promise<void> => {
    const { removeSecret: isRemoving, clientSecret, ...values } = await form.validateFields();
    const secret = isRemoving ? { clientSecret: '' } : clientSecret ? { clientSecret } : {};
    const body = { ...values, newUserOrgId: values.newUserOrgId ?? null, ...secret };
    try {
      await send(
        'post',
        provider ? `${BASE}/update` : `${BASE}/add`,
        provider ? { id: provider.id, ...body } : body,
        { silent: true },
      );
      void message.success(label('saved'));
      onClose(true);
    } catch (error) {
      if (!showFieldErrors(form, FORM_FIELDS, error)) void message.error(errorText(error));
    }
  };

  return (
    <Modal
      open
      width={720}
      title={provider ? label('edit') : label('add')}
      onCancel={() => onClose(false)}
      onOk={() => void save()}
      okButtonProps={{ loading: isSending, 'data-testid': 'oidc-save' } as never}
      okText={t('admin.common.confirm')}
      cancelText={t('admin.common.cancel')}
      destroyOnHidden
      data-testid="oidc-form"
    >
      <Form<ProviderValues>
        form={form}
        layout="vertical"
        initialValues={
          provider
            ? { ...provider, clientSecret: '' }
            : {
                scopes: OIDC_DEFAULT_SCOPES,
                claims: OIDC_DEFAULT_CLAIMS,
                newUserRoles: [],
                newUserOrgId: null,
                createUsers: false,
                allowPrivateNetwork: false,
                enabled: true,
                sequence: 0,
              }
        }
      >
        <Form.Item name="name" label={label('name')} rules={[{ required: true, whitespace: true, max: 64 }]}>
          <Input maxLength={64} data-testid="oidc-name" />
        </Form.Item>
        <Form.Item
          name="issuer"
          label={label('issuer')}
          extra={label('issuerHelp')}
          rules={[{ required: true, whitespace: true, max: 500 }]}
        >
          <Input maxLength={500} data-testid="oidc-issuer" />
        </Form.Item>
        <Flex gap={16}>
          <Form.Item
            name="clientId"
            label={label('clientId')}
            rules={[{ required: true, whitespace: true, max: 200 }]}
            style={{ flex: 1 }}
          >
            <Input maxLength={200} data-testid="oidc-client-id" />
          </Form.Item>
          <Form.Item name="clientSecret" label={label('clientSecret')} style={{ flex: 1 }}>
            <Input.Password
              maxLength={500}
              autoComplete="new-password"
              disabled={removeSecret === true}
              placeholder={provider?.hasSecret ? label('secretStored') : label('secretNone')}
              data-testid="oidc-client-secret"
            />
          </Form.Item>
        </Flex>
        {provider?.hasSecret && (
          <Form.Item name="removeSecret" valuePropName="checked">
            <Checkbox>{label('removeSecret')}</Checkbox>
          </Form.Item>
        )}
        <Form.Item name="scopes" label={label('scopes')} rules={[{ required: true, max: 200 }]}>
          <Input maxLength={200} />
        </Form.Item>
        <Divider orientation="left">{label('claims')}</Divider>
        <Flex gap={16} wrap>
          {(['username', 'nickname', 'email', 'mobile'] as const).map((claim) => (
            <Form.Item
              key={claim}
              name={['claims', claim]}
              label={label(`claim${claim[0]?.toUpperCase() ?? ''}${claim.slice(1)}`)}
              rules={[{ max: 64 }]}
              style={{ flex: '1 1 140px' }}
            >
              <Input maxLength={64} />
            </Form.Item>
          ))}
        </Flex>
        <Divider />
        <Form.Item
          name="createUsers"
          label={label('createUsers')}
          extra={label('createUsersHelp')}
          valuePropName="checked"
        >
          <Switch data-testid="oidc-create-users" />
        </Form.Item>
        <Form.Item name="newUserRoles" label={label('newUserRoles')}>
          <Select
            mode="multiple"
            loading={roles.isLoading}
            options={(roles.data?.records ?? []).map((role) => ({
              value: role.roleCode,
              label: `${role.roleName} (${role.roleCode})`,
            }))}
            data-testid="oidc-roles"
          />
        </Form.Item>
        <Form.Item name="newUserOrgId" label={label('newUserOrg')}>
          <Select
            allowClear
            placeholder={label('newUserOrgDefault')}
            loading={orgs.isLoading}
            options={(orgs.data?.records ?? []).map((org) => ({ value: org.id, label: org.orgName }))}
          />
        </Form.Item>
        <Flex gap={16}>
          <Form.Item name="enabled" label={label('enabled')} valuePropName="checked">
            <Switch />
          </Form.Item>
          <Form.Item name="sequence" label={label('sequence')}>
            <InputNumber min={0} max={9999} precision={0} />
          </Form.Item>
        </Flex>
        <Form.Item
          name="allowPrivateNetwork"
          label={label('allowPrivateNetwork')}
          extra={label('allowPrivateNetworkHelp')}
          valuePropName="checked"
        >
          <Switch data-testid="oidc-private" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
