import { Button, Card, Descriptions, Empty, Space, Spin, Table, Tabs } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { routeTitle, useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import { useApiGet, useApiWrite } from '../../lib/api.js';
import { tab, useSubmit } from '../../lib/screen-parts.js';
import { idParam, WF, type InstanceDetail, type Row, type TaskDetail } from './api.js';
import { useInstanceActions } from './Admin.js';
import { CommentDialog, InstanceProgress, label, StatusTag, time } from './parts.js';

/** The detail pages (hidden routes, opened with ?id= or ?processInstanceId=). */

type ScreenProps = { route: AppRoute };

const json = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

function Page({
  route,
  children,
  extra,
}: ScreenProps & { children: React.ReactNode; extra?: React.ReactNode }) {
  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title" extra={extra}>
      {children}
    </Card>
  );
}

function Missing() {
  const t = useT();
  return <Empty description={label(t, 'notFound')} />;
}

/** The facts of an instance above its diagram. */
export function InstanceFacts({ detail }: { detail: InstanceDetail }) {
  const t = useT();
  return (
    <Descriptions size="small" column={{ xs: 1, md: 3 }} bordered data-testid="wf-instance-facts">
      <Descriptions.Item label={label(t, 'processName')}>{detail.name}</Descriptions.Item>
      <Descriptions.Item label={label(t, 'startUser')}>{detail.startUserId}</Descriptions.Item>
      <Descriptions.Item label={label(t, 'status')}>
        <StatusTag status={detail.status} suspended={detail.suspended} />
      </Descriptions.Item>
      <Descriptions.Item label={label(t, 'startTime')}>{time(detail.startTime)}</Descriptions.Item>
      <Descriptions.Item label={label(t, 'endTime')}>{time(detail.endTime)}</Descriptions.Item>
      <Descriptions.Item label={label(t, 'businessKey')}>{detail.businessKey}</Descriptions.Item>
      <Descriptions.Item label={label(t, 'description')} span={3}>
        {detail.description}
      </Descriptions.Item>
      {detail.incident && (
        <Descriptions.Item label={label(t, 'incident')} span={3}>
          {`${detail.incident.activityId}${detail.incident.flowId ? ` / ${detail.incident.flowId}` : ''}: ${detail.incident.message}`}
        </Descriptions.Item>
      )}
    </Descriptions>
  );
}

/** An engine code (activity type, end reason) in the user's language; an unknown one as it is. */
function coded(t: ReturnType<typeof useT>, group: 'activityType' | 'endReason', value: unknown): string {
  if (typeof value !== 'string' || value === '') return '';
  return t(`workflow.${group}.${value}`, { defaultValue: value });
}

const variableColumns = (t: ReturnType<typeof useT>): ColumnsType<Row> => [
  { key: 'name', dataIndex: 'name', title: label(t, 'variable') },
  { key: 'type', dataIndex: 'type', title: label(t, 'type') },
  { key: 'value', title: label(t, 'value'), render: (_v, row) => json(row.value) },
];

/** execution (hidden): an instance with its progress, executions, variables and actions. */
export function ExecutionPage({ route }: ScreenProps) {
  const t = useT();
  const [search] = useSearchParams();
  const id = idParam(search);
  const detail = useApiGet<InstanceDetail>(`${WF}/processinstance/detail`, { id: id ?? 0 }, id !== undefined);
  const executions = useApiGet<Row[]>(`${WF}/processinstance/executions`, { id: id ?? 0 }, id !== undefined);
  const [key, setKey] = useState(0);
  const actions = useInstanceActions(() => {
    setKey((value) => value + 1);
    void detail.refetch();
    void executions.refetch();
  });
  const [terminating, setTerminating] = useState(false);
  if (id === undefined)
    return (
      <Page route={route}>
        <Missing />
      </Page>
    );
  if (detail.isLoading) return <Spin className="admin-page-spin" />;
  const instance = detail.data;
  if (!instance)
    return (
      <Page route={route}>
        <Missing />
      </Page>
    );
  return (
    <Page
      route={route}
      extra={
        !instance.ended && (
          <Space>
            <Button onClick={() => void actions.setSuspended(instance, !instance.suspended)}>
              {label(t, instance.suspended ? 'activate' : 'suspend')}
            </Button>
            <Button danger onClick={() => setTerminating(true)}>
              {label(t, 'terminate')}
            </Button>
          </Space>
        )
      }
    >
      <InstanceFacts detail={instance} />
      <Tabs
        items={[
          tab('progress', label(t, 'progress'), <InstanceProgress key={key} instanceId={id} />),
          tab(
            'executions',
            t('menus.execution'),
            <Table<Row>
              rowKey="id"
              size="small"
              pagination={false}
              dataSource={executions.data ?? []}
              data-testid="wf-executions"
              columns={[
                { key: 'id', dataIndex: 'id', title: 'ID' },
                { key: 'name', dataIndex: 'name', title: label(t, 'activity') },
                { key: 'activityId', dataIndex: 'activityId', title: label(t, 'activityId') },
                { key: 'state', dataIndex: 'state', title: label(t, 'state') },
                { key: 'createdAt', title: label(t, 'startTime'), render: (_v, row) => time(row.createdAt) },
              ]}
            />,
          ),
          tab(
            'variables',
            t('menus.historicvariableinstance'),
            <Table<Row>
              rowKey="id"
              size="small"
              pagination={false}
              dataSource={instance.variables}
              columns={variableColumns(t)}
            />,
          ),
        ]}
      />
      <CommentDialog
        open={terminating}
        title={label(t, 'terminate')}
        onDone={(values) => {
          setTerminating(false);
          if (values) void actions.terminate(instance, String(values.comment));
        }}
      />
    </Page>
  );
}

/** Facts of a task. */
export function TaskFacts({ task }: { task: TaskDetail }) {
  const t = useT();
  return (
    <Descriptions size="small" column={{ xs: 1, md: 3 }} bordered data-testid="wf-task-facts">
      <Descriptions.Item label={label(t, 'taskName')}>{task.name}</Descriptions.Item>
      <Descriptions.Item label={label(t, 'processName')}>{task.processInstanceName}</Descriptions.Item>
      <Descriptions.Item label={label(t, 'status')}>
        <StatusTag status={task.status} />
      </Descriptions.Item>
      <Descriptions.Item label={label(t, 'assignee')}>{task.assignee}</Descriptions.Item>
      <Descriptions.Item label={label(t, 'owner')}>{task.owner}</Descriptions.Item>
      <Descriptions.Item label={label(t, 'candidates')}>
        {[...task.candidates.users, ...task.candidates.groups].join(', ')}
      </Descriptions.Item>
      <Descriptions.Item label={label(t, 'createTime')}>{time(task.startTime)}</Descriptions.Item>
      <Descriptions.Item label={label(t, 'claimTime')}>{time(task.claimTime)}</Descriptions.Item>
      <Descriptions.Item label={label(t, 'endTime')}>{time(task.endTime)}</Descriptions.Item>
      {task.description && (
        <Descriptions.Item label={label(t, 'description')} span={3}>
          {task.description}
        </Descriptions.Item>
      )}
    </Descriptions>
  );
}

/** taskdetails / historictaskdetails (hidden): a task with its instance's progress. */
export function TaskDetailsPage({ route }: ScreenProps) {
  const [search] = useSearchParams();
  const id = idParam(search);
  const task = useApiGet<TaskDetail>(`${WF}/task/detail`, { id: id ?? 0 }, id !== undefined);
  if (id === undefined)
    return (
      <Page route={route}>
        <Missing />
      </Page>
    );
  if (task.isLoading) return <Spin className="admin-page-spin" />;
  if (!task.data)
    return (
      <Page route={route}>
        <Missing />
      </Page>
    );
  return (
    <Page route={route}>
      <TaskFacts task={task.data} />
      <div className="wf-gap" />
      <InstanceProgress instanceId={task.data.processInstanceId} />
    </Page>
  );
}

/** myprocessdetails (hidden): one of my instances, its progress, and withdraw while untouched. */
export function MyProcessDetails({ route }: ScreenProps) {
  const t = useT();
  const [search] = useSearchParams();
  const id = idParam(search);
  const navigate = useNavigate();
  const detail = useApiGet<InstanceDetail>(`${WF}/processinstance/detail`, { id: id ?? 0 }, id !== undefined);
  const { send } = useApiWrite();
  const submit = useSubmit();
  const [withdrawing, setWithdrawing] = useState(false);
  if (id === undefined)
    return (
      <Page route={route}>
        <Missing />
      </Page>
    );
  if (detail.isLoading) return <Spin className="admin-page-spin" />;
  const instance = detail.data;
  if (!instance)
    return (
      <Page route={route}>
        <Missing />
      </Page>
    );
  return (
    <Page
      route={route}
      extra={
        <Space>
          <Button onClick={() => navigate('/myprocess')}>{label(t, 'back')}</Button>
          {!instance.ended && (
            <Button danger onClick={() => setWithdrawing(true)} data-testid="withdraw">
              {label(t, 'withdraw')}
            </Button>
          )}
        </Space>
      }
    >
      <InstanceFacts detail={instance} />
      <div className="wf-gap" />
      <InstanceProgress key={instance.status} instanceId={id} />
      <CommentDialog
        open={withdrawing}
        title={label(t, 'withdraw')}
        onDone={(values) => {
          setWithdrawing(false);
          if (values)
            void submit(
              () => send('post', `${WF}/processinstance/withdraw`, { id, comment: values.comment }),
              {
                after: () => detail.refetch(),
              },
            );
        }}
      />
    </Page>
  );
}

/** historicactivityinstance / historicdetail / historicvariableinstance (hidden, ?processInstanceId=). */
export function HistoryOfInstance({
  route,
  view,
}: ScreenProps & { view: 'activity' | 'detail' | 'variable' }) {
  const t = useT();
  const [search] = useSearchParams();
  const id = idParam(search, 'processInstanceId');
  const rows = useApiGet<Row[]>(
    `${WF}/history/${view === 'activity' ? 'activityinstance' : view === 'detail' ? 'detail' : 'variableinstance'}/query`,
    { processInstanceId: id ?? 0 },
    id !== undefined,
  );
  if (id === undefined)
    return (
      <Page route={route}>
        <Missing />
      </Page>
    );
  const columns: ColumnsType<Row> =
    view === 'activity'
      ? [
          { key: 'key', dataIndex: 'key', title: label(t, 'activityId') },
          { key: 'name', dataIndex: 'name', title: label(t, 'activity') },
          {
            key: 'type',
            title: label(t, 'type'),
            render: (_v, row) => coded(t, 'activityType', row.type),
          },
          { key: 'assignee', dataIndex: 'assignee', title: label(t, 'assignee') },
          { key: 'startTime', title: label(t, 'startTime'), render: (_v, row) => time(row.startTime) },
          { key: 'endTime', title: label(t, 'endTime'), render: (_v, row) => time(row.endTime) },
          {
            key: 'endReason',
            title: label(t, 'endReason'),
            render: (_v, row) => coded(t, 'endReason', row.endReason),
          },
        ]
      : view === 'detail'
        ? [
            ...variableColumns(t),
            { key: 'activityId', dataIndex: 'activityId', title: label(t, 'activityId') },
            { key: 'username', dataIndex: 'username', title: label(t, 'username') },
            { key: 'time', title: label(t, 'time'), render: (_v, row) => time(row.time) },
          ]
        : [
            ...variableColumns(t),
            { key: 'updateTime', title: label(t, 'time'), render: (_v, row) => time(row.updateTime) },
          ];
  return (
    <Page route={route}>
      <Table<Row>
        rowKey="id"
        size="middle"
        loading={rows.isLoading}
        dataSource={rows.data ?? []}
        columns={columns}
        pagination={{ pageSize: 20, showSizeChanger: false }}
        scroll={{ x: 'max-content' }}
        data-testid={`wf-history-${view}`}
      />
    </Page>
  );
}
