import { Link } from 'react-router';
import { portalApi } from '../api.js';
import { usePortal } from '../context.js';
import type { PortalAttachment } from '../../engine/api-types.js';
import { formatBytes, formatDateTime } from '../../web/format.js';
import { Icon } from '../ui/icons.js';
import { RichText } from '../ui/RichText.js';
import { day } from '../ui/common.js';
import { DetailArticle, DetailPage, useDetail } from '../ui/detail.js';

/** The files offered with a notice: name, size and a download link that needs no sign-in. */
function Attachments({ files }: { files: PortalAttachment[] }) {
  const { t } = usePortal();
  if (files.length === 0) return null;
  return (
    <section className="attachments" aria-labelledby="notice-attachments" data-testid="notice-attachments">
      <h2 id="notice-attachments">{t('notice.attachments')}</h2>
      <ul>
        {files.map((file) => (
          <li key={file.id}>
            <Icon name="paper" />
            <a
              href={file.url}
              download={file.originalFilename}
              title={t('notice.download', { name: file.originalFilename })}
            >
              <span className="ellipsis">{file.originalFilename}</span>
              <Icon name="download" size={16} />
            </a>
            <span className="attachment-size">{formatBytes(file.sizeBytes)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

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
                {notice.publishTime && (
                  <span>{t('notice.publishTime', { time: formatDateTime(notice.publishTime) })}</span>
                )}
              </p>
              <RichText html={notice.content} />
              <Attachments files={detail.data?.attachments ?? []} />
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
