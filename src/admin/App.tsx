import { Authenticated, Refine, type NotificationProvider } from '@refinedev/core';
import routerProvider from '@refinedev/react-router';
import { App as AntdApp, ConfigProvider, message, Spin } from 'antd';
// The ES builds: the CommonJS ones arrive wrapped under Vite and leave antd in English.
import enUS from 'antd/es/locale/en_US';
import zhCN from 'antd/es/locale/zh_CN';
import zhTW from 'antd/es/locale/zh_TW';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import 'dayjs/locale/zh-tw';
import {
  lazy,
  Suspense,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from 'react';
import { Navigate, Route, Routes, useLocation, useNavigate } from 'react-router';
import { configureHttp, TOAST_MS } from '../web/http.js';
import { hasToken, portalHome } from '../web/session.js';
import { i18nProvider, t, useT } from './i18n.js';
import { ConsultButton } from './layout/ConsultButton.js';
import { Layout } from './layout/Layout.js';
import { RouteLoading } from './layout/RouteLoading.js';
import { MenuProvider } from './layout/MenuProvider.js';
import { antdSize } from './lib/settings.js';
import { adminTheme } from './lib/adminTheme.js';
import { AuthRedirect } from './layout/AuthRedirect.js';
import { MenuPage } from './layout/MenuPage.js';
import { RedirectPage } from './layout/Redirect.js';
import { createAccessControlProvider } from './providers/access.js';
import { createAuthProvider, currentAuthority } from './providers/auth.js';
import { dataProvider } from './providers/data.js';
import { liveProvider } from './providers/live.js';
import { useApp } from './store.js';

const Login = lazy(() => import('./features/accounts/Login.js'));
const ErrorPage = lazy(() => import('./layout/ErrorPage.js'));
const GeneratorForm = lazy(() => import('./features/forms/published/GeneratorForm.js'));

const ANTD_LOCALES = { zh: zhCN, tw: zhTW, en: enUS } as const;
const DAYJS_LOCALES = { zh: 'zh-cn', tw: 'zh-tw', en: 'en' } as const;

let isLeaving = false;

const accessControlProvider = createAccessControlProvider(currentAuthority);

/** Paths outside the back-office (the portal, /502) are full navigations. */
function leave(url: string): void {
  // No client-side redirect may follow: it would cancel the page load under way.
  isLeaving = true;
  window.location.assign(url);
}

/** Leaves after a message was read; no sign-in page or shell shows meanwhile. */
function leaveAfter(url: string, delayMs: number): void {
  isLeaving = true;
  setTimeout(() => window.location.assign(url), delayMs);
}

/** Wires the HTTP client's §8 reactions to antd (inside AntdApp for the theme) and the router. */
function HttpBridge() {
  const { message, modal } = AntdApp.useApp();
  const navigate = useNavigate();
  useEffect(() => {
    configureHttp({
      // Keyed by its text: the same failure from several calls at once shows once.
      toast: (text) => void message.error({ content: text, key: text, duration: TOAST_MS / 1000 }),
      confirmRelogin: () =>
        new Promise<boolean>((resolve) => {
          modal.confirm({
            title: t('errors.reloginTitle'),
            content: t('errors.reloginText'),
            okText: t('errors.relogin'),
            cancelText: t('admin.common.cancel'),
            onOk: () => resolve(true),
            onCancel: () => resolve(false),
          });
        }),
      navigate: (path) => {
        if (path.startsWith('/admin/')) navigate(path.slice('/admin'.length));
        else leave(path);
      },
      reload: () => window.location.reload(),
      t: (key) => t(key),
      homePath: () => portalHome(),
    });
  }, [message, modal, navigate]);
  return null;
}

/**
 * Refine's notifications through antd, without error toasts: the HTTP client already shows every
 * failure once (docs/product.md §8). (Not @refinedev/antd's provider: importing it pulls its whole UI kit,
 * markdown renderer included, into the first load.)
 */
function useNotifications(): NotificationProvider {
  const { notification } = AntdApp.useApp();
  return useMemo(
    () => ({
      open: ({ key, message: title, description, type }) => {
        if (type === 'error') return;
        notification.open({
          key,
          message: title,
          description,
          type: type === 'success' ? 'success' : 'info',
        });
      },
      close: (key) => notification.destroy(key),
    }),
    [notification],
  );
}

/** Anonymous visitors go to the sign-in page, keeping the wanted path (docs/product.md §2.1). */
function ToLogin() {
  const location = useLocation();
  if (isLeaving) return null;
  const wanted = `${location.pathname}${location.search}`;
  return <Navigate to={`/login?redirect=${encodeURIComponent(wanted)}`} replace />;
}

/**
 * Signed-in users who open /login go to /{product} (docs/product.md §2.1); one who signs in here
 * goes on where the sign-in sends them.
 */
/**
 * The back-office shell, or a published form filled in outside it: /generatorform?form=<code> is
 * the link an administrator hands out (docs/product.md §2.3); /generatorform itself is the
 * 表单管理 menu's page and opens inside the shell like every menu.
 */
function ShellOrFill() {
  const location = useLocation();
  if (location.pathname === '/generatorform' && new URLSearchParams(location.search).has('form'))
    return <GeneratorForm />;
  return (
    <MenuProvider>
      <Layout />
    </MenuProvider>
  );
}

function GuestOnly({ children }: { children: ReactNode }) {
  const [wasSignedIn] = useState(hasToken);
  if (isLeaving) return null;
  return wasSignedIn ? <Leave to={portalHome()} /> : <>{children}</>;
}

function Leave({ to }: { to: string }) {
  useEffect(() => leave(to), [to]);
  return null;
}

function FullPageSpin() {
  return (
    <div className="admin-full-spin">
      <Spin size="large" />
    </div>
  );
}

function RefineApp() {
  const app = useApp();
  const location = useLocation();
  const notificationProvider = useNotifications();
  const toasts = AntdApp.useApp().message;
  const toastsRef = useRef(toasts);
  useEffect(() => {
    toastsRef.current = toasts;
  }, [toasts]);
  const authProvider = useMemo(
    () =>
      createAuthProvider({
        t: (key) => t(key),
        // antd's static message renders nothing under React 19: the App context's one does
        notify: (text) => void toastsRef.current.error(text, TOAST_MS / 1000),
        leave,
        leaveAfter,
        currentPath: () => `${window.location.pathname.replace(/^\/admin/, '')}${window.location.search}`,
        onLogout: () => app.setTags(() => ({ visited: [], cached: [] })),
        // A failed attempt's 用户名或密码错误 must not follow the user onto the workbench.
        onSignedIn: () => {
          message.destroy();
          toastsRef.current.destroy();
        },
      }),
    // The provider is created once; app.setTags is stable.
    [app.setTags],
  );
  useT();

  return (
    <Refine
      routerProvider={routerProvider}
      dataProvider={dataProvider}
      liveProvider={liveProvider}
      authProvider={authProvider}
      accessControlProvider={accessControlProvider}
      i18nProvider={i18nProvider}
      notificationProvider={notificationProvider}
      options={{ disableTelemetry: true, syncWithLocation: false, warnWhenUnsavedChanges: false }}
    >
      <HttpBridge />
      <Suspense fallback={<RouteLoading />}>
        <Routes location={location}>
          <Route
            path="/login"
            element={
              <GuestOnly>
                <Login />
              </GuestOnly>
            }
          />
          <Route path="/auth-redirect" element={<AuthRedirect />} />
          <Route path="/register" element={<Leave to="/register" />} />
          <Route path="/forgotpassword" element={<Leave to="/forgetPwd" />} />
          <Route path="/401" element={<ErrorPage status={401} />} />
          <Route path="/404" element={<ErrorPage status={404} />} />
          <Route
            element={
              <Authenticated key="admin" fallback={<ToLogin />} loading={<FullPageSpin />}>
                <ShellOrFill />
              </Authenticated>
            }
          >
            <Route index element={<Navigate to="/workbench" replace />} />
            <Route path="/redirect/*" element={<RedirectPage />} />
            {/* Server-driven routes, with the 404 fallback once the menus are known: last. */}
            <Route path="*" element={<MenuPage />} />
          </Route>
        </Routes>
      </Suspense>
      {/* after the page in the tab order: the skip link stays the first stop (WCAG 2.4.1, 2.4.3) */}
      <ConsultButton />
    </Refine>
  );
}

const RESIZE_OBSERVER_NOTICE =
  /^ResizeObserver loop (completed with undelivered notifications|limit exceeded)/;

/** docs/product.md §8: in production, client errors (error, where, current URL) go to the error log. */
function useClientErrorLog(): void {
  const { addErrorLog } = useApp();
  useEffect(() => {
    if (!import.meta.env.PROD) return;
    const onError = (event: ErrorEvent): void => {
      // The browser's notice that a resize observer (charts, big screens) ran again within one
      // frame: no error of the page, nothing for the user to report.
      if (!event.error && RESIZE_OBSERVER_NOTICE.test(event.message)) return;
      addErrorLog({
        message: event.message,
        info: `${event.filename}:${event.lineno}:${event.colno}`,
        url: window.location.href,
        stack: event.error instanceof Error ? (event.error.stack ?? '') : '',
      });
    };
    const onRejection = (event: PromiseRejectionEvent): void => {
      const reason: unknown = event.reason;
      // Failed API calls are already shown to the user by the HTTP client; a call its caller
      // cancelled (a list reloaded again) is no failure.
      if (reason instanceof Error && (reason.name === 'ApiError' || reason.name === 'CanceledError')) return;
      addErrorLog({
        message: reason instanceof Error ? reason.message : String(reason),
        info: 'unhandledrejection',
        url: window.location.href,
        stack: reason instanceof Error ? (reason.stack ?? '') : '',
      });
    };
    window.addEventListener('error', onError);
    window.addEventListener('unhandledrejection', onRejection);
    return () => {
      window.removeEventListener('error', onError);
      window.removeEventListener('unhandledrejection', onRejection);
    };
  }, [addErrorLog]);
}

const REDUCED_MOTION = '(prefers-reduced-motion: reduce)';

function subscribeReducedMotion(onChange: () => void): () => void {
  const query = window.matchMedia(REDUCED_MOTION);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

/** Whether the user asked the system for less motion (WCAG 2.3.3). */
function usePrefersReducedMotion(): boolean {
  return useSyncExternalStore(subscribeReducedMotion, () => window.matchMedia(REDUCED_MOTION).matches);
}

export function AdminApp() {
  const app = useApp();
  // antd's own switch: popups open without their zoom or slide (the stylesheet's near-zero
  // durations alone left a dropdown unaligned, off-screen, since its motion never settled)
  const isMotionReduced = usePrefersReducedMotion();
  useClientErrorLog();
  // Date pickers name their months and weekdays through dayjs.
  dayjs.locale(DAYJS_LOCALES[app.language]);
  // Text shades of the chosen theme colour that meet 4.5:1 (WCAG 2.1 AA contrast).
  const theme = useMemo(
    () => adminTheme(app.settings.theme, !isMotionReduced),
    [app.settings.theme, isMotionReduced],
  );
  return (
    <ConfigProvider locale={ANTD_LOCALES[app.language]} componentSize={antdSize(app.size)} theme={theme}>
      <AntdApp className="admin-root" style={{ ['--admin-theme' as string]: theme.token?.colorPrimary }}>
        <RefineApp />
      </AntdApp>
    </ConfigProvider>
  );
}
