import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { apiClient, newContext, signedIn, type Check, type E2eContext } from './support.js';

const PRODUCT = 'ecobid';

/**
 * Two-factor sign-in (README "Two-factor sign-in"): a staff member turns it on in 个人中心 (QR code
 * and secret shown, a code confirms, recovery codes shown once), then signs in with the password
 * and a code made from the secret the page showed, as an authenticator app makes it.
 */
const USERNAME = 'e2e_totp';
const PASSWORD = 'totp-pass-1';

function codeOf(secret: string, offsetSteps = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  return totp.generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  let secret = '';
  let recoveryCode = '';
  return [
    {
      name: 'two-factor: a staff member enrols from 个人中心',
      run: async () => {
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const roles = await admin.get<{ records: { id: number; roleCode: string }[] }>(
          '/api/admin/sysrole/query?roleCode=ROLE_ADMIN',
        );
        const role = roles.records.find((record) => record.roleCode === 'ROLE_ADMIN');
        assert.ok(role, 'the seeded administrator role');
        await admin.post('/api/admin/sysuser/add', {
          username: USERNAME,
          nickname: 'E2E TOTP',
          password: PASSWORD,
          email: 'totp@example.com',
          mobile: '13970000271',
          phone: '010-1234567',
          status: '1',
          roleId: role.id,
          orgId: 1,
        });
        const { context, page } = await signedIn(browser, server, USERNAME, PASSWORD);
        await page.goto(`${server.url}/admin/profile/index`);
        const card = page.getByTestId('tf-card');
        await card.getByTestId('tf-state').getByText('未开启').waitFor();
        await card.getByTestId('tf-enable').click();
        await card.getByTestId('tf-qr').waitFor();
        secret = (await card.getByTestId('tf-secret').innerText()).trim();
        assert.match(secret, /^[A-Z2-7]{32}$/);
        const qrLoaded = await card
          .getByTestId('tf-qr')
          .evaluate(
            (image) => (image as HTMLImageElement).complete && (image as HTMLImageElement).naturalWidth > 0,
          );
        assert.ok(qrLoaded, 'the QR code image is drawn');
        await page.screenshot({ path: `${screenshots}/two-factor-enrol.png`, fullPage: true });
        await card.getByTestId('tf-code').fill(codeOf(secret));
        await card.getByTestId('tf-confirm').click();
        const recovery = card.getByTestId('tf-recovery');
        await recovery.waitFor();
        assert.equal(await recovery.locator('li').count(), 10, 'ten recovery codes');
        recoveryCode = (await recovery.locator('li').first().innerText()).trim();
        await card.getByTestId('tf-state').getByText('已开启').waitFor();
        await page.screenshot({ path: `${screenshots}/two-factor-recovery-codes.png`, fullPage: true });
        await context.close();
      },
    },
    {
      name: 'two-factor: the password leads to the code step, the code to the workbench',
      run: async () => {
        const context = await newContext(browser);
        const page = await context.newPage();
        await page.goto(`${server.url}/admin/login`);
        await page.getByPlaceholder('账号').fill(USERNAME);
        await page.getByPlaceholder('密码').fill(PASSWORD);
        await page.getByTestId('login-submit').click();
        const step = page.getByTestId('login-second-step');
        await step.waitFor();
        assert.ok(page.url().includes('/admin/login'), 'no session before the code');
        await page.screenshot({ path: `${screenshots}/two-factor-sign-in-step.png`, fullPage: true });
        // The enrolment used this period's code; a code is good once, so the next period's (within the window).
        await step.getByTestId('login-code').fill(codeOf(secret, 1));
        await step.getByTestId('login-code-submit').click();
        await page.waitForURL(/\/admin\/workbench$/);
        await page.screenshot({ path: `${screenshots}/two-factor-signed-in.png`, fullPage: true });
        await context.close();
      },
    },
    {
      name: 'two-factor: a recovery code signs in; the administrator resets two-factor from the user list, ending the session',
      run: async () => {
        const context = await newContext(browser);
        const page = await context.newPage();
        await page.goto(`${server.url}/admin/login`);
        await page.getByPlaceholder('账号').fill(USERNAME);
        await page.getByPlaceholder('密码').fill(PASSWORD);
        await page.getByTestId('login-submit').click();
        const step = page.getByTestId('login-second-step');
        await step.getByTestId('login-code').fill(recoveryCode);
        await step.getByTestId('login-code-submit').click();
        await page.waitForURL(/\/admin\/workbench$/);

        const admin = await signedIn(browser, server, 'admin', server.adminPassword);
        await admin.page.goto(`${server.url}/admin/sysuser`);
        const row = admin.page
          .getByTestId('entity-table')
          .locator('tr.ant-table-row')
          .filter({ hasText: USERNAME })
          .first();
        await row.waitFor();
        await row.locator('.ant-checkbox-input').first().check();
        await admin.page.getByTestId('entity-action-twoFactor').click();
        const drawer = admin.page.getByTestId('user-two-factor');
        await drawer.getByText('该用户已开启两步验证').waitFor();
        await admin.page.screenshot({ path: `${screenshots}/two-factor-admin-reset.png`, fullPage: true });
        await drawer.getByTestId('user-two-factor-reset').click();
        await admin.page
          .locator('.ant-popconfirm')
          .getByRole('button', { name: /确\s*定|OK/ })
          .click();
        await admin.page.getByText('已重置两步验证').waitFor();
        await admin.context.close();

        // The user's session is over: the next call is refused and the page leaves the back-office.
        await page.reload();
        await page.waitForURL((url) => !url.pathname.startsWith('/admin/workbench'));
        await context.close();
      },
    },
    {
      name: 'two-factor: a role that requires it makes its user enrol at sign-in, recovery codes shown once',
      run: async () => {
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const roleOf = async () =>
          (
            await admin.get<{ records: { id: number; roleCode: string; version: number }[] }>(
              '/api/admin/sysrole/query?roleCode=ROLE_ADMIN',
            )
          ).records.find((record) => record.roleCode === 'ROLE_ADMIN');
        const role = await roleOf();
        assert.ok(role, 'the seeded administrator role');
        await admin.put('/api/admin/sysrole/update', {
          id: role.id,
          version: role.version,
          requireTwoFactor: true,
        });
        try {
          // The user's two-factor was reset by the check before: the sign-in must enrol first.
          const context = await newContext(browser);
          const page = await context.newPage();
          await page.goto(`${server.url}/admin/login`);
          await page.getByPlaceholder('账号').fill(USERNAME);
          await page.getByPlaceholder('密码').fill(PASSWORD);
          await page.getByTestId('login-submit').click();
          const step = page.getByTestId('login-second-step');
          await step.getByTestId('tf-qr').waitFor();
          const fresh = (await step.getByTestId('tf-secret').innerText()).trim();
          assert.notEqual(fresh, secret, 'a new secret after the reset');
          await page.screenshot({ path: `${screenshots}/two-factor-enrol-at-sign-in.png`, fullPage: true });
          await step.getByTestId('login-code').fill(codeOf(fresh));
          await step.getByTestId('login-code-submit').click();
          const codes = page.getByRole('dialog').getByTestId('tf-recovery');
          await codes.waitFor();
          assert.equal(await codes.locator('li').count(), 10, 'ten recovery codes');
          await page.screenshot({ path: `${screenshots}/two-factor-enrol-recovery.png`, fullPage: true });
          await page.getByRole('dialog').getByRole('button', { name: '我已保存' }).click();
          await page.waitForURL(/\/admin\/workbench$/);
          await context.close();
        } finally {
          const flagged = await roleOf();
          assert.ok(flagged);
          await admin.put('/api/admin/sysrole/update', {
            id: flagged.id,
            version: flagged.version,
            requireTwoFactor: false,
          });
        }
      },
    },
    {
      name: 'two-factor: a portal buyer signs in with a code and sees it on in 我的账户',
      run: async () => {
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const roles = await admin.get<{ records: { id: number; roleCode: string }[] }>(
          '/api/admin/sysrole/query?roleCode=ROLE_SYS_BUYER',
        );
        const role = roles.records.find((record) => record.roleCode === 'ROLE_SYS_BUYER');
        assert.ok(role, 'the seeded buyer role');
        await admin.post('/api/admin/sysuser/add', {
          username: 'e2e_totp_buyer',
          nickname: 'E2E TOTP buyer',
          password: PASSWORD,
          email: 'totp-buyer@example.com',
          mobile: '13970000272',
          phone: '010-1234567',
          status: '1',
          roleId: role.id,
          orgId: 1,
        });
        const buyer = await apiClient(server.url, 'e2e_totp_buyer', PASSWORD);
        const setup = await buyer.post<{ secret: string }>('/api/account/twoFactor/setup', {});
        await buyer.post('/api/account/twoFactor/enable', { code: codeOf(setup.secret) });

        const context = await newContext(browser);
        const page = await context.newPage();
        await page.goto(`${server.url}/login`);
        await page.getByTestId('role-1').click();
        await page.fill('#login-username', 'e2e_totp_buyer');
        await page.fill('#login-password', PASSWORD);
        await page.getByTestId('login-submit').click();
        const step = page.getByTestId('portal-second-step');
        await step.waitFor();
        await page.screenshot({ path: `${screenshots}/two-factor-portal-step.png`, fullPage: true });
        await page.fill('#login-code', codeOf(setup.secret, 1));
        await page.getByTestId('login-code-submit').click();
        await page.waitForURL(`**/${PRODUCT}`);
        await page.goto(`${server.url}/personal`);
        const card = page.getByTestId('personal-two-factor');
        await card.getByTestId('personal-tf-state').getByText('已开启').waitFor();
        await card.scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${screenshots}/two-factor-portal-personal.png`, fullPage: true });
        await context.close();
      },
    },
  ];
}
