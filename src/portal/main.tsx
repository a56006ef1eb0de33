import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import 'nprogress/nprogress.css';
import './portal.css';
import { portalApi, type PortalParams } from './api.js';
import { App } from './App.js';
import { PortalProvider } from './context.js';
import { detectLanguage, htmlLang, loadSection, type Section } from './i18n.js';
import { productSlug } from '../web/session.js';

/** The params the server put in the page (meta ecobid-params), when it did. */
function injectedParams(): PortalParams | undefined {
  const content = document.querySelector('meta[name="ecobid-params"]')?.getAttribute('content');
  if (!content) return undefined;
  try {
    const params = JSON.parse(content) as PortalParams;
    return typeof params.product === 'string' && params.product !== '' ? params : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The params decide the product slug of every route. The server injects them in the page, so the
 * first render waits for no call; otherwise (the Vite dev server) they are fetched, and a failing
 * API still gets a working shell.
 */
async function loadParams(): Promise<PortalParams> {
  const injected = injectedParams();
  if (injected) return injected;
  try {
    return await portalApi.params();
  } catch {
    return { product: productSlug() };
  }
}

async function start(): Promise<void> {
  const language = detectLanguage();
  const [section, params] = await Promise.all([
    loadSection(language).catch((): Promise<Section> => loadSection('zh')),
    loadParams(),
  ]);
  document.documentElement.lang = htmlLang(language);
  // src/web reads the product slug from this meta tag (the home path after an expired session).
  let meta = document.querySelector('meta[name="ecobid-product"]');
  if (!meta) {
    meta = document.createElement('meta');
    meta.setAttribute('name', 'ecobid-product');
    document.head.append(meta);
  }
  meta.setAttribute('content', params.product);
  const root = document.getElementById('root');
  if (!root) return;
  createRoot(root).render(
    <StrictMode>
      <BrowserRouter>
        <PortalProvider initialLanguage={language} initialSection={section} params={params}>
          <App />
        </PortalProvider>
      </BrowserRouter>
    </StrictMode>,
  );
}

void start();
