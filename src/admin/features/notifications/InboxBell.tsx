import { BellOutlined } from '@ant-design/icons';
import { useCustom, useSubscription } from '@refinedev/core';
import { useQueryClient } from '@tanstack/react-query';
import { Badge } from 'antd';
import { useCallback, useRef } from 'react';
import { useNavigate } from 'react-router';
import { useT } from '../../i18n.js';
import { INBOX_CHANNEL } from '../../providers/live.js';

const INBOX_URL = '/api/admin/notification/queryMyNotification';

/**
 * The top bar's bell: the caller's unread notifications, opening 我的消息 (`path`). No polling: a
 * notice reaching the caller's inbox (on any server process) arrives on the live provider's inbox
 * channel and the count is read again; marking notices read in the inbox recounts it too.
 */
export function InboxBell({ path }: { path: string }) {
  const t = useT();
  const navigate = useNavigate();
  const { query } = useCustom<{ unread: number }>({
    url: INBOX_URL,
    method: 'get',
    config: { query: { pageSize: 1 } },
    // a count that cannot be read stays away quietly
    meta: { silent: true },
    queryOptions: { retry: false },
  });
  const recount = useRef(query.refetch);
  recount.current = query.refetch;
  useSubscription({
    channel: INBOX_CHANNEL,
    types: ['created', 'reset'],
    onLiveEvent: () => void recount.current(),
  });
  const unread = query.data?.data.unread ?? 0;
  const label = unread > 0 ? t('admin.navbar.inboxUnread', { count: unread }) : t('admin.navbar.inbox');
  return (
    <Badge count={unread} size="small" offset={[-4, 4]}>
      <button
        type="button"
        className="admin-navbar-icon"
        title={label}
        aria-label={label}
        data-testid="inbox-bell"
        onClick={() => navigate(path)}
      >
        <BellOutlined />
      </button>
    </Badge>
  );
}

/** After notices were marked read: the bell counts again. */
export function useRecountInbox(): () => void {
  const client = useQueryClient();
  return useCallback(
    () =>
      void client.invalidateQueries({
        predicate: (query) => JSON.stringify(query.queryKey).includes(INBOX_URL),
      }),
    [client],
  );
}
