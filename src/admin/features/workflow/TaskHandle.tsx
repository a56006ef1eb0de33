import type CoreForm from '@rjsf/core';
import type { ErrorSchema } from '@rjsf/utils';
import { useGetIdentity, type HttpError } from '@refinedev/core';
import {
  Alert,
  App,
  Button,
  Card,
  Divider,
  Flex,
  Form,
  Input,
  Modal,
  Radio,
  Select,
  Spin,
  Tooltip,
  Typography,
} from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useEntity } from '../../entity/resources.js';
import { routeTitle, useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import type { SysUser } from '../../providers/auth.js';
import { useApiGet, useApiWrite, useCanButton, withQuery } from '../../lib/api.js';
import { errorText } from '../../lib/screen-parts.js';
import { idParam, WF, type InstanceDetail, type NextTask, type RegressNode, type TaskDetail } from './api.js';
import { useRecountTasks } from './badges.js';
import { StartFormView, TaskFacts } from './Details.js';
import { CommentDialog, InstanceProgress, label } from './parts.js';
import { extraErrorsOf, formValuesOf, WfForm } from './WfForm.js';
import { TransferField } from './Resources.js';
import { UserTreeSelect } from './UserTreeSelect.js';

type Values = Record<string, unknown>;
type Action = 'complete' | 'delegate' | 'transfer' | 'addSign' | 'resolve' | 'regress' | 'reject';

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
 * transfer (转办) / add signers (加签, before or after) / handle delegate / regress (choose the node) /
 * reject, copying the instance to users as it completes (抄送); a candidate claims it; others look.
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
  const instanceId = task.data?.processInstanceId;
  const instance = useApiGet<InstanceDetail>(
    `${WF}/processinstance/detail`,
    { id: instanceId ?? 0 },
    instanceId !== undefined,
  );
  const isMineNow =
    task.data !== undefined &&
    !task.data.endTime &&
    user !== undefined &&
    task.data.assignee === user.username &&
    task.data.delegationState !== 'pending';
  // 退回 is offered only when there is an earlier task to go back to (a delegate has none).
  const regressNodes = useApiGet<RegressNode[]>(`${WF}/task/queryRegressNodes`, { id: id ?? 0 }, isMineNow);
  const formRef = useRef<CoreForm<Values> | null>(null);
  const [formData, setFormData] = useState<Values>({});
  // The task's form starts from the values the instance holds (the request to revise, say).
  const [prefilledFor, setPrefilledFor] = useState<number | undefined>(undefined);
  useEffect(() => {
    if (!entity || !instance.data || prefilledFor === task.data?.id) return;
    setPrefilledFor(task.data?.id);
    setFormData(formValuesOf(entity, instance.data.variables));
  }, [entity, instance.data, prefilledFor, task.data?.id]);
  const [extraErrors, setExtraErrors] = useState<ErrorSchema<Values> | undefined>(undefined);
  const [comment] = Form.useForm<{ comment: string; copyUsers?: string[] }>();
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
  // 加签: a signer's task goes back to its task when done; a task waiting for its signers takes no action.
  const isSigner = detail.parentTaskId !== null;
  const isWaiting = detail.status === 'waiting';

  const done = async (): Promise<void> => {
    recount();
    setProgressKey((value) => value + 1);
    void instance.refetch();
    await task.refetch();
  };

  const act = async (action: Action, values: Values): Promise<void> => {
    setExtraErrors(undefined);
    try {
      const paths: Record<Action, string> = {
        complete: 'completeTask',
        delegate: 'delegateTask',
        transfer: 'transferTask',
        addSign: 'addSignTask',
        resolve: 'resolveTask',
        regress: 'regressTask',
        reject: 'rejectTask',
      };
      // silent: the failure is said here, once (and a field's error on the form too)
      const answer = await send<{ nextTasks?: NextTask[] }>(
        'post',
        `${WF}/task/${paths[action]}`,
        { id, ...values },
        { silent: true },
      );
      // a rejection returns to the initiator to revise while their earlier task allows it
      const isBack =
        action === 'reject' &&
        // refetch answers the query's result: its data is the answer, whose data the instance
        ((await instance.refetch()) as { data?: { data?: InstanceDetail } }).data?.data?.ended === false;
      void message.success(label(t, isBack ? 'done.rejectBack' : `done.${action}`));
      comment.resetFields();
      await done();
      const next = action === 'complete' ? (answer.nextTasks ?? []) : [];
      if (next.length > 0) setNextTasks(next);
      else if (action !== 'delegate' && action !== 'resolve') navigate('/assigneetask');
    } catch (error) {
      const errors = extraErrorsOf((error as HttpError).errors);
      if (errors) setExtraErrors(errors);
      void message.error(errorText(error));
    }
  };

  /** 抄送: the users the completion copies the instance to (none: not sent). */
  const copied = (users: string[] | undefined): Values =>
    users && users.length > 0 ? { copyUsers: users } : {};

  const complete = (): void => {
    void comment.validateFields().then(
      ({ comment: text, copyUsers }) => {
        // the task's form checks itself first; its onSubmit completes
        if (entity && !isDelegated) formRef.current?.submit();
        else
          void act(
            isDelegated ? 'resolve' : 'complete',
            isDelegated ? { comment: text } : { comment: text, ...copied(copyUsers) },
          );
      },
      () => formRef.current?.validateForm(),
    );
  };

  /** Opens the next task on this page (or goes back to the list): the finished task's state goes. */
  const leaveFor = (nextId: number | undefined): void => {
    setNextTasks([]);
    setFormData({});
    setPrefilledFor(undefined);
    setExtraErrors(undefined);
    navigate(nextId === undefined ? '/assigneetask' : `/mytaskdetails?id=${nextId}`);
  };

  const unclaim = (): void =>
    void send('post', withQuery(`${WF}/task/unclaimTask`, { id })).then(
      () => {
        void message.success(label(t, 'unclaimDone'));
        recount();
        navigate('/candidatetask');
      },
      (error: unknown) => void message.error(errorText(error)),
    );

  const claim = (): void =>
    void send('post', withQuery(`${WF}/task/claimTask`, { id })).then(
      () => {
        void message.success(label(t, 'claimed'));
        void done();
      },
      (error: unknown) => void message.error(errorText(error)),
    );

  const hasRegressNodes = (regressNodes.data ?? []).length > 0;
  // A task claimed from its candidates can be given back to them (取消签收).
  const isClaimed =
    isMine &&
    !isDelegated &&
    detail.claimTime !== null &&
    (detail.candidates.users.length > 0 || detail.candidates.groups.length > 0);
  const isEditingForm = isMine && !isDelegated && entity !== undefined;
  // The start form read-only, unless this task edits that very form (the initiator revising).
  const showsStartForm =
    instance.data !== undefined && !(isEditingForm && instance.data.startFormKey === detail.formKey);

  const isCandidate =
    isOpen &&
    detail.assignee === null &&
    (detail.candidates.users.length > 0 || detail.candidates.groups.length > 0);

  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <TaskFacts task={detail} />
      {showsStartForm && instance.data && <StartFormView detail={instance.data} />}
      {detail.suspended && <Alert type="warning" showIcon message={label(t, 'suspendedHint')} />}
      {isCandidate && (
        <Flex className="wf-gap" gap={8}>
          <Button type="primary" onClick={claim} data-testid="claim">
            {label(t, 'claim')}
          </Button>
        </Flex>
      )}
      {isMine && isWaiting && (
        <Alert
          className="wf-gap"
          type="info"
          showIcon
          message={label(t, 'waitingHint')}
          data-testid="wf-waiting"
        />
      )}
      {isMine && !isWaiting && (
        <section data-testid="wf-handle" aria-label={label(t, 'handle')}>
          <Divider />
          {isSigner && (
            <Alert type="info" showIcon message={label(t, 'signTaskHint')} data-testid="wf-signer" />
          )}
          {isDelegated && (
            <Alert type="info" showIcon message={label(t, 'delegatedHint', { owner: detail.owner })} />
          )}
          {entity && !isDelegated && (
            <>
              <Typography.Title level={5}>{label(t, 'taskForm')}</Typography.Title>
              <div data-testid="wf-task-form">
                <WfForm
                  entity={entity}
                  formRef={formRef}
                  formData={formData}
                  onChange={setFormData}
                  onSubmit={(values) => {
                    void comment.validateFields().then(
                      ({ comment: text, copyUsers }) =>
                        act('complete', { comment: text, formData: values, ...copied(copyUsers) }),
                      () => undefined,
                    );
                  }}
                  extraErrors={extraErrors}
                />
              </div>
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
            {!isDelegated && can('complete') && (
              <Form.Item name="copyUsers" label={label(t, 'copyUsers')} extra={label(t, 'copyHint')}>
                <UserTreeSelect multiple data-testid="copy-users" popupClassName="wf-user-popup" />
              </Form.Item>
            )}
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
                {can('transfer') && (
                  <Button onClick={() => setDialog('transfer')} data-testid="action-transfer">
                    {label(t, 'transfer')}
                  </Button>
                )}
                {can('addSign') && !isSigner && (
                  <Button onClick={() => setDialog('addSign')} data-testid="action-add-sign">
                    {label(t, 'addSign')}
                  </Button>
                )}
                {can('regress') && (
                  <Tooltip title={hasRegressNodes ? undefined : label(t, 'noRegressNodes')}>
                    <Button
                      onClick={() => setDialog('regress')}
                      disabled={!hasRegressNodes}
                      data-testid="action-regress"
                    >
                      {label(t, 'regress')}
                    </Button>
                  </Tooltip>
                )}
                {can('reject') && (
                  <Button danger onClick={() => setDialog('reject')} data-testid="action-reject">
                    {label(t, 'reject')}
                  </Button>
                )}
              </>
            )}
            {isClaimed && (
              <Button onClick={unclaim} data-testid="action-unclaim">
                {label(t, 'unclaim')}
              </Button>
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
            ...(action === 'delegate' || action === 'transfer'
              ? { username: String(values.username).trim() }
              : {}),
            ...(action === 'regress' ? { activityId: values.activityId } : {}),
            ...(action === 'addSign' ? { usernames: values.usernames, type: values.type } : {}),
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
        {dialog === 'transfer' && <TransferField />}
        {dialog === 'addSign' && (
          <>
            <Form.Item name="type" label={label(t, 'addSignType')} initialValue="before">
              <Radio.Group data-testid="add-sign-type">
                <Radio value="before">{label(t, 'addSignBefore')}</Radio>
                <Radio value="after">{label(t, 'addSignAfter')}</Radio>
              </Radio.Group>
            </Form.Item>
            <Form.Item
              name="usernames"
              label={label(t, 'addSignUsers')}
              rules={[{ required: true, type: 'array', min: 1, message: label(t, 'signersRequired') }]}
            >
              <UserTreeSelect multiple data-testid="add-sign-users" popupClassName="wf-user-popup" />
            </Form.Item>
          </>
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
