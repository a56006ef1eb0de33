import {
  Alert,
  Button,
  Card,
  Descriptions,
  Divider,
  Empty,
  Space,
  Spin,
  Table,
  Tabs,
  Typography,
} from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useMemo, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { routeTitle, useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import { useApiGet, useApiWrite } from '../../lib/api.js';
import { tab, useSubmit } from '../../lib/screen-parts.js';
import { idParam, WF, type InstanceDetail, type Row, type TaskDetail } from './api.js';
import { useInstanceActions } from './Admin.js';
import { incidentText, RetryIncident } from './Incident.js';
import { SetVariable } from './SetVariable.js';
import { useEntity } from '../../entity/resources.js';
import { CommentDialog, InstanceProgress, label, StatusTag, time } from './parts.js';
import { ApprovalRecord } from './ApprovalRecord.js';
import { formValuesOf, WfForm } from './WfForm.js';

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
          <span data-testid="wf-incident">{incidentText(t, detail.incident)}</span>
        </Descriptions.Item>
      )}
    </Descriptions>
  );
}

/**
 * The start form's data (what the approver approves), read-only, by the same renderer as the
 * start form (its designed layout, detail tables, field rights): nothing when the process has
 * no start form naming an entity.
 */
export function StartFormView({ detail }: { detail: InstanceDetail }) {
  const t = useT();
  const entity = useEntity(detail.startFormKey ?? undefined);
  const values = useMemo(
    () => (entity ? formValuesOf(entity, detail.variables) : {}),
    [entity, detail.variables],
  );
  return (
    <>
      {entity && (
        <section aria-label={label(t, 'startForm')} className="wf-start-form" data-testid="wf-start-form">
          <Divider />
          <Typography.Title level={5}>{label(t, 'startForm')}</Typography.Title>
          <WfForm entity={entity} formData={values} readonly />
        </section>
      )}
      {/* The record the instance approves (x-entity.workflow), in its entity's form. */}
      <ApprovalRecord
        instanceId={detail.id}
        businessKey={detail.businessKey}
        stamp={detail.tasks.map((task) => `${task.id}:${task.assignee ?? ''}`).join(',')}
      />
    </>
  );
}

/** The start form of an instance read by its id (task pages). */
export function StartFormOf({ instanceId }: { instanceId: number }) {
  const detail = useApiGet<InstanceDetail>(`${WF}/processinstance/detail`, { id: instanceId });
  return detail.data ? <StartFormView detail={detail.data} /> : null;
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
  const refresh = (): void => {
    setKey((value) => value + 1);
    void detail.refetch();
    void executions.refetch();
  };
  const actions = useInstanceActions(refresh);
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
            {!instance.suspended && <RetryIncident instance={instance} onDone={refresh} />}
            {!instance.suspended && <SetVariable instance={instance} onDone={refresh} />}
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
      <StartFormView detail={instance} />
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
        {[
          ...task.candidates.users,
          // roles, posts and organisations by their names (角色 编辑, not role:ROLE_EDITOR)
          ...task.candidates.groups.map((group, index) => {
            const kind = { role: 'roles', post: 'posts', org: 'orgs' }[group.split(':')[0] ?? ''];
            const name = task.candidates.groupNames[index] ?? group;
            return kind ? `${name}（${t(`workflow.modeler.pick.${kind}`)}）` : name;
          }),
        ].join(', ')}
      </Descriptions.Item>
      <Descriptions.Item label={label(t, 'createTime')}>{time(task.startTime)}</Descriptions.Item>
      <Descriptions.Item label={label(t, 'claimTime')}>{time(task.claimTime)}</Descriptions.Item>
      <Descriptions.Item label={label(t, 'endTime')}>{time(task.endTime)}</Descriptions.Item>
      {task.description && (
        <Descriptions.Item label={label(t, 'description')} span={3}>
          {task.description}
        </Descriptions.Item>
      )}
      <Descriptions.Item label={label(t, 'businessKey')}>{task.businessKey}</Descriptions.Item>
      <Descriptions.Item label={label(t, 'description')} span={3}>
        {task.processDescription}
      </Descriptions.Item>
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
      <StartFormOf instanceId={task.data.processInstanceId} />
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
  // Opened from 抄送我的: to read only (the copied user takes no part in it).
  const isCopy = search.get('from') === 'copy';
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
          <Button onClick={() => navigate(isCopy ? '/copytask' : '/myprocess')}>{label(t, 'back')}</Button>
          {!instance.ended && !isCopy && (
            <Button danger onClick={() => setWithdrawing(true)} data-testid="withdraw">
              {label(t, 'withdraw')}
            </Button>
          )}
        </Space>
      }
    >
      {isCopy && (
        <Alert type="info" showIcon message={label(t, 'copyReadOnly')} data-testid="wf-copy-read-only" />
      )}
      <InstanceFacts detail={instance} />
      <StartFormView detail={instance} />
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
