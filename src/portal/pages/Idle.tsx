import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { portalApi, type Idle } from '../api.js';
import { usePortal } from '../context.js';
import { formatDateTime } from '../../web/format.js';
import { Icon } from '../ui/icons.js';
import {
  Breadcrumb,
  Empty,
  ErrorNote,
  idParam,
  PageBanner,
  Pagination,
  SkeletonLines,
  useAsync,
} from '../ui/common.js';

const PAGE_SIZE = 12;
const HUES = [152, 205, 95, 28, 260, 180];

/** A picture of the item, or a drawn placeholder in a colour of its category. */
function IdleImage({ item }: { item: Idle }) {
  if (item.imageUrl)
    return <img src={item.imageUrl} alt={item.name ?? ''} width={320} height={200} loading="lazy" />;
  const hue =
    HUES[[...(item.category ?? '')].reduce((sum, char) => sum + char.charCodeAt(0), 0) % HUES.length] ?? 152;
  return (
    <div
      className="idle-placeholder"
      style={{
        background: `linear-gradient(135deg, hsl(${hue} 45% 92%), hsl(${hue} 40% 82%))`,
        color: `hsl(${hue} 45% 30%)`,
      }}
    >
      <Icon name="leaf" size={34} />
      <span>{item.category}</span>
    </div>
  );
}

export function IdleCard({ item }: { item: Idle }) {
  const { t } = usePortal();
  return (
    <Link to={`/huanxinbaodetail?id=${item.id}`} className="idle-card">
      <IdleImage item={item} />
      <div className="idle-body">
        <h3 className="ellipsis" title={item.name ?? ''}>
          {item.name}
        </h3>
        <p className="idle-meta">
          {item.condition && <span className="tag">{item.condition}</span>}
          <span>
            <Icon name="location" size={13} /> {item.location}
          </span>
        </p>
        <p className="idle-price">
          {item.price ? `¥ ${item.price.toLocaleString('zh-CN')}` : t('idle.negotiable')}
        </p>
      </div>
    </Link>
  );
}

export function IdleList() {
  const { t, home } = usePortal();
  const [page, setPage] = useState(1);
  const [name, setName] = useState('');
  const [draft, setDraft] = useState('');
  const list = useAsync(
    () => portalApi.idle({ currentPage: page, pageSize: PAGE_SIZE, ...(name ? { name } : {}) }),
    [page, name],
  );
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setPage(1);
    setName(draft.trim());
  };
  return (
    <div>
      <PageBanner title={t('routes.idleList')} subtitle={t('idle.bannerText')} />
      <div className="container">
        <Breadcrumb items={[{ label: t('tabs.home'), to: home }, { label: t('routes.idleList') }]} />
        <div className="card">
          <form className="search-bar" onSubmit={submit} role="search">
            <input
              type="search"
              value={draft}
              maxLength={50}
              placeholder={t('idle.searchPlaceholder')}
              aria-label={t('idle.searchPlaceholder')}
              onChange={(event) => setDraft(event.target.value)}
            />
            <button type="submit" className="btn btn-primary">
              <Icon name="search" size={16} /> {t('common.search')}
            </button>
          </form>
          {list.error && <ErrorNote text={list.error} />}
          {list.isLoading && !list.data ? (
            <SkeletonLines count={6} />
          ) : list.data && list.data.records.length > 0 ? (
            <div className="idle-grid" data-testid="idle-list">
              {list.data.records.map((item) => (
                <IdleCard key={item.id} item={item} />
              ))}
            </div>
          ) : (
            !list.error && <Empty />
          )}
          {list.data && (
            <Pagination current={page} pageSize={PAGE_SIZE} total={list.data.total} onChange={setPage} />
          )}
        </div>
      </div>
    </div>
  );
}

export function IdleDetail() {
  const { t, home } = usePortal();
  const [search] = useSearchParams();
  const id = idParam(search);
  const detail = useAsync(
    () => (id === undefined ? Promise.reject(new Error(t('common.notFound'))) : portalApi.idleDetail(id)),
    [id],
  );
  const item = detail.data;
  return (
    <div className="container detail-page">
      <Breadcrumb
        items={[
          { label: t('tabs.home'), to: home },
          { label: t('routes.idleList'), to: '/huanxianbaoList' },
          { label: t('routes.idleDetail') },
        ]}
      />
      <article className="card article" data-testid="idle-detail">
        {detail.error && <ErrorNote text={detail.error} />}
        {detail.isLoading && <SkeletonLines count={8} />}
        {item && (
          <div className="idle-detail">
            <IdleImage item={item} />
            <div>
              <h1 className="article-title">{item.name}</h1>
              <p className="idle-price big">
                {item.price ? `¥ ${item.price.toLocaleString('zh-CN')}` : t('idle.negotiable')}
              </p>
              <dl className="facts">
                {(
                  [
                    [t('idle.category'), item.category],
                    [t('idle.model'), item.model],
                    [t('idle.condition'), item.condition],
                    [t('idle.quantity'), item.quantity === null ? null : String(item.quantity)],
                    [t('idle.location'), item.location],
                    [t('idle.seller'), item.seller],
                    [t('idle.phone'), item.contactPhone],
                    [t('idle.publishTime'), formatDateTime(item.publishTime)],
                  ] as [string, string | null][]
                ).map(([label, value]) => (
                  <div key={label}>
                    <dt>{label}</dt>
                    <dd>{value || '—'}</dd>
                  </div>
                ))}
              </dl>
              <p className="idle-description">{item.description}</p>
              <p className="muted">{t('idle.tip')}</p>
              <p className="article-actions">
                <Link to="/huanxianbaoList" className="btn">
                  {t('idle.back')}
                </Link>
              </p>
            </div>
          </div>
        )}
      </article>
    </div>
  );
}
