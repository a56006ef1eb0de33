import { Link, useSearchParams } from 'react-router';
import { portalApi } from '../api.js';
import { usePortal } from '../context.js';
import { formatDateTime } from '../../web/format.js';
import { RichText } from '../ui/RichText.js';
import { Breadcrumb, day, ErrorNote, idParam, SkeletonLines, useAsync } from '../ui/common.js';

export function NoticeDetail() {
  const { t, home } = usePortal();
  const [search] = useSearchParams();
  const id = idParam(search);
  const detail = useAsync(
    () => (id === undefined ? Promise.reject(new Error(t('common.notFound'))) : portalApi.noticeDetail(id)),
    [id],
  );
  const notice = detail.data?.notice;
  return (
    <div className="container detail-page">
      <Breadcrumb
        items={[
          { label: t('tabs.home'), to: home },
          { label: t('routes.noticeList'), to: '/noticeList' },
          { label: t('routes.noticeDetail') },
        ]}
      />
      <div className="detail-layout">
        <article className="card article" data-testid="notice-detail">
          {detail.error && <ErrorNote text={detail.error} />}
          {detail.isLoading && <SkeletonLines count={10} />}
          {notice && (
            <>
              <h1 className="article-title">{notice.title}</h1>
              <p className="article-meta">
                {notice.category && <span className="tag">{notice.category}</span>}
                {notice.publisher && <span>{t('notice.publisher', { publisher: notice.publisher })}</span>}
                <span>{t('notice.publishTime', { time: formatDateTime(notice.publishTime) })}</span>
              </p>
              <RichText html={notice.content} />
            </>
          )}
          <p className="article-back">
            <Link to="/noticeList">← {t('notice.back')}</Link>
          </p>
        </article>
        <aside className="card side-list">
          <h2>{t('notice.latest')}</h2>
          <ul>
            {(detail.data?.latest ?? []).map((other) => (
              <li key={other.id}>
                <Link to={`/noticeDetail?id=${other.id}`} className="ellipsis" title={other.title ?? ''}>
                  {other.title}
                </Link>
                <time>{day(other.publishTime)}</time>
              </li>
            ))}
          </ul>
        </aside>
      </div>
    </div>
  );
}
