import { Navigate, useLocation } from 'react-router';

/** /redirect/<path>: re-enters <path>, which remounts the view (tags Refresh, size change). */
export function RedirectPage() {
  const location = useLocation();
  const target = location.pathname.replace(/^\/redirect/, '') || '/';
  return <Navigate to={`${target}${location.search}`} replace />;
}
