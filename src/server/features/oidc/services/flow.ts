import { createHash, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import type { TokenAnswer } from '../../../../engine/index.js';
import { writeAudit } from '../../../lib/audit.js';
import { BUDGETS } from '../../../lib/budgets.js';
import type { AppContext } from '../../../lib/context.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError, ERRORS } from '../../../lib/errors.js';
import type { Translate } from '../../../lib/i18n.js';
import { randomToken } from '../../../lib/store/codes.js';
import { hashToken, issueExternalSignIn } from '../../sessions/index.js';
import { client, providerConfig, providerFailure } from './client.js';
import { findProvider, type ProviderRow } from './providers.js';
import { createUserFor, insertLink, linkedUser, type Claims } from './users.js';

/** Which front-end a flow started from and returns to. */
export type FlowApp = 'admin' | 'portal';

/** The OAuth2 client the sessions of an OpenID sign-in belong to (the sign-in pages' own). */
const SESSION_CLIENT = 'browser';
/** A ticket lives this long between the provider's answer and the sign-in page redeeming it. */
const TICKET_SECONDS = 120;

const sha256 = (value: string): string => createHash('sha256').update(value).digest('base64url');

const sameHash = (value: string, hash: string): boolean => {
  const given = Buffer.from(sha256(value));
  const stored = Buffer.from(hash);
  return given.length === stored.length && timingSafeEqual(given, stored);
};

/** The page a flow comes back to, with its query. */
function pageOf(app: FlowApp, isLink: boolean, query: Record<string, string>): string {
  const path = isLink
    ? app === 'admin'
      ? '/admin/profile/index'
      : '/personal'
    : app === 'admin'
      ? '/admin/login'
      : '/login';
  return `${path}?${new URLSearchParams(query).toString()}`;
}

interface FlowRow {
  id: number;
  tenant_code: string;
  provider_id: number;
  browser_hash: string;
  nonce: string;
  code_verifier: string;
  redirect_uri: string;
  app: FlowApp;
  return_to: string | null;
  link_user_id: number | null;
}

/**
 * Starts a sign-in (or, with `linkUserId`, a link) at a provider of the tenant: a state, a nonce
 * and a PKCE verifier kept for the flow; the answer is the provider's authorization address and
 * a browser secret the route sets as a cookie (the callback and the ticket need it: a provider's
 * answer or a ticket carried to another browser is refused).
 */
export async function startFlow({
  ctx,
  tenantCode,
  providerId,
  app,
  returnTo,
  linkUserId,
  redirectUri,
}: {
  ctx: AppContext;
  tenantCode: string;
  providerId: number;
  app: FlowApp;
  returnTo: string | undefined;
  linkUserId: number | undefined;
  redirectUri: string;
}): Promise<{ url: string; browser: string }> {
  const provider = await findProvider(ctx.db, tenantCode, providerId);
  if (!provider?.enabled) throw new AppError('notFound');
  const config = await providerConfig(provider);
  const state = client.randomState();
  const nonce = client.randomNonce();
  const verifier = client.randomPKCECodeVerifier();
  const browser = randomToken();
  const safeReturn = returnTo && returnTo.startsWith('/') && !returnTo.startsWith('//') ? returnTo : null;
  await inTransaction(ctx.db, async (trx) => {
    // flows never finished, and finished ones whose session is over, are forgotten
    await sql`delete from sys_oidc_flow where expires_at < now() and (session_id is null
      or session_id not in (select coalesce(origin_id, id) from sys_session where revoked_at is null and refresh_expires_at > now()))`.execute(
      trx,
    );
    await sql`insert into sys_oidc_flow (tenant_code, provider_id, state_hash, browser_hash, nonce, code_verifier,
        redirect_uri, app, return_to, link_user_id, expires_at)
      values (${tenantCode}, ${provider.id}, ${sha256(state)}, ${sha256(browser)}, ${nonce}, ${verifier},
        ${redirectUri}, ${app}, ${safeReturn}, ${linkUserId ?? null},
        now() + make_interval(mins => ${BUDGETS.oidc.flowMinutes}))`.execute(trx);
  });
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: provider.scopes,
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return { url: url.href, browser };
}

/** The subject's claims: the user info's (when the provider has the endpoint) under the ID token's. */
async function claimsOf(
  config: client.Configuration,
  tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>,
): Promise<{ subject: string; claims: Claims }> {
  const idClaims = tokens.claims();
  if (!idClaims) throw new AppError('oidcAnswerInvalid');
  let info: Claims = {};
  if (config.serverMetadata().userinfo_endpoint)
    info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
  return { subject: idClaims.sub, claims: { ...info, ...idClaims } };
}

/**
 * The provider's answer (GET /api/oidc/callback): the flow is found by its state (once: a state
 * used or unknown is 400 naming /state), must come back to the browser that started it, and the
 * code is exchanged by openid-client, which checks the state, the PKCE verifier, the ID token's
 * signature, issuer, audience and nonce. Then, in one transaction, the subject's user is found by
 * its link, else made (when the provider creates users), else refused; or, for a link flow, the
 * subject is linked to the user who started it. Answers the page to go to: the sign-in page with
 * a one-time ticket, or with the error's message key.
 */
export async function finishFlow({
  ctx,
  currentUrl,
  browser,
}: {
  ctx: AppContext;
  currentUrl: URL;
  browser: string | undefined;
}): Promise<string> {
  const state = currentUrl.searchParams.get('state') ?? '';
  const stateError = () =>
    new AppError('oidcStateInvalid', {}, [{ field: '/state', message: 'oidc.stateInvalid' }]);
  if (state === '') throw stateError();
  // taken once: a second answer with the same state finds nothing
  const taken = await sql<FlowRow>`update sys_oidc_flow f set code_verifier = null
    from (select id, code_verifier from sys_oidc_flow
      where state_hash = ${sha256(state)} and code_verifier is not null and expires_at > now() for update) old
    where f.id = old.id
    returning f.id, f.tenant_code, f.provider_id, f.browser_hash, f.nonce, old.code_verifier, f.redirect_uri, f.app,
      f.return_to, f.link_user_id`.execute(ctx.db);
  const flow = taken.rows[0];
  if (!flow || browser === undefined || !sameHash(browser, flow.browser_hash)) throw stateError();
  const isLink = flow.link_user_id !== null;
  const fail = (error: AppError): string =>
    pageOf(flow.app, isLink, {
      oidcError: ERRORS[error.code].key,
      ...(flow.return_to ? { redirect: flow.return_to } : {}),
    });
  const provider = await findProvider(ctx.db, flow.tenant_code, Number(flow.provider_id));
  if (!provider?.enabled) return fail(new AppError('notFound'));
  let subject: string;
  let claims: Claims;
  let idToken: string | undefined;
  try {
    const config = await providerConfig(provider);
    const callbackUrl = new URL(flow.redirect_uri);
    callbackUrl.search = currentUrl.search;
    const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: flow.code_verifier,
      expectedState: state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    idToken = tokens.id_token;
    ({ subject, claims } = await claimsOf(config, tokens));
  } catch (error) {
    return fail(error instanceof AppError ? error : providerFailure(error));
  }
  try {
    const ticket = randomToken(32);
    await inTransaction(ctx.db, async (trx) => {
      let userId = await linkedUser(trx, Number(provider.id), subject);
      if (isLink) {
        const linkUserId = Number(flow.link_user_id);
        if (userId !== undefined && userId !== linkUserId) throw new AppError('oidcLinkedElsewhere');
        if (userId === undefined)
          await sql`delete from sys_oidc_link where provider_id = ${provider.id} and user_id = ${linkUserId}`.execute(
            trx,
          );
        if (userId === undefined) {
          await insertLink(trx, {
            tenantCode: flow.tenant_code,
            providerId: Number(provider.id),
            userId: linkUserId,
            subject,
          });
          const named = await sql<{ username: string }>`select username from ${sql.table(
            ctx.registry.require('sysuser').table,
          )} where id = ${linkUserId}`.execute(trx);
          await writeAudit({
            trx,
            actor: {
              userId: linkUserId,
              username: named.rows[0]?.username ?? '',
              tenantCode: flow.tenant_code,
            },
            entries: [
              {
                entity: 'sysoidclink',
                recordKey: linkUserId,
                action: 'add',
                before: null,
                after: { providerId: Number(provider.id), userId: linkUserId, subject },
              },
            ],
          });
        }
        return;
      }
      if (userId === undefined) {
        if (!provider.create_users) throw new AppError('oidcUnknownUser');
        userId = await createUserFor({ trx, ctx, provider, subject, claims });
      }
      await sql`update sys_oidc_flow set ticket_hash = ${sha256(ticket)}, user_id = ${userId},
          id_token = ${idToken ?? null}, expires_at = now() + make_interval(secs => ${TICKET_SECONDS})
        where id = ${flow.id}`.execute(trx);
    });
    if (isLink) return pageOf(flow.app, true, { oidcLinked: String(provider.id) });
    return pageOf(flow.app, false, {
      oidcTicket: ticket,
      ...(flow.return_to ? { redirect: flow.return_to } : {}),
      ...(flow.tenant_code !== ctx.config.defaultTenant ? { tenant: flow.tenant_code } : {}),
    });
  } catch (error) {
    if (error instanceof AppError) return fail(error);
    throw error;
  }
}

/**
 * Redeems a ticket (POST /api/oidc/ticket) in the browser that started the flow: the same session
 * and tokens as the password sign-in (sessions' issueExternalSignIn), once.
 */
export async function redeemTicket({
  ctx,
  ticket,
  browser,
  ip,
  userAgent,
  t,
}: {
  ctx: AppContext;
  ticket: string;
  browser: string | undefined;
  ip: string;
  userAgent: string | null;
  t: Translate;
}): Promise<TokenAnswer> {
  const refused = () =>
    new AppError('oidcTicketInvalid', {}, [{ field: '/ticket', message: t('errors.oidc.ticketInvalid') }]);
  return inTransaction(ctx.db, async (trx) => {
    const taken = await sql<{ id: number; tenant_code: string; user_id: number; browser_hash: string }>`
      update sys_oidc_flow set ticket_hash = null
      where ticket_hash = ${sha256(ticket)} and expires_at > now()
      returning id, tenant_code, user_id, browser_hash`.execute(trx);
    const flow = taken.rows[0];
    if (!flow || browser === undefined || !sameHash(browser, flow.browser_hash)) throw refused();
    const answer = await issueExternalSignIn({
      trx,
      ctx,
      clientCode: SESSION_CLIENT,
      tenantCode: flow.tenant_code,
      userId: Number(flow.user_id),
      grant: 'oidc',
      ip,
      userAgent,
    });
    await sql`update sys_oidc_flow set session_id = (select id from sys_session where token_hash = ${hashToken(
      answer.access_token,
    )}), expires_at = now() where id = ${flow.id}`.execute(trx);
    return answer;
  });
}

/**
 * Where the browser goes to end the session at the provider too (its end_session_endpoint, with
 * the ID token as the hint), for a session opened through a provider, or continuing one through
 * refresh rotations (sys_session.origin_id); null otherwise.
 */
export async function endSessionUrl({
  ctx,
  sessionId,
  postLogoutRedirectUri,
}: {
  ctx: AppContext;
  sessionId: number;
  postLogoutRedirectUri: string;
}): Promise<string | null> {
  const found = await sql<ProviderRow & { id_token: string | null }>`select p.*, f.id_token
    from sys_oidc_flow f join sys_oidc_provider p on p.id = f.provider_id
    where f.session_id = (select coalesce(origin_id, id) from sys_session where id = ${sessionId})
    order by f.id desc limit 1`.execute(ctx.db);
  const provider = found.rows[0];
  if (!provider) return null;
  let config: client.Configuration;
  try {
    config = await providerConfig(provider);
  } catch {
    // the provider is unreachable: the session here still ends
    return null;
  }
  if (!config.serverMetadata().end_session_endpoint) return null;
  return client.buildEndSessionUrl(config, {
    ...(provider.id_token ? { id_token_hint: provider.id_token } : {}),
    client_id: provider.client_id,
    post_logout_redirect_uri: postLogoutRedirectUri,
  }).href;
}
