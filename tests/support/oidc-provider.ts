import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** What the test provider knows of an account: its claims (sub is the login typed). */
export type AccountClaims = Record<string, string>;

export interface TestProvider {
  /** The issuer, http://127.0.0.1:<port>. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by login; a login not listed signs in with only its sub. */
  accounts: Map<string, AccountClaims>;
  /**
   * Signs in at the provider's own pages (its development login and consent forms, over HTTP)
   * from its authorization address, as a browser would; answers the redirect to the client's
   * callback (the address with code and state).
   */
  signIn(authorizationUrl: string, login: string): Promise<URL>;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (oidc-provider, its development interactions) on 127.0.0.1, with one
 * confidential client allowed the given callbacks and post-logout addresses.
 */
export async function startTestProvider(options: {
  redirectUris: string[];
  postLogoutRedirectUris: string[];
}): Promise<TestProvider> {
  // the provider needs its address, known once the server listens: requests wait for it meanwhile
  const route: { handler?: (req: IncomingMessage, res: ServerResponse) => void } = {};
  const server: Server = createServer((req, res) => {
    if (route.handler) route.handler(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, AccountClaims>();
  const clientId = 'ecobid';
  const clientSecret = 'test-client-secret-0123456789';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        post_logout_redirect_uris: options.postLogoutRedirectUris,
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: {
      openid: ['sub'],
      profile: ['name', 'preferred_username'],
      email: ['email', 'email_verified'],
      phone: ['phone_number'],
    },
    pkce: { required: () => true },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({ sub, ...(accounts.get(sub) ?? {}) }),
    }),
    cookies: { keys: ['test-cookie-key-0123456789'] },
  });
  provider.proxy = false;
  const callback = provider.callback();
  route.handler = (req, res) => void callback(req, res);

  /** A browser's cookie jar, for the provider's own pages. */
  const jar = new Map<string, string>();
  const remember = (response: Response): void => {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, ...value] = (pair ?? '').split('=');
      if (name) jar.set(name.trim(), value.join('='));
    }
  };
  const cookieHeader = (): string => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const go = async (url: string, init: RequestInit = {}): Promise<Response> => {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string> | undefined), cookie: cookieHeader() },
    });
    remember(response);
    return response;
  };
  const formAction = (html: string): string => {
    const match = /<form[^>]*action="([^"]+)"/.exec(html);
    if (!match?.[1]) throw new Error(`no form on the provider's page: ${html.slice(0, 300)}`);
    return new URL(match[1].replace(/&amp;/g, '&'), issuer).href;
  };

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    async signIn(authorizationUrl, login) {
      jar.clear();
      let next = authorizationUrl;
      for (let step = 0; step < 12; step += 1) {
        const isOwn = next.startsWith(issuer);
        if (!isOwn) return new URL(next);
        const response = await go(next);
        const location = response.headers.get('location');
        if (location) {
          next = new URL(location, next).href;
          continue;
        }
        const html = await response.text();
        if (response.status !== 200)
          throw new Error(`provider answered ${response.status}: ${html.slice(0, 500)}`);
        const isLogin = html.includes('name="login"');
        const body = new URLSearchParams(
          isLogin ? { prompt: 'login', login, password: 'any-password' } : { prompt: 'consent' },
        );
        const submitted = await go(formAction(html), {
          method: 'POST',
          body: body.toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
        const after = submitted.headers.get('location');
        if (!after)
          throw new Error(`the provider's form answered ${submitted.status}: ${await submitted.text()}`);
        next = new URL(after, next).href;
      }
      throw new Error('the provider never sent the browser back');
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
