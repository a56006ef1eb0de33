import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { AppError } from '../lib/errors.js';
import { ok, queryOf, requireAuth } from '../lib/http.js';
import { checkCode, consumeCode } from '../services/accounts/codes.js';
import { requireFields } from '../lib/input.js';
import { SIGN_IN_ACTION } from './accounts/sign-ins.js';
import { writeAudit } from '../lib/audit.js';
import type { Db } from '../lib/db/database.js';
import { translatorFor } from '../lib/i18n.js';
import { ONE_MINUTE_MS, registerRateLimit, signInGuard } from '../services/sessions/guard.js';
import { verifySecret } from '../lib/passwords.js';
import { createSession, hashToken, revokeSession } from '../services/sessions/session.js';
import { currentUser, loadUserRoles } from '../services/sessions/users.js';

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

const GRANTS = ['password', 'mobile', 'refresh_token'] as const;
type Grant = (typeof GRANTS)[number];

const isGrant = (value: string): value is Grant => (GRANTS as readonly string[]).includes(value);

interface SignedInUser {
  id: number;
  username: string;
  status: string | null;
}

const DEFAULT_TOKEN_SECONDS = 7200;
const DEFAULT_REFRESH_SECONDS = 2_592_000;

export async function authRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.ctx;
  const userEntity = app.ctx.registry.require('sysuser').name;
  await registerRateLimit(app);
  const guard = signInGuard(app.ctx.store, {
    maxFailures: config.abuse.signInMaxFailures,
    lockMinutes: config.abuse.signInLockMinutes,
  });

  /**
   * Opens a session of the client for a user whose credentials were just proven. A password or
   * mobile grant is a sign-in and leaves an audit entry (the workbench counts them); a refresh
   * only continues a session.
   */
  const issue = async (
    trx: Db,
    request: FastifyRequest,
    client: ClientRow,
    tenantCode: string,
    user: SignedInUser,
    scope: string | null,
    grant: Grant,
  ): Promise<Record<string, unknown>> => {
    if (user.status !== '1') throw new AppError('accountDisabled');
    const roles = await loadUserRoles(trx, user.id);
    const tokens = await createSession(trx, {
      tenantCode,
      userId: user.id,
      username: user.username,
      roles,
      clientCode: client.client_code,
      scope,
      tokenSeconds: client.token_seconds ?? DEFAULT_TOKEN_SECONDS,
      refreshSeconds: client.refresh_seconds ?? DEFAULT_REFRESH_SECONDS,
      ip: request.ip,
      userAgent: request.headers['user-agent'] ?? null,
    });
    if (grant !== 'refresh_token') {
      await writeAudit(trx, { userId: user.id, username: user.username, tenantCode }, [
        {
          entity: userEntity,
          recordKey: user.id,
          action: SIGN_IN_ACTION,
          before: null,
          after: { grant, clientCode: client.client_code, ip: request.ip },
        },
      ]);
    }
    return {
      code: 200,
      message: 'success',
      access_token: tokens.accessToken,
      token_type: 'bearer',
      refresh_token: tokens.refreshToken,
      expires_in: tokens.expiresIn,
      scope: scope ?? '',
    };
  };

  /** grant_type=password: user name and password (SPEC §5: the password is not trimmed). */
  const passwordGrant = async (
    request: FastifyRequest,
    client: ClientRow,
    params: Record<string, string>,
    tenantCode: string,
  ): Promise<Record<string, unknown>> => {
    const t = translatorFor(request);
    const username = (params.username ?? '').trim();
    const password = params.password ?? '';
    requireFields(t, { username, password });
    await guard.assertNotLocked(tenantCode, username);
    const found = await sql<SignedInUser & { password: string | null }>`
      select id, username, password, status from sys_user where tenant_code = ${tenantCode} and username = ${username}`.execute(
      db,
    );
    const user = found.rows[0];
    if (!user || !(await verifySecret(password, user.password))) {
      await guard.recordFailure(tenantCode, username);
      throw new AppError('badCredentials');
    }
    await guard.reset(tenantCode, username);
    const scope = params.scope ?? client.auth_scope;
    return db
      .transaction()
      .execute((trx) => issue(trx, request, client, tenantCode, user, scope, 'password'));
  };

  /** grant_type=mobile: mobile number and the SMS code sent to it, each trimmed (SPEC §5). */
  const mobileGrant = async (
    request: FastifyRequest,
    client: ClientRow,
    params: Record<string, string>,
    tenantCode: string,
  ): Promise<Record<string, unknown>> => {
    const t = translatorFor(request);
    const mobile = (params.mobile ?? '').trim();
    const smsCaptcha = (params.smsCaptcha ?? '').trim();
    requireFields(t, { mobile, smsCaptcha });
    const found = await sql<SignedInUser>`select id, username, status from sys_user
      where tenant_code = ${tenantCode} and mobile = ${mobile}`.execute(db);
    const user = found.rows[0];
    if (user) await guard.assertNotLocked(tenantCode, user.username);
    const code = await checkCode(app.ctx.store, {
      tenantCode,
      purpose: 'sms',
      target: mobile,
      code: smsCaptcha,
    });
    const wrongCode = (): AppError =>
      new AppError('smsCodeInvalid', {}, [{ field: '/smsCaptcha', message: t('errors.smsCodeInvalid') }]);
    if (!code) {
      if (user) await guard.recordFailure(tenantCode, user.username);
      throw wrongCode();
    }
    if (!user) {
      throw new AppError('mobileNotRegistered', {}, [
        { field: '/mobile', message: t('errors.mobileNotRegistered') },
      ]);
    }
    const answer = await db.transaction().execute(async (trx) => {
      if (!(await consumeCode(trx, code.id))) throw wrongCode();
      return issue(trx, request, client, tenantCode, user, params.scope ?? client.auth_scope, 'mobile');
    });
    await guard.reset(tenantCode, user.username);
    return answer;
  };

  /**
   * grant_type=refresh_token: rotates the session. The old access and refresh tokens stop
   * working and a new pair is issued; a refresh token is good once, for its client only.
   */
  const refreshGrant = async (
    request: FastifyRequest,
    client: ClientRow,
    params: Record<string, string>,
  ): Promise<Record<string, unknown>> => {
    const t = translatorFor(request);
    const refreshToken = (params.refresh_token ?? '').trim();
    requireFields(t, { refresh_token: refreshToken });
    const invalid = (): AppError =>
      new AppError('invalidGrant', {}, [{ field: '/refresh_token', message: t('errors.invalidGrant') }]);
    return db.transaction().execute(async (trx) => {
      const revoked = await sql<{ user_id: number; tenant_code: string; scope: string | null }>`
        update sys_session set revoked_at = now()
        where refresh_hash = ${hashToken(refreshToken)} and client_code = ${client.client_code}
          and revoked_at is null and refresh_expires_at > now()
        returning user_id, tenant_code, scope`.execute(trx);
      const session = revoked.rows[0];
      if (!session) throw invalid();
      const found = await sql<SignedInUser>`select id, username, status from sys_user
        where id = ${session.user_id} and tenant_code = ${session.tenant_code}`.execute(trx);
      const user = found.rows[0];
      if (!user) throw invalid();
      return issue(trx, request, client, session.tenant_code, user, session.scope, 'refresh_token');
    });
  };

  const tokenLimit = { max: config.abuse.tokenPerMinute, timeWindow: ONE_MINUTE_MS };
  app.post('/api/uaa/oauth/token', { config: { isPublic: true, rateLimit: tokenLimit } }, async (request) => {
    const params = tokenParams(request);
    const t = translatorFor(request);
    const client = await authenticateClient(app, request, params);
    const grant = (params.grant_type ?? '').trim();
    if (!isGrant(grant) || !(client.auth_type ?? []).includes(grant)) {
      throw new AppError('unsupportedGrant', { grant }, [
        { field: '/grant_type', message: t('errors.unsupportedGrant', { grant }) },
      ]);
    }
    const tenantCode = (params.tenantCode ?? '').trim() || config.defaultTenant;
    switch (grant) {
      case 'password':
        return passwordGrant(request, client, params, tenantCode);
      case 'mobile':
        return mobileGrant(request, client, params, tenantCode);
      case 'refresh_token':
        return refreshGrant(request, client, params);
    }
  });

  app.post('/api/uaa/oauth/logout', { config: { isSelfService: true } }, async (request) => {
    await revokeSession(app.ctx.db, requireAuth(request).sessionId);
    return ok(null);
  });

  // The same current user for the back-office (getSysUser) and the portal (getBidUser).
  for (const path of ['/api/uaa/users/getSysUser', '/api/uaa/users/getBidUser']) {
    app.get(path, { config: { isSelfService: true } }, async (request) =>
      ok(await currentUser(app.ctx.db, requireAuth(request))),
    );
  }
}
