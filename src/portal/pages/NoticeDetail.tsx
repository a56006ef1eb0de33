import { Link } from 'react-router';
import { portalApi } from '../api.js';
import { usePortal } from '../context.js';
import { formatDateTime } from '../../web/format.js';
import { RichText } from '../ui/RichText.js';
import { day } from '../ui/common.js';
import { DetailArticle, DetailPage, useDetail } from '../ui/detail.js';

export function NoticeDetail() {
  const { t } = usePortal();
  const detail = useDetail(portalApi.noticeDetail);
  const notice = detail.data?.notice;
  return (
    <DetailPage list={{ label: t('routes.noticeList'), to: '/noticeList' }} title={t('routes.noticeDetail')}>
      <div className="detail-layout">
        <DetailArticle testId="notice-detail" state={detail} skeletonLines={10}>
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
        </DetailArticle>
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
    </DetailPage>
  );
}
