import { PlusOutlined, ReloadOutlined } from '@ant-design/icons';
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
  Switch,
  Table,
  Tag,
  Typography,
} from 'antd';
import { useState } from 'react';
import type { Page, WebhookDelivery, WebhookDeliveryStatus, WebhookView } from '../../../engine/api-types.js';
import { formatDateTime } from '../../../web/format.js';
import { routeTitle, useT } from '../../i18n.js';
import { useApiGet, useApiWrite, useCanButton, withQuery } from '../../lib/api.js';
import type { AppRoute } from '../../lib/menus.js';
import { PagedTable, useSubmit } from '../../lib/screen-parts.js';
import { errorText } from '../../providers/data.js';
import { showFieldErrors } from '../../lib/form-errors.js';

const HOOKS = '/api/admin/syswebhook';
const PAGE_SIZE = 20;

const DELIVERY_COLOR: Record<WebhookDeliveryStatus, string> = {
  pending: 'blue',
  delivered: 'green',
  failed: 'red',
};

/**
 * Webhooks of the tenant (系统管理 › Webhook): where changes are posted, which events, a
 * condition, the write-only secret; each webhook's delivery log with 重发.
 */
export default function Webhooks({ route }: { route: AppRoute }) {
  const t = useT();
  const can = useCanButton(route.code);
  const hooks = useApiGet<WebhookView[]>(`${HOOKS}/query`);
  const { send } = useApiWrite();
  const submit = useSubmit();
  const [editing, setEditing] = useState<WebhookView | 'new' | undefined>();
  const [logOf, setLogOf] = useState<WebhookView | undefined>();
  const label = (field: string): string => t(`webhooks.${field}`);

  const remove = (row: WebhookView): Promise<void> =>
    submit(() => send('delete', withQuery(`${HOOKS}/delete`, { id: row.id })), {
      success: label('deleted'),
      after: () => hooks.refetch(),
    });

  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Typography.Paragraph type="secondary">{label('intro')}</Typography.Paragraph>
      <Flex gap={8} className="admin-screen-toolbar">
        {can('add') && (
          <Button
            type="primary"
            icon={<PlusOutlined />}
            onClick={() => setEditing('new')}
            data-testid="webhook-add"
          >
            {label('add')}
          </Button>
        )}
        <Button icon={<ReloadOutlined />} onClick={() => void hooks.refetch()}>
          {t('admin.tags.refresh')}
        </Button>
      </Flex>
      <Table<WebhookView>
        rowKey="id"
        dataSource={hooks.data ?? []}
        loading={hooks.isLoading}
        pagination={false}
        data-testid="webhook-list"
        columns={[
          { key: 'name', dataIndex: 'name', title: label('name') },
          {
            key: 'url',
            title: label('url'),
            render: (_value, row) => <Typography.Text code>{row.url}</Typography.Text>,
          },
          {
            key: 'eventTypes',
            title: label('eventTypes'),
            render: (_value, row) =>
              row.eventTypes.length === 0
                ? label('allEvents')
                : row.eventTypes.map((type) => <Tag key={type}>{type}</Tag>),
          },
          {
            key: 'entities',
            title: label('entities'),
            render: (_value, row) =>
              row.entities.length === 0
                ? label('allEntities')
                : row.entities.map((name) => <Tag key={name}>{name}</Tag>),
          },
          {
            key: 'status',
            title: label('status'),
            render: (_value, row) =>
              row.isEnabled ? (
                <Tag color="green">{label('enabled')}</Tag>
              ) : (
                <Tag color="red">
                  {label(row.disabledReason === 'failures' ? 'disabledByFailures' : 'disabled')}
                </Tag>
              ),
          },
          { key: 'failures', dataIndex: 'failures', title: label('failures') },
          {
            key: 'actions',
            title: label('actions'),
            fixed: 'right' as const,
            render: (_value, row) => (
              <Space>
                <Button size="small" onClick={() => setLogOf(row)} data-testid="webhook-deliveries">
                  {label('deliveries')}
                </Button>
                {can('edit') && (
                  <Button size="small" onClick={() => setEditing(row)} data-testid="webhook-edit">
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
                    <Button danger size="small" data-testid="webhook-delete">
                      {label('delete')}
                    </Button>
                  </Popconfirm>
                )}
              </Space>
            ),
          },
        ]}
      />
      {editing && (
        <EditWebhook
          current={editing === 'new' ? undefined : editing}
          onClose={(isSaved) => {
            setEditing(undefined);
            if (isSaved) void hooks.refetch();
          }}
        />
      )}
      {logOf && <Deliveries webhook={logOf} onClose={() => setLogOf(undefined)} />}
    </Card>
  );
}

interface HookForm {
  name: string;
  url: string;
  eventTypes: string[];
  entities: string[];
  condition?: string;
  secret?: string;
  isEnabled: boolean;
}

const FORM_FIELDS = ['name', 'url', 'eventTypes', 'entities', 'condition', 'secret', 'isEnabled'] as const;

/** `field=value` lines as the list filters' query parameters (a field named twice: its values). */
function conditionOf(text: string | undefined): Record<string, string | string[]> {
  const condition: Record<string, string | string[]> = {};
  for (const line of (text ?? '').split('\n')) {
    const at = line.indexOf('=');
    if (at <= 0) continue;
    const name = line.slice(0, at).trim();
    const value = line.slice(at + 1).trim();
    const held = condition[name];
    condition[name] = held === undefined ? value : [...(Array.isArray(held) ? held : [held]), value];
  }
  return condition;
}

const conditionText = (condition: Record<string, string | string[]>): string =>
  Object.entries(condition)
    .flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((item) => `${name}=${item}`))
    .join('\n');

/** The dialog that adds or changes a webhook; the secret is sent, never shown. */
function EditWebhook({ current, onClose }: { current?: WebhookView; onClose: (isSaved: boolean) => void }) {
  const t = useT();
  const { message } = App.useApp();
  const { send, isSending } = useApiWrite();
  const [form] = Form.useForm<HookForm>();
  const types = useApiGet<string[]>(`${HOOKS}/eventTypes`);
  const label = (field: string): string => t(`webhooks.${field}`);

  const save = async (): Promise<void> => {
    const values = await form.validateFields();
    const body = {
      name: values.name,
      url: values.url,
      eventTypes: values.eventTypes,
      entities: values.entities,
      condition: conditionOf(values.condition),
      isEnabled: values.isEnabled,
      ...(values.secret ? { secret: values.secret } : {}),
    };
    try {
      if (current) await send('put', `${HOOKS}/update`, { id: current.id, ...body }, { silent: true });
      else await send('post', `${HOOKS}/add`, body, { silent: true });
      void message.success(label('saved'));
      onClose(true);
    } catch (error) {
      if (!showFieldErrors(form, FORM_FIELDS, error)) void message.error(errorText(error));
    }
  };

  return (
    <Modal
      open
      title={label(current ? 'edit' : 'add')}
      onCancel={() => onClose(false)}
      onOk={() => void save()}
      okButtonProps={{ loading: isSending, 'data-testid': 'webhook-save' } as never}
      okText={t('admin.common.confirm')}
      cancelText={t('admin.common.cancel')}
      destroyOnHidden
      data-testid="webhook-form"
    >
      <Form<HookForm>
        form={form}
        layout="vertical"
        initialValues={{
          name: current?.name ?? '',
          url: current?.url ?? '',
          eventTypes: current?.eventTypes ?? [],
          entities: current?.entities ?? [],
          condition: current ? conditionText(current.condition) : '',
          isEnabled: current?.isEnabled ?? true,
        }}
      >
        <Form.Item name="name" label={label('name')} rules={[{ required: true, max: 64 }]}>
          <Input maxLength={64} data-testid="webhook-name" />
        </Form.Item>
        <Form.Item name="url" label={label('url')} rules={[{ required: true, max: 2000 }]}>
          <Input maxLength={2000} placeholder="https://" data-testid="webhook-url" />
        </Form.Item>
        <Form.Item name="eventTypes" label={label('eventTypes')} extra={label('allEvents')}>
          <Select
            mode="multiple"
            options={(types.data ?? []).map((type) => ({ value: type, label: type }))}
            data-testid="webhook-events"
          />
        </Form.Item>
        <Form.Item name="entities" label={label('entities')} extra={label('allEntities')}>
          <Select mode="tags" data-testid="webhook-entities" />
        </Form.Item>
        <Form.Item name="condition" label={label('condition')} extra={label('conditionHelp')}>
          <Input.TextArea rows={2} data-testid="webhook-condition" />
        </Form.Item>
        <Form.Item
          name="secret"
          label={label('secret')}
          extra={label('secretHelp')}
          rules={[{ required: current === undefined, min: 16, max: 200 }]}
        >
          <Input.Password autoComplete="new-password" data-testid="webhook-secret" />
        </Form.Item>
        <Form.Item name="isEnabled" label={label('isEnabled')} valuePropName="checked">
          <Switch data-testid="webhook-enabled" />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** A webhook's deliveries, newest first, each with 重发. */
function Deliveries({ webhook, onClose }: { webhook: WebhookView; onClose: () => void }) {
  const t = useT();
  const [page, setPage] = useState(1);
  const deliveries = useApiGet<Page<WebhookDelivery>>(`${HOOKS}/queryDeliveries`, {
    id: webhook.id,
    currentPage: page,
    pageSize: PAGE_SIZE,
  });
  const { send } = useApiWrite();
  const submit = useSubmit();
  const label = (field: string): string => t(`webhooks.${field}`);
  return (
    <Drawer
      open
      width={900}
      title={t('webhooks.deliveriesTitle', { name: webhook.name })}
      onClose={onClose}
      data-testid="webhook-deliveries-drawer"
    >
      <PagedTable<WebhookDelivery>
        read={deliveries}
        page={page}
        pageSize={PAGE_SIZE}
        onPage={setPage}
        columns={[
          { key: 'event', title: label('event'), render: (_value, row) => <Tag>{row.eventType}</Tag> },
          {
            key: 'record',
            title: label('record'),
            render: (_value, row) => (row.entity ? `${row.entity} #${row.recordKey ?? ''}` : ''),
          },
          {
            key: 'status',
            title: label('status'),
            render: (_value, row) => (
              <Tag color={DELIVERY_COLOR[row.status]} data-status={row.status}>
                {label(`deliveryStatuses.${row.status}`)}
              </Tag>
            ),
          },
          { key: 'attempts', dataIndex: 'attempts', title: label('attempts') },
          {
            key: 'lastAt',
            title: label('lastAt'),
            render: (_value, row) => (row.lastAt ? formatDateTime(row.lastAt) : ''),
          },
          {
            key: 'lastStatus',
            title: label('lastStatus'),
            render: (_value, row) => row.lastStatus ?? row.lastError ?? '',
          },
          {
            key: 'answer',
            title: label('answer'),
            render: (_value, row) => (
              <Typography.Text ellipsis={{ tooltip: row.lastAnswer }} style={{ maxWidth: 200 }}>
                {row.lastAnswer ?? ''}
              </Typography.Text>
            ),
          },
          {
            key: 'actions',
            title: label('actions'),
            render: (_value, row) => (
              <Button
                size="small"
                data-testid="webhook-redeliver"
                onClick={() =>
                  void submit(() => send('post', `${HOOKS}/redeliver`, { id: row.id }), {
                    success: label('redelivered'),
                    after: () => deliveries.refetch(),
                  })
                }
              >
                {label('redeliver')}
              </Button>
            ),
          },
        ]}
      />
    </Drawer>
  );
}
