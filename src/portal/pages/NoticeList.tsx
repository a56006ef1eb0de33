import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { portalApi } from '../api.js';
import { usePortal } from '../context.js';
import { Icon } from '../ui/icons.js';
import {
  Breadcrumb,
  day,
  Empty,
  ErrorNote,
  PageBanner,
  Pagination,
  SkeletonLines,
  useAsync,
} from '../ui/common.js';

const PAGE_SIZE = 10;

/** Platform notices, paged and searchable; kept alive by the layout (its state survives a detail visit). */
export function NoticeList({ isActive }: { isActive: boolean }) {
  const { t, home } = usePortal();
  const [page, setPage] = useState(1);
  const [title, setTitle] = useState('');
  const [draft, setDraft] = useState('');
  const scroll = useRef(0);
  // kept alive: remember where the visitor was and return there
  useEffect(() => {
    if (isActive) {
      window.scrollTo(0, scroll.current);
      const onScroll = (): void => {
        scroll.current = window.scrollY;
      };
      window.addEventListener('scroll', onScroll, { passive: true });
      return () => window.removeEventListener('scroll', onScroll);
    }
    return undefined;
  }, [isActive]);
  const notices = useAsync(
    () => portalApi.notices({ currentPage: page, pageSize: PAGE_SIZE, ...(title ? { title } : {}) }),
    [page, title],
  );
  const search = (event: FormEvent): void => {
    event.preventDefault();
    setPage(1);
    setTitle(draft.trim());
  };
  return (
    <div className="notice-list-page">
      <PageBanner title={t('routes.noticeList')} subtitle={t('notice.bannerText')} />
      <div className="container">
        <Breadcrumb items={[{ label: t('tabs.home'), to: home }, { label: t('routes.noticeList') }]} />
        <div className="card">
          <form className="search-bar" onSubmit={search} role="search">
            <input
              type="search"
              value={draft}
              maxLength={50}
              placeholder={t('notice.searchPlaceholder')}
              aria-label={t('notice.searchPlaceholder')}
              onChange={(event) => setDraft(event.target.value)}
            />
            <button type="submit" className="btn btn-primary">
              <Icon name="search" size={16} /> {t('common.search')}
            </button>
          </form>
          {notices.error && <ErrorNote text={notices.error} />}
          {notices.isLoading && !notices.data ? (
            <SkeletonLines count={8} />
          ) : notices.data && notices.data.records.length > 0 ? (
            <ul className="list" data-testid="notice-list">
              {notices.data.records.map((notice) => (
                <li key={notice.id} className="list-item">
                  <Link to={`/noticeDetail?id=${notice.id}`} className="list-title">
                    {notice.pinned && <span className="tag tag-hot">{t('notice.pinned')}</span>}
                    {notice.category && <span className="tag">{notice.category}</span>}
                    <span>{notice.title}</span>
                  </Link>
                  {notice.summary && <p className="list-summary">{notice.summary}</p>}
                  <p className="list-meta">
                    <span>
                      <Icon name="clock" size={14} /> {day(notice.publishTime)}
                    </span>
                    {notice.publisher && <span>{notice.publisher}</span>}
                  </p>
                </li>
              ))}
            </ul>
          ) : (
            !notices.error && <Empty />
          )}
          {notices.data && (
            <Pagination current={page} pageSize={PAGE_SIZE} total={notices.data.total} onChange={setPage} />
          )}
        </div>
      </div>
    </div>
  );
}
