import { Button, Card, Drawer, Input, InputNumber, Modal, Space, Table, Tabs, Tag } from 'antd';
import { useState } from 'react';
import { i18n, routeTitle, useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import { useApiGet, useApiWrite } from '../../lib/api.js';
import { useSubmit } from '../../lib/screen-parts.js';
import { AuditHistory } from './AuditHistory.js';
import type { MonitorConfig } from '../../../engine/api-types.js';
import { MONITOR_API } from './monitor-api.js';
import { paramTitle } from './param-title.js';

interface Param {
  id: number;
  paramName: string;
  paramKey: string;
  paramValue: string | null;
  version: number;
}

const PARAMS_URL = '/api/admin/sysparam';

/** The locales' text of a key when it is a string (params.rateLimit alone is a group). */
function translated(key: string): string | undefined {
  const text: unknown = i18n.exists(key) ? i18n.t(key, { returnObjects: true }) : undefined;
  return typeof text === 'string' ? text : undefined;
}

/** The params of the tenant: edit a value in place, see each one's history. */
function Params({ defaultNames }: { defaultNames: Readonly<Record<string, string>> }) {
  const t = useT();
  const params = useApiGet<{ records: Param[] }>(`${PARAMS_URL}/query`, {
    currentPage: 1,
    pageSize: 200,
    sort: 'paramKey',
  });
  const [editing, setEditing] = useState<{ param: Param; value: string } | undefined>(undefined);
  const [history, setHistory] = useState<Param | undefined>(undefined);
  const { send, isSending } = useApiWrite();
  const submit = useSubmit();
  return (
    <>
      <Table<Param>
        size="small"
        rowKey="id"
        loading={params.isLoading}
        dataSource={params.data?.records ?? []}
        pagination={{ pageSize: 20 }}
        data-testid="config-params"
        columns={[
          {
            title: t('monitor.config.paramKey'),
            dataIndex: 'paramKey',
            render: (key: string) => <code>{key}</code>,
          },
          {
            title: t('monitor.config.paramName'),
            dataIndex: 'paramName',
            render: (_: string, param) => paramTitle(param, defaultNames, translated),
          },
          { title: t('monitor.config.value'), dataIndex: 'paramValue', ellipsis: true },
          {
            title: t('monitor.common.actions'),
            key: 'actions',
            width: 200,
            render: (_, param) => (
              <Space>
                <Button size="small" onClick={() => setEditing({ param, value: param.paramValue ?? '' })}>
                  {t('monitor.common.edit')}
                </Button>
                <Button
                  size="small"
                  onClick={() => setHistory(param)}
                  data-testid={`history-${param.paramKey}`}
                >
                  {t('monitor.common.history')}
                </Button>
              </Space>
            ),
          },
        ]}
      />
      <Modal
        open={editing !== undefined}
        title={editing?.param.paramKey}
        confirmLoading={isSending}
        onCancel={() => setEditing(undefined)}
        onOk={() =>
          editing &&
          void submit(
            () =>
              send('put', `${PARAMS_URL}/update`, {
                id: editing.param.id,
                version: editing.param.version,
                paramName: editing.param.paramName,
                paramKey: editing.param.paramKey,
                paramValue: editing.value,
              }),
            {
              after: () => {
                setEditing(undefined);
                void params.refetch();
              },
            },
          )
        }
      >
        <Input.TextArea
          rows={4}
          value={editing?.value}
          aria-label={t('monitor.config.value')}
          onChange={(event) => setEditing(editing && { ...editing, value: event.target.value })}
        />
      </Modal>
      <Drawer
        open={history !== undefined}
        width={640}
        title={history?.paramKey}
        onClose={() => setHistory(undefined)}
      >
        {history ? <AuditHistory entity="sysparam" recordKey={String(history.id)} /> : null}
      </Drawer>
    </>
  );
}

/** Monitoring settings (params of the platform): log retention and the slow-statement threshold. */
function Settings({ config, onSaved }: { config: MonitorConfig; onSaved: () => void }) {
  const t = useT();
  const [values, setValues] = useState<Record<string, number | null>>({});
  const { send } = useApiWrite();
  const submit = useSubmit();
  return (
    <Table
      size="small"
      rowKey="name"
      pagination={false}
      dataSource={config.settings}
      data-testid="config-settings"
      columns={[
        {
          title: t('monitor.config.setting'),
          dataIndex: 'name',
          render: (name: string) => t(`monitor.config.settings.${name}`),
        },
        {
          title: t('monitor.config.paramKey'),
          dataIndex: 'param',
          render: (param: string) => <code>{param}</code>,
        },
        {
          title: t('monitor.config.value'),
          key: 'value',
          render: (_, setting) => (
            <Space>
              <InputNumber
                min={1}
                max={setting.max}
                aria-label={t(`monitor.config.settings.${setting.name}`)}
                value={values[setting.name] ?? setting.value}
                onChange={(value) => setValues({ ...values, [setting.name]: value })}
              />
              <Button
                type="primary"
                onClick={() =>
                  void submit(
                    () =>
                      send('put', `${MONITOR_API}/settings`, {
                        name: setting.name,
                        value: values[setting.name] ?? setting.value,
                      }),
                    { after: onSaved },
                  )
                }
              >
                {t('monitor.common.save')}
              </Button>
              <Tag>{t(`monitor.config.source.${setting.source}`)}</Tag>
            </Space>
          ),
        },
      ]}
    />
  );
}

/**
 * Config centre (docs/product.md §2.3 monitor/configcenter): the params with edit and history, the
 * monitoring settings, and the effective configuration of this server process with where each
 * value came from (secrets masked by the server).
 */
export default function ConfigCenter({ route }: { route: AppRoute }) {
  const t = useT();
  const config = useApiGet<MonitorConfig>(`${MONITOR_API}/config`);
  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Tabs
        items={[
          {
            key: 'params',
            label: t('monitor.config.params'),
            children: <Params defaultNames={config.data?.paramNames ?? {}} />,
          },
          {
            key: 'settings',
            label: t('monitor.config.monitoring'),
            children: config.data ? (
              <Settings config={config.data} onSaved={() => void config.refetch()} />
            ) : null,
          },
          {
            key: 'effective',
            label: t('monitor.config.effective'),
            children: (
              <Table
                size="small"
                rowKey="name"
                loading={config.isLoading}
                dataSource={config.data?.entries ?? []}
                pagination={false}
                data-testid="config-effective"
                columns={[
                  {
                    title: t('monitor.config.variable'),
                    dataIndex: 'name',
                    render: (name: string) => <code>{name}</code>,
                  },
                  {
                    title: t('monitor.config.value'),
                    dataIndex: 'value',
                    render: (value: string) => <span className="monitor-mono">{value}</span>,
                  },
                  {
                    title: t('monitor.config.from'),
                    dataIndex: 'source',
                    render: (source: string) => (
                      <Tag color={source === 'environment' ? 'blue' : 'default'}>
                        {t(`monitor.config.source.${source}`)}
                      </Tag>
                    ),
                  },
                ]}
              />
            ),
          },
        ]}
      />
    </Card>
  );
}
