import { Link } from 'react-router';
import { portalApi } from '../api.js';
import { usePortal } from '../context.js';
import { formatDateTime } from '../../web/format.js';
import { Icon } from '../ui/icons.js';
import { RichText } from '../ui/RichText.js';
import { day, useAsync, useMoney } from '../ui/common.js';
import { ListItem, ListPage, PagedResults, SearchBar, SearchInput, useListSearch } from '../ui/list.js';
import { DetailArticle, DetailPage, Facts, useDetail } from '../ui/detail.js';

const PAGE_SIZE = 10;

export function PurchaseList() {
  const { t } = usePortal();
  const money = useMoney();
  const { page, setPage, filters, draft, setDraft, search } = useListSearch(
    { title: '', region: '' },
    (value) => ({ title: value.title.trim(), region: value.region.trim() }),
  );
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
  return (
    <ListPage title={t('routes.purchaseList')} subtitle={t('purchase.bannerText')}>
      <SearchBar onSearch={search}>
        <SearchInput
          value={draft.title}
          maxLength={50}
          placeholder={t('purchase.searchPlaceholder')}
          onChange={(title) => setDraft({ ...draft, title })}
        />
        <SearchInput
          className="narrow"
          value={draft.region}
          maxLength={20}
          placeholder={t('purchase.regionPlaceholder')}
          onChange={(region) => setDraft({ ...draft, region })}
        />
      </SearchBar>
      <PagedResults state={list} page={page} pageSize={PAGE_SIZE} onPage={setPage} skeletonLines={8}>
        {(records) => (
          <ul className="list" data-testid="purchase-list">
            {records.map((item) => (
              <ListItem
                key={item.id}
                to={`/purchaseDetail?id=${item.id}`}
                tags={item.purchaseMode && <span className="tag">{item.purchaseMode}</span>}
                title={item.title}
              >
                <span>{item.buyerName}</span>
                {item.region && (
                  <span>
                    <Icon name="location" size={14} /> {item.region}
                  </span>
                )}
                {item.category && <span>{item.category}</span>}
                <span className="budget">
                  {t('common.labelled', { label: t('purchase.budget'), value: money(item.budget) })}
                </span>
                <span>
                  {t('common.labelled', { label: t('purchase.deadline'), value: day(item.deadline) })}
                </span>
              </ListItem>
            ))}
          </ul>
        )}
      </PagedResults>
    </ListPage>
  );
}

export function PurchaseDetail() {
  const { t } = usePortal();
  const money = useMoney();
  const detail = useDetail(portalApi.purchase);
  const item = detail.data;
  const rows: [string, string][] = item
    ? [
        [t('purchase.projectCode'), item.projectCode ?? '—'],
        [t('purchase.buyer'), item.buyerName ?? '—'],
        [t('purchase.category'), item.category ?? '—'],
        [t('purchase.mode'), item.purchaseMode ?? '—'],
        [t('purchase.region'), item.region ?? '—'],
        [t('purchase.budget'), money(item.budget)],
        [t('purchase.publishTime'), formatDateTime(item.publishTime)],
        [t('purchase.deadline'), formatDateTime(item.deadline)],
        [t('purchase.contact'), [item.contactName, item.contactPhone].filter(Boolean).join(' ') || '—'],
      ]
    : [];
  return (
    <DetailPage
      list={{ label: t('routes.purchaseList'), to: '/purchaseList' }}
      title={t('routes.purchaseDetail')}
    >
      <DetailArticle testId="purchase-detail" state={detail} skeletonLines={10}>
        {item && (
          <>
            <h1 className="article-title">{item.title}</h1>
            <Facts rows={rows} />
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
      </DetailArticle>
    </DetailPage>
  );
}
