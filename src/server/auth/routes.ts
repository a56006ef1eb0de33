import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { AppError } from '../errors.js';
import { ok, queryOf, requireAuth } from '../http.js';
import { translatorFor } from '../i18n/index.js';
import { verifySecret } from './passwords.js';
import { createSession, revokeSession } from './session.js';
import { currentUser, loadUserRoles } from './users.js';

interface ClientRow {
  client_code: string;
  client_secret: string | null;
  auth_type: string[] | null;
  auth_scope: string | null;
  token_seconds: number | null;
  refresh_seconds: number | null;
}

/** Token parameters may come in the query string or a form body, as OAuth2 clients send them. */
function tokenParams(request: FastifyRequest): Record<string, string> {
  const merged: Record<string, string> = {};
  const add = (source: unknown): void => {
    if (typeof source !== 'object' || source === null) return;
    for (const [name, value] of Object.entries(source)) {
      const first = Array.isArray(value) ? value[0] : value;
      if (typeof first === 'string') merged[name] = first;
    }
  };
  add(queryOf(request));
  add(request.body);
  return merged;
}

function basicCredentials(request: FastifyRequest): { clientCode: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { clientCode: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

async function authenticateClient(
  app: FastifyInstance,
  request: FastifyRequest,
  params: Record<string, string>,
): Promise<ClientRow> {
  const basic = basicCredentials(request);
  const clientCode = basic?.clientCode ?? params.client_id;
  if (!clientCode || (basic && params.client_id && params.client_id !== basic.clientCode))
    throw new AppError('invalidClient');
  const result =
    await sql<ClientRow>`select client_code, client_secret, auth_type, auth_scope, token_seconds, refresh_seconds
    from sys_app_client where client_code = ${clientCode}`.execute(app.ctx.db);
  const client = result.rows[0];
  if (!client) throw new AppError('invalidClient');
  if (client.client_secret && !(await verifySecret(basic?.secret ?? '', client.client_secret)))
    throw new AppError('invalidClient');
  return client;
}

export async function authRoutes(app: FastifyInstance): Promise<void> {
  app.post('/api/uaa/oauth/token', { config: { isPublic: true } }, async (request) => {
    const params = tokenParams(request);
    const t = translatorFor(request);
    const client = await authenticateClient(app, request, params);
    const grant = params.grant_type ?? '';
    if (!(client.auth_type ?? []).includes(grant) || grant !== 'password') {
      throw new AppError('unsupportedGrant', { grant }, [
        { field: '/grant_type', message: t('errors.unsupportedGrant', { grant }) },
      ]);
    }
    const tenantCode = (params.tenantCode ?? '').trim() || app.ctx.config.defaultTenant;
    const username = (params.username ?? '').trim();
    const password = params.password ?? '';
    const missing = [
      ...(username ? [] : [{ field: '/username', message: t('validation.required') }]),
      ...(password ? [] : [{ field: '/password', message: t('validation.required') }]),
    ];
    if (missing.length > 0) throw new AppError('validation', {}, missing);
    const found = await sql<{ id: number; username: string; password: string | null; status: string | null }>`
      select id, username, password, status from sys_user where tenant_code = ${tenantCode} and username = ${username}`.execute(
      app.ctx.db,
    );
    const user = found.rows[0];
    const isValid = await verifySecret(password, user?.password);
    if (!user || !isValid) throw new AppError('badCredentials');
    if (user.status !== '1') throw new AppError('accountDisabled');
    const roles = await loadUserRoles(app.ctx.db, user.id);
    const tokens = await createSession(app.ctx.db, {
      tenantCode,
      userId: user.id,
      username: user.username,
      roles,
      clientCode: client.client_code,
      scope: params.scope ?? client.auth_scope,
      tokenSeconds: client.token_seconds ?? 7200,
      refreshSeconds: client.refresh_seconds ?? 2_592_000,
      ip: request.ip,
      userAgent: request.headers['user-agent'] ?? null,
    });
    return {
      code: 200,
      message: 'success',
      access_token: tokens.accessToken,
      token_type: 'bearer',
      refresh_token: tokens.refreshToken,
      expires_in: tokens.expiresIn,
      scope: params.scope ?? client.auth_scope ?? '',
    };
  });

  app.post('/api/uaa/oauth/logout', async (request) => {
    await revokeSession(app.ctx.db, requireAuth(request).sessionId);
    return ok(null);
  });

  app.get('/api/uaa/users/getSysUser', async (request) => {
    const auth = requireAuth(request);
    return ok(await currentUser(app.ctx.db, auth));
  });
}
