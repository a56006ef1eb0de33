import { useEffect } from 'react';
import { progress } from './progress.js';

/** Shown while a route chunk loads: keeps the progress bar running. */
export function RouteLoading() {
  useEffect(() => {
    progress.start();
    return () => progress.done();
  }, []);
  return <div className="admin-route-loading" />;
}
