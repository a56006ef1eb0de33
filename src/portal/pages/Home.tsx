import { useEffect, useState, type KeyboardEvent } from 'react';
import { Link } from 'react-router';
import { portalApi, type Idle, type Picture, type Purchase } from '../api.js';
import { usePortal } from '../context.js';
import { Icon, type IconName } from '../ui/icons.js';
import { day, Empty, SkeletonLines, useAsync, useMoney } from '../ui/common.js';
import { IdleCard } from './Idle.js';

const SLIDE_MS = 5000;
const ROTATE_MS = 3000;

function Carousel({ pictures }: { pictures: Picture[] }) {
  const { t } = usePortal();
  const [index, setIndex] = useState(0);
  const count = pictures.length;
  useEffect(() => {
    if (count < 2) return;
    const timer = setInterval(() => setIndex((current) => (current + 1) % count), SLIDE_MS);
    return () => clearInterval(timer);
  }, [count]);
  if (count === 0) {
    return (
      <div className="carousel carousel-fallback">
        <div className="slide-text">
          <h2>{t('home.heroTitle')}</h2>
          <p>{t('home.heroSubtitle')}</p>
        </div>
      </div>
    );
  }
  return (
    <div className="carousel" data-testid="home-pictures" aria-roledescription="carousel">
      {pictures.map((picture, position) => {
        const body = (
          <>
            <img
              src={picture.imageUrl ?? ''}
              alt=""
              width={1200}
              height={360}
              loading={position === 0 ? 'eager' : 'lazy'}
            />
            <div className="slide-text">
              <h2>{picture.title}</h2>
              {picture.subtitle && <p>{picture.subtitle}</p>}
            </div>
          </>
        );
        const className = `slide${position === index ? ' is-active' : ''}`;
        const link = picture.linkUrl ?? '';
        return link.startsWith('/') ? (
          <Link
            key={picture.id}
            to={link}
            className={className}
            aria-hidden={position !== index}
            tabIndex={position === index ? 0 : -1}
          >
            {body}
          </Link>
        ) : link ? (
          <a
            key={picture.id}
            href={link}
            className={className}
            target="_blank"
            rel="noopener noreferrer"
            aria-hidden={position !== index}
          >
            {body}
          </a>
        ) : (
          <div key={picture.id} className={className} aria-hidden={position !== index}>
            {body}
          </div>
        );
      })}
      {count > 1 && (
        <div className="dots" role="tablist">
          {pictures.map((picture, position) => (
            <button
              key={picture.id}
              type="button"
              role="tab"
              aria-selected={position === index}
              aria-label={picture.title ?? String(position + 1)}
              className={position === index ? 'is-active' : undefined}
              onClick={() => setIndex(position)}
            />
          ))}
        </div>
      )}
    </div>
  );
}

function NoticePreview() {
  const { t } = usePortal();
  const notices = useAsync(() => portalApi.first4(), []);
  return (
    <section className="card notice-card" aria-labelledby="home-notices">
      <div className="card-head">
        <h2 id="home-notices">
          <Icon name="bell" size={18} /> {t('home.notices')}
        </h2>
        <Link to="/noticeList" className="more">
          {t('common.more')} <Icon name="right" size={12} />
        </Link>
      </div>
      {notices.isLoading && !notices.data ? (
        <SkeletonLines count={4} />
      ) : notices.data && notices.data.length > 0 ? (
        <ul className="notice-preview" data-testid="home-notices">
          {notices.data.map((notice) => (
            <li key={notice.id}>
              <Link to={`/noticeDetail?id=${notice.id}`} title={notice.title ?? ''}>
                {notice.pinned && <span className="tag tag-hot">{t('notice.pinned')}</span>}
                <span className="ellipsis">{notice.title}</span>
              </Link>
              <time>{day(notice.publishTime)}</time>
            </li>
          ))}
        </ul>
      ) : (
        <Empty />
      )}
    </section>
  );
}

function Promises() {
  const { t } = usePortal();
  const items: { icon: IconName; key: string; points?: { icon: IconName; key: string }[] }[] = [
    {
      icon: 'shield',
      key: 'safe',
      points: [
        { icon: 'wallet', key: 'payLater' },
        { icon: 'bank', key: 'bankDirect' },
        { icon: 'truck', key: 'logistics' },
        { icon: 'eye', key: 'supervision' },
      ],
    },
    { icon: 'paper', key: 'upgrade' },
    { icon: 'team', key: 'service' },
  ];
  return (
    <section className="promises" aria-labelledby="home-promises" data-testid="home-promises">
      <h2 id="home-promises" className="section-title">
        {t('home.promisesTitle')}
        <small>{t('home.promisesSubtitle')}</small>
      </h2>
      <div className="promise-grid">
        {items.map((item) => (
          <article key={item.key} className={`promise promise-${item.key}`}>
            <span className="promise-icon">
              <Icon name={item.icon} size={28} />
            </span>
            <h3>{t(`home.promise.${item.key}.title`)}</h3>
            <p>{t(`home.promise.${item.key}.text`)}</p>
            {item.points && (
              <ul className="promise-points">
                {item.points.map((point) => (
                  <li key={point.key}>
                    <Icon name={point.icon} size={16} /> {t(`home.promise.safe.${point.key}`)}
                  </li>
                ))}
              </ul>
            )}
          </article>
        ))}
      </div>
    </section>
  );
}

function PurchaseRotation({ items }: { items: Purchase[] }) {
  const money = useMoney();
  const [offset, setOffset] = useState(0);
  const [isPaused, setIsPaused] = useState(false);
  const visible = 5;
  useEffect(() => {
    if (items.length <= visible || isPaused) return;
    const timer = setInterval(() => setOffset((current) => (current + 1) % items.length), ROTATE_MS);
    return () => clearInterval(timer);
  }, [items.length, isPaused]);
  if (items.length === 0) return <Empty />;
  const shown = Array.from(
    { length: Math.min(visible, items.length) },
    (_, index) => items[(offset + index) % items.length],
  ).filter((item): item is Purchase => item !== undefined);
  return (
    <ul
      className="rotation"
      data-testid="purchase-rotation"
      onMouseEnter={() => setIsPaused(true)}
      onMouseLeave={() => setIsPaused(false)}
      // WCAG 2.2.2: keyboard users stop the rotation as mouse users do
      onFocus={() => setIsPaused(true)}
      onBlur={() => setIsPaused(false)}
    >
      {shown.map((item) => (
        <li key={item.id}>
          <Link to={`/purchaseDetail?id=${item.id}`} className="rotation-title" title={item.title ?? ''}>
            {item.purchaseMode && <span className="tag">{item.purchaseMode}</span>}
            <span className="ellipsis">{item.title}</span>
          </Link>
          <span className="rotation-meta">
            <span className="ellipsis">{item.buyerName}</span>
            <span>{item.region}</span>
            <span className="budget">{money(item.budget)}</span>
            <time>{day(item.publishTime)}</time>
          </span>
        </li>
      ))}
    </ul>
  );
}

function MarketTabs({ initialTab }: { initialTab: 'purchase' | 'idle' }) {
  const { t } = usePortal();
  const [tab, setTab] = useState(initialTab);
  const rotation = useAsync(() => portalApi.orderRotation(12), []);
  const idle = useAsync<Idle[]>(() => portalApi.idleRank(8), []);
  const onTabKey = (event: KeyboardEvent<HTMLDivElement>): void => {
    if (!['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(event.key)) return;
    event.preventDefault();
    const next =
      event.key === 'Home'
        ? 'purchase'
        : event.key === 'End'
          ? 'idle'
          : tab === 'purchase'
            ? 'idle'
            : 'purchase';
    setTab(next);
    document.getElementById(`market-tab-${next}`)?.focus();
  };
  return (
    <section className="card market" aria-label={t('home.market')}>
      <div className="card-head market-head">
        {/* WAI-ARIA tabs: arrow keys move between the two, the panel follows */}
        <div role="tablist" aria-label={t('home.market')} className="market-tabs" onKeyDown={onTabKey}>
          <button
            type="button"
            role="tab"
            id="market-tab-purchase"
            aria-selected={tab === 'purchase'}
            aria-controls="market-panel"
            tabIndex={tab === 'purchase' ? 0 : -1}
            className={tab === 'purchase' ? 'is-active' : undefined}
            onClick={() => setTab('purchase')}
          >
            {t('home.purchaseTab')}
          </button>
          <button
            type="button"
            role="tab"
            id="market-tab-idle"
            aria-selected={tab === 'idle'}
            aria-controls="market-panel"
            tabIndex={tab === 'idle' ? 0 : -1}
            data-testid="idle-tab"
            className={tab === 'idle' ? 'is-active' : undefined}
            onClick={() => setTab('idle')}
          >
            {t('home.idleTab')}
            <span className="tag tag-new">{t('home.idleBadge')}</span>
          </button>
        </div>
        <Link to={tab === 'purchase' ? '/purchaseList' : '/huanxianbaoList'} className="more">
          {t('common.more')} <Icon name="right" size={12} />
        </Link>
      </div>
      <div role="tabpanel" id="market-panel" aria-labelledby={`market-tab-${tab}`}>
        {tab === 'purchase' ? (
          rotation.data ? (
            <PurchaseRotation items={rotation.data} />
          ) : (
            <SkeletonLines count={5} />
          )
        ) : (
          <>
            <p className="market-intro">{t('home.idleIntro')}</p>
            {idle.data ? (
              idle.data.length > 0 ? (
                <div className="idle-grid" data-testid="idle-grid">
                  {idle.data.map((item) => (
                    <IdleCard key={item.id} item={item} />
                  ))}
                </div>
              ) : (
                <Empty />
              )
            ) : (
              <SkeletonLines count={4} />
            )}
          </>
        )}
      </div>
    </section>
  );
}

function Entrances() {
  const { t } = usePortal();
  const items: { to: string; icon: IconName; key: string }[] = [
    { to: '/buysettlein', icon: 'bank', key: 'buyer' },
    { to: '/sellsettlein', icon: 'truck', key: 'supplier' },
    { to: '/novice', icon: 'leaf', key: 'novice' },
  ];
  return (
    <section className="entrances">
      {items.map((item) => (
        <Link key={item.key} to={item.to} className="entrance">
          <Icon name={item.icon} size={30} />
          <span>
            <strong>{t(`home.entrance.${item.key}.title`)}</strong>
            <small>{t(`home.entrance.${item.key}.text`)}</small>
          </span>
          <Icon name="right" size={16} className="entrance-arrow" />
        </Link>
      ))}
    </section>
  );
}

/** docs/product.md §1/§2.2 home: pictures, the first 4 notices, the promises, purchase rotation and the idle-equipment tab. */
export function Home({ variant = 1 }: { variant?: 1 | 2 }) {
  const pictures = useAsync(() => portalApi.pictures(), []);
  return (
    <div className="home">
      <div className="container hero">
        {pictures.data || pictures.error ? (
          <Carousel pictures={pictures.data ?? []} />
        ) : (
          <div className="carousel carousel-loading" />
        )}
        <NoticePreview />
      </div>
      <div className="container">
        <Promises />
        <MarketTabs initialTab={variant === 2 ? 'idle' : 'purchase'} />
        <Entrances />
      </div>
    </div>
  );
}
