/**
 * OpenID Connect sign-in (issue 38) against a real OpenID provider started here (oidc-provider,
 * signed in through its own development login and consent pages over HTTP): providers configured
 * per tenant, first-time user creation with the mapped roles, refusal of an unknown user when
 * creation is off, a tampered state or nonce refused, a ticket good once in its own browser,
 * linking and unlinking from 个人中心, logout (here and at the provider), and the private-network
 * allowance kept for the platform administrator. Run on PGlite and (TEST_DATABASE_URL) on
 * PostgreSQL.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.js';
import { createUserWithRole } from '../support/users.js';

type Json = Record<string, unknown>;
type Headers = Record<string, string>;

const SITE = 'http://ecobid.test';
const CALLBACK = `${SITE}/api/oidc/callback`;

let t: TestApp;
let idp: TestProvider;
/** A provider of the default tenant that makes unknown users, and one that refuses them. */
let creating = 0;
let refusing = 0;
let newUserOrgId = 0;

const dataOf = <T = Json>(response: LightMyRequestResponse): T => (response.json() as Json).data as T;
const bearer = (token: string): Headers => ({ authorization: `Bearer ${token}` });

/** The browser cookie a start answer sets ("ecobid_oidc=…"). */
function browserCookie(response: LightMyRequestResponse): string {
  const header = [response.headers['set-cookie']].flat().find((value) => value?.startsWith('ecobid_oidc='));
  expect(header, 'the start sets the browser cookie').toBeDefined();
  return (header ?? '').split(';')[0] ?? '';
}

/** The provider's address and the browser cookie of a sign-in started at a provider. */
async function start(providerId: number, app: 'admin' | 'portal' = 'admin') {
  const started = await t.request({
    method: 'POST',
    url: '/api/oidc/start',
    payload: { providerId, app, redirect: '/workbench' },
  });
  expect(started.statusCode, started.body).toBe(200);
  return { url: dataOf<{ url: string }>(started).url, cookie: browserCookie(started) };
}

/** The app's answer to the provider's redirect, in the browser whose cookie is given. */
function callback(url: URL, cookie: string) {
  return t.request({ method: 'GET', url: `${url.pathname}${url.search}`, headers: { cookie } });
}

function redeem(ticket: string, cookie: string) {
  return t.request({ method: 'POST', url: '/api/oidc/ticket', headers: { cookie }, payload: { ticket } });
}

/** A whole sign-in through the provider as `login`: the page the callback sends the browser to. */
async function signInAs(providerId: number, login: string, app: 'admin' | 'portal' = 'admin') {
  const { url, cookie } = await start(providerId, app);
  const back = await idp.signIn(url, login);
  const answered = await callback(back, cookie);
  expect(answered.statusCode, answered.body).toBe(302);
  return { page: new URL(String(answered.headers.location), SITE), cookie, back };
}

async function addProvider(headers: Headers, body: Json) {
  return t.request({ method: 'POST', url: '/api/admin/sysoidc/add', headers, payload: body });
}

const me = async (token: string) => {
  const response = await t.request({
    method: 'GET',
    url: '/api/uaa/users/getSysUser',
    headers: bearer(token),
  });
  return { status: response.statusCode, user: response.statusCode === 200 ? dataOf(response) : undefined };
};

beforeAll(async () => {
  t = await startTestApp({ env: { PUBLIC_URL: SITE } });
  idp = await startTestProvider({ redirectUris: [CALLBACK], postLogoutRedirectUris: [`${SITE}/`] });
  idp.accounts.set('alice', {
    preferred_username: 'alice.sso',
    name: 'Alice Wang',
    email: 'alice@corp.example',
    phone_number: '13912345678',
  });
  const base = {
    issuer: idp.issuer,
    clientId: idp.clientId,
    clientSecret: idp.clientSecret,
    scopes: 'openid profile email phone',
    allowPrivateNetwork: true,
  };
  // new users of the provider go to an organisation of their own, not the tenant's top one
  const org = await t.request({
    method: 'POST',
    url: '/api/admin/sysorg/add',
    headers: t.auth,
    payload: { orgName: '单点登录用户', orgType: 'company', orgParent: 1, orgSequence: 98 },
  });
  expect(org.statusCode, org.body).toBe(200);
  newUserOrgId = Number(dataOf<{ id: number }>(org).id);
  const made = await addProvider(t.auth, {
    ...base,
    name: 'Corp SSO',
    createUsers: true,
    newUserRoles: ['ROLE_SYS_BUYER', 'ROLE_SYS_SUPPLIER'],
    newUserOrgId,
  });
  expect(made.statusCode, made.body).toBe(200);
  creating = dataOf<{ id: number }>(made).id;
  const strict = await addProvider(t.auth, { ...base, name: 'Strict SSO', createUsers: false, sequence: 5 });
  expect(strict.statusCode, strict.body).toBe(200);
  refusing = dataOf<{ id: number }>(strict).id;
}, 400_000);

afterAll(async () => {
  await idp?.close();
  await t?.close();
});

describe('providers in the back-office', () => {
  it('keeps the client secret write-only and lists the providers on the sign-in page', async () => {
    const listed = await t.request({ method: 'GET', url: '/api/admin/sysoidc/query', headers: t.auth });
    expect(listed.statusCode).toBe(200);
    expect(listed.body).not.toContain(idp.clientSecret);
    const corp = dataOf<Json[]>(listed).find((row) => row.id === creating);
    expect(corp).toMatchObject({ name: 'Corp SSO', hasSecret: true, createUsers: true, issuer: idp.issuer });
    const [audit] = await t.sql<{ after: string }>(
      "select after::text as after from sys_audit_log where entity = 'sysoidc' and record_key = $1",
      [String(creating)],
    );
    expect(audit?.after).not.toContain(idp.clientSecret);

    const page = await t.request({ method: 'GET', url: '/api/oidc/providers?tenantCode=default' });
    expect(page.statusCode).toBe(200);
    expect(dataOf<{ id: number; name: string }[]>(page).map((row) => row.name)).toEqual([
      'Corp SSO',
      'Strict SSO',
    ]);
  });

  it('refuses an issuer on a private address unless the platform administrator allows it', async () => {
    const tenant = await t.request({
      method: 'POST',
      url: '/api/admin/systenant/add',
      headers: t.auth,
      payload: { tenantCode: 'oidcbeta', tenantName: 'OIDC Beta' },
    });
    expect(tenant.statusCode, tenant.body).toBe(200);
    const admin = dataOf<{ admin: { username: string; initialPassword: string } }>(tenant).admin;
    const signedIn = await t.signIn(admin.username, admin.initialPassword, 'oidcbeta');
    const beta = bearer(signedIn.json().access_token as string);
    const body = { name: 'Inside', issuer: idp.issuer, clientId: 'x' };

    const plain = await addProvider(beta, body);
    expect(plain.statusCode).toBe(400);
    expect(plain.json().errors[0].field).toBe('/issuer');
    for (const issuer of ['https://10.1.2.3', 'https://localhost/realms/x', 'https://[::1]:8443'])
      expect((await addProvider(beta, { ...body, issuer })).json().errors[0].field).toBe('/issuer');

    const allowed = await addProvider(beta, { ...body, allowPrivateNetwork: true });
    expect(allowed.statusCode).toBe(403);
    expect(allowed.json().errors[0].field).toBe('/allowPrivateNetwork');

    const outside = await addProvider(beta, { ...body, issuer: 'https://sso.example.com/realms/beta' });
    expect(outside.statusCode, outside.body).toBe(200);
    // an administrator of the tenant keeps the issuer of a provider the platform allowed inside…
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/api/admin/sysoidc/update',
          headers: beta,
          payload: { id: dataOf<{ id: number }>(outside).id, ...body, issuer: 'http://192.168.1.5' },
        })
      ).json().errors[0].field,
    ).toBe('/issuer');
    // …and another tenant's provider is not theirs to change or start
    const foreign = await t.request({
      method: 'POST',
      url: '/api/admin/sysoidc/update',
      headers: beta,
      payload: { id: creating, ...body, issuer: 'https://sso.example.com' },
    });
    expect(foreign.statusCode).toBe(404);
    const startForeign = await t.request({
      method: 'POST',
      url: '/api/oidc/start',
      payload: { providerId: creating, app: 'admin', tenantCode: 'oidcbeta' },
    });
    expect(startForeign.statusCode).toBe(404);
  });

  it('names the field of bad input', async () => {
    const noOpenid = await addProvider(t.auth, {
      name: 'x',
      issuer: 'https://sso.example.com',
      clientId: 'x',
      scopes: 'profile',
    });
    expect(noOpenid.json().errors[0].field).toBe('/scopes');
    const noRoles = await addProvider(t.auth, {
      name: 'x',
      issuer: 'https://sso.example.com',
      clientId: 'x',
      createUsers: true,
    });
    expect(noRoles.json().errors[0].field).toBe('/newUserRoles');
    const badRole = await addProvider(t.auth, {
      name: 'x',
      issuer: 'https://sso.example.com',
      clientId: 'x',
      newUserRoles: ['ROLE_NONE'],
    });
    expect(badRole.json().errors[0].field).toBe('/newUserRoles/0');
  });
});

describe('sign-in through the provider', () => {
  let aliceToken = '';

  it('makes a first-time user with the mapped claims and roles, and opens the same session as a password', async () => {
    const before = await t.sql<{ n: number }>(
      "select count(*)::int as n from sys_user where tenant_code = 'default'",
    );
    const { page, cookie } = await signInAs(creating, 'alice');
    expect(page.pathname).toBe('/admin/login');
    expect(page.searchParams.get('redirect')).toBe('/workbench');
    const ticket = page.searchParams.get('oidcTicket') ?? '';
    expect(ticket).not.toBe('');

    // the ticket is good in the browser that signed in only, and once
    expect((await redeem(ticket, 'ecobid_oidc=someone-else')).statusCode).toBe(400);
    const redeemed = await redeem(ticket, cookie);
    expect(redeemed.statusCode, redeemed.body).toBe(200);
    expect(redeemed.json()).toMatchObject({ code: 200, token_type: 'bearer' });
    const again = await redeem(ticket, cookie);
    expect(again.statusCode).toBe(400);
    expect(again.json().errors[0].field).toBe('/ticket');

    aliceToken = String(redeemed.json().access_token);
    const { user } = await me(aliceToken);
    expect(user).toMatchObject({
      username: 'alice.sso',
      nickname: 'Alice Wang',
      email: 'alice@corp.example',
    });
    expect((user?.roles as string[]).toSorted()).toEqual(['ROLE_SYS_BUYER', 'ROLE_SYS_SUPPLIER']);
    const after = await t.sql<{ n: number }>(
      "select count(*)::int as n from sys_user where tenant_code = 'default'",
    );
    expect(after[0]?.n).toBe((before[0]?.n ?? 0) + 1);
    const [row] = await t.sql<{ mobile: string; org_id: number }>(
      "select mobile, org_id from sys_user where username = 'alice.sso'",
    );
    expect(row?.mobile).toBe('13912345678');
    expect(Number(row?.org_id)).toBe(newUserOrgId);
    // the sign-in is audited like a password's
    const signIns = await t.sql<{ after: { grant: string } }>(
      "select after from sys_audit_log where action = 'signIn' and username = 'alice.sso'",
    );
    expect(signIns.map((entry) => entry.after.grant)).toEqual(['oidc']);
    // the refresh token works as a password sign-in's
    const refreshed = await t.request({
      method: 'POST',
      url: '/api/uaa/oauth/token',
      headers: {
        authorization: `Basic ${Buffer.from('browser:').toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: String(redeemed.json().refresh_token),
      }).toString(),
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    aliceToken = String(refreshed.json().access_token);
  });

  it('signs the same subject in as the same user the next time', async () => {
    const { page, cookie } = await signInAs(creating, 'alice', 'portal');
    expect(page.pathname).toBe('/login');
    const redeemed = await redeem(page.searchParams.get('oidcTicket') ?? '', cookie);
    const { user } = await me(String(redeemed.json().access_token));
    expect(user?.username).toBe('alice.sso');
    const users = await t.sql("select id from sys_user where email = 'alice@corp.example'");
    expect(users).toHaveLength(1);
  });

  it('refuses an unknown subject when the provider does not create users', async () => {
    const { page } = await signInAs(refusing, 'stranger');
    expect(page.pathname).toBe('/admin/login');
    expect(page.searchParams.get('oidcError')).toBe('oidc.unknownUser');
    expect(page.searchParams.get('oidcTicket')).toBeNull();
    expect(await t.sql("select id from sys_oidc_link where subject = 'stranger'")).toHaveLength(0);
  });

  it('refuses a tampered state, a replayed answer and an answer carried to another browser', async () => {
    const { url, cookie } = await start(creating);
    const back = await idp.signIn(url, 'alice');
    const tampered = new URL(back);
    tampered.searchParams.set('state', `${back.searchParams.get('state') ?? ''}x`);
    const refused = await callback(tampered, cookie);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0].field).toBe('/state');
    const elsewhere = await callback(back, 'ecobid_oidc=another-browser');
    expect(elsewhere.statusCode).toBe(400);
    // the flow was spent by the refused attempt: the right browser cannot use it either now
    const replay = await callback(back, cookie);
    expect(replay.statusCode).toBe(400);
    expect(replay.json().errors[0].field).toBe('/state');
  });

  it('refuses an ID token whose nonce is not the one the flow sent', async () => {
    const { url, cookie } = await start(creating);
    const changed = new URL(url);
    changed.searchParams.set('nonce', 'a-nonce-of-the-attacker');
    const back = await idp.signIn(changed.href, 'alice');
    const answered = await callback(back, cookie);
    expect(answered.statusCode).toBe(302);
    const page = new URL(String(answered.headers.location), SITE);
    expect(page.searchParams.get('oidcError')).toBe('oidc.answerInvalid');
    expect(page.searchParams.get('oidcTicket')).toBeNull();
  });

  it('refuses a PKCE challenge that is not the flow’s', async () => {
    const { url, cookie } = await start(creating);
    const changed = new URL(url);
    changed.searchParams.set('code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    const back = await idp.signIn(changed.href, 'alice');
    const page = new URL(String((await callback(back, cookie)).headers.location), SITE);
    expect(page.searchParams.get('oidcError')).toBe('oidc.answerInvalid');
  });

  it('logs out here and gives the provider’s end-session address, after refreshes too', async () => {
    const { page, cookie } = await signInAs(creating, 'alice');
    const redeemed = (await redeem(page.searchParams.get('oidcTicket') ?? '', cookie)).json();
    // two refresh rotations: the session that logs out is not the one the sign-in opened
    let refreshToken = String(redeemed.refresh_token);
    let token = String(redeemed.access_token);
    for (let round = 0; round < 2; round += 1) {
      const refreshed = await t.request({
        method: 'POST',
        url: '/api/uaa/oauth/token',
        headers: {
          authorization: `Basic ${Buffer.from('browser:').toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
      });
      expect(refreshed.statusCode, refreshed.body).toBe(200);
      refreshToken = String(refreshed.json().refresh_token);
      token = String(refreshed.json().access_token);
    }
    const logoutUrl = await t.request({ method: 'GET', url: '/api/oidc/logoutUrl', headers: bearer(token) });
    expect(logoutUrl.statusCode, logoutUrl.body).toBe(200);
    const end = new URL(String(dataOf<{ url: string }>(logoutUrl).url));
    expect(end.origin).toBe(idp.issuer);
    expect(end.searchParams.get('id_token_hint')).toBeTruthy();
    expect(end.searchParams.get('post_logout_redirect_uri')).toBe(`${SITE}/`);
    const atProvider = await fetch(end, { redirect: 'manual' });
    expect(atProvider.status).toBe(200);
    expect(await atProvider.text()).toContain('logout');

    const out = await t.request({ method: 'POST', url: '/api/uaa/oauth/logout', headers: bearer(token) });
    expect(out.statusCode).toBe(200);
    expect((await me(token)).status).toBe(401);
    // a password session has no provider to leave
    const admin = await t.request({ method: 'GET', url: '/api/oidc/logoutUrl', headers: t.auth });
    expect(dataOf<{ url: string | null }>(admin).url).toBeNull();
  });
});

describe('links in 个人中心', () => {
  it('links an existing user, who then signs in through the provider; unlinked, they are refused', async () => {
    const bob = await createUserWithRole(t, 'bob_linker', 'ROLE_SYS_BUYER');
    const links = async () =>
      dataOf<{ providerId: number; isLinked: boolean }[]>(
        await t.request({ method: 'GET', url: '/api/oidc/links', headers: bearer(bob.token) }),
      );
    expect((await links()).find((link) => link.providerId === refusing)?.isLinked).toBe(false);

    const started = await t.request({
      method: 'POST',
      url: '/api/oidc/link',
      headers: bearer(bob.token),
      payload: { providerId: refusing, app: 'admin' },
    });
    expect(started.statusCode, started.body).toBe(200);
    const back = await idp.signIn(dataOf<{ url: string }>(started).url, 'bob-at-corp');
    const linked = await callback(back, browserCookie(started));
    expect(linked.statusCode, linked.body).toBe(302);
    const page = new URL(String(linked.headers.location), SITE);
    expect(page.pathname).toBe('/admin/profile/index');
    expect(page.searchParams.get('oidcLinked')).toBe(String(refusing));
    expect((await links()).find((link) => link.providerId === refusing)?.isLinked).toBe(true);
    const audited = await t.sql<{ username: string }>(
      "select username from sys_audit_log where entity = 'sysoidclink' and action = 'add' and record_key = $1",
      [String(bob.id)],
    );
    expect(audited.map((row) => row.username)).toEqual(['bob_linker']);

    const signedIn = await signInAs(refusing, 'bob-at-corp');
    const redeemed = await redeem(signedIn.page.searchParams.get('oidcTicket') ?? '', signedIn.cookie);
    expect((await me(String(redeemed.json().access_token))).user?.username).toBe('bob_linker');

    // alice's subject is linked to alice: bob cannot take it
    const other = await t.request({
      method: 'POST',
      url: '/api/oidc/link',
      headers: bearer(bob.token),
      payload: { providerId: creating, app: 'portal' },
    });
    const taken = await callback(
      await idp.signIn(dataOf<{ url: string }>(other).url, 'alice'),
      browserCookie(other),
    );
    const takenPage = new URL(String(taken.headers.location), SITE);
    expect(takenPage.pathname).toBe('/personal');
    expect(takenPage.searchParams.get('oidcError')).toBe('oidc.linkedElsewhere');

    const unlinked = await t.request({
      method: 'POST',
      url: '/api/oidc/unlink',
      headers: bearer(bob.token),
      payload: { providerId: refusing },
    });
    expect(unlinked.statusCode, unlinked.body).toBe(200);
    expect((await links()).find((link) => link.providerId === refusing)?.isLinked).toBe(false);
    const again = await t.request({
      method: 'POST',
      url: '/api/oidc/unlink',
      headers: bearer(bob.token),
      payload: { providerId: refusing },
    });
    expect(again.statusCode).toBe(404);
    const refused = await signInAs(refusing, 'bob-at-corp');
    expect(refused.page.searchParams.get('oidcError')).toBe('oidc.unknownUser');
  });
});
