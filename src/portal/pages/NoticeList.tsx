import { useEffect, useRef } from 'react';
import { portalApi } from '../api.js';
import { usePortal } from '../context.js';
import { Icon } from '../ui/icons.js';
import { day, useAsync } from '../ui/common.js';
import { ListItem, ListPage, PagedResults, SearchBar, SearchInput, useListSearch } from '../ui/list.js';

const PAGE_SIZE = 10;

/** Platform notices, paged and searchable; kept alive by the layout (its state survives a detail visit). */
export function NoticeList({ isActive }: { isActive: boolean }) {
  const { t } = usePortal();
  const {
    page,
    setPage,
    filters: title,
    draft,
    setDraft,
    search,
  } = useListSearch('', (value) => value.trim());
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
  return (
    <ListPage className="notice-list-page" title={t('routes.noticeList')} subtitle={t('notice.bannerText')}>
      <SearchBar onSearch={search}>
        <SearchInput
          value={draft}
          maxLength={50}
          placeholder={t('notice.searchPlaceholder')}
          onChange={setDraft}
        />
      </SearchBar>
      <PagedResults state={notices} page={page} pageSize={PAGE_SIZE} onPage={setPage} skeletonLines={8}>
        {(records) => (
          <ul className="list" data-testid="notice-list">
            {records.map((notice) => (
              <ListItem
                key={notice.id}
                to={`/noticeDetail?id=${notice.id}`}
                tags={
                  <>
                    {notice.pinned && <span className="tag tag-hot">{t('notice.pinned')}</span>}
                    {notice.category && <span className="tag">{notice.category}</span>}
                  </>
                }
                title={notice.title}
                summary={notice.summary}
              >
                <span>
                  <Icon name="clock" size={14} /> {day(notice.publishTime)}
                </span>
                {notice.publisher && <span>{notice.publisher}</span>}
              </ListItem>
            ))}
          </ul>
        )}
      </PagedResults>
    </ListPage>
  );
}
