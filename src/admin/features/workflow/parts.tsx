import { ReloadOutlined } from '@ant-design/icons';
import {
  Badge,
  Button,
  Card,
  Col,
  Empty,
  Flex,
  Form,
  Input,
  Modal,
  Row,
  Space,
  Spin,
  Timeline,
  Typography,
} from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { lazy, Suspense, useEffect, useState, type HTMLAttributes, type ReactNode } from 'react';
import { formatDateTime } from '../../../web/format.js';
import { routeTitle, useT, type Translate } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import { useApiGet, type ApiQuery } from '../../lib/api.js';
import { useOnReturn } from '../../lib/kept-page.js';
import { PagedTable } from '../../lib/screen-parts.js';
import { usePage, WF, type DiagramAnswer, type InstanceDetail, type Row as WfRow } from './api.js';

const Diagram = lazy(() => import('./Diagram.js'));

export const PAGE_SIZE = 10;

/** A label of the workflow screens. */
export const label = (t: Translate, key: string, params?: Record<string, unknown>): string =>
  t(`workflow.screens.${key}`, params);

export const time = (value: unknown): string =>
  typeof value === 'string' || value instanceof Date ? formatDateTime(value) : '';

type BadgeStatus = 'processing' | 'success' | 'error' | 'default' | 'warning';

const STATUS_DOTS: Record<string, BadgeStatus> = {
  running: 'processing',
  active: 'processing',
  over: 'success',
  completed: 'success',
  rejected: 'error',
  terminated: 'default',
  withdrawn: 'warning',
  canceled: 'default',
  regressed: 'warning',
  created: 'default',
  assigned: 'processing',
  delegated: 'warning',
  waiting: 'warning',
  suspended: 'warning',
};

/**
 * An instance's or task's status (workflow.status.*): a coloured dot beside text in the body
 * colour, which keeps its contrast whatever the theme (coloured tag text did not reach 4.5:1).
 */
export function StatusTag({ status, suspended = false }: { status: string; suspended?: boolean }) {
  const t = useT();
  return (
    <Space size={8} data-status={status}>
      <Badge
        status={STATUS_DOTS[status] ?? 'default'}
        text={t(`workflow.status.${status}`, { defaultValue: status })}
      />
      {suspended && <Badge status="warning" text={t('workflow.status.suspended')} />}
    </Space>
  );
}

/**
 * A workflow list: the page title, a name search, refresh and the screen's own buttons, then one
 * page of the list call's records.
 */
export function WfList<T extends WfRow>({
  route,
  path,
  query = {},
  columns,
  toolbar,
  searchField = 'name',
  testId,
  refreshKey = 0,
}: {
  route: AppRoute;
  path: string;
  query?: ApiQuery;
  columns: ColumnsType<T>;
  toolbar?: ReactNode;
  searchField?: string | null;
  testId: string;
  /** Changing it reads the list again (after an action). */
  refreshKey?: number;
}) {
  const t = useT();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const read = usePage<T>(path, {
    ...query,
    currentPage: page,
    pageSize: PAGE_SIZE,
    ...(search && searchField ? { [searchField]: search } : {}),
  });
  const { refetch } = read;
  useEffect(() => {
    if (refreshKey > 0) void refetch();
  }, [refreshKey, refetch]);
  // Kept alive by the tags view: read again on return (a task done on its page, a deployment).
  useOnReturn(() => void refetch());
  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Flex gap={8} wrap className="admin-screen-toolbar">
        {searchField && (
          <Input.Search
            allowClear
            aria-label={label(t, `search.${searchField}`)}
            placeholder={label(t, `search.${searchField}`)}
            onSearch={(value) => {
              // the same search again reads again (the list may have changed meanwhile)
              if (value.trim() === search && page === 1) void refetch();
              setSearch(value.trim());
              setPage(1);
            }}
            className="admin-screen-search-inline"
          />
        )}
        <Button icon={<ReloadOutlined />} onClick={() => void read.refetch()}>
          {t('admin.tags.refresh')}
        </Button>
        {toolbar}
      </Flex>
      <PagedTable<T>
        read={read}
        page={page}
        pageSize={PAGE_SIZE}
        onPage={setPage}
        columns={columns}
        data-testid={testId}
        onRow={(row) => ({ 'data-row-id': String(row.id) }) as HTMLAttributes<HTMLElement>}
      />
    </Card>
  );
}

/**
 * Asks for the comment an action needs (docs/product.md §5: required), with any fields of the action above
 * it; resolves with the values, or undefined when cancelled.
 */
export function CommentDialog({
  open,
  title,
  onDone,
  children,
  isBusy = false,
}: {
  open: boolean;
  title: string;
  onDone: (values: Record<string, unknown> | undefined) => void;
  children?: ReactNode;
  isBusy?: boolean;
}) {
  const t = useT();
  const [form] = Form.useForm();
  return (
    <Modal
      open={open}
      title={title}
      okText={t('admin.common.confirm')}
      cancelText={t('admin.common.cancel')}
      confirmLoading={isBusy}
      onOk={() =>
        // an invalid field is shown at the field: nothing thrown
        void form.validateFields().then(
          (values: Record<string, unknown>) => onDone(values),
          () => undefined,
        )
      }
      onCancel={() => onDone(undefined)}
      destroyOnHidden
      data-testid="comment-dialog"
    >
      <Form form={form} layout="vertical" preserve={false}>
        {children}
        <Form.Item
          name="comment"
          label={label(t, 'comment')}
          rules={[{ required: true, whitespace: true, message: label(t, 'commentRequired') }, { max: 2000 }]}
        >
          <Input.TextArea rows={3} maxLength={2000} showCount data-testid="comment-input" />
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** Who did what and when: the user tasks passed, and the comments. */
function SideList({ detail }: { detail: InstanceDetail }) {
  const t = useT();
  const steps = detail.activities.filter((activity) => activity.type === 'userTask');
  return (
    <div className="wf-side" data-testid="wf-side">
      <Typography.Title level={5}>{label(t, 'steps')}</Typography.Title>
      {steps.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} />
      ) : (
        <Timeline
          items={steps.map((step) => ({
            // as on the diagram: rejected or sent back red, done green, waiting orange
            color: !step.endTime
              ? 'orange'
              : step.endReason === 'rejected' || step.endReason === 'regressed'
                ? 'red'
                : 'green',
            children: (
              <div data-activity={step.key}>
                <strong>{step.name ?? step.key}</strong>
                <div>
                  {step.assignee ?? label(t, 'unclaimed')} ·{' '}
                  {step.endTime
                    ? `${t(`workflow.endReason.${step.endReason ?? 'completed'}`, { defaultValue: step.endReason ?? '' })} ${time(step.endTime)}`
                    : label(t, 'waitingSince', { time: time(step.startTime) })}
                </div>
              </div>
            ),
          }))}
        />
      )}
      <Typography.Title level={5}>{label(t, 'comments')}</Typography.Title>
      {detail.comments.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} />
      ) : (
        <Timeline
          items={detail.comments.map((comment) => ({
            children: (
              <div data-testid="wf-comment">
                <strong>{comment.username}</strong> ·{' '}
                {comment.target && comment.action === 'transfer'
                  ? label(t, 'transferredTo', { target: comment.target })
                  : t(`workflow.action.${comment.action}`, { defaultValue: comment.action })}
                {/* 加签 and 抄送 name whom: 「alice · 向前加签 bob · 理由」 */}
                {comment.target && comment.action !== 'transfer' && ` ${comment.target}`} ·{' '}
                <Typography.Text type="secondary">{time(comment.time)}</Typography.Text>
                {comment.message && <div className="wf-comment">{comment.message}</div>}
              </div>
            ),
          }))}
        />
      )}
    </div>
  );
}

/** An instance's progress: its diagram (completed and waiting marked) beside who did what. */
export function InstanceProgress({ instanceId }: { instanceId: number }) {
  const t = useT();
  const diagram = useApiGet<DiagramAnswer>(`${WF}/processinstance/diagram`, { id: instanceId });
  const detail = useApiGet<InstanceDetail>(`${WF}/processinstance/detail`, { id: instanceId });
  if (diagram.isLoading || detail.isLoading) return <Spin className="admin-page-spin" />;
  if (!diagram.data || !detail.data) return <Empty description={label(t, 'notFound')} />;
  return (
    <Row gutter={16}>
      <Col xs={24} lg={16}>
        <Suspense fallback={<Spin />}>
          <Diagram xml={diagram.data.xml} progress={diagram.data} processKey={diagram.data.processKey} />
        </Suspense>
      </Col>
      <Col xs={24} lg={8}>
        <SideList detail={detail.data} />
      </Col>
    </Row>
  );
}

/** A plain diagram of a definition (no progress); of a file of several processes, the one of `processKey`. */
export function DefinitionDiagram({ xml, processKey }: { xml: string; processKey?: string | undefined }) {
  return (
    <Suspense fallback={<Spin />}>
      <Diagram xml={xml} processKey={processKey} />
    </Suspense>
  );
}
