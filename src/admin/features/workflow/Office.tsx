import { PlayCircleOutlined } from '@ant-design/icons';
import { Button, Card, Col, Empty, Input, Row, Space, Spin, Tag, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { routeTitle, useT } from '../../i18n.js';
import { useOnReturn } from '../../lib/kept-page.js';
import type { AppRoute } from '../../lib/menus.js';
import { useApiWrite, useCanButton, withQuery } from '../../lib/api.js';
import { useSubmit } from '../../lib/screen-parts.js';
import { usePage, WF, type Copy, type Definition, type Instance, type Task } from './api.js';
import { useRecountTasks } from './badges.js';
import { label, StatusTag, time, WfList } from './parts.js';
import { StartDialog } from './StartDialog.js';

/** The personal office (docs/product.md §2.3): start, my processes, tasks to claim, to handle, handled. */

type ScreenProps = { route: AppRoute };

const ALL = 1000;

/** 发起流程: the latest active version of each process, as cards grouped by category. */
export function StartProcess({ route }: ScreenProps) {
  const t = useT();
  const can = useCanButton(route.code);
  const [search, setSearch] = useState('');
  const definitions = usePage<Definition>('processdefinition/query', {
    latestOnly: 'true',
    startable: 'true',
    pageSize: ALL,
    ...(search ? { name: search } : {}),
  });
  const { refetch } = definitions;
  // Kept alive by the tags view: a version deployed meanwhile is offered on return.
  useOnReturn(() => void refetch());
  const [starting, setStarting] = useState<Definition | null>(null);
  const groups = useMemo(() => {
    const byCategory = new Map<string, Definition[]>();
    for (const definition of definitions.data?.records ?? []) {
      if (definition.suspended) continue;
      const category = definition.category || '';
      byCategory.set(category, [...(byCategory.get(category) ?? []), definition]);
    }
    return [...byCategory].sort(([a], [b]) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)));
  }, [definitions.data]);
  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Input.Search
        allowClear
        aria-label={label(t, 'search.name')}
        placeholder={label(t, 'search.name')}
        onSearch={(value) => {
          // the same search again reads again (a process may have been deployed meanwhile)
          if (value.trim() === search) void refetch();
          setSearch(value.trim());
        }}
        className="admin-screen-search-inline"
      />
      {definitions.isLoading ? (
        <Spin className="admin-page-spin" />
      ) : groups.length === 0 ? (
        <Empty description={label(t, 'noProcesses')} />
      ) : (
        groups.map(([category, items]) => (
          <section key={category || '-'} data-category={category}>
            <Typography.Title level={5} className="wf-category">
              {category || label(t, 'uncategorized')}
            </Typography.Title>
            <Row gutter={[16, 16]} className="wf-cards">
              {items.map((definition) => (
                <Col key={definition.id} xs={24} sm={12} lg={8} xl={6}>
                  <Card
                    size="small"
                    title={definition.name ?? definition.key}
                    data-testid="process-card"
                    data-key={definition.key}
                    actions={
                      can('start')
                        ? [
                            <Button
                              key="start"
                              type="link"
                              icon={<PlayCircleOutlined />}
                              onClick={() => setStarting(definition)}
                              data-testid="start-process"
                            >
                              {label(t, 'start')}
                            </Button>,
                          ]
                        : []
                    }
                  >
                    <Space direction="vertical" size={2}>
                      <span>
                        {label(t, 'key')}: {definition.key}
                      </span>
                      <span>
                        {label(t, 'version')}: v{definition.version}
                      </span>
                      {definition.startFormKey && (
                        <Tag>
                          {t(`entities.${definition.startFormKey}.title`, {
                            defaultValue: definition.startFormKey,
                          })}
                        </Tag>
                      )}
                    </Space>
                  </Card>
                </Col>
              ))}
            </Row>
          </section>
        ))
      )}
      {starting && <StartDialog definition={starting} onClose={() => setStarting(null)} />}
    </Card>
  );
}

/** 我的流程: the instances I started, their status, and their page. */
export function MyProcess({ route }: ScreenProps) {
  const t = useT();
  const navigate = useNavigate();
  return (
    <WfList<Instance>
      route={route}
      path="processinstance/queryMyProcess"
      testId="wf-my-process"
      columns={[
        { key: 'id', dataIndex: 'id', title: 'ID' },
        { key: 'name', dataIndex: 'name', title: label(t, 'processName') },
        { key: 'description', dataIndex: 'description', title: label(t, 'description'), ellipsis: true },
        { key: 'startTime', title: label(t, 'startTime'), render: (_v, row) => time(row.startTime) },
        { key: 'endTime', title: label(t, 'endTime'), render: (_v, row) => time(row.endTime) },
        {
          key: 'status',
          title: label(t, 'status'),
          render: (_v, row) => <StatusTag status={row.status} suspended={row.suspended} />,
        },
        {
          key: 'actions',
          title: label(t, 'actions'),
          render: (_v, row) => (
            <Button
              size="small"
              onClick={() => navigate(`/myprocessdetails?id=${row.id}`)}
              data-testid="open-instance"
            >
              {label(t, 'view')}
            </Button>
          ),
        },
      ]}
    />
  );
}

const taskColumns = (t: ReturnType<typeof useT>) => [
  { key: 'id', dataIndex: 'id', title: 'ID' },
  { key: 'name', dataIndex: 'name', title: label(t, 'taskName') },
  { key: 'process', dataIndex: 'processInstanceName', title: label(t, 'processName') },
  { key: 'description', dataIndex: 'processDescription', title: label(t, 'description'), ellipsis: true },
  { key: 'businessKey', dataIndex: 'businessKey', title: label(t, 'businessKey') },
  { key: 'startUserId', dataIndex: 'startUserId', title: label(t, 'startUser') },
  {
    key: 'startTime',
    title: label(t, 'createTime'),
    render: (_v: unknown, row: Task) => time(row.startTime),
  },
];

/** 待签收: open tasks I am a candidate of; claim one to handle it. */
export function CandidateTasks({ route }: ScreenProps) {
  const t = useT();
  const can = useCanButton(route.code);
  const navigate = useNavigate();
  const { send } = useApiWrite();
  const submit = useSubmit();
  const recount = useRecountTasks();
  const [refreshKey, setRefreshKey] = useState(0);
  return (
    <WfList<Task>
      route={route}
      path="task/queryCandidateTask"
      testId="wf-candidate-tasks"
      refreshKey={refreshKey}
      columns={[
        ...taskColumns(t),
        {
          key: 'actions',
          title: label(t, 'actions'),
          render: (_v, row) => (
            <Space size={4}>
              {can('claim') && (
                <Button
                  size="small"
                  type="primary"
                  data-testid="claim"
                  onClick={() =>
                    void submit(() => send('post', withQuery(`${WF}/task/claimTask`, { id: row.id })), {
                      success: label(t, 'claimed'),
                      after: () => {
                        recount();
                        setRefreshKey((value) => value + 1);
                      },
                    })
                  }
                >
                  {label(t, 'claim')}
                </Button>
              )}
              <Button size="small" onClick={() => navigate(`/mytaskdetails?id=${row.id}`)}>
                {label(t, 'view')}
              </Button>
            </Space>
          ),
        },
      ]}
    />
  );
}

/** 待办: open tasks assigned to me; handle opens the task page. */
export function AssigneeTasks({ route }: ScreenProps) {
  const t = useT();
  const navigate = useNavigate();
  return (
    <WfList<Task>
      route={route}
      path="task/queryPersonalTask"
      testId="wf-assignee-tasks"
      columns={[
        ...taskColumns(t),
        { key: 'status', title: label(t, 'status'), render: (_v, row) => <StatusTag status={row.status} /> },
        {
          key: 'actions',
          title: label(t, 'actions'),
          render: (_v, row) => (
            <Button
              size="small"
              type="primary"
              onClick={() => navigate(`/mytaskdetails?id=${row.id}`)}
              data-testid="handle"
            >
              {label(t, 'handle')}
            </Button>
          ),
        },
      ]}
    />
  );
}

/** 已办: tasks I finished. */
export function FinishedTasks({ route }: ScreenProps) {
  const t = useT();
  const navigate = useNavigate();
  return (
    <WfList<Task>
      route={route}
      path="task/queryFinishedTask"
      testId="wf-finished-tasks"
      columns={[
        ...taskColumns(t),
        { key: 'endTime', title: label(t, 'endTime'), render: (_v, row) => time(row.endTime) },
        { key: 'status', title: label(t, 'status'), render: (_v, row) => <StatusTag status={row.status} /> },
        {
          key: 'actions',
          title: label(t, 'actions'),
          render: (_v, row) => (
            <Button size="small" onClick={() => navigate(`/mytaskdetails?id=${row.id}`)}>
              {label(t, 'view')}
            </Button>
          ),
        },
      ]}
    />
  );
}

/** 抄送我的: the instances copied to me (抄送), read-only: view opens the instance's page. */
export function CopyTasks({ route }: ScreenProps) {
  const t = useT();
  const navigate = useNavigate();
  return (
    <WfList<Copy>
      route={route}
      path="task/queryCopyTask"
      testId="wf-copy-tasks"
      columns={[
        { key: 'process', dataIndex: 'processInstanceName', title: label(t, 'processName') },
        {
          key: 'description',
          dataIndex: 'processDescription',
          title: label(t, 'description'),
          ellipsis: true,
        },
        { key: 'businessKey', dataIndex: 'businessKey', title: label(t, 'businessKey') },
        { key: 'startUserId', dataIndex: 'startUserId', title: label(t, 'startUser') },
        { key: 'taskName', dataIndex: 'taskName', title: label(t, 'taskName') },
        { key: 'copiedBy', dataIndex: 'copiedBy', title: label(t, 'copiedBy') },
        { key: 'message', dataIndex: 'message', title: label(t, 'copyComment'), ellipsis: true },
        { key: 'time', title: label(t, 'copyTime'), render: (_v, row) => time(row.time) },
        { key: 'status', title: label(t, 'status'), render: (_v, row) => <StatusTag status={row.status} /> },
        {
          key: 'actions',
          title: label(t, 'actions'),
          render: (_v, row) => (
            <Button
              size="small"
              onClick={() => navigate(`/myprocessdetails?id=${row.processInstanceId}&from=copy`)}
              data-testid="open-copy"
            >
              {label(t, 'view')}
            </Button>
          ),
        },
      ]}
    />
  );
}
