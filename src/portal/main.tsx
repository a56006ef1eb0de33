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

/** The params decide the product slug of every route; a failing API still gets a working shell. */
async function loadParams(): Promise<PortalParams> {
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
