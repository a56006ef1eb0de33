import { Navigate, useLocation } from 'react-router';
import { setToken } from '../../web/session.js';

/** /auth-redirect: the landing of an external sign-in that hands back a token, then the wanted page. */
export function AuthRedirect() {
  const location = useLocation();
  const query = new URLSearchParams(location.search || location.hash.replace(/^#/, '?'));
  const token = query.get('access_token') ?? query.get('token');
  if (token) setToken(token);
  const redirect = query.get('redirect');
  const target = redirect && redirect.startsWith('/') && !redirect.startsWith('//') ? redirect : '/workbench';
  return <Navigate to={token ? target : '/login'} replace />;
}
