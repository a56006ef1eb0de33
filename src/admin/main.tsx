// antd's styles for the back-office's theme, made at build time: first, before the app's own
// (scripts/antd-static-styles.tsx); cssinjs then skips generating what the sheet lists
import 'virtual:antd-static.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { AdminApp } from './App.js';
import './admin.css';
import { initI18n } from './i18n.js';
import { registerAdminModules } from './lib/module-loader.js';
import { warmFirstList } from './providers/warm.js';
import { AppProvider } from './store.js';

const root = document.getElementById('root');
if (root) {
  // A generated list's first page is asked for now, not after the shell's first render (the cold load).
  void warmFirstList(window.location.pathname.replace(/^\/admin(?=\/)/, '')).catch(() => undefined);
  // Only the texts of the shown language are downloaded, before the first render; the modules'
  // widgets, record actions and pages are known by then too.
  void Promise.all([initI18n(), registerAdminModules()]).then(() => {
    createRoot(root).render(
      <StrictMode>
        <BrowserRouter basename="/admin">
          <AppProvider>
            <AdminApp />
          </AppProvider>
        </BrowserRouter>
      </StrictMode>,
    );
  });
}
