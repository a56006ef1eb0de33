import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createI18n, detectLanguage } from '../web/i18n.js';

// The portal speaks Chinese unless the visitor chose another language.
const i18n = createI18n(detectLanguage('zh', false));
const t = i18n.t.bind(i18n);

function PortalHome() {
  document.title = t('portal.title');
  return (
    <main style={{ maxWidth: 960, margin: '0 auto', padding: '48px 24px', fontFamily: 'system-ui, sans-serif' }}>
      <h1 style={{ color: '#1f7a4d' }}>{t('portal.title')}</h1>
      <p>{t('portal.tagline')}</p>
      <p>
        <a href="/admin/">{t('portal.toBackOffice')}</a>
      </p>
    </main>
  );
}

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <PortalHome />
    </StrictMode>,
  );
}
