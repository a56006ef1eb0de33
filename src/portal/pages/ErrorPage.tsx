import { Link } from 'react-router';
import { usePortal } from '../context.js';
import { Logo } from '../ui/Logo.js';

/** /404 and /502 (server-gateway error), standalone pages with a way home. */
export function ErrorPage({ code }: { code: 404 | 502 }) {
  const { t, home } = usePortal();
  return (
    <main className="standalone error-page" data-testid={`error-${code}`}>
      <Logo size={48} />
      <p className="error-code">{code}</p>
      <h1>{t(`errorPage.${code}.title`)}</h1>
      <p>{t(`errorPage.${code}.text`)}</p>
      <p className="error-actions">
        <Link to={home} className="btn btn-primary">
          {t('errorPage.home')}
        </Link>
        {code === 502 && (
          <button type="button" className="btn" onClick={() => window.history.back()}>
            {t('errorPage.retry')}
          </button>
        )}
      </p>
    </main>
  );
}
