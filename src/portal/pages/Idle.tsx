import { Link } from 'react-router';
import { portalApi, type Idle } from '../api.js';
import { usePortal } from '../context.js';
import { formatDateTime } from '../../web/format.js';
import { groupDecimal } from '../../engine/decimal.js';
import { Icon } from '../ui/icons.js';
import { useAsync } from '../ui/common.js';
import { ListPage, PagedResults, SearchBar, SearchInput, useListSearch } from '../ui/list.js';
import { DetailArticle, DetailPage, Facts, useDetail } from '../ui/detail.js';

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

function idlePrice(item: Idle, t: (key: string) => string): string {
  // The decimal's exact text, grouped by thousands (zero or none: negotiable).
  return item.price && Number(item.price) !== 0 ? `¥ ${groupDecimal(item.price)}` : t('idle.negotiable');
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
        <p className="idle-price">{idlePrice(item, t)}</p>
      </div>
    </Link>
  );
}

export function IdleList() {
  const { t } = usePortal();
  const {
    page,
    setPage,
    filters: name,
    draft,
    setDraft,
    search,
  } = useListSearch('', (value) => value.trim());
  const list = useAsync(
    () => portalApi.idle({ currentPage: page, pageSize: PAGE_SIZE, ...(name ? { name } : {}) }),
    [page, name],
  );
  return (
    <ListPage title={t('routes.idleList')} subtitle={t('idle.bannerText')}>
      <SearchBar onSearch={search}>
        <SearchInput
          value={draft}
          maxLength={50}
          placeholder={t('idle.searchPlaceholder')}
          onChange={setDraft}
        />
      </SearchBar>
      <PagedResults state={list} page={page} pageSize={PAGE_SIZE} onPage={setPage} skeletonLines={6}>
        {(records) => (
          <div className="idle-grid" data-testid="idle-list">
            {records.map((item) => (
              <IdleCard key={item.id} item={item} />
            ))}
          </div>
        )}
      </PagedResults>
    </ListPage>
  );
}

export function IdleDetail() {
  const { t } = usePortal();
  const detail = useDetail(portalApi.idleDetail);
  const item = detail.data;
  return (
    <DetailPage list={{ label: t('routes.idleList'), to: '/huanxianbaoList' }} title={t('routes.idleDetail')}>
      <DetailArticle testId="idle-detail" state={detail} skeletonLines={8}>
        {item && (
          <div className="idle-detail">
            <IdleImage item={item} />
            <div>
              <h1 className="article-title">{item.name}</h1>
              <p className="idle-price big">{idlePrice(item, t)}</p>
              <Facts
                rows={(
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
                ).map(([label, value]) => [label, value || '—'])}
              />
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
      </DetailArticle>
    </DetailPage>
  );
}
