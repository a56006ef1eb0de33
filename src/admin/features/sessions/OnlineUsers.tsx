import { ReloadOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Input, Popconfirm, Tag, Tooltip } from 'antd';
import { useState } from 'react';
import { formatDateTime } from '../../../web/format.js';
import { routeTitle, useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import { useApiGet, useApiWrite, useCanButton, withQuery } from '../../lib/api.js';
import type { OnlineSession, Page } from '../../../engine/api-types.js';
import { API, PagedTable, useSubmit } from '../../lib/screen-parts.js';
import { browserOf } from './userAgent.js';

const PAGE_SIZE = 20;

/**
 * Online users (docs/product.md §2.3 admin/onlinesysuser): the tenant's live sessions, most recently seen
 * first, with forced sign-out (menu button kickout); a forced-out session gets 401 on its next
 * call. The caller's own session cannot be forced out from here.
 */
export default function OnlineUsers({ route }: { route: AppRoute }) {
  const t = useT();
  const can = useCanButton(route.code);
  const [page, setPage] = useState(1);
  const [username, setUsername] = useState('');
  const sessions = useApiGet<Page<OnlineSession>>(`${API.user}/queryOnlineSysUser`, {
    currentPage: page,
    pageSize: PAGE_SIZE,
    ...(username ? { username } : {}),
  });
  const { send } = useApiWrite();
  const submit = useSubmit();

  const forceOut = (session: OnlineSession): Promise<void> =>
    submit(() => send('post', withQuery(`${API.user}/forceLogout`, { id: session.id })), {
      after: () => sessions.refetch(),
    });

  const title = (field: string): string => t(`admin.screens.online.${field}`);
  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Flex gap={8} className="admin-screen-toolbar">
        <Input.Search
          allowClear
          placeholder={title('username')}
          onSearch={(value) => {
            setUsername(value.trim());
            setPage(1);
          }}
          className="admin-screen-search-inline"
          data-testid="online-search"
        />
        <Button icon={<ReloadOutlined />} onClick={() => void sessions.refetch()}>
          {t('admin.tags.refresh')}
        </Button>
      </Flex>
      <PagedTable<OnlineSession>
        read={sessions}
        page={page}
        pageSize={PAGE_SIZE}
        onPage={setPage}
        data-testid="online-users"
        columns={[
          {
            key: 'username',
            title: title('username'),
            render: (_value, row) => (
              <span data-username={row.username}>
                {row.username} {row.isCurrent && <Tag color="green">{title('current')}</Tag>}
              </span>
            ),
          },
          { key: 'nickname', dataIndex: 'nickname', title: title('nickname') },
          { key: 'clientCode', dataIndex: 'clientCode', title: title('clientCode') },
          { key: 'ip', dataIndex: 'ip', title: title('ip') },
          {
            key: 'userAgent',
            title: title('userAgent'),
            render: (_value, row) =>
              row.userAgent ? (
                <Tooltip title={row.userAgent}>
                  <span>{browserOf(row.userAgent)}</span>
                </Tooltip>
              ) : null,
          },
          ...(['loginAt', 'lastSeenAt', 'expiresAt'] as const).map((field) => ({
            key: field,
            title: title(field),
            render: (_value: unknown, row: OnlineSession) => formatDateTime(row[field]),
          })),
          {
            key: 'actions',
            fixed: 'right' as const,
            render: (_value: unknown, row: OnlineSession) =>
              can('kickout') && !row.isCurrent ? (
                <Popconfirm
                  title={t('admin.screens.online.confirm', { username: row.username })}
                  onConfirm={() => forceOut(row)}
                  okText={t('admin.common.confirm')}
                  cancelText={t('admin.common.cancel')}
                >
                  <Button danger size="small" data-testid="force-logout">
                    {t('dicts.menu_button.kickout')}
                  </Button>
                </Popconfirm>
              ) : null,
          },
        ]}
      />
    </Card>
  );
}
