import { StrictMode, useState, type FormEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { createI18n, detectLanguage } from '../web/i18n.js';

const i18n = createI18n(detectLanguage('en', true));
const t = i18n.t.bind(i18n);

interface MenuNode {
  id: number;
  menuCode: string;
  menuName: string;
  menuPath: string;
  children?: MenuNode[];
}

async function signIn(username: string, password: string): Promise<string> {
  const response = await fetch('/api/uaa/oauth/token', {
    method: 'POST',
    headers: { authorization: `Basic ${btoa('browser:')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', scope: 'ui', client_id: 'browser', username: username.trim(), password }),
  });
  const body = (await response.json()) as { access_token?: string; message?: string };
  if (!response.ok || !body.access_token) throw new Error(body.message ?? t('admin.signInFailed'));
  return body.access_token;
}

async function loadMenus(token: string): Promise<MenuNode[]> {
  const response = await fetch('/api/admin/sysmenu/querySysMenuTree', { headers: { authorization: `Bearer ${token}` } });
  const body = (await response.json()) as { data?: MenuNode[]; message?: string };
  if (!response.ok || !body.data) throw new Error(body.message ?? t('admin.loadFailed'));
  return body.data;
}

function MenuList({ nodes }: { nodes: MenuNode[] }) {
  return (
    <ul>
      {nodes.map((node) => (
        <li key={node.id}>
          {t(`menus.${node.menuCode}`, { defaultValue: node.menuName })} <code>{node.menuPath}</code>
          {node.children && <MenuList nodes={node.children} />}
        </li>
      ))}
    </ul>
  );
}

function AdminHome() {
  const [menus, setMenus] = useState<MenuNode[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  document.title = t('admin.title');
  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setError(null);
    signIn(String(form.get('username') ?? ''), String(form.get('password') ?? ''))
      .then(loadMenus)
      .then(setMenus)
      .catch((caught: unknown) => setError(caught instanceof Error ? caught.message : String(caught)));
  };
  return (
    <main style={{ maxWidth: 720, margin: '0 auto', padding: 32, fontFamily: 'system-ui, sans-serif' }}>
      <h1>{t('admin.title')}</h1>
      {menus ? (
        <MenuList nodes={menus} />
      ) : (
        <form onSubmit={submit} style={{ display: 'grid', gap: 12, maxWidth: 320 }}>
          <label>
            {t('admin.username')} <input name="username" autoComplete="username" required />
          </label>
          <label>
            {t('admin.password')} <input name="password" type="password" autoComplete="current-password" required />
          </label>
          <button type="submit">{t('admin.signIn')}</button>
          {error && <p role="alert" style={{ color: '#c0392b' }}>{error}</p>}
        </form>
      )}
    </main>
  );
}

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <AdminHome />
    </StrictMode>,
  );
}
