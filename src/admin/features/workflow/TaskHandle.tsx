import type CoreForm from '@rjsf/core';
import type { ErrorSchema } from '@rjsf/utils';
import { useGetIdentity, type HttpError } from '@refinedev/core';
import { Alert, App, Button, Card, Divider, Flex, Form, Input, Modal, Select, Spin, Typography } from 'antd';
import { useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useEntity } from '../../entity/resources.js';
import { routeTitle, useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import type { SysUser } from '../../providers/auth.js';
import { useApiGet, useApiWrite, useCanButton, withQuery } from '../../lib/api.js';
import { errorText } from '../../lib/screen-parts.js';
import { idParam, WF, type NextTask, type RegressNode, type TaskDetail } from './api.js';
import { useRecountTasks } from './badges.js';
import { TaskFacts } from './Details.js';
import { CommentDialog, InstanceProgress, label } from './parts.js';
import { extraErrorsOf, WfForm } from './WfForm.js';
import { UserTreeSelect } from './UserTreeSelect.js';

type Values = Record<string, unknown>;
type Action = 'complete' | 'delegate' | 'resolve' | 'regress' | 'reject';

/** The regress choice: the earlier user tasks the task may go back to. */
function RegressChoice({ taskId }: { taskId: number }) {
  const t = useT();
  const nodes = useApiGet<RegressNode[]>(`${WF}/task/queryRegressNodes`, { id: taskId });
  return (
    <Form.Item
      name="activityId"
      label={label(t, 'regressTo')}
      rules={[{ required: true, message: label(t, 'regressRequired') }]}
    >
      <Select
        loading={nodes.isLoading}
        data-testid="regress-node"
        aria-label={label(t, 'regressTo')}
        notFoundContent={label(t, 'noRegressNodes')}
        options={(nodes.data ?? []).map((node) => ({
          value: node.activityId,
          label: `${node.name ?? node.activityId}${node.assignee ? ` (${node.assignee})` : ''}`,
        }))}
      />
    </Form.Item>
  );
}

/**
 * mytaskdetails (hidden): one of my tasks. Its assignee handles it here: the task's form (the
 * generated screens' RJSF renderer), a comment (required, docs/product.md §5), and complete / delegate /
 * handle delegate / regress (choose the node) / reject; a candidate claims it; others look.
 */
export function TaskHandle({ route }: { route: AppRoute }) {
  const t = useT();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const can = useCanButton('assigneetask');
  const recount = useRecountTasks();
  const [search] = useSearchParams();
  const id = idParam(search);
  const { data: user } = useGetIdentity<SysUser>();
  const task = useApiGet<TaskDetail>(`${WF}/task/detail`, { id: id ?? 0 }, id !== undefined);
  const entity = useEntity(task.data?.formKey ?? undefined);
  const formRef = useRef<CoreForm<Values> | null>(null);
  const [formData, setFormData] = useState<Values>({});
  const [extraErrors, setExtraErrors] = useState<ErrorSchema<Values> | undefined>(undefined);
  const [comment] = Form.useForm<{ comment: string }>();
  const [dialog, setDialog] = useState<Exclude<Action, 'complete'> | null>(null);
  const [progressKey, setProgressKey] = useState(0);
  // The tasks a completion answered the caller can act on next (`nextTasks`): offered to open here.
  const [nextTasks, setNextTasks] = useState<NextTask[]>([]);
  const { send, isSending } = useApiWrite();

  if (id === undefined || task.isLoading || !user) return <Spin className="admin-page-spin" />;
  const detail = task.data;
  if (!detail) return <Card title={routeTitle(route)}>{label(t, 'notFound')}</Card>;
  const isOpen = !detail.endTime;
  const isMine = isOpen && detail.assignee === user.username;
  const isDelegated = detail.delegationState === 'pending';

  const done = async (): Promise<void> => {
    recount();
    setProgressKey((value) => value + 1);
    await task.refetch();
  };

  const act = async (action: Action, values: Values): Promise<void> => {
    setExtraErrors(undefined);
    try {
      const paths: Record<Action, string> = {
        complete: 'completeTask',
        delegate: 'delegateTask',
        resolve: 'resolveTask',
        regress: 'regressTask',
        reject: 'rejectTask',
      };
      const answer = await send<{ nextTasks?: NextTask[] }>('post', `${WF}/task/${paths[action]}`, {
        id,
        ...values,
      });
      void message.success(label(t, `done.${action}`));
      comment.resetFields();
      await done();
      const next = action === 'complete' ? (answer.nextTasks ?? []) : [];
      if (next.length > 0) setNextTasks(next);
      else if (action !== 'delegate' && action !== 'resolve') navigate('/assigneetask');
    } catch (error) {
      const errors = extraErrorsOf((error as HttpError).errors);
      if (errors) setExtraErrors(errors);
      else void message.error(errorText(error));
    }
  };

  const complete = (): void => {
    void comment.validateFields().then(
      ({ comment: text }) => {
        // the task's form checks itself first; its onSubmit completes
        if (entity && !isDelegated) formRef.current?.submit();
        else void act(isDelegated ? 'resolve' : 'complete', { comment: text });
      },
      () => formRef.current?.validateForm(),
    );
  };

  /** Opens the next task on this page (or goes back to the list): the finished task's state goes. */
  const leaveFor = (nextId: number | undefined): void => {
    setNextTasks([]);
    setFormData({});
    setExtraErrors(undefined);
    navigate(nextId === undefined ? '/assigneetask' : `/mytaskdetails?id=${nextId}`);
  };

  const claim = (): void =>
    void send('post', withQuery(`${WF}/task/claimTask`, { id })).then(
      () => {
        void message.success(label(t, 'claimed'));
        void done();
      },
      (error: unknown) => void message.error(errorText(error)),
    );

  const isCandidate =
    isOpen &&
    detail.assignee === null &&
    (detail.candidates.users.length > 0 || detail.candidates.groups.length > 0);

  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <TaskFacts task={detail} />
      {detail.suspended && <Alert type="warning" showIcon message={label(t, 'suspendedHint')} />}
      {isCandidate && (
        <Flex className="wf-gap" gap={8}>
          <Button type="primary" onClick={claim} data-testid="claim">
            {label(t, 'claim')}
          </Button>
        </Flex>
      )}
      {isMine && (
        <section data-testid="wf-handle" aria-label={label(t, 'handle')}>
          <Divider />
          {isDelegated && (
            <Alert type="info" showIcon message={label(t, 'delegatedHint', { owner: detail.owner })} />
          )}
          {entity && !isDelegated && (
            <>
              <Typography.Title level={5}>{label(t, 'taskForm')}</Typography.Title>
              <WfForm
                entity={entity}
                formRef={formRef}
                formData={formData}
                onChange={setFormData}
                onSubmit={(values) => {
                  void comment
                    .validateFields()
                    .then(({ comment: text }) => act('complete', { comment: text, formData: values }));
                }}
                extraErrors={extraErrors}
              />
            </>
          )}
          <Form form={comment} layout="vertical">
            <Form.Item
              name="comment"
              label={label(t, 'comment')}
              rules={[
                { required: true, whitespace: true, message: label(t, 'commentRequired') },
                { max: 2000 },
              ]}
            >
              <Input.TextArea rows={3} maxLength={2000} showCount data-testid="task-comment" />
            </Form.Item>
          </Form>
          <Flex gap={8} wrap>
            {isDelegated ? (
              can('resolve') && (
                <Button type="primary" loading={isSending} onClick={complete} data-testid="action-resolve">
                  {label(t, 'resolve')}
                </Button>
              )
            ) : (
              <>
                {can('complete') && (
                  <Button type="primary" loading={isSending} onClick={complete} data-testid="action-complete">
                    {label(t, 'complete')}
                  </Button>
                )}
                {can('delegate') && (
                  <Button onClick={() => setDialog('delegate')} data-testid="action-delegate">
                    {label(t, 'delegate')}
                  </Button>
                )}
                {can('regress') && (
                  <Button onClick={() => setDialog('regress')} data-testid="action-regress">
                    {label(t, 'regress')}
                  </Button>
                )}
                {can('reject') && (
                  <Button danger onClick={() => setDialog('reject')} data-testid="action-reject">
                    {label(t, 'reject')}
                  </Button>
                )}
              </>
            )}
            <Button onClick={() => navigate(-1)}>{label(t, 'back')}</Button>
          </Flex>
        </section>
      )}
      <Divider />
      <InstanceProgress key={progressKey} instanceId={detail.processInstanceId} />
      <CommentDialog
        open={dialog !== null}
        title={dialog ? label(t, dialog) : ''}
        isBusy={isSending}
        onDone={(values) => {
          const action = dialog;
          setDialog(null);
          if (!values || !action) return;
          void act(action, {
            comment: values.comment,
            ...(action === 'delegate' ? { username: String(values.username).trim() } : {}),
            ...(action === 'regress' ? { activityId: values.activityId } : {}),
          });
        }}
      >
        {dialog === 'delegate' && (
          <Form.Item
            name="username"
            label={label(t, 'delegateTo')}
            rules={[{ required: true, whitespace: true, message: label(t, 'usernameRequired') }]}
          >
            <UserTreeSelect data-testid="delegate-username" popupClassName="wf-user-popup" />
          </Form.Item>
        )}
        {dialog === 'regress' && <RegressChoice taskId={id} />}
      </CommentDialog>
      <Modal
        open={nextTasks.length > 0}
        title={label(t, 'next.title')}
        onCancel={() => leaveFor(undefined)}
        className="wf-next-tasks"
        destroyOnHidden
        footer={
          <Flex gap={8} justify="flex-end" wrap>
            <Button onClick={() => leaveFor(undefined)} data-testid="next-later">
              {label(t, 'next.later')}
            </Button>
            {nextTasks.map((next) => (
              <Button
                key={next.id}
                type="primary"
                onClick={() => leaveFor(next.id)}
                data-testid="open-next-task"
                data-task-id={next.id}
              >
                {label(t, 'next.open', { name: next.name ?? next.taskDefinitionKey })}
              </Button>
            ))}
          </Flex>
        }
      >
        <Typography.Paragraph>{label(t, 'next.text')}</Typography.Paragraph>
      </Modal>
    </Card>
  );
}
