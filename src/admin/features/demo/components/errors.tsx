import { BugOutlined } from '@ant-design/icons';
import { Alert, Button, Space, Typography } from 'antd';
import { lazy, Suspense, useState } from 'react';
import { Link } from 'react-router';
import { useT } from '../../../i18n.js';
import { ErrorBoundary } from '../../../layout/ErrorBoundary.js';
import type { AppRoute } from '../../../lib/menus.js';
import { useApp } from '../../../store.js';
import { DemoCard } from './DemoCard.js';

const ErrorPage = lazy(() => import('../../../layout/ErrorPage.js'));

/** An error page as the shell shows it, inside the demo frame, with a link to the real route. */
function ErrorPageDemo({ route, status }: { route: AppRoute; status: 401 | 404 }) {
  const t = useT();
  return (
    <DemoCard route={route} intro={t('demoComponents.errorPages.intro', { status })}>
      <Link to={`/${status}`} data-testid="demo-error-link">
        {t('demoComponents.errorPages.open', { status })}
      </Link>
      <Suspense fallback={null}>
        <ErrorPage status={status} />
      </Suspense>
    </DemoCard>
  );
}

export function Error401Demo({ route }: { route: AppRoute }) {
  return <ErrorPageDemo route={route} status={401} />;
}

export function Error404Demo({ route }: { route: AppRoute }) {
  return <ErrorPageDemo route={route} status={404} />;
}

/** A component that fails while rendering, as a bug in a page would. */
function Broken({ at }: { at: number }): never {
  throw new Error(`Error-log demo: a component failed to render (${new Date(at).toISOString()})`);
}

/**
 * Error log: a button makes a component throw. The page's error boundary catches it and hands it
 * to the shell's error log, whose bug button appears in the top bar and opens the log dialog.
 */
export function ErrorLogDemo({ route }: { route: AppRoute }) {
  const t = useT();
  const app = useApp();
  const [thrownAt, setThrownAt] = useState<number | undefined>();
  return (
    <DemoCard route={route} intro={t('demoComponents.errorLog.intro')}>
      <Space direction="vertical" style={{ width: '100%' }}>
        <Space wrap>
          <Button
            danger
            icon={<BugOutlined aria-hidden />}
            onClick={() => setThrownAt(Date.now())}
            data-testid="demo-throw"
          >
            {t('demoComponents.errorLog.throw')}
          </Button>
          <Typography.Text data-testid="demo-error-count">
            {t('demoComponents.errorLog.count', { count: app.errorLog.length })}
          </Typography.Text>
        </Space>
        {thrownAt !== undefined && (
          <ErrorBoundary
            key={thrownAt}
            onError={(error, info) =>
              app.addErrorLog({
                message: error.message,
                info: info.componentStack?.trim().split('\n')[0] ?? '',
                url: window.location.href,
                stack: error.stack ?? '',
              })
            }
            fallback={(error) => (
              <Alert
                type="error"
                showIcon
                message={t('demoComponents.errorLog.caught')}
                description={
                  <>
                    <div>{error.message}</div>
                    <div>{t('demoComponents.errorLog.where')}</div>
                  </>
                }
                data-testid="demo-error-caught"
              />
            )}
          >
            <Broken at={thrownAt} />
          </ErrorBoundary>
        )}
      </Space>
    </DemoCard>
  );
}
