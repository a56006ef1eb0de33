import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.js';
import { apiClient, newContext, type Check, type E2eContext } from './support.js';

const PRODUCT = 'ecobid';
const BUYER_PASSWORD = 'sso-buyer-1';

/** The provider's own login page, then its consent page when it asks. */
async function signInAtProvider(page: Page, issuer: string, login: string): Promise<void> {
  await page.waitForURL((url) => url.href.startsWith(`${issuer}/interaction/`));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any-password');
  await page.locator('button[type="submit"]').click();
  const consent = page.getByRole('button', { name: 'Continue' });
  await page.waitForURL((url) => !url.href.startsWith(issuer) || url.pathname.includes('/interaction/'));
  if (page.url().startsWith(issuer) && (await consent.count()) > 0) await consent.click();
}

/**
 * OpenID Connect sign-in (issue 38) in the browser: a real provider (oidc-provider) on
 * 127.0.0.1; the user picks it on the back-office's sign-in page, signs in on the provider's own
 * login and consent pages, and lands in the back-office as a new user with the provider's roles;
 * 个人中心 lists the linked account; a portal buyer links the provider from /personal and signs in
 * to the portal with it; logging out ends the session at the provider too.
 */
export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let idp: TestProvider | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  return [
    {
      name: 'oidc: a user signs in through the provider’s own pages and lands in the back-office',
      run: async () => {
        idp = await startTestProvider({
          redirectUris: [`${server.url}/api/oidc/callback`],
          postLogoutRedirectUris: [`${server.url}/`],
        });
        idp.accounts.set('carol', {
          preferred_username: 'carol.sso',
          name: 'Carol Chen',
          email: 'carol@corp.example',
        });
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        await admin.post('/api/admin/sysoidc/add', {
          name: 'Corp SSO',
          issuer: idp.issuer,
          clientId: idp.clientId,
          clientSecret: idp.clientSecret,
          allowPrivateNetwork: true,
          createUsers: true,
          newUserRoles: ['ROLE_ADMIN'],
        });

        context = await newContext(browser);
        page = await context.newPage();
        await page.goto(`${server.url}/admin/login`);
        const button = page.getByTestId('login-sso-provider').filter({ hasText: 'Corp SSO' });
        await button.waitFor();
        assert.equal((await button.innerText()).replace(/\s+/g, ' ').trim(), '使用 Corp SSO 登录');
        await page.screenshot({ path: `${screenshots}/oidc-sign-in-page.png`, fullPage: true });
        await button.click();

        // the provider's own login page
        await page.waitForURL((url) => url.href.startsWith(`${idp?.issuer ?? ''}/interaction/`));
        await page.locator('input[name="login"]').fill('carol');
        await page.locator('input[name="password"]').fill('any-password');
        await page.screenshot({ path: `${screenshots}/oidc-provider-login.png`, fullPage: true });
        await page.locator('button[type="submit"]').click();
        // its consent page
        await page.getByRole('button', { name: 'Continue' }).click();

        await page.waitForURL(/\/admin\/workbench$/, { timeout: 60_000 });
        await page.getByTestId('avatar-menu').getByText('Carol Chen').waitFor();
        assert.ok(!page.url().includes('oidcTicket'), 'the ticket leaves the address bar');
        // the new user holds the provider's role: the back-office's menus are theirs
        await page.locator('.ant-menu').getByText('系统管理').first().waitFor();
        await page.screenshot({ path: `${screenshots}/oidc-landed-workbench.png`, fullPage: true });
      },
    },
    {
      name: 'oidc: 系统管理 › 单点登录 lists the provider; 个人中心 lists the link',
      run: async () => {
        await page.goto(`${server.url}/admin/sysoidc`);
        const provider = page
          .getByTestId('oidc-list')
          .locator('tr.ant-table-row')
          .filter({ hasText: 'Corp SSO' });
        await provider.waitFor();
        assert.ok(
          !(await page.content()).includes(idp?.clientSecret ?? '-'),
          'the secret is not on the page',
        );
        await page.screenshot({ path: `${screenshots}/oidc-providers-page.png`, fullPage: true });
        await provider.getByTestId('oidc-edit').click();
        await page.getByTestId('oidc-form').getByTestId('oidc-issuer').waitFor();
        await page.screenshot({ path: `${screenshots}/oidc-provider-form.png`, fullPage: true });
        await page.keyboard.press('Escape');
        await page.goto(`${server.url}/admin/profile/index`);
        const row = page.getByTestId('profile-oidc-provider').filter({ hasText: 'Corp SSO' });
        await row.waitFor();
        assert.ok((await row.innerText()).includes('已绑定'));
        await page.screenshot({ path: `${screenshots}/oidc-profile-links.png`, fullPage: true });
      },
    },
    {
      name: 'oidc: a portal buyer links the provider in /personal, then signs in to the portal with it',
      run: async () => {
        const issuer = idp?.issuer ?? '-';
        idp?.accounts.set('dave', { preferred_username: 'dave.sso', name: 'Dave Sun' });
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const roles = await admin.get<{ records: { id: number; roleCode: string }[] }>(
          '/api/admin/sysrole/query?roleCode=ROLE_SYS_BUYER',
        );
        const role = roles.records.find((record) => record.roleCode === 'ROLE_SYS_BUYER');
        assert.ok(role, 'the seeded buyer role');
        await admin.post('/api/admin/sysuser/add', {
          username: 'e2e_sso_buyer',
          nickname: 'SSO 采购员',
          password: BUYER_PASSWORD,
          email: 'sso-buyer@example.com',
          mobile: '13900000079',
          phone: '010-1234568',
          status: '1',
          roleId: role.id,
          orgId: 1,
        });

        // signed in with the password, the buyer links the provider from 我的账户
        const portal = await newContext(browser);
        const tab = await portal.newPage();
        await tab.goto(`${server.url}/login`);
        await tab.getByTestId('role-1').click();
        await tab.fill('#login-username', 'e2e_sso_buyer');
        await tab.fill('#login-password', BUYER_PASSWORD);
        await tab.getByTestId('login-submit').click();
        await tab.waitForURL(`**/${PRODUCT}`);
        await tab.goto(`${server.url}/personal`);
        const card = tab.getByTestId('personal-oidc');
        const row = card.getByTestId('personal-oidc-provider').filter({ hasText: 'Corp SSO' });
        await row.getByTestId('personal-oidc-state').getByText('未绑定').waitFor();
        await card.scrollIntoViewIfNeeded();
        await tab.screenshot({ path: `${screenshots}/oidc-portal-personal-unlinked.png`, fullPage: true });
        await row.getByTestId('personal-oidc-link').click();
        await signInAtProvider(tab, issuer, 'dave');
        await tab.waitForURL((url) => url.pathname === '/personal', { timeout: 60_000 });
        await card.getByText('已绑定第三方账号').waitFor();
        await row.getByTestId('personal-oidc-state').getByText('已绑定').waitFor();
        assert.ok(!tab.url().includes('oidcLinked'), 'the flag leaves the address bar');
        await card.scrollIntoViewIfNeeded();
        await tab.screenshot({ path: `${screenshots}/oidc-portal-personal-linked.png`, fullPage: true });
        await portal.close();

        // in a fresh browser, the provider's row on /login signs the same buyer in
        const fresh = await newContext(browser);
        const next = await fresh.newPage();
        await next.goto(`${server.url}/login`);
        await next.getByTestId('role-1').click();
        const button = next.getByTestId('login-sso-provider').filter({ hasText: 'Corp SSO' });
        await button.waitFor();
        assert.equal((await button.innerText()).replace(/\s+/g, ' ').trim(), '使用 Corp SSO 登录');
        await next.screenshot({ path: `${screenshots}/oidc-portal-login.png`, fullPage: true });
        await button.click();
        await signInAtProvider(next, issuer, 'dave');
        await next.waitForURL(`**/${PRODUCT}`, { timeout: 60_000 });
        assert.ok(!next.url().includes('oidcTicket'), 'the ticket leaves the address bar');
        await next.goto(`${server.url}/personal`);
        await next.getByText('e2e_sso_buyer，您好', { exact: false }).waitFor();
        // signed in as the buyer chosen on the sign-in page: the buyer's own section is there
        await next.getByTestId('personal-nav-purchases').waitFor();
        await next.screenshot({ path: `${screenshots}/oidc-portal-signed-in.png`, fullPage: true });

        // unlinked (after a confirmation), the row offers the link again
        next.once('dialog', (dialog) => void dialog.accept());
        const linked = next.getByTestId('personal-oidc-provider').filter({ hasText: 'Corp SSO' });
        await linked.getByTestId('personal-oidc-unlink').click();
        await linked.getByTestId('personal-oidc-state').getByText('未绑定').waitFor();
        await next.getByTestId('personal-oidc').getByText('已解除绑定').waitFor();
        await fresh.close();
      },
    },
    {
      name: 'oidc: logging out ends the session at the provider too',
      run: async () => {
        await page.goto(`${server.url}/admin/workbench`);
        await page.getByTestId('avatar-menu').click();
        const endSession = page.waitForRequest((request) =>
          request.url().startsWith(`${idp?.issuer ?? ''}/session/end?`),
        );
        await page.getByText('退出登录').click();
        const asked = new URL((await endSession).url());
        assert.ok(asked.searchParams.get('id_token_hint'), 'the provider is told whose session ends');
        // the provider asks when it still has a session in this browser; then it sends the browser back
        await page.waitForURL((url) => !url.pathname.startsWith('/admin'), { timeout: 30_000 });
        if (page.url().startsWith(idp?.issuer ?? '-')) {
          await page.getByRole('button', { name: 'Yes, sign me out' }).waitFor();
          await page.screenshot({ path: `${screenshots}/oidc-provider-logout.png`, fullPage: true });
          await page.getByRole('button', { name: 'Yes, sign me out' }).click();
          await page.waitForURL((url) => url.href.startsWith(server.url), { timeout: 30_000 });
        }
        await page.screenshot({ path: `${screenshots}/oidc-after-logout.png`, fullPage: true });
        const token = (await context?.cookies())?.find((cookie) => cookie.name === 'token')?.value;
        assert.ok(!token, 'the session token is gone');
        await context?.close();
        await idp?.close();
      },
    },
  ];
}
