import { useEffect, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { usePortal } from '../context.js';
import { Icon, type IconName } from '../ui/icons.js';
import { QrCode } from '../ui/QrCode.js';

const BACK_TO_TOP_AFTER = 300;

/**
 * docs/product.md §1 side panel: phone, mailbox, official account and customer service popovers; it folds
 * between right 1% and -60px (docs/product.md §4). The back-to-top button sits at bottom 100, right 5 (§9).
 */
export function SidePanel() {
  const { t, params } = usePortal();
  // folded on phones, where it would cover the page
  const [isFolded, setIsFolded] = useState(() => window.innerWidth < 600);
  const [isTopVisible, setIsTopVisible] = useState(false);
  useEffect(() => {
    const onScroll = (): void => setIsTopVisible(window.scrollY > BACK_TO_TOP_AFTER);
    onScroll();
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);

  // One popover at a time: the one under the pointer, else the one focused or tapped; CSS
  // :hover and :focus-within together left a clicked one open under the hovered one.
  const [openItem, setOpenItem] = useState<string>();
  const close = (testId: string): void =>
    setOpenItem((current) => (current === testId ? undefined : current));
  const item = (icon: IconName, label: string, popover: ReactNode, testId: string) => (
    <div
      className={`side-item${openItem === testId ? ' is-open' : ''}`}
      tabIndex={0}
      data-testid={testId}
      onMouseEnter={() => setOpenItem(testId)}
      onMouseLeave={() => close(testId)}
      onFocus={() => setOpenItem(testId)}
      onClick={() => setOpenItem(testId)}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget)) close(testId);
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') close(testId);
      }}
    >
      <Icon name={icon} size={22} />
      <span className="side-label">{label}</span>
      <div className="side-popover" role="tooltip">
        {popover}
      </div>
    </div>
  );

  return (
    <>
      <aside
        className={`side-panel${isFolded ? ' is-folded' : ''}`}
        style={{ right: isFolded ? '-60px' : '1%' }}
        aria-label={t('side.title')}
      >
        <button
          type="button"
          className="side-fold"
          aria-label={t(isFolded ? 'side.unfold' : 'side.fold')}
          aria-expanded={!isFolded}
          onClick={() => setIsFolded(!isFolded)}
        >
          <Icon name={isFolded ? 'left' : 'right'} size={14} />
        </button>
        {item(
          'phone',
          t('side.phone'),
          <>
            <strong>{t('footer.hotline')}</strong>
            <a href={`tel:${params.hotline ?? ''}`}>{params.hotline}</a>
            <small>{t('footer.serviceHours')}</small>
          </>,
          'side-phone',
        )}
        {item(
          'mail',
          t('side.mail'),
          <>
            <strong>{t('footer.mailbox')}</strong>
            <a href={`mailto:${params.mailbox ?? ''}`}>{params.mailbox}</a>
          </>,
          'side-mail',
        )}
        {item(
          'wechat',
          t('side.account'),
          <>
            <QrCode param="buyerAccountUrl" size={112} label={t('footer.qrBuyer')} isLazy={false} />
            <small>{t('side.scan')}</small>
          </>,
          'side-account',
        )}
        {item(
          'service',
          t('side.service'),
          <>
            <strong>{t('side.service')}</strong>
            <span>{t('side.serviceText')}</span>
            <Link to="/contactus">{t('side.moreContact')}</Link>
          </>,
          'side-service',
        )}
      </aside>
      <button
        type="button"
        className={`back-to-top${isTopVisible ? ' is-visible' : ''}`}
        style={{ bottom: 100, right: 5 }}
        aria-label={t('side.backToTop')}
        data-testid="back-to-top"
        onClick={() => window.scrollTo({ top: 0, behavior: 'smooth' })}
      >
        <Icon name="up" size={20} />
      </button>
    </>
  );
}
