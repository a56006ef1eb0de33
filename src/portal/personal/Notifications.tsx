import { useEffect, useState } from 'react';
import { listenLive } from '../../web/live.js';
import { usePortal } from '../context.js';
import { Empty, ErrorNote, Pagination, SkeletonLines, useAsync, day } from '../ui/common.js';
import { RichText } from '../ui/RichText.js';
import { personalApi } from './api.js';

const PAGE_SIZE = 10;

/**
 * 我的消息: the notifications addressed to the user; opening one marks it read. No polling: a
 * notice reaching the user's inbox arrives on the live-update stream and the list is read again.
 */
export function NotificationsSection() {
  const { t } = usePortal();
  const [page, setPage] = useState(1);
  const [reload, setReload] = useState(0);
  const [openId, setOpenId] = useState<number>();
  const list = useAsync(() => personalApi.notifications(page, PAGE_SIZE), [page, reload]);
  useEffect(() => {
    const again = (): void => setReload((count) => count + 1);
    return listenLive({
      message: (message) => {
        if (message.inbox) again();
      },
      reset: again,
    });
  }, []);
  const open = async (id: number, isRead: boolean): Promise<void> => {
    setOpenId(openId === id ? undefined : id);
    if (isRead) return;
    await personalApi.markRead(id).catch(() => undefined);
    setReload((count) => count + 1);
  };
  const data = list.data;
  return (
    <section className="card personal-card" data-testid="personal-notifications">
      <h2>
        {t('personal.notifications.title')}
        {data && data.unread > 0 && (
          <span className="tag tag-hot" data-testid="unread-count">
            {t('personal.notifications.unread', { count: data.unread })}
          </span>
        )}
      </h2>
      {list.error && <ErrorNote text={list.error} />}
      {!data && list.isLoading && <SkeletonLines count={6} />}
      {data && data.records.length === 0 && <Empty text={t('personal.notifications.empty')} />}
      {data && data.records.length > 0 && (
        <ul className="personal-messages">
          {data.records.map((item) => (
            <li key={item.id} className={item.isRead ? undefined : 'is-unread'}>
              <button
                type="button"
                className="personal-message-head"
                aria-expanded={openId === item.id}
                onClick={() => void open(item.id, item.isRead)}
              >
                {!item.isRead && (
                  <span className="dot" role="img" aria-label={t('personal.notifications.new')} />
                )}
                <span className="ellipsis">{item.title}</span>
                <time>{day(item.publishTime)}</time>
              </button>
              {openId === item.id && <RichText html={item.content} />}
            </li>
          ))}
        </ul>
      )}
      {data && <Pagination current={page} pageSize={PAGE_SIZE} total={data.total} onChange={setPage} />}
    </section>
  );
}
