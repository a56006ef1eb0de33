import { Layout as AntLayout } from 'antd';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useLocation } from 'react-router';
import { productTitle, useT } from '../i18n.js';
import { useApp } from '../store.js';
import { ChangePasswordDialog } from './ChangePasswordDialog.js';
import { KeepAliveOutlet } from './KeepAliveOutlet.js';
import { Navbar, usePageTitle } from './Navbar.js';
import { progress } from './progress.js';
import { SettingsPanel } from './SettingsPanel.js';
import { Sidebar } from './Sidebar.js';
import { TagsView } from './TagsView.js';

// Its table is only needed once an error has been logged.
const ErrorLogDialog = lazy(() => import('./ErrorLogDialog.js'));

export { RouteLoading } from './RouteLoading.js';

/** docs/product.md §2.1: page title "route title - product title", progress bar and scroll to top on navigation. */
function useNavigationEffects(main: HTMLElement | null): void {
  const location = useLocation();
  const title = usePageTitle();
  const t = useT();
  useEffect(() => {
    document.title = title ? `${title} - ${productTitle()}` : productTitle();
  }, [title, t]);
  useEffect(() => {
    progress.start();
    window.scrollTo(0, 0);
    if (main) main.scrollTop = 0;
    const timer = setTimeout(progress.done, 120);
    return () => clearTimeout(timer);
  }, [location.pathname, main]);
}

export function Layout() {
  const app = useApp();
  const [main, setMain] = useState<HTMLElement | null>(null);
  const [isPasswordOpen, setPasswordOpen] = useState(false);
  const [isErrorLogOpen, setErrorLogOpen] = useState(false);
  useNavigationEffects(main);
  const t = useT();

  const classes = [
    'admin-layout',
    app.isSidebarOpened ? 'sidebar-opened' : 'sidebar-collapsed',
    app.device === 'mobile' ? 'is-mobile' : '',
    app.settings.fixedHeader ? 'fixed-header' : '',
  ].join(' ');

  return (
    <AntLayout className={classes} hasSider>
      {/* WCAG 2.4.1: keyboard users jump over the sidebar and the top bar; the URL keeps no hash */}
      <a
        className="admin-skip-link"
        href="#admin-main"
        onClick={(event) => {
          event.preventDefault();
          main?.focus();
        }}
      >
        {t('admin.navbar.skipToMain')}
      </a>
      <Sidebar />
      <AntLayout className="admin-main-container">
        <header className="admin-header">
          <Navbar
            onChangePassword={() => setPasswordOpen(true)}
            onShowErrorLog={() => setErrorLogOpen(true)}
          />
          {app.settings.tagsView && <TagsView />}
        </header>
        <main className="admin-app-main" id="admin-main" tabIndex={-1} ref={setMain}>
          <KeepAliveOutlet />
        </main>
      </AntLayout>
      <SettingsPanel />
      <ChangePasswordDialog open={isPasswordOpen} onClose={() => setPasswordOpen(false)} />
      {isErrorLogOpen && (
        <Suspense fallback={null}>
          <ErrorLogDialog open onClose={() => setErrorLogOpen(false)} />
        </Suspense>
      )}
    </AntLayout>
  );
}
