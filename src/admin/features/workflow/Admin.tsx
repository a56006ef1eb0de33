import { UploadOutlined } from '@ant-design/icons';
import { App, Button, Checkbox, Form, Input, Modal, Popconfirm, Space, Typography, Upload } from 'antd';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { WfDeployAnswer } from '../../../engine/api-types.js';
import { useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import { useApiGet, useApiWrite, useCanButton, withQuery } from '../../lib/api.js';
import { useSubmit } from '../../lib/screen-parts.js';
import { WF, type Definition, type Instance, type Row, type Task } from './api.js';
import { CommentDialog, DefinitionDiagram, label, StatusTag, time, WfList } from './parts.js';
import { DeploymentResources, TransferField } from './Resources.js';
import { StartDialog } from './StartDialog.js';
import { UserTreeSelect } from './UserTreeSelect.js';

/** The administrators' workflow lists (docs/product.md §2.3 workflow): deployments, definitions, instances, tasks, history. */

type ScreenProps = { route: AppRoute };

/** A counter that, bumped after an action, makes the list read again. */
function useRefresh(): [number, () => void] {
  const [key, setKey] = useState(0);
  return [key, () => setKey((value) => value + 1)];
}

/** The delete button of a list row: asks first, then deletes and reads the list again. */
function DeleteButton({ url, after, testId }: { url: string; after: () => void; testId: string }) {
  const t = useT();
  const { send } = useApiWrite();
  const submit = useSubmit();
  return (
    <Popconfirm
      title={label(t, 'confirmDelete')}
      okText={t('admin.common.confirm')}
      cancelText={t('admin.common.cancel')}
      onConfirm={() => submit(() => send('post', url), { after })}
    >
      <Button size="small" danger data-testid={testId}>
        {t('dicts.menu_button.delete', { defaultValue: label(t, 'delete') })}
      </Button>
    </Popconfirm>
  );
}

export function Deployments({ route }: ScreenProps) {
  const t = useT();
  const can = useCanButton(route.code);
  const { send } = useApiWrite();
  const submit = useSubmit();
  const [refreshKey, refresh] = useRefresh();
  const [isDeploying, setDeploying] = useState(false);
  const [form] = Form.useForm<{ name?: string; category?: string; codeAsExternalTasks?: boolean }>();
  const [xml, setXml] = useState<{ name: string; text: string } | null>(null);
  const [browsing, setBrowsing] = useState<Row | null>(null);
  const { message } = App.useApp();
  const deploy = (): Promise<void> =>
    submit(
      async () => {
        const values = await form.validateFields();
        const answer = await send<WfDeployAnswer>('post', `${WF}/deployment/deployXml`, {
          xml: xml?.text ?? '',
          ...values,
        });
        // What was read otherwise than written (an element made an external task, a group
        // mapped, markup ignored): each said, as the designer's deploy says it; an earlier
        // attempt's refusal no longer holds.
        message.destroy();
        for (const warning of answer.warnings) void message.warning(warning.message);
      },
      {
        after: () => {
          setDeploying(false);
          setXml(null);
          refresh();
        },
      },
    );
  return (
    <>
      <WfList<Row>
        route={route}
        path="deployment/query"
        testId="wf-deployments"
        refreshKey={refreshKey}
        toolbar={
          can('add') && (
            <Button type="primary" icon={<UploadOutlined />} onClick={() => setDeploying(true)}>
              {label(t, 'deployFile')}
            </Button>
          )
        }
        columns={[
          { key: 'id', dataIndex: 'id', title: 'ID' },
          { key: 'name', dataIndex: 'name', title: label(t, 'name') },
          { key: 'category', dataIndex: 'category', title: label(t, 'category') },
          { key: 'resourceName', dataIndex: 'resourceName', title: label(t, 'resourceName') },
          { key: 'deployedBy', dataIndex: 'deployedBy', title: label(t, 'deployedBy') },
          { key: 'time', title: label(t, 'deploymentTime'), render: (_v, row) => time(row.deploymentTime) },
          {
            key: 'actions',
            title: label(t, 'actions'),
            render: (_v, row) => (
              <Space size={4} wrap>
                <Button size="small" onClick={() => setBrowsing(row)} data-testid="deployment-resources">
                  {label(t, 'resources')}
                </Button>
                {can('delete') && (
                  <DeleteButton
                    url={withQuery(`${WF}/deployment/delete`, { id: row.id })}
                    after={refresh}
                    testId="delete-deployment"
                  />
                )}
              </Space>
            ),
          },
        ]}
      />
      {browsing && <DeploymentResources deployment={browsing} onClose={() => setBrowsing(null)} />}
      <Modal
        open={isDeploying}
        title={label(t, 'deployFile')}
        okText={label(t, 'deploy')}
        cancelText={t('admin.common.cancel')}
        okButtonProps={{ disabled: !xml }}
        onOk={() => void deploy()}
        onCancel={() => setDeploying(false)}
        destroyOnHidden
      >
        <Form form={form} layout="vertical" preserve={false}>
          <Form.Item name="name" label={label(t, 'name')} rules={[{ max: 100 }]}>
            <Input maxLength={100} />
          </Form.Item>
          <Form.Item name="category" label={label(t, 'category')} rules={[{ max: 100 }]}>
            <Input maxLength={100} />
          </Form.Item>
          <Form.Item
            name="codeAsExternalTasks"
            valuePropName="checked"
            extra={label(t, 'codeAsExternalTasksHelp')}
          >
            <Checkbox data-testid="code-as-external">{label(t, 'codeAsExternalTasks')}</Checkbox>
          </Form.Item>
        </Form>
        <Upload
          accept=".bpmn,.xml,.bpmn20.xml"
          maxCount={1}
          showUploadList={false}
          beforeUpload={(file) => {
            void file.text().then((text) => setXml({ name: file.name, text }));
            return false;
          }}
        >
          <Button icon={<UploadOutlined />}>{label(t, 'chooseFile')}</Button>
        </Upload>
        {xml && <Typography.Paragraph className="wf-file">{xml.name}</Typography.Paragraph>}
      </Modal>
    </>
  );
}

function XmlDialog({ definition, onClose }: { definition: Definition; onClose: () => void }) {
  const t = useT();
  const file = useApiGet<{ xml: string }>(`${WF}/processdefinition/xml`, { id: definition.id });
  return (
    <Modal
      open
      width={960}
      title={`${definition.name ?? definition.key} v${definition.version}`}
      footer={null}
      onCancel={onClose}
      destroyOnHidden
    >
      {file.data && (
        <>
          <DefinitionDiagram xml={file.data.xml} processKey={definition.key} />
          <Typography.Title level={5}>{label(t, 'xml')}</Typography.Title>
          <pre className="wf-xml" tabIndex={0} data-testid="wf-xml">
            {file.data.xml}
          </pre>
        </>
      )}
    </Modal>
  );
}

export function Definitions({ route }: ScreenProps) {
  const t = useT();
  const can = useCanButton(route.code);
  const { send } = useApiWrite();
  const submit = useSubmit();
  const [refreshKey, refresh] = useRefresh();
  const [viewing, setViewing] = useState<Definition | null>(null);
  const [starting, setStarting] = useState<Definition | null>(null);
  const confirm = useConfirmSuspendDefinition();
  const act = async (row: Definition, action: 'suspend' | 'activate') => {
    const choice = action === 'suspend' ? await confirm(row) : { instances: false };
    if (!choice) return;
    await submit(
      () =>
        send(
          'post',
          withQuery(`${WF}/processdefinition/${action}`, {
            id: row.id,
            ...(choice.instances ? { instances: 'true' } : {}),
          }),
        ),
      { after: refresh },
    );
  };
  return (
    <>
      <WfList<Definition>
        route={route}
        path="processdefinition/query"
        testId="wf-definitions"
        refreshKey={refreshKey}
        columns={[
          { key: 'id', dataIndex: 'id', title: 'ID' },
          { key: 'key', dataIndex: 'key', title: label(t, 'key') },
          { key: 'name', dataIndex: 'name', title: label(t, 'name') },
          { key: 'version', dataIndex: 'version', title: label(t, 'version') },
          { key: 'category', dataIndex: 'category', title: label(t, 'category') },
          { key: 'resourceName', dataIndex: 'resourceName', title: label(t, 'resourceName') },
          {
            key: 'state',
            title: label(t, 'state'),
            render: (_v, row) => <StatusTag status={row.suspended ? 'suspended' : 'active'} />,
          },
          {
            key: 'actions',
            title: label(t, 'actions'),
            render: (_v, row) => (
              <Space size={4} wrap>
                <Button size="small" onClick={() => setViewing(row)}>
                  {label(t, 'diagramAndXml')}
                </Button>
                {row.suspended
                  ? can('activate') && (
                      <Button size="small" onClick={() => void act(row, 'activate')}>
                        {label(t, 'activate')}
                      </Button>
                    )
                  : can('suspend') && (
                      <Button size="small" onClick={() => void act(row, 'suspend')}>
                        {label(t, 'suspend')}
                      </Button>
                    )}
                {!row.suspended && (
                  <Button size="small" type="primary" onClick={() => setStarting(row)}>
                    {label(t, 'start')}
                  </Button>
                )}
                {can('delete') && (
                  <DeleteButton
                    url={withQuery(`${WF}/processdefinition/delete`, { id: row.id })}
                    after={refresh}
                    testId="delete-definition"
                  />
                )}
              </Space>
            ),
          },
        ]}
      />
      {viewing && <XmlDialog definition={viewing} onClose={() => setViewing(null)} />}
      {starting && <StartDialog definition={starting} onClose={() => setStarting(null)} />}
    </>
  );
}

/** Suspend / activate / terminate of an instance, shared by the instance list and its page. */
/** Asks before a suspension (挂起): says what it stops; resolves to whether to go on. */
/**
 * 挂起 of a definition asks first, with 同时挂起运行中的流程实例 (off: the running instances go on,
 * on: they are suspended with it); answers the choice, or null when cancelled.
 */
function useConfirmSuspendDefinition(): (row: Definition) => Promise<{ instances: boolean } | null> {
  const t = useT();
  const { modal } = App.useApp();
  return (row) =>
    new Promise((resolve) => {
      const choice = { instances: false };
      void modal.confirm({
        title: label(t, 'suspendTitle'),
        content: (
          <div data-testid="suspend-definition-confirm">
            <Typography.Paragraph>
              {label(t, 'suspendDefinitionAsk', { name: row.name ?? row.key, version: row.version })}
            </Typography.Paragraph>
            <Checkbox
              data-testid="suspend-instances"
              onChange={(event) => {
                choice.instances = event.target.checked;
              }}
            >
              {label(t, 'suspendInstancesToo')}
            </Checkbox>
          </div>
        ),
        okText: label(t, 'suspend'),
        cancelText: t('admin.common.cancel'),
        onOk: () => resolve({ ...choice }),
        onCancel: () => resolve(null),
      });
    });
}

export function useConfirmSuspend(): (text: string) => Promise<boolean> {
  const t = useT();
  const { modal } = App.useApp();
  return (text) =>
    new Promise((resolve) => {
      void modal.confirm({
        title: label(t, 'suspendTitle'),
        content: text,
        okText: label(t, 'suspend'),
        cancelText: t('admin.common.cancel'),
        onOk: () => resolve(true),
        onCancel: () => resolve(false),
      });
    });
}

export function useInstanceActions(after: () => void) {
  const t = useT();
  const { send } = useApiWrite();
  const submit = useSubmit();
  const confirm = useConfirmSuspend();
  return {
    setSuspended: async (row: Instance, suspended: boolean) => {
      if (suspended && !(await confirm(label(t, 'suspendInstanceText', { name: row.name ?? row.id }))))
        return;
      await submit(
        () =>
          send(
            'post',
            withQuery(`${WF}/processinstance/${suspended ? 'suspend' : 'activate'}`, { id: row.id }),
          ),
        { after },
      );
    },
    terminate: (row: Instance, comment: string) =>
      submit(() => send('post', `${WF}/processinstance/terminate`, { id: row.id, comment }), { after }),
  };
}

export function Instances({ route }: ScreenProps) {
  const t = useT();
  const can = useCanButton(route.code);
  const navigate = useNavigate();
  const [refreshKey, refresh] = useRefresh();
  const actions = useInstanceActions(refresh);
  const [terminating, setTerminating] = useState<Instance | null>(null);
  return (
    <>
      <WfList<Instance>
        route={route}
        path="processinstance/query"
        query={{ ended: 'false' }}
        testId="wf-instances"
        refreshKey={refreshKey}
        columns={[
          { key: 'id', dataIndex: 'id', title: 'ID' },
          { key: 'name', dataIndex: 'name', title: label(t, 'processName') },
          { key: 'description', dataIndex: 'description', title: label(t, 'description'), ellipsis: true },
          { key: 'startUserId', dataIndex: 'startUserId', title: label(t, 'startUser') },
          { key: 'startTime', title: label(t, 'startTime'), render: (_v, row) => time(row.startTime) },
          {
            key: 'status',
            title: label(t, 'status'),
            render: (_v, row) => <StatusTag status={row.status} suspended={row.suspended} />,
          },
          {
            key: 'actions',
            title: label(t, 'actions'),
            render: (_v, row) => (
              <Space size={4} wrap>
                <Button size="small" onClick={() => navigate(`/execution?id=${row.id}`)}>
                  {label(t, 'execution')}
                </Button>
                {!row.ended &&
                  (row.suspended
                    ? can('activate') && (
                        <Button size="small" onClick={() => void actions.setSuspended(row, false)}>
                          {label(t, 'activate')}
                        </Button>
                      )
                    : can('suspend') && (
                        <Button size="small" onClick={() => void actions.setSuspended(row, true)}>
                          {label(t, 'suspend')}
                        </Button>
                      ))}
                {!row.ended && can('terminate') && (
                  <Button size="small" danger onClick={() => setTerminating(row)}>
                    {label(t, 'terminate')}
                  </Button>
                )}
                {can('delete') && (
                  <DeleteButton
                    url={withQuery(`${WF}/processinstance/delete`, { id: row.id })}
                    after={refresh}
                    testId="delete-instance"
                  />
                )}
              </Space>
            ),
          },
        ]}
      />
      <CommentDialog
        open={terminating !== null}
        title={label(t, 'terminate')}
        onDone={(values) => {
          const row = terminating;
          setTerminating(null);
          if (values && row) void actions.terminate(row, String(values.comment));
        }}
      />
    </>
  );
}

export function AllTasks({ route }: ScreenProps) {
  const t = useT();
  const navigate = useNavigate();
  const { send } = useApiWrite();
  const submit = useSubmit();
  const [refreshKey, refresh] = useRefresh();
  const [assigning, setAssigning] = useState<Task | null>(null);
  const [transferring, setTransferring] = useState<Task | null>(null);
  const [terminating, setTerminating] = useState<Task | null>(null);
  return (
    <>
      <WfList<Task>
        route={route}
        path="task/query"
        query={{ finished: 'false' }}
        testId="wf-tasks"
        refreshKey={refreshKey}
        columns={[
          { key: 'id', dataIndex: 'id', title: 'ID' },
          { key: 'name', dataIndex: 'name', title: label(t, 'taskName') },
          { key: 'process', dataIndex: 'processInstanceName', title: label(t, 'processName') },
          { key: 'assignee', dataIndex: 'assignee', title: label(t, 'assignee') },
          {
            key: 'status',
            title: label(t, 'status'),
            render: (_v, row) => <StatusTag status={row.status} />,
          },
          { key: 'startTime', title: label(t, 'createTime'), render: (_v, row) => time(row.startTime) },
          {
            key: 'actions',
            title: label(t, 'actions'),
            render: (_v, row) => (
              <Space size={4} wrap>
                <Button size="small" onClick={() => navigate(`/taskdetails?id=${row.id}`)}>
                  {label(t, 'view')}
                </Button>
                <Button size="small" onClick={() => setAssigning(row)}>
                  {label(t, 'assign')}
                </Button>
                {/* 转办: a delegated task waits for its delegate (the server answers 409) */}
                {row.status !== 'delegated' && (
                  <Button size="small" onClick={() => setTransferring(row)} data-testid="transfer-task">
                    {label(t, 'transfer')}
                  </Button>
                )}
                <Button size="small" danger onClick={() => setTerminating(row)}>
                  {label(t, 'terminate')}
                </Button>
              </Space>
            ),
          },
        ]}
      />
      <CommentDialog
        open={assigning !== null}
        title={label(t, 'assign')}
        onDone={(values) => {
          const row = assigning;
          setAssigning(null);
          if (values && row)
            void submit(
              () =>
                send('post', `${WF}/task/assignTask`, {
                  id: row.id,
                  username: String(values.username).trim(),
                  comment: values.comment,
                }),
              { after: refresh },
            );
        }}
      >
        <Form.Item
          name="username"
          label={label(t, 'username')}
          rules={[{ required: true, whitespace: true, message: label(t, 'usernameRequired') }]}
        >
          <UserTreeSelect data-testid="assign-username" popupClassName="wf-user-popup" />
        </Form.Item>
      </CommentDialog>
      <CommentDialog
        open={transferring !== null}
        title={label(t, 'transfer')}
        onDone={(values) => {
          const row = transferring;
          setTransferring(null);
          if (values && row)
            void submit(
              () =>
                send('post', `${WF}/task/transferTask`, {
                  id: row.id,
                  username: String(values.username).trim(),
                  comment: values.comment,
                }),
              { success: label(t, 'done.transfer'), after: refresh },
            );
        }}
      >
        <TransferField hint="transferHintAdmin" />
      </CommentDialog>
      <CommentDialog
        open={terminating !== null}
        title={label(t, 'terminate')}
        onDone={(values) => {
          const row = terminating;
          setTerminating(null);
          if (values && row)
            void submit(
              () =>
                send('post', `${WF}/processinstance/terminate`, {
                  id: row.processInstanceId,
                  comment: values.comment,
                }),
              { after: refresh },
            );
        }}
      />
    </>
  );
}

export function HistoricInstances({ route }: ScreenProps) {
  const t = useT();
  const navigate = useNavigate();
  const can = useCanButton(route.code);
  const [refreshKey, refresh] = useRefresh();
  return (
    <WfList<Instance>
      route={route}
      path="history/processinstance/query"
      searchField="processDefinitionKey"
      testId="wf-historic-instances"
      refreshKey={refreshKey}
      columns={[
        { key: 'id', dataIndex: 'id', title: 'ID' },
        { key: 'name', dataIndex: 'name', title: label(t, 'processName') },
        { key: 'key', dataIndex: 'processDefinitionKey', title: label(t, 'key') },
        { key: 'startUserId', dataIndex: 'startUserId', title: label(t, 'startUser') },
        { key: 'startTime', title: label(t, 'startTime'), render: (_v, row) => time(row.startTime) },
        { key: 'endTime', title: label(t, 'endTime'), render: (_v, row) => time(row.endTime) },
        { key: 'status', title: label(t, 'status'), render: (_v, row) => <StatusTag status={row.status} /> },
        {
          key: 'actions',
          title: label(t, 'actions'),
          render: (_v, row) => (
            <Space size={4} wrap>
              {(['historicactivityinstance', 'historicdetail', 'historicvariableinstance'] as const).map(
                (page) => (
                  <Button
                    key={page}
                    size="small"
                    onClick={() => navigate(`/${page}?processInstanceId=${row.id}`)}
                    data-testid={`open-${page}`}
                  >
                    {t(`menus.${page}`)}
                  </Button>
                ),
              )}
              {row.ended && can('delete') && (
                <DeleteButton
                  url={withQuery(`${WF}/history/processinstance/delete`, { id: row.id })}
                  after={refresh}
                  testId="delete-historic-instance"
                />
              )}
            </Space>
          ),
        },
      ]}
    />
  );
}

export function HistoricTasks({ route }: ScreenProps) {
  const t = useT();
  const navigate = useNavigate();
  const can = useCanButton(route.code);
  const [refreshKey, refresh] = useRefresh();
  return (
    <WfList<Task>
      route={route}
      path="history/taskinstance/query"
      searchField="assignee"
      testId="wf-historic-tasks"
      refreshKey={refreshKey}
      columns={[
        { key: 'id', dataIndex: 'id', title: 'ID' },
        { key: 'name', dataIndex: 'name', title: label(t, 'taskName') },
        { key: 'process', dataIndex: 'processInstanceName', title: label(t, 'processName') },
        { key: 'assignee', dataIndex: 'assignee', title: label(t, 'assignee') },
        { key: 'status', title: label(t, 'status'), render: (_v, row) => <StatusTag status={row.status} /> },
        { key: 'startTime', title: label(t, 'createTime'), render: (_v, row) => time(row.startTime) },
        { key: 'endTime', title: label(t, 'endTime'), render: (_v, row) => time(row.endTime) },
        {
          key: 'actions',
          title: label(t, 'actions'),
          render: (_v, row) => (
            <Space size={4} wrap>
              <Button size="small" onClick={() => navigate(`/historictaskdetails?id=${row.id}`)}>
                {label(t, 'view')}
              </Button>
              {row.endTime && can('delete') && (
                <DeleteButton
                  url={withQuery(`${WF}/history/taskinstance/delete`, { id: row.id })}
                  after={refresh}
                  testId="delete-historic-task"
                />
              )}
            </Space>
          ),
        },
      ]}
    />
  );
}
