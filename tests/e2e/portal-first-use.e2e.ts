import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { passwordToken, signIn, type Check, type E2eContext } from './support.js';

/**
 * What a new buyer, supplier or visitor trips over on the portal in their first ten minutes
 * (issue 19, points 11-18), in Chromium against the real server.
 */

const PRODUCT = 'ecobid';
const PASSWORD = 'portal-first-1';
type Language = 'zh' | 'tw' | 'en';
const VIEWPORTS = { desktop: { width: 1440, height: 900 }, phone: { width: 390, height: 844 } } as const;

interface Envelope<T> {
  data: T;
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  const stamp = Date.now().toString(36);
  let serial = 0;
  /** A mobile number no other check (or run) uses. */
  const newMobile = (): string => `13${String(Date.now() + (serial += 1) * 7919).slice(-9)}`;
  const shot = (page: Page, name: string): Promise<Buffer> =>
    page.screenshot({ path: `${screenshots}/portal-first-use-${name}.png`, fullPage: false });

  let adminToken: string | undefined;
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    adminToken ??= await passwordToken(server.url, 'admin', server.adminPassword);
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    assert.ok(response.ok, `${method} ${path}: ${response.status} ${text}`);
    return (JSON.parse(text) as Envelope<T>).data;
  };
  const setParam = async (paramKey: string, paramValue: string): Promise<void> => {
    const page = await api<{ records: { id: number; version: number; paramKey: string }[] }>(
      'GET',
      `/api/admin/sysparam/query?paramKey=${paramKey}`,
    );
    const record = page.records.find((row) => row.paramKey === paramKey);
    assert.ok(record, `param ${paramKey}`);
    await api('PUT', '/api/admin/sysparam/update', { id: record.id, version: record.version, paramValue });
  };
  /** A portal user of a new organisation of their own; returns the organisation's name. */
  const createUser = async (
    username: string,
    roleCode: 'ROLE_SYS_BUYER' | 'ROLE_SYS_SUPPLIER',
    mobile: string,
  ): Promise<{ orgName: string; userId: number }> => {
    const roles = await api<{ records: { id: number; roleCode: string }[] }>(
      'GET',
      `/api/admin/sysrole/query?roleCode=${roleCode}`,
    );
    const roleId = roles.records.find((role) => role.roleCode === roleCode)?.id;
    assert.ok(roleId, roleCode);
    const orgName = `绿源环保科技有限公司${username}`;
    const org = await api<{ id: number }>('POST', '/api/admin/sysorg/add', {
      orgName,
      orgType: 'company',
      orgSequence: 1,
    });
    const user = await api<{ id: number }>('POST', '/api/admin/sysuser/add', {
      username,
      nickname: username,
      password: PASSWORD,
      email: `${username}@example.com`,
      countryCode: '+86',
      mobile,
      phone: '010-12345678',
      status: '1',
      userType: roleCode === 'ROLE_SYS_BUYER' ? 1 : 2,
      roleId,
      orgId: org.id,
    });
    return { orgName, userId: user.id };
  };
  /** The last SMS code this server sent to a number (DATA_DIR/sms-outbox.jsonl). */
  const smsCodeFor = async (mobile: string): Promise<string> => {
    const path = join(server.dataDir, 'sms-outbox.jsonl');
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const sent = existsSync(path)
        ? readFileSync(path, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as { mobile: string; code: string })
            .filter((sms) => sms.mobile === mobile)
        : [];
      const last = sent.at(-1);
      if (last) return last.code;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no SMS to ${mobile}`);
  };
  const open = async (
    viewport: keyof typeof VIEWPORTS = 'desktop',
    language: Language = 'zh',
  ): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await browser.newContext({ viewport: VIEWPORTS[viewport], locale: 'zh-CN' });
    await context.addCookies([{ name: 'language', value: language, url: server.url }]);
    return { context, page: await context.newPage() };
  };
  const portalSignIn = async (
    page: Page,
    username: string,
    userType: 1 | 2,
    password = PASSWORD,
  ): Promise<void> => {
    await page.goto(`${server.url}/login`);
    await page.getByTestId(`role-${userType}`).click();
    await page.fill('#login-username', username);
    await page.fill('#login-password', password);
    await page.getByTestId('login-submit').click();
    await page.waitForURL((url) => url.pathname === `/${PRODUCT}`);
    // on a phone the role label gives its room to the name
    await page.locator('.user-trigger').waitFor();
  };
  const fieldError = async (page: Page, id: string): Promise<string> =>
    page.locator(`.field:has(#${id}) .field-error`).innerText();

  return [
    {
      name: '11. 个人中心 opens the portal personal centre: profile, mobile with SMS check, password, company, messages, purchase notices',
      run: async () => {
        const username = `pcbuyer${stamp}`;
        const mobile = newMobile();
        const { orgName, userId } = await createUser(username, 'ROLE_SYS_BUYER', mobile);
        // addressed to this buyer alone: other checks count the messages of their own users
        const notice = `E2E 认证通知 ${stamp}`;
        await api('POST', '/api/admin/notification/add', {
          title: notice,
          content: '<p>您的企业认证资料已审核通过。</p>',
          type: 'system',
          priority: '1',
          publishObject: [userId],
        });
        const purchase = `E2E 我的采购公告 ${stamp}`;
        await api('POST', '/api/notification/purchase/add', {
          title: purchase,
          buyerName: orgName,
          budget: 3_450_000,
          published: false,
        });

        const { context, page } = await open();
        // no valid sign-in: logged out (SPEC §2.2), home with the wanted page, sign-in returns there
        await page.goto(`${server.url}/personal/account`);
        await page.waitForURL((url) => url.pathname === `/${PRODUCT}`);
        assert.equal(new URL(page.url()).searchParams.get('redirect'), '/personal/account');
        await page.getByTestId('login-button').click();
        await page.waitForURL('**/login?redirect=*');
        await page.getByTestId('role-1').click();
        await page.fill('#login-username', username);
        await page.fill('#login-password', PASSWORD);
        await page.getByTestId('login-submit').click();
        await page.waitForURL('**/personal/account');

        // from the header menu as a user finds it
        await page.goto(`${server.url}/${PRODUCT}`);
        await page.locator('.user-trigger').click();
        await page.getByTestId('personal-centre').click();
        await page.waitForURL((url) => url.pathname.startsWith('/personal'));
        await page.getByTestId('personal-profile').locator('#pc-nickname').waitFor();
        assert.equal(await page.title(), '个人中心 - 环保产业采购招投标平台');
        assert.deepEqual(await page.locator('.personal-nav a').allInnerTexts(), [
          '我的账户',
          '我的企业',
          '我的消息',
          '我的采购公告',
        ]);

        // profile
        const profile = page.getByTestId('personal-profile');
        await profile.locator('#pc-nickname').fill(`绿源采购部${stamp}`);
        await profile.locator('#pc-address').fill('北京市朝阳区望京东路 8 号');
        await page.getByTestId('profile-submit').click();
        await profile.getByText('已保存').waitFor();
        await page.reload();
        assert.equal(
          await page.getByTestId('personal-profile').locator('#pc-nickname').inputValue(),
          `绿源采购部${stamp}`,
        );
        await shot(page, 'account-zh-1440');

        // mobile: a new number needs the code sent to it; pasted with spaces, it is trimmed
        const mobileCard = page.getByTestId('personal-mobile');
        const changed = newMobile();
        await mobileCard.locator('#pc-mobile').fill(`  ${changed} `);
        await mobileCard.getByTestId('sms-button').click();
        await mobileCard.locator('#pc-sms').fill(await smsCodeFor(changed));
        await page.getByTestId('mobile-submit').click();
        await mobileCard.getByText('手机号码已更换').waitFor();
        assert.match(await mobileCard.innerText(), new RegExp(`当前绑定：${changed}`));

        // password: empty fields are asked for by name; a wrong current password is named there
        await page.getByTestId('password-submit').click();
        assert.equal(await fieldError(page, 'pc-old'), '请输入原密码');
        assert.equal(await fieldError(page, 'pc-password'), '请输入密码');
        assert.equal(await fieldError(page, 'pc-confirm'), '请再次输入密码');
        await page.fill('#pc-old', 'not-my-password');
        await page.fill('#pc-password', 'portal-first-2');
        await page.fill('#pc-confirm', 'portal-first-2');
        await page.getByTestId('password-submit').click();
        await page.locator('.field:has(#pc-old) .field-error:not(:empty)').waitFor();
        await page.fill('#pc-old', PASSWORD);
        await page.getByTestId('password-submit').click();
        await page.getByTestId('personal-password').getByText('密码已修改').waitFor();
        assert.ok(await passwordToken(server.url, username, 'portal-first-2'));

        // company
        await page.getByTestId('personal-nav-company').click();
        const company = page.getByTestId('personal-company');
        await company.waitFor();
        assert.match(await company.innerText(), new RegExp(orgName));
        assert.match(await company.innerText(), new RegExp(changed));

        // messages: opening one marks it read
        await page.getByTestId('personal-nav-notifications').click();
        const messages = page.getByTestId('personal-notifications');
        await messages.getByText(notice).waitFor();
        assert.match(await page.getByTestId('unread-count').innerText(), /未读/);
        const unreadBefore = Number((await page.getByTestId('unread-count').innerText()).match(/\d+/)?.[0]);
        await messages.getByText(notice).click();
        await messages.getByText('您的企业认证资料已审核通过。').waitFor();
        await page.waitForFunction((before) => {
          const badge = document.querySelector('[data-testid="unread-count"]');
          return !badge || Number(badge.textContent?.match(/\d+/)?.[0]) === before - 1;
        }, unreadBefore);
        await shot(page, 'messages-zh-1440');

        // a buyer's own purchase notices, published or not
        await page.getByTestId('personal-nav-purchases').click();
        const purchases = page.getByTestId('personal-purchases');
        await purchases.getByText(purchase).waitFor();
        assert.match(await purchases.innerText(), /未发布/);
        assert.match(await purchases.innerText(), /345 万元/);
        await shot(page, 'purchases-zh-1440');
        await context.close();

        // the same in traditional Chinese and English, on a desktop and a phone
        for (const language of ['tw', 'en'] as const)
          for (const viewport of ['desktop', 'phone'] as const) {
            const other = await open(viewport, language);
            await portalSignIn(other.page, username, 1, 'portal-first-2');
            await other.page.goto(`${server.url}/personal/account`);
            await other.page.getByTestId('personal-password').waitFor();
            const nav = await other.page.locator('.personal-nav a').first().innerText();
            assert.equal(nav, language === 'tw' ? '我的帳戶' : 'Account');
            await shot(other.page, `account-${language}-${viewport === 'desktop' ? 1440 : 390}`);
            await other.context.close();
          }
        const phone = await open('phone');
        await portalSignIn(phone.page, username, 1, 'portal-first-2');
        await phone.page.goto(`${server.url}/personal/account`);
        await phone.page.getByTestId('personal-password').waitFor();
        await shot(phone.page, 'account-zh-390');
        await phone.context.close();
      },
    },
    {
      name: "12. /login sends a signed-in user to /ecobid, the portal's and the back-office's alike",
      run: async () => {
        const username = `signedin${stamp}`;
        await createUser(username, 'ROLE_SYS_SUPPLIER', newMobile());
        const { context, page } = await open();
        await portalSignIn(page, username, 2);
        await page.goto(`${server.url}/login`);
        await page.waitForURL((url) => url.pathname === `/${PRODUCT}`);
        assert.equal(await page.getByTestId('login-submit').count(), 0);
        await page.getByTestId('role-label').waitFor();
        await context.close();

        const admin = await open();
        await signIn(admin.page, server);
        await admin.page.goto(`${server.url}/admin/login`);
        await admin.page.waitForURL((url) => url.pathname === `/${PRODUCT}`);
        await admin.context.close();
      },
    },
    {
      name: '13. SMS sign-in trims the mobile; empty 密码 and 确认密码 are asked for by name',
      run: async () => {
        const username = `smsbuyer${stamp}`;
        const mobile = newMobile();
        await createUser(username, 'ROLE_SYS_BUYER', mobile);
        const { context, page } = await open();
        await page.goto(`${server.url}/login`);
        await page.getByTestId('login-submit').click();
        assert.equal(await fieldError(page, 'login-username'), '请输入用户名');
        assert.equal(await fieldError(page, 'login-password'), '请输入密码');
        await page.getByTestId('mode-mobile').click();
        // pasted from a contact card, with spaces around it
        await page.fill('#login-mobile', `  ${mobile}  `);
        await page.getByTestId('sms-button').click();
        await page.fill('#login-sms', ` ${await smsCodeFor(mobile)} `);
        await page.getByTestId('login-submit').click();
        await page.waitForURL((url) => url.pathname === `/${PRODUCT}`);
        assert.equal(await page.getByTestId('user-name').innerText(), username);

        await page.goto(`${server.url}/${PRODUCT}`);
        await page.locator('.user-trigger').click();
        await page.getByText('退出登录').click();
        await page.getByTestId('login-button').waitFor();
        await page.goto(`${server.url}/register`);
        await page.getByTestId('register-submit').click();
        assert.equal(await fieldError(page, 'reg-password'), '请输入密码');
        assert.equal(await fieldError(page, 'reg-confirm'), '请再次输入密码');
        await page.fill('#reg-password', 'secret-1');
        await page.getByTestId('register-submit').click();
        assert.equal(await fieldError(page, 'reg-confirm'), '请再次输入密码');
        await page.fill('#reg-confirm', 'secret-2');
        await page.getByTestId('register-submit').click();
        assert.equal(await fieldError(page, 'reg-confirm'), '两次输入的密码不一致');
        await shot(page, 'register-errors-zh-1440');
        await context.close();
      },
    },
    {
      name: '14. the side panel shows one popover at a time: hover opens, leaving closes, a click pins none under another',
      run: async () => {
        const { context, page } = await open();
        await page.goto(`${server.url}/${PRODUCT}`);
        const visible = (): Promise<string[]> =>
          page
            .locator('.side-item')
            .filter({ has: page.locator('.side-popover:visible') })
            .evaluateAll((items) => items.map((item) => item.getAttribute('data-testid') ?? ''));
        // the pointer's enter and leave are rendered a moment after the move (not at once, as a
        // click or a key is): the popovers are read until they show what is expected, for a while
        const shows = async (expected: string[]): Promise<void> => {
          let open = await visible();
          for (let tries = 0; JSON.stringify(open) !== JSON.stringify(expected) && tries < 40; tries += 1) {
            await page.waitForTimeout(50);
            open = await visible();
          }
          assert.deepEqual(open, expected);
        };
        await page.getByTestId('side-phone').hover();
        await shows(['side-phone']);
        await page.getByTestId('side-phone').click();
        await page.getByTestId('side-mail').hover();
        await shows(['side-mail']);
        await page.getByTestId('side-service').hover();
        await shows(['side-service']);
        await shot(page, 'side-panel-zh-1440');
        await page.mouse.move(200, 300);
        await shows([]);
        // keyboard: focus opens one, Escape closes it
        await page.getByTestId('side-mail').focus();
        assert.deepEqual(await visible(), ['side-mail']);
        await page.keyboard.press('Escape');
        assert.deepEqual(await visible(), []);
        await context.close();
      },
    },
    {
      name: '15. a missing notice shows one friendly 「内容不存在或已下线」, as the purchase page does',
      run: async () => {
        const { context, page } = await open();
        for (const path of ['/noticeDetail?id=99999', '/purchaseDetail?id=99999', '/noticeDetail']) {
          await page.goto(`${server.url}${path}`);
          await page.locator('.error-note').waitFor();
          await page.waitForTimeout(300);
          const text = await page.locator('#root').innerText();
          assert.equal(text.split('内容不存在或已下线').length - 1, 1, `${path}: ${text}`);
          assert.equal(await page.locator('.toast').count(), 0, path);
        }
        await page.goto(`${server.url}/noticeDetail?id=99999`);
        await page.locator('.error-note').waitFor();
        await shot(page, 'notice-missing-zh-1440');
        await context.close();
      },
    },
    {
      name: '16. 在线咨询 is on every screen; without a widget it opens a panel with hotline, mailbox and QR code',
      run: async () => {
        const { context, page } = await open();
        for (const path of [
          `/${PRODUCT}`,
          '/login',
          '/register',
          '/newRegister',
          '/forgetPwd',
          '/touristRegister',
          '/502',
          '/404',
        ]) {
          await page.goto(`${server.url}${path}`);
          const button = page.getByTestId('consult-button');
          await button.waitFor();
          await button.click();
          const panel = page.getByTestId('consult-panel');
          await panel.waitFor();
          assert.equal(new URL(page.url()).pathname, path, 'the panel does not leave the page');
          assert.equal(await panel.getByTestId('consult-hotline').innerText(), '400-863-1218');
          assert.equal(await panel.getByTestId('consult-mailbox').innerText(), 'service@ecobid.com.cn');
          await panel.locator('img[data-testid="qr-buyerAccountUrl"]').waitFor();
          if (path === '/register') await shot(page, 'consult-panel-zh-1440');
          await page.keyboard.press('Escape');
          assert.equal(await panel.count(), 0);
        }
        await context.close();

        const phone = await open('phone', 'en');
        await phone.page.goto(`${server.url}/login`);
        await phone.page.getByTestId('consult-button').click();
        await phone.page.getByTestId('consult-panel').waitFor();
        await shot(phone.page, 'consult-panel-en-390');
        await phone.context.close();

        // the back-office: its sign-in page and its screens
        const admin = await open();
        await admin.page.goto(`${server.url}/admin/login`);
        await admin.page.getByTestId('consult-button').click();
        await admin.page.getByTestId('consult-panel').getByText('400-863-1218').waitFor();
        await signIn(admin.page, server);
        await admin.page.getByTestId('consult-button').click();
        await admin.page.getByTestId('consult-panel').getByText('service@ecobid.com.cn').waitFor();
        await shot(admin.page, 'consult-panel-admin-1440');
        await admin.context.close();

        // a configured widget gets the visitor under the parameter names the site gave
        await setParam('customerServiceUrl', 'https://kefu.example.com/chat?channel=7');
        await setParam('customerServiceParams', 'uid={id}&uname={name}&tel={mobile}');
        try {
          const username = `consult${stamp}`;
          const mobile = newMobile();
          const { orgName } = await createUser(username, 'ROLE_SYS_BUYER', mobile);
          const visitor = await open();
          await visitor.context.route('https://kefu.example.com/**', (route) =>
            route.fulfill({ status: 200, body: 'ok' }),
          );
          await portalSignIn(visitor.page, username, 1);
          const popup = visitor.context.waitForEvent('page');
          await visitor.page.getByTestId('consult-button').click();
          const url = new URL((await popup).url());
          assert.equal(url.origin + url.pathname, 'https://kefu.example.com/chat');
          assert.equal(url.searchParams.get('channel'), '7');
          assert.match(url.searchParams.get('uid') ?? '', /^\d+$/);
          assert.equal(url.searchParams.get('uname'), orgName);
          assert.equal(url.searchParams.get('tel'), mobile);
          await visitor.context.close();
        } finally {
          await setParam('customerServiceUrl', '');
          await setParam('customerServiceParams', '');
        }
      },
    },
    {
      name: '17. tw and en show the product name and the amounts in their own language',
      run: async () => {
        const expected = {
          zh: { title: '环保产业采购招投标平台', amount: /1,286 万元/ },
          tw: { title: '環保產業採購招投標平台', amount: /1,286 萬元/ },
          en: { title: 'Environmental Procurement and Bidding Platform', amount: /CNY 12\.86 million/ },
        };
        for (const language of ['zh', 'tw', 'en'] as const) {
          const { context, page } = await open('desktop', language);
          await page.goto(`${server.url}/purchaseList`);
          const list = page.getByTestId('purchase-list');
          await list.waitFor();
          assert.match(await list.innerText(), expected[language].amount);
          if (language !== 'zh') assert.doesNotMatch(await list.innerText(), /万元|万/);
          assert.equal(await page.locator('.brand-text strong').innerText(), expected[language].title);
          assert.ok((await page.title()).endsWith(` - ${expected[language].title}`), await page.title());
          await shot(page, `purchases-${language}-1440`);
          await page.goto(`${server.url}/${PRODUCT}`);
          await page.getByTestId('purchase-rotation').waitFor();
          if (language === 'en')
            assert.doesNotMatch(await page.getByTestId('purchase-rotation').innerText(), /万|yuan/);
          await context.close();
        }
      },
    },
    {
      name: '18. seed content is dated from the first start: no notice or project of another year than its date',
      run: async () => {
        const today = new Date();
        const notices = await api<{ records: { title: string; content: string; publishTime: string }[] }>(
          'GET',
          '/api/notification/notice/query?pageSize=100',
        );
        const purchases = await api<{
          records: { projectCode: string | null; publishTime: string; deadline: string }[];
        }>('GET', '/api/notification/purchase/query?pageSize=100');
        const seeded = notices.records.filter((notice) => !notice.title.startsWith('E2E'));
        assert.ok(seeded.length >= 4);
        for (const notice of seeded) {
          const published = new Date(notice.publishTime);
          assert.ok(published <= today, notice.title);
          // a year named in a notice is its own or the one before (an annual review)
          for (const year of `${notice.title}${notice.content}`.match(/20\d\d(?= ?年)/g) ?? [])
            assert.ok(
              [published.getFullYear(), published.getFullYear() - 1].includes(Number(year)),
              `${notice.title}: ${year}`,
            );
        }
        // no festival announced out of season: the seed's notices fit any day of the year
        assert.ok(!seeded.some((notice) => /春节|国庆|中秋|元旦/.test(notice.title)));
        for (const purchase of purchases.records.filter((item) => item.projectCode)) {
          const year = purchase.projectCode?.match(/20\d\d/)?.[0];
          if (year) assert.equal(Number(year), new Date(purchase.publishTime).getFullYear());
          assert.ok(new Date(purchase.deadline) > new Date(purchase.publishTime));
        }
      },
    },
  ];
}
