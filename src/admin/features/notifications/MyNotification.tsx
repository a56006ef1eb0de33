import { App, Badge, Button, Card, Descriptions, Flex, Input, Modal, Segmented, Select, Tag } from 'antd';
import { useSubscription } from '@refinedev/core';
import { useRef, useState, type Key } from 'react';
import { INBOX_CHANNEL } from '../../providers/live.js';
import { useRecountInbox } from './InboxBell.js';
import { sanitizeHtml } from '../../../web/sanitize.js';
import { formatDateTime } from '../../../web/format.js';
import { routeTitle, useT, type Translate } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import { useApiGet, useApiWrite, withQuery, type ApiQuery } from '../../lib/api.js';
import type { Page } from '../../../engine/api-types.js';
import { API, fieldTitle, PagedTable, useSubmit } from '../../lib/screen-parts.js';

/** A notification as queryMyNotification answers it. */
export interface MyNotificationRecord {
  id: number;
  title: string;
  content: string;
  type: string;
  priority: string;
  publisher: string | null;
  publishTime: string | null;
  startTime: string | null;
  endTime: string | null;
  period: string | null;
  publishObject: number[] | null;
  isRead: boolean;
  readAt: string | null;
}

interface Inbox extends Page<MyNotificationRecord> {
  unread: number;
}

interface DictItem {
  dictValue: string;
}

type ReadFilter = 'all' | 'unread' | 'read';

const PAGE_SIZE = 10;
const PRIORITY_COLORS: Record<string, string> = { '2': 'blue', '3': 'orange', '4': 'red' };

/** docs/product.md §9: a notification without a period is unrestricted. */
export function periodText(t: Translate, record: MyNotificationRecord): string {
  if (record.period) return record.period;
  if (record.startTime || record.endTime) {
    return `${formatDateTime(record.startTime) || '…'} ~ ${formatDateTime(record.endTime) || '…'}`;
  }
  return t('admin.screens.inbox.unrestricted');
}

/** docs/product.md §9: a notification without a target goes to all users. */
export function targetText(t: Translate, record: MyNotificationRecord): string {
  const count = record.publishObject?.length ?? 0;
  return count === 0 ? t('admin.screens.inbox.allUsers') : t('admin.screens.inbox.someUsers', { count });
}

function dictLabel(t: Translate, dict: string, value: string | null | undefined): string {
  return value ? t(`dicts.${dict}.${value}`, { defaultValue: value }) : '';
}

/**
 * The personal inbox (docs/product.md §2.3 /mynotification): the caller's notifications with read / unread,
 * type, priority, period and target; opening an unread one marks it read, and checked ones can
 * be marked read together.
 */
export default function MyNotification({ route }: { route: AppRoute }) {
  const t = useT();
  const { message } = App.useApp();
  const submit = useSubmit();
  const [page, setPage] = useState(1);
  const [read, setRead] = useState<ReadFilter>('all');
  const [type, setType] = useState<string | undefined>(undefined);
  const [priority, setPriority] = useState<string | undefined>(undefined);
  const [title, setTitle] = useState('');
  const [selected, setSelected] = useState<Key[]>([]);
  const [open, setOpen] = useState<MyNotificationRecord | undefined>(undefined);
  const query: ApiQuery = {
    currentPage: page,
    pageSize: PAGE_SIZE,
    read: read === 'all' ? undefined : String(read === 'read'),
    type,
    priority,
    title: title || undefined,
  };
  const inbox = useApiGet<Inbox>(`${API.notification}/queryMyNotification`, query);
  // No polling: a notice reaching the caller's inbox (on any server process) arrives on the live
  // provider's inbox channel, and the list and its unread count are read again.
  const recountBell = useRecountInbox();
  const reload = useRef(inbox.refetch);
  reload.current = inbox.refetch;
  useSubscription({
    channel: INBOX_CHANNEL,
    types: ['created', 'reset'],
    onLiveEvent: () => void reload.current(),
  });
  const types = useApiGet<DictItem[]>(`${API.notification}/queryNotificationType`);
  const priorities = useApiGet<DictItem[]>(`${API.notification}/queryNotificationPriority`);
  const { send, isSending } = useApiWrite();
  // Opening a notification marks it read on its own, without the toolbar button spinning.
  const { send: sendQuietly } = useApiWrite();

  const markRead = (ids: number[], isQuiet = false): Promise<void> =>
    submit(
      () =>
        (isQuiet ? sendQuietly : send)(
          'post',
          withQuery(`${API.notification}/markNotificationRead`, { id: ids }),
        ),
      {
        success: isQuiet ? false : t('admin.common.operateSuccess'),
        after: () => {
          setSelected([]);
          recountBell();
          return inbox.refetch();
        },
      },
    );

  const markChecked = (): void => {
    if (selected.length === 0) {
      void message.warning(t('admin.crud.checkRecord'));
      return;
    }
    void markRead(selected.map(Number));
  };

  const view = (record: MyNotificationRecord): void => {
    setOpen(record);
    if (!record.isRead) void markRead([record.id], true);
  };

  const filterChanged = <T,>(set: (value: T) => void) => {
    return (value: T) => {
      set(value);
      setPage(1);
    };
  };
  const field = (name: string): string => fieldTitle(t, 'notification', name);
  /** The type or priority filter: the notification_<name> dictionary. */
  const dictFilter = (
    name: 'type' | 'priority',
    value: string | undefined,
    set: (value: string | undefined) => void,
    items: DictItem[] | undefined,
  ) => (
    <Select
      allowClear
      placeholder={field(name)}
      aria-label={field(name)}
      value={value}
      onChange={filterChanged(set)}
      options={(items ?? []).map((item) => ({
        value: item.dictValue,
        label: dictLabel(t, `notification_${name}`, item.dictValue),
      }))}
      className="admin-screen-filter"
      data-testid={`inbox-${name}`}
    />
  );

  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Flex gap={8} wrap className="admin-screen-toolbar" data-testid="inbox-filters">
        <Segmented<ReadFilter>
          value={read}
          onChange={filterChanged(setRead)}
          options={[
            { value: 'all', label: t('admin.screens.inbox.all') },
            {
              value: 'unread',
              label: (
                <Badge count={inbox.data?.unread ?? 0} size="small" offset={[8, -2]}>
                  {t('admin.screens.inbox.unread')}
                </Badge>
              ),
            },
            { value: 'read', label: t('admin.screens.inbox.read') },
          ]}
          data-testid="inbox-read-filter"
        />
        {dictFilter('type', type, setType, types.data)}
        {dictFilter('priority', priority, setPriority, priorities.data)}
        <Input.Search
          allowClear
          placeholder={field('title')}
          aria-label={field('title')}
          onSearch={(value) => filterChanged(setTitle)(value.trim())}
          className="admin-screen-search-inline"
        />
        <Button type="primary" onClick={markChecked} loading={isSending} data-testid="inbox-mark-read">
          {t('admin.screens.inbox.markRead')}
        </Button>
      </Flex>
      <PagedTable<MyNotificationRecord>
        read={inbox}
        page={page}
        pageSize={PAGE_SIZE}
        onPage={setPage}
        rowClassName={(record) => (record.isRead ? '' : 'admin-inbox-unread')}
        rowSelection={{ selectedRowKeys: selected, onChange: setSelected }}
        data-testid="inbox"
        columns={[
          {
            key: 'title',
            title: field('title'),
            render: (_value, record) => (
              <Button type="link" onClick={() => view(record)} className="admin-inbox-title">
                <Badge status={record.isRead ? 'default' : 'processing'} />
                {record.title}
              </Button>
            ),
          },
          {
            key: 'type',
            title: field('type'),
            render: (_value, record) => <Tag>{dictLabel(t, 'notification_type', record.type)}</Tag>,
          },
          {
            key: 'priority',
            title: field('priority'),
            render: (_value, record) => (
              <Tag color={PRIORITY_COLORS[record.priority]}>
                {dictLabel(t, 'notification_priority', record.priority)}
              </Tag>
            ),
          },
          { key: 'publisher', dataIndex: 'publisher', title: field('publisher') },
          {
            key: 'publishTime',
            title: field('publishTime'),
            render: (_value, record) => formatDateTime(record.publishTime),
          },
          { key: 'period', title: field('period'), render: (_value, record) => periodText(t, record) },
          {
            key: 'publishObject',
            title: field('publishObject'),
            render: (_value, record) => targetText(t, record),
          },
          {
            key: 'isRead',
            title: t('admin.screens.inbox.status'),
            render: (_value, record) =>
              record.isRead ? (
                <Tag>{t('admin.screens.inbox.read')}</Tag>
              ) : (
                <Tag color="processing">{t('admin.screens.inbox.unread')}</Tag>
              ),
          },
        ]}
      />
      <Modal
        open={open !== undefined}
        title={open?.title}
        footer={null}
        width={720}
        onCancel={() => setOpen(undefined)}
        destroyOnHidden
      >
        {open && (
          <>
            <Descriptions size="small" column={2} className="admin-inbox-meta">
              <Descriptions.Item label={field('type')}>
                {dictLabel(t, 'notification_type', open.type)}
              </Descriptions.Item>
              <Descriptions.Item label={field('priority')}>
                {dictLabel(t, 'notification_priority', open.priority)}
              </Descriptions.Item>
              <Descriptions.Item label={field('publisher')}>{open.publisher}</Descriptions.Item>
              <Descriptions.Item label={field('publishTime')}>
                {formatDateTime(open.publishTime)}
              </Descriptions.Item>
              <Descriptions.Item label={field('period')}>{periodText(t, open)}</Descriptions.Item>
              <Descriptions.Item label={field('publishObject')}>{targetText(t, open)}</Descriptions.Item>
            </Descriptions>
            <div
              className="admin-inbox-content"
              data-testid="inbox-content"
              dangerouslySetInnerHTML={{ __html: sanitizeHtml(open.content) }}
            />
          </>
        )}
      </Modal>
    </Card>
  );
}
