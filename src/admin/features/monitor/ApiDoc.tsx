import { Alert, Card, Spin } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { getToken } from '../../../web/session.js';
import { routeTitle, useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import './monitor.css';

interface SwaggerRequest {
  headers: Record<string, string>;
}

/**
 * API documentation (docs/product.md §2.3 monitor/apidoc): Swagger UI over /api/openapi.json, loaded only on
 * this page; "Try it out" sends the signed-in user's bearer token, read at the moment of the call
 * so that a refreshed token is used.
 */
export default function ApiDoc({ route }: { route: AppRoute }) {
  const t = useT();
  const box = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');
  useEffect(() => {
    let isLive = true;
    void Promise.all([
      import('swagger-ui-dist/swagger-ui-es-bundle.js'),
      import('swagger-ui-dist/swagger-ui.css'),
    ])
      .then(([module]) => {
        if (!isLive || !box.current) return;
        const SwaggerUIBundle = module.default;
        SwaggerUIBundle({
          domNode: box.current,
          url: '/api/openapi.json',
          deepLinking: false,
          // Hundreds of operations: tags start folded and the schema list is left out, so the page
          // renders at once; a tag opens on click.
          docExpansion: 'none',
          defaultModelsExpandDepth: -1,
          tryItOutEnabled: true,
          requestInterceptor: (request: SwaggerRequest) => {
            const token = getToken();
            if (token) request.headers.Authorization = `Bearer ${token}`;
            return request;
          },
        });
        setState('ready');
      })
      .catch(() => {
        if (isLive) setState('failed');
      });
    return () => {
      isLive = false;
    };
  }, []);
  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      {state === 'loading' ? <Spin /> : null}
      {state === 'failed' ? <Alert type="error" message={t('monitor.apidoc.failed')} /> : null}
      <div ref={box} className="monitor-apidoc" data-testid="apidoc" />
    </Card>
  );
}
