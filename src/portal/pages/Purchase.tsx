import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { portalApi } from '../api.js';
import { usePortal } from '../context.js';
import { formatDateTime } from '../../web/format.js';
import { Icon } from '../ui/icons.js';
import { RichText } from '../ui/RichText.js';
import {
  Breadcrumb,
  day,
  Empty,
  ErrorNote,
  idParam,
  money,
  PageBanner,
  Pagination,
  SkeletonLines,
  useAsync,
} from '../ui/common.js';

const PAGE_SIZE = 10;

export function PurchaseList() {
  const { t, home } = usePortal();
  const [page, setPage] = useState(1);
  const [filters, setFilters] = useState({ title: '', region: '' });
  const [draft, setDraft] = useState(filters);
  const list = useAsync(
    () =>
      portalApi.purchases({
        currentPage: page,
        pageSize: PAGE_SIZE,
        ...(filters.title ? { title: filters.title } : {}),
        ...(filters.region ? { region: filters.region } : {}),
      }),
    [page, filters],
  );
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    setPage(1);
    setFilters({ title: draft.title.trim(), region: draft.region.trim() });
  };
  return (
    <div>
      <PageBanner title={t('routes.purchaseList')} subtitle={t('purchase.bannerText')} />
      <div className="container">
        <Breadcrumb items={[{ label: t('tabs.home'), to: home }, { label: t('routes.purchaseList') }]} />
        <div className="card">
          <form className="search-bar" onSubmit={submit} role="search">
            <input
              type="search"
              value={draft.title}
              maxLength={50}
              placeholder={t('purchase.searchPlaceholder')}
              aria-label={t('purchase.searchPlaceholder')}
              onChange={(event) => setDraft({ ...draft, title: event.target.value })}
            />
            <input
              type="search"
              className="narrow"
              value={draft.region}
              maxLength={20}
              placeholder={t('purchase.regionPlaceholder')}
              aria-label={t('purchase.regionPlaceholder')}
              onChange={(event) => setDraft({ ...draft, region: event.target.value })}
            />
            <button type="submit" className="btn btn-primary">
              <Icon name="search" size={16} /> {t('common.search')}
            </button>
          </form>
          {list.error && <ErrorNote text={list.error} />}
          {list.isLoading && !list.data ? (
            <SkeletonLines count={8} />
          ) : list.data && list.data.records.length > 0 ? (
            <ul className="list" data-testid="purchase-list">
              {list.data.records.map((item) => (
                <li key={item.id} className="list-item">
                  <Link to={`/purchaseDetail?id=${item.id}`} className="list-title">
                    {item.purchaseMode && <span className="tag">{item.purchaseMode}</span>}
                    <span>{item.title}</span>
                  </Link>
                  <p className="list-meta">
                    <span>{item.buyerName}</span>
                    {item.region && (
                      <span>
                        <Icon name="location" size={14} /> {item.region}
                      </span>
                    )}
                    {item.category && <span>{item.category}</span>}
                    <span className="budget">
                      {t('purchase.budget')}：{money(item.budget, t('common.tenThousandYuan'))}
                    </span>
                    <span>
                      {t('purchase.deadline')}：{day(item.deadline)}
                    </span>
                  </p>
                </li>
              ))}
            </ul>
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

export function PurchaseDetail() {
  const { t, home } = usePortal();
  const [search] = useSearchParams();
  const id = idParam(search);
  const detail = useAsync(
    () => (id === undefined ? Promise.reject(new Error(t('common.notFound'))) : portalApi.purchase(id)),
    [id],
  );
  const item = detail.data;
  const rows: [string, string][] = item
    ? [
        [t('purchase.projectCode'), item.projectCode ?? '—'],
        [t('purchase.buyer'), item.buyerName ?? '—'],
        [t('purchase.category'), item.category ?? '—'],
        [t('purchase.mode'), item.purchaseMode ?? '—'],
        [t('purchase.region'), item.region ?? '—'],
        [t('purchase.budget'), money(item.budget, t('common.tenThousandYuan'))],
        [t('purchase.publishTime'), formatDateTime(item.publishTime)],
        [t('purchase.deadline'), formatDateTime(item.deadline)],
        [t('purchase.contact'), [item.contactName, item.contactPhone].filter(Boolean).join(' ') || '—'],
      ]
    : [];
  return (
    <div className="container detail-page">
      <Breadcrumb
        items={[
          { label: t('tabs.home'), to: home },
          { label: t('routes.purchaseList'), to: '/purchaseList' },
          { label: t('routes.purchaseDetail') },
        ]}
      />
      <article className="card article" data-testid="purchase-detail">
        {detail.error && <ErrorNote text={detail.error} />}
        {detail.isLoading && <SkeletonLines count={10} />}
        {item && (
          <>
            <h1 className="article-title">{item.title}</h1>
            <dl className="facts">
              {rows.map(([label, value]) => (
                <div key={label}>
                  <dt>{label}</dt>
                  <dd>{value}</dd>
                </div>
              ))}
            </dl>
            <RichText html={item.content} />
            <div className="article-actions">
              <Link to="/login" className="btn btn-primary">
                {t('purchase.bid')}
              </Link>
              <Link to="/purchaseList" className="btn">
                {t('purchase.back')}
              </Link>
            </div>
          </>
        )}
      </article>
    </div>
  );
}
