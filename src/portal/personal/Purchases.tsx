import { useState } from 'react';
import { Link } from 'react-router';
import { usePortal } from '../context.js';
import type { PortalUser } from '../session.js';
import { day, Empty, ErrorNote, Pagination, SkeletonLines, useAsync, useMoney } from '../ui/common.js';
import { personalApi } from './api.js';

const PAGE_SIZE = 10;

/** 我的采购公告: a buyer's purchase notices, published or not, with the way to publish more. */
export function PurchasesSection({ user }: { user: PortalUser }) {
  const { t, params } = usePortal();
  const money = useMoney();
  const [page, setPage] = useState(1);
  const list = useAsync(() => personalApi.purchases(page, PAGE_SIZE), [page, user.id]);
  const data = list.data;
  return (
    <section className="card personal-card" data-testid="personal-purchases">
      <h2>{t('personal.purchases.title')}</h2>
      <p className="muted">{t('personal.purchases.hint', { hotline: params.hotline ?? '' })}</p>
      {list.error && <ErrorNote text={list.error} />}
      {!data && list.isLoading && <SkeletonLines count={6} />}
      {data && data.records.length === 0 && <Empty text={t('personal.purchases.empty')} />}
      {data && data.records.length > 0 && (
        <ul className="list">
          {data.records.map((item) => (
            <li key={item.id} className="list-item">
              {item.published ? (
                <Link to={`/purchaseDetail?id=${item.id}`} className="list-title">
                  {item.title}
                </Link>
              ) : (
                <span className="list-title">{item.title}</span>
              )}
              <div className="list-meta">
                <span className={item.published ? 'tag' : 'tag tag-hot'}>
                  {t(item.published ? 'personal.purchases.published' : 'personal.purchases.draft')}
                </span>
                {item.projectCode && <span>{item.projectCode}</span>}
                <span className="budget">
                  {t('common.labelled', { label: t('purchase.budget'), value: money(item.budget) })}
                </span>
                <span>
                  {t('common.labelled', { label: t('purchase.deadline'), value: day(item.deadline) })}
                </span>
              </div>
            </li>
          ))}
        </ul>
      )}
      {data && <Pagination current={page} pageSize={PAGE_SIZE} total={data.total} onChange={setPage} />}
    </section>
  );
}
