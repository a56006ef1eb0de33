import { ruleLimit } from '../../monitor/index.js';
import { sql } from 'kysely';
import type { RenewedSession, SecondStepAnswer, TokenAnswer } from '../../../../engine/index.js';
import { SIGN_IN_ACTION, writeAudit } from '../../../lib/audit.js';
import { recordEvents } from '../../../lib/events/index.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Translate } from '../../../lib/i18n.js';
import { requireFields } from '../../../lib/input.js';
import { verifySecret, verifySecretOrDummy } from '../../../lib/passwords.js';
import { checkCode, consumeCode } from '../../../lib/store/codes.js';
import { signInGuard, type SignInGuard } from './guard.js';
import { createSession, hashToken } from './session.js';
import { loadUserRoles } from './users.js';
import { signInStepOf, type SignInGrant } from './second-step.js';

interface ClientRow {
  client_code: string;
  client_secret: string | null;
  auth_type: string[] | null;
  auth_scope: string | null;
  token_seconds: number | null;
  refresh_seconds: number | null;
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

/** The parameters of a token request (each grant reads its own). */
export interface TokenParams {
  grant_type?: string;
  client_id?: string;
  scope?: string;
  tenantCode?: string;
  username?: string;
  password?: string;
  mobile?: string;
  smsCaptcha?: string;
  refresh_token?: string;
}

export interface TokenRequest {
  ctx: AppContext;
  /** The token parameters, from the query string and the form body together (OAuth2 clients send either). */
  params: TokenParams;
  /** The client's Basic credentials, when the request carried them. */
  basic: { clientCode: string; secret: string } | undefined;
  ip: string;
  userAgent: string | null;
  t: Translate;
}

/** What every grant needs once the client is known. */
interface Grantee extends TokenRequest {
  hasSecondStep: boolean;
  client: ClientRow;
  guard: SignInGuard;
  userTable: ReturnType<typeof sql.table>;
}

/** A token answer, or the challenge of a second step (two-factor) when one stands before the session. */
export type GrantAnswer = TokenAnswer | SecondStepAnswer;

const isSecondStep = (answer: GrantAnswer): answer is SecondStepAnswer => 'second_step' in answer;

/** The lockout of failed sign-ins (guard.ts), with the limits now in force. */
export async function signInGuardFor(ctx: AppContext): Promise<SignInGuard> {
  return signInGuard(ctx.store, {
    maxFailures: await ruleLimit(ctx, 'signInFailures'),
    lockMinutes: ctx.config.abuse.signInLockMinutes,
  });
}

async function authenticateClient(request: TokenRequest): Promise<ClientRow> {
  const { ctx, params, basic } = request;
  const clientCode = basic?.clientCode ?? params.client_id;
  if (!clientCode || (basic && params.client_id && params.client_id !== basic.clientCode))
    throw new AppError('invalidClient');
  const clients = sql.table(ctx.registry.require('appclient').table);
  const result =
    await sql<ClientRow>`select client_code, client_secret, auth_type, auth_scope, token_seconds, refresh_seconds
    from ${clients} where client_code = ${clientCode}`.execute(ctx.db);
  const client = result.rows[0];
  if (!client) throw new AppError('invalidClient');
  if (client.client_secret && !(await verifySecret(basic?.secret ?? '', client.client_secret)))
    throw new AppError('invalidClient');
  return client;
}

/** Who a session is opened for, by which client, from where. */
interface Issuance {
  ctx: AppContext;
  client: ClientRow;
  ip: string;
  userAgent: string | null;
  /** False once the second step is done (or for a refresh): the session is opened at once. */
  hasSecondStep: boolean;
}

/**
 * Opens a session of the client for a user whose credentials were just proven, unless a second
 * step (two-factor) stands before it: then its challenge, and no session yet. A password or
 * mobile grant is a sign-in and leaves an audit entry (the workbench counts them); a refresh
 * only continues a session.
 */
async function issue(
  trx: Db,
  grantee: Issuance,
  tenantCode: string,
  user: SignedInUser,
  scope: string | null,
  grant: Grant | ExternalGrant,
  /** For a refresh: the sign-in the rotated session continued. */
  originId: number | null = null,
): Promise<GrantAnswer> {
  const { ctx, client } = grantee;
  if (user.status !== '1') throw new AppError('accountDisabled');
  const roles = await loadUserRoles({ db: trx, registry: ctx.registry, userId: user.id });
  const step = grant !== 'refresh_token' && grantee.hasSecondStep ? signInStepOf(ctx) : undefined;
  const challenge = await step?.begin({
    trx,
    ctx,
    tenantCode,
    userId: user.id,
    username: user.username,
    roles,
    clientCode: client.client_code,
    scope,
    grant: grant as SignInGrant,
    ip: grantee.ip,
  });
  if (challenge) return challenge;
  const tokens = await createSession(trx, {
    tenantCode,
    userId: user.id,
    username: user.username,
    roles,
    clientCode: client.client_code,
    scope,
    tokenSeconds: client.token_seconds ?? DEFAULT_TOKEN_SECONDS,
    refreshSeconds: client.refresh_seconds ?? DEFAULT_REFRESH_SECONDS,
    ip: grantee.ip,
    userAgent: grantee.userAgent,
    originId,
  });
  if (grant !== 'refresh_token') {
    await writeAudit({
      trx,
      actor: { userId: user.id, username: user.username, tenantCode },
      entries: [
        {
          entity: ctx.registry.require('sysuser').name,
          recordKey: user.id,
          action: SIGN_IN_ACTION,
          before: null,
          after: { grant, clientCode: client.client_code, ip: grantee.ip },
        },
      ],
    });
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
}

/**
 * Counts a failed sign-in; the failure that locks a known user out is the event user.locked
 * (lib/events). A name nobody has is counted alike but tells of nothing.
 */
async function failed(
  grantee: Grantee,
  tenantCode: string,
  user: { id: number; username: string } | undefined,
): Promise<void> {
  const username = user?.username ?? (grantee.params.username ?? '').trim();
  try {
    await grantee.guard.recordFailure(tenantCode, username);
  } catch (error) {
    if (user && error instanceof AppError && error.code === 'accountLocked')
      await recordEvents({
        trx: grantee.ctx.db,
        actor: { userId: user.id, username: user.username, tenantCode },
        events: [{ type: 'user.locked', entity: 'sysuser', key: user.id }],
      });
    throw error;
  }
}

/** grant_type=password: user name and password (docs/product.md §5: a password is not trimmed). */
async function passwordGrant(grantee: Grantee, tenantCode: string): Promise<GrantAnswer> {
  const { ctx, params, guard, client } = grantee;
  const username = (params.username ?? '').trim();
  const password = params.password ?? '';
  requireFields(grantee.t, { username, password });
  await guard.assertNotLocked(tenantCode, username);
  const found = await sql<SignedInUser & { password: string | null }>`
    select id, username, password, status from ${grantee.userTable}
    where tenant_code = ${tenantCode} and username = ${username}`.execute(ctx.db);
  const user = found.rows[0];
  if (!(await verifySecretOrDummy(password, user?.password)) || !user) {
    await failed(grantee, tenantCode, user);
    throw new AppError('badCredentials');
  }
  const scope = params.scope ?? client.auth_scope;
  const answer = await inTransaction(ctx.db, (trx) =>
    issue(trx, grantee, tenantCode, user, scope, 'password'),
  );
  // The failures are forgotten once the session is open: a second step still counts on them.
  if (!isSecondStep(answer)) await guard.reset(tenantCode, username);
  return answer;
}

/** grant_type=mobile: mobile number and the SMS code sent to it, each trimmed (docs/product.md §5). */
async function mobileGrant(grantee: Grantee, tenantCode: string): Promise<GrantAnswer> {
  const { ctx, params, guard, t } = grantee;
  const mobile = (params.mobile ?? '').trim();
  const smsCaptcha = (params.smsCaptcha ?? '').trim();
  requireFields(t, { mobile, smsCaptcha });
  const found = await sql<SignedInUser>`select id, username, status from ${grantee.userTable}
    where tenant_code = ${tenantCode} and mobile = ${mobile}`.execute(ctx.db);
  const user = found.rows[0];
  if (user) await guard.assertNotLocked(tenantCode, user.username);
  const code = await checkCode(ctx.store, { tenantCode, purpose: 'sms', target: mobile, code: smsCaptcha });
  const wrongCode = (): AppError =>
    new AppError('smsCodeInvalid', {}, [{ field: '/smsCaptcha', message: t('errors.smsCodeInvalid') }]);
  if (!code) {
    if (user) await failed(grantee, tenantCode, user);
    throw wrongCode();
  }
  if (!user) {
    throw new AppError('mobileNotRegistered', {}, [
      { field: '/mobile', message: t('errors.mobileNotRegistered') },
    ]);
  }
  const answer = await inTransaction(ctx.db, async (trx) => {
    if (!(await consumeCode(trx, code.id))) throw wrongCode();
    return issue(trx, grantee, tenantCode, user, params.scope ?? grantee.client.auth_scope, 'mobile');
  });
  if (!isSecondStep(answer)) await guard.reset(tenantCode, user.username);
  return answer;
}

/**
 * grant_type=refresh_token: rotates the session. The old access and refresh tokens stop
 * working and a new pair is issued; a refresh token is good once, for its client only.
 */
async function refreshGrant(grantee: Grantee): Promise<GrantAnswer> {
  const { ctx, params, t, client } = grantee;
  const refreshToken = (params.refresh_token ?? '').trim();
  requireFields(t, { refresh_token: refreshToken });
  const invalid = (): AppError =>
    new AppError('invalidGrant', {}, [{ field: '/refresh_token', message: t('errors.invalidGrant') }]);
  return inTransaction(ctx.db, async (trx) => {
    const revoked = await sql<{ user_id: number; tenant_code: string; scope: string | null; origin: number }>`
      update sys_session set revoked_at = now()
      where refresh_hash = ${hashToken(refreshToken)} and client_code = ${client.client_code}
        and revoked_at is null and refresh_expires_at > now()
      returning user_id, tenant_code, scope, coalesce(origin_id, id) as origin`.execute(trx);
    const session = revoked.rows[0];
    if (!session) throw invalid();
    const found = await sql<SignedInUser>`select id, username, status from ${grantee.userTable}
      where id = ${session.user_id} and tenant_code = ${session.tenant_code}`.execute(trx);
    const user = found.rows[0];
    if (!user) throw invalid();
    return issue(
      trx,
      grantee,
      session.tenant_code,
      user,
      session.scope,
      'refresh_token',
      Number(session.origin),
    );
  });
}

/**
 * Opens a new session for the user of `sessionId`, with that session's client and scope, in the
 * caller's transaction: the page that changed its own password ends every session of the user,
 * its own included, and goes on with these tokens (docs/http-contract.md "Sessions").
 */
export async function renewSession({
  trx,
  ctx,
  sessionId,
  ip,
  userAgent,
}: {
  trx: Db;
  ctx: AppContext;
  sessionId: number;
  ip: string | null;
  userAgent: string | null;
}): Promise<RenewedSession> {
  const found = await sql<{
    tenant_code: string;
    user_id: number;
    username: string;
    client_code: string;
    scope: string | null;
    token_seconds: number | null;
    refresh_seconds: number | null;
    origin: number;
  }>`select s.tenant_code, s.user_id, s.username, s.client_code, s.scope, c.token_seconds, c.refresh_seconds,
      coalesce(s.origin_id, s.id) as origin
    from sys_session s join ${sql.table(ctx.registry.require('appclient').table)} c on c.client_code = s.client_code
    where s.id = ${sessionId}`.execute(trx);
  const session = found.rows[0];
  if (!session) throw new AppError('invalidToken');
  const tokens = await createSession(trx, {
    tenantCode: session.tenant_code,
    userId: session.user_id,
    username: session.username,
    roles: await loadUserRoles({ db: trx, registry: ctx.registry, userId: session.user_id }),
    clientCode: session.client_code,
    scope: session.scope,
    tokenSeconds: session.token_seconds ?? DEFAULT_TOKEN_SECONDS,
    refreshSeconds: session.refresh_seconds ?? DEFAULT_REFRESH_SECONDS,
    ip,
    userAgent,
    originId: Number(session.origin),
  });
  return {
    access_token: tokens.accessToken,
    token_type: 'bearer',
    refresh_token: tokens.refreshToken,
    expires_in: tokens.expiresIn,
    scope: session.scope ?? '',
  };
}

/** A sign-in proven elsewhere than the token endpoint (features/oidc: an OpenID provider). */
type ExternalGrant = 'oidc';

/**
 * Opens a session of `clientCode` for a user another feature has just proven (an OpenID
 * provider's answer), in the caller's transaction: the same session, tokens, account check and
 * sign-in audit entry as the password grant.
 */
export async function issueExternalSignIn({
  trx,
  ctx,
  clientCode,
  tenantCode,
  userId,
  grant,
  ip,
  userAgent,
}: {
  trx: Db;
  ctx: AppContext;
  clientCode: string;
  tenantCode: string;
  userId: number;
  grant: ExternalGrant;
  ip: string;
  userAgent: string | null;
}): Promise<TokenAnswer> {
  const clients = sql.table(ctx.registry.require('appclient').table);
  const found = await sql<ClientRow>`select client_code, client_secret, auth_type, auth_scope, token_seconds,
      refresh_seconds from ${clients} where client_code = ${clientCode}`.execute(trx);
  const client = found.rows[0];
  if (!client) throw new AppError('invalidClient');
  const userTable = sql.table(ctx.registry.require('sysuser').table);
  const users = await sql<SignedInUser>`select id, username, status from ${userTable}
    where id = ${userId} and tenant_code = ${tenantCode}`.execute(trx);
  const user = users.rows[0];
  if (!user) throw new AppError('badCredentials');
  // The provider proved the user, with its own second factor if it has one: no second step here
  // (README "Two-factor sign-in": enforcement applies to the password and SMS sign-ins).
  const answer = await issue(
    trx,
    { ctx, client, ip, userAgent, hasSecondStep: false },
    tenantCode,
    user,
    client.auth_scope,
    grant,
  );
  if (isSecondStep(answer)) throw new AppError('invalidGrant');
  return answer;
}

/** POST /api/uaa/oauth/token: authenticates the client, then runs the grant it asks for and may use. */
export async function grantToken(request: TokenRequest): Promise<GrantAnswer> {
  const { ctx, params, t } = request;
  const client = await authenticateClient(request);
  const grant = (params.grant_type ?? '').trim();
  if (!isGrant(grant) || !(client.auth_type ?? []).includes(grant)) {
    throw new AppError('unsupportedGrant', { grant }, [
      { field: '/grant_type', message: t('errors.unsupportedGrant', { grant }) },
    ]);
  }
  const guard = await signInGuardFor(ctx);
  const grantee: Grantee = {
    ...request,
    client,
    guard,
    hasSecondStep: true,
    userTable: sql.table(ctx.registry.require('sysuser').table),
  };
  const tenantCode = (params.tenantCode ?? '').trim() || ctx.config.defaultTenant;
  switch (grant) {
    case 'password':
      return passwordGrant(grantee, tenantCode);
    case 'mobile':
      return mobileGrant(grantee, tenantCode);
    case 'refresh_token':
      return refreshGrant(grantee);
  }
}

/**
 * Opens the session a second step (two-factor) stood before, in the caller's transaction: the
 * sign-in of `grant`, by the client and with the scope of its first step.
 */
export async function completeSignIn({
  trx,
  ctx,
  tenantCode,
  userId,
  clientCode,
  scope,
  grant,
  ip,
  userAgent,
}: {
  trx: Db;
  ctx: AppContext;
  tenantCode: string;
  userId: number;
  clientCode: string;
  scope: string | null;
  grant: SignInGrant;
  ip: string;
  userAgent: string | null;
}): Promise<TokenAnswer> {
  const clients = sql.table(ctx.registry.require('appclient').table);
  const client = (
    await sql<ClientRow>`select client_code, client_secret, auth_type, auth_scope, token_seconds, refresh_seconds
      from ${clients} where client_code = ${clientCode}`.execute(trx)
  ).rows[0];
  const user = (
    await sql<SignedInUser>`select id, username, status from ${sql.table(ctx.registry.require('sysuser').table)}
      where id = ${userId} and tenant_code = ${tenantCode}`.execute(trx)
  ).rows[0];
  if (!client || !user) throw new AppError('invalidGrant');
  const answer = await issue(
    trx,
    { ctx, client, ip, userAgent, hasSecondStep: false },
    tenantCode,
    user,
    scope,
    grant,
  );
  if (isSecondStep(answer)) throw new AppError('invalidGrant');
  return answer;
}
