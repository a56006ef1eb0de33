import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { usePortal } from '../context.js';
import { PORTAL_LANGUAGES, type Language } from '../i18n.js';
import { CURRENT_INDEX_KEY, PERSONAL_PATH, TABS, tabIndexOf, tabPath } from '../routes.js';
import { loadUser, logout } from '../session.js';
import { Icon } from '../ui/icons.js';
import { Logo } from '../ui/Logo.js';
import { useDialogFocus } from '../ui/useDialogFocus.js';

const MOBILE_QUERY = '(max-width: 991.98px)';

function readIndex(): number {
  const value = Number(sessionStorage.getItem(CURRENT_INDEX_KEY));
  return Number.isInteger(value) && value >= 0 && value < TABS.length ? value : 0;
}

/** The active tab: the one the path belongs to, else the one remembered in session storage. */
function useCurrentIndex(product: string): [number, (index: number) => void] {
  const { pathname } = useLocation();
  const [index, setIndex] = useState(readIndex);
  useEffect(() => {
    const fromPath = tabIndexOf(pathname, product);
    if (fromPath !== undefined) {
      sessionStorage.setItem(CURRENT_INDEX_KEY, String(fromPath));
      setIndex(fromPath);
    }
  }, [pathname, product]);
  const choose = (next: number): void => {
    sessionStorage.setItem(CURRENT_INDEX_KEY, String(next));
    setIndex(next);
  };
  return [index, choose];
}

function useIsMobile(): boolean {
  const [isMobile, setIsMobile] = useState(() => window.matchMedia(MOBILE_QUERY).matches);
  useEffect(() => {
    const query = window.matchMedia(MOBILE_QUERY);
    const onChange = (): void => setIsMobile(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  return isMobile;
}

function UserMenu() {
  const { t, user, params, home } = usePortal();
  const navigate = useNavigate();
  const [isOpen, setIsOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!isOpen) return;
    const close = (event: MouseEvent): void => {
      if (!box.current?.contains(event.target as Node)) setIsOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [isOpen]);
  if (!user) return null;
  const isBuyer = (localStorage.getItem('userType') ?? String(user.userType)) === '1';
  const roleLabel = t(isBuyer ? 'header.buyer' : 'header.supplier');
  const programUrl = (isBuyer ? params.buyerProgramUrl : params.supplierProgramUrl) || '';
  // docs/product.md §2.2: entering the personal centre without a valid login logs the user out. A site
  // without programs of its own (params) gets the portal's personal centre.
  const enterPersonalCentre = async (): Promise<void> => {
    setIsOpen(false);
    const current = await loadUser();
    if (!current) {
      await logout(home);
      return;
    }
    if (programUrl) window.location.assign(programUrl);
    else void navigate(PERSONAL_PATH);
  };
  return (
    <div className={`user-menu${isOpen ? ' is-open' : ''}`} ref={box}>
      <span className="role-tag" data-testid="role-label">
        {roleLabel}
      </span>
      <button
        type="button"
        className="user-trigger"
        aria-haspopup="menu"
        aria-expanded={isOpen}
        onClick={() => setIsOpen(!isOpen)}
      >
        <Icon name="user" size={16} />
        <span className="user-name" data-testid="user-name">
          {user.zname || user.username}
        </span>
        <Icon name="caret" size={14} className="caret" />
      </button>
      {isOpen && (
        <div className="dropdown" role="menu">
          <button
            type="button"
            role="menuitem"
            data-testid="personal-centre"
            data-href={programUrl || PERSONAL_PATH}
            onClick={() => void enterPersonalCentre()}
          >
            {t('header.personalCentre')}
          </button>
          <button type="button" role="menuitem" onClick={() => void logout(home)}>
            {t('header.logout')}
          </button>
        </div>
      )}
    </div>
  );
}

function LanguageSelect() {
  const { t, language, setLanguage } = usePortal();
  return (
    <select
      className="lang-select"
      aria-label={t('header.language')}
      value={language}
      onChange={(event) => setLanguage(event.target.value as Language)}
    >
      {PORTAL_LANGUAGES.map((code) => (
        <option key={code} value={code}>
          {t(`languages.${code}`)}
        </option>
      ))}
    </select>
  );
}

export function Header() {
  const { t, params, user, home, productTitle } = usePortal();
  const navigate = useNavigate();
  // after a logout the home page carries the page that was wanted (docs/product.md §2.3): sign-in
  // returns there
  const wanted = new URLSearchParams(useLocation().search).get('redirect');
  const loginPath = wanted ? `/login?redirect=${encodeURIComponent(wanted)}` : '/login';
  const [currentIndex, setCurrentIndex] = useCurrentIndex(params.product);
  const isMobile = useIsMobile();
  const [isDrawerOpen, setIsDrawerOpen] = useState(false);
  const drawer = useRef<HTMLDivElement>(null);
  const closeDrawer = useCallback(() => setIsDrawerOpen(false), []);
  useDialogFocus(isDrawerOpen, drawer, closeDrawer);
  useEffect(() => {
    if (!isMobile) setIsDrawerOpen(false);
  }, [isMobile]);

  const tabs = TABS.map((tab, index) => (
    <Link
      key={tab.key}
      to={tabPath(tab.path, params.product)}
      className={`tab${index === currentIndex ? ' is-active' : ''}`}
      aria-current={index === currentIndex ? 'page' : undefined}
      onClick={() => {
        setCurrentIndex(index);
        setIsDrawerOpen(false);
      }}
    >
      {t(`tabs.${tab.key}`)}
    </Link>
  ));

  return (
    <header className="portal-header">
      <div className="topbar">
        <div className="container topbar-inner">
          <span className="topbar-welcome">{t('header.welcome', { product: productTitle })}</span>
          <span className="topbar-right">
            {params.hotline && (
              <a href={`tel:${params.hotline}`} className="topbar-phone">
                <Icon name="phone" size={14} /> {params.hotline}
              </a>
            )}
            <LanguageSelect />
          </span>
        </div>
      </div>
      <div className="container header-inner">
        <Link to={home} className="brand" onClick={() => setCurrentIndex(0)}>
          <Logo />
          <span className="brand-text">
            <strong title={productTitle}>{productTitle}</strong>
            <small>{t('header.slogan')}</small>
          </span>
        </Link>
        {!isMobile && (
          <nav className="tabs" aria-label={t('header.navigation')}>
            {tabs}
          </nav>
        )}
        <div className="header-user">
          {user ? (
            <UserMenu />
          ) : (
            <button
              type="button"
              className="btn btn-primary btn-login"
              data-testid="login-button"
              onClick={() => void navigate(loginPath)}
            >
              {t('header.login')}
            </button>
          )}
          {isMobile && (
            <button
              type="button"
              className="icon-btn"
              aria-label={t('header.openMenu')}
              aria-expanded={isDrawerOpen}
              data-testid="drawer-toggle"
              onClick={() => setIsDrawerOpen(true)}
            >
              <Icon name="menu" size={22} />
            </button>
          )}
        </div>
      </div>
      {isMobile && (
        <div
          ref={drawer}
          className={`drawer-mask${isDrawerOpen ? ' is-open' : ''}`}
          onClick={closeDrawer}
          role="dialog"
          aria-modal="true"
          aria-label={t('header.menu')}
          aria-hidden={!isDrawerOpen}
        >
          <nav
            className="drawer"
            data-testid="drawer"
            aria-label={t('header.navigation')}
            onClick={(event) => event.stopPropagation()}
          >
            <div className="drawer-head">
              <span>{t('header.menu')}</span>
              <button
                type="button"
                className="icon-btn"
                aria-label={t('header.closeMenu')}
                onClick={() => setIsDrawerOpen(false)}
              >
                <Icon name="close" size={20} />
              </button>
            </div>
            {tabs}
          </nav>
        </div>
      )}
    </header>
  );
}
