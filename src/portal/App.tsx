import { lazy, Suspense, useEffect, type ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation, useNavigate } from 'react-router';
import NProgress from 'nprogress';
import { usePortal } from './context.js';
import { PortalLayout } from './layout/PortalLayout.js';
import { Home } from './pages/Home.js';
import { NoticeDetail } from './pages/NoticeDetail.js';
import { IdleDetail, IdleList } from './pages/Idle.js';
import { PurchaseDetail, PurchaseList } from './pages/Purchase.js';
import { ErrorPage } from './pages/ErrorPage.js';
import { ToastHost, toast } from './ui/toast.js';
import { ConsultButton } from './layout/ConsultButton.js';
import { configureHttp } from '../web/http.js';
import { PROGRESS_OPTIONS } from '../web/progress.js';
import { titleKeyOf } from './routes.js';

// Static pages and the account screens load on demand: the home page stays light.
const StaticPage = lazy(() => import('./pages/StaticPages.js'));
const Login = lazy(() => import('./auth/Login.js'));
const Register = lazy(() => import('./auth/Register.js'));
const ForgetPwd = lazy(() => import('./auth/ForgetPwd.js'));
const PersonalCentre = lazy(() => import('./personal/PersonalCentre.js'));

NProgress.configure({ showSpinner: false, trickleSpeed: 120, ...PROGRESS_OPTIONS });

/** Shown while a lazy page loads: the progress bar runs until it is replaced. */
function Loading() {
  useEffect(() => {
    NProgress.start();
    return () => {
      NProgress.done();
    };
  }, []);
  return <div className="page-loading" />;
}

/** docs/product.md §2.1: translated route title - product title; progress bar and scroll reset on each navigation. */
function NavigationEffects() {
  const { t, params, productTitle } = usePortal();
  const location = useLocation();
  useEffect(() => {
    NProgress.start();
    const key = titleKeyOf(location.pathname, params.product);
    document.title = key ? `${t(key)} - ${productTitle}` : productTitle;
    // /comproblem scrolls to its anchor itself; everything else starts at the top
    if (!location.hash) window.scrollTo(0, 0);
    const timer = setTimeout(() => NProgress.done(), 120);
    return () => clearTimeout(timer);
  }, [location.pathname, location.hash, params, t, productTitle]);
  return null;
}

/** Wires the shared HTTP client's error rules (docs/product.md §8) to the portal's toast and router. */
function HttpBridge() {
  const { t, home } = usePortal();
  const navigate = useNavigate();
  useEffect(() => {
    configureHttp({
      toast: (message) => toast(message),
      confirmRelogin: async () => window.confirm(`${t('errors.reloginTitle')}\n${t('errors.relogin')}`),
      navigate: (path) => {
        void navigate(path);
      },
      reload: () => window.location.reload(),
      t: (key) => t(key),
      homePath: () => home,
    });
  }, [t, home, navigate]);
  return null;
}

function Lazy({ children }: { children: ReactNode }) {
  return <Suspense fallback={<Loading />}>{children}</Suspense>;
}

export function App() {
  const { home, params } = usePortal();
  const product = params.product;
  return (
    <>
      <HttpBridge />
      <NavigationEffects />
      <ToastHost />
      <Routes>
        <Route path="/" element={<PortalLayout />}>
          <Route index element={<Navigate to={home} replace />} />
          <Route path={product} element={<Home />} />
          <Route path={`${product}2`} element={<Home variant={2} />} />
          <Route path="huanxianbaoList" element={<IdleList />} />
          <Route path="huanxinbaodetail" element={<IdleDetail />} />
          <Route path="purchaseList" element={<PurchaseList />} />
          <Route path="purchaseDetail" element={<PurchaseDetail />} />
          {/* rendered by the layout, which keeps it alive between visits */}
          <Route path="noticeList" element={null} />
          <Route path="noticeDetail" element={<NoticeDetail />} />
          <Route
            path="personal/:section?"
            element={
              <Lazy>
                <PersonalCentre />
              </Lazy>
            }
          />
          {[
            'buysettlein',
            'sellsettlein',
            'aboutus',
            'service',
            'coproblem',
            'contactus',
            'comproblem',
            'novice',
            'biddingAgreement',
          ].map((path) => (
            <Route
              key={path}
              path={path}
              element={
                <Lazy>
                  <StaticPage page={path} />
                </Lazy>
              }
            />
          ))}
        </Route>
        <Route
          path="login"
          element={
            <Lazy>
              <Login />
            </Lazy>
          }
        />
        <Route
          path="register"
          element={
            <Lazy>
              <Register variant="register" />
            </Lazy>
          }
        />
        <Route
          path="newRegister"
          element={
            <Lazy>
              <Register variant="newRegister" />
            </Lazy>
          }
        />
        <Route
          path="touristRegister"
          element={
            <Lazy>
              <Register variant="tourist" />
            </Lazy>
          }
        />
        <Route
          path="forgetPwd"
          element={
            <Lazy>
              <ForgetPwd />
            </Lazy>
          }
        />
        <Route path="502" element={<ErrorPage code={502} />} />
        <Route path="404" element={<ErrorPage code={404} />} />
        <Route path="*" element={<Navigate to="/404" replace />} />
      </Routes>
      {/* after the page in the tab order: the skip link stays the first stop (WCAG 2.4.1, 2.4.3) */}
      <ConsultButton />
    </>
  );
}
