import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsQR from 'jsqr';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Check, E2eContext } from './support.js';

/** The public portal (issue 6) in Chromium against the real server. */

const PRODUCT = 'ecobid';
const BROWSER_CLIENT = `Basic ${Buffer.from('browser:').toString('base64')}`;

interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

/** The admin's side of the API, to publish content and create portal users. */
class AdminApi {
  private token = '';
  constructor(
    private readonly url: string,
    private readonly password: string,
  ) {}

  async signIn(username: string, password: string): Promise<string> {
    const response = await fetch(`${this.url}/api/uaa/oauth/token`, {
      method: 'POST',
      headers: { authorization: BROWSER_CLIENT, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'password',
        scope: 'ui',
        client_id: 'browser',
        tenantCode: 'default',
        username,
        password,
      }),
    });
    const body = (await response.json()) as { access_token?: string; message?: string };
    assert.ok(body.access_token, `sign-in of ${username} failed: ${body.message ?? response.status}`);
    return body.access_token;
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    if (!this.token) this.token = await this.signIn('admin', this.password);
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await response.json()) as Envelope<T>;
    assert.equal(response.status, 200, `${method} ${path}: ${JSON.stringify(json)}`);
    return json.data;
  }

  async firstId(path: string, filter: Record<string, string>): Promise<number> {
    const page = await this.call<{ records: { id: number }[] }>(
      'GET',
      `${path}?${new URLSearchParams(filter).toString()}`,
    );
    const id = page.records[0]?.id;
    assert.ok(id, `nothing found at ${path} for ${JSON.stringify(filter)}`);
    return id;
  }

  /** A portal user with the buyer or supplier role. */
  async createUser(username: string, roleCode: string, userType: number, mobile: string): Promise<void> {
    const roles = await this.call<{ records: { id: number; roleCode: string }[] }>(
      'GET',
      `/api/admin/sysrole/query?roleCode=${roleCode}`,
    );
    const roleId = roles.records.find((role) => role.roleCode === roleCode)?.id;
    assert.ok(roleId, roleCode);
    const orgId = await this.firstId('/api/admin/sysorg/query', { pageSize: '1' });
    await this.call('POST', '/api/admin/sysuser/add', {
      username,
      nickname: username,
      password: 'portal-pass-1',
      email: `${username}@example.com`,
      countryCode: '+86',
      mobile,
      phone: '010-12345678',
      status: '1',
      userType,
      roleId,
      orgId,
    });
  }

  async setParam(paramKey: string, paramValue: string): Promise<void> {
    const page = await this.call<{ records: { id: number; version: number; paramKey: string }[] }>(
      'GET',
      `/api/admin/sysparam/query?paramKey=${paramKey}`,
    );
    const record = page.records.find((row) => row.paramKey === paramKey);
    assert.ok(record, `param ${paramKey}`);
    await this.call('PUT', '/api/admin/sysparam/update', {
      id: record.id,
      version: record.version,
      paramValue,
    });
  }
}

/** The last SMS code sent to a mobile number, read from the e2e server's SMS outbox (DATA_DIR/sms-outbox.jsonl). */
async function smsCodeFor(mobile: string): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const outboxes = readdirSync(tmpdir())
      .filter((name) => name.startsWith('ecobid-e2e-'))
      .map((name) => join(tmpdir(), name, 'sms-outbox.jsonl'))
      .filter((path) => existsSync(path));
    const lines = outboxes.flatMap((path) => readFileSync(path, 'utf8').split('\n').filter(Boolean));
    const found = lines
      .map((line) => JSON.parse(line) as { mobile: string; code: string })
      .filter((sms) => sms.mobile === mobile);
    const last = found[found.length - 1];
    if (last) return last.code;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no SMS to ${mobile} in the outbox`);
}

/** The JSON lines of one of the e2e server's outboxes (DATA_DIR/<name>-outbox.jsonl). */
function outbox<T>(dataDir: string, name: 'mail' | 'captcha'): T[] {
  const path = join(dataDir, `${name}-outbox.jsonl`);
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

async function waitFor<T>(read: () => T | undefined, what: string): Promise<T> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const found = read();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Decodes the QR code an <img> shows, as a phone camera would: its pixels, read by jsQR. */
async function decodeQrImage(page: Page, selector: string): Promise<string | undefined> {
  const image = page.locator(selector);
  await image.scrollIntoViewIfNeeded();
  await page.waitForFunction((css) => {
    const element = document.querySelector<HTMLImageElement>(css);
    return element !== null && element.complete && element.naturalWidth > 0;
  }, selector);
  const picture = await image.evaluate((element: HTMLImageElement) => {
    const size = 280;
    const canvas = document.createElement('canvas');
    canvas.width = size;
    canvas.height = size;
    const context = canvas.getContext('2d');
    if (!context) return undefined;
    context.fillStyle = '#fff';
    context.fillRect(0, 0, size, size);
    context.drawImage(element, 20, 20, size - 40, size - 40);
    return { size, pixels: Array.from(context.getImageData(0, 0, size, size).data) };
  });
  if (!picture) return undefined;
  return jsQR(new Uint8ClampedArray(picture.pixels), picture.size, picture.size)?.data;
}

async function open(
  browser: Browser,
  url: string,
  width = 1280,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width, height: width < 600 ? 780 : 860 },
    locale: 'zh-CN',
  });
  const page = await context.newPage();
  await page.goto(url);
  return { context, page };
}

async function signInThroughUi(page: Page, url: string, username: string, userType: 1 | 2): Promise<void> {
  await page.goto(`${url}/login`);
  await page.getByTestId(`role-${userType}`).click();
  await page.fill('#login-username', username);
  await page.fill('#login-password', 'portal-pass-1');
  await page.getByTestId('login-submit').click();
  await page.waitForURL(`**/${PRODUCT}`);
  await page.getByTestId('role-label').waitFor();
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  const admin = new AdminApi(server.url, server.adminPassword);
  const stamp = Date.now().toString(36);
  const routes: [string, string][] = [
    [`/${PRODUCT}`, '首页'],
    [`/${PRODUCT}2`, '首页'],
    ['/huanxianbaoList', '环保闲置设备'],
    ['/purchaseList', '采购公告'],
    ['/noticeList', '平台公告'],
    ['/buysettlein', '采购商入驻'],
    ['/sellsettlein', '供应商入驻'],
    ['/aboutus', '关于我们'],
    ['/service', '平台服务'],
    ['/coproblem', '帮助中心'],
    ['/contactus', '联系我们'],
    ['/comproblem', '常见问题'],
    ['/novice', '新手指南'],
    ['/biddingAgreement', '招投标服务协议'],
    ['/login', '登录'],
    ['/register', '企业注册'],
    ['/newRegister', '新用户注册'],
    ['/touristRegister', '游客注册'],
    ['/forgetPwd', '找回密码'],
    ['/502', '服务暂不可用'],
  ];

  return [
    {
      name: 'the home page renders pictures, promises, the first 4 notices and the purchase rotation',
      run: async () => {
        const { context, page } = await open(browser, `${server.url}/`);
        await page.goto(`${server.url}/`);
        await page.getByTestId('home-notices').waitFor();
        await page.getByTestId('purchase-rotation').waitFor();
        await page.getByTestId('home-pictures').locator('img').first().waitFor();
        // how fast: npm run bench -- ui (portal home, fully rendered)
        assert.equal(new URL(page.url()).pathname, `/${PRODUCT}`);
        assert.equal(await page.getByTestId('home-notices').locator('li').count(), 4);
        assert.match(
          await page.getByTestId('home-promises').innerText(),
          /先用后付[\s\S]*银企直连[\s\S]*物流跟踪[\s\S]*平台监管/,
        );
        assert.equal(await page.title(), '首页 - 环保产业采购招投标平台');
        assert.match(await page.getByTestId('footer-hotline').innerText(), /400-863-1218/);
        await page.getByTestId('idle-tab').click();
        await page.getByTestId('idle-grid').waitFor();
        await page.screenshot({ path: `${screenshots}/portal-home-desktop.png`, fullPage: true });
        await context.close();
      },
    },
    {
      name: 'every route of SPEC §2.2 renders its page with the title "page - product"; unknown paths go to /404',
      run: async () => {
        const { context, page } = await open(browser, `${server.url}/${PRODUCT}`);
        for (const [path, title] of routes) {
          await page.goto(`${server.url}${path}`);
          await page.waitForFunction((expected) => document.title.startsWith(expected), `${title} - `);
          assert.equal(new URL(page.url()).pathname, path);
          // lazy pages render a moment after the title is set
          await page.waitForFunction(() => (document.getElementById('root')?.innerText.length ?? 0) > 20);
        }
        await page.goto(`${server.url}/no/such/page`);
        await page.getByTestId('error-404').waitFor();
        assert.equal(new URL(page.url()).pathname, '/404');
        await context.close();
      },
    },
    {
      name: 'detail pages open from their lists (notice, purchase, idle equipment)',
      run: async () => {
        const { context, page } = await open(browser, `${server.url}/noticeList`);
        await page.getByTestId('notice-list').locator('a').first().click();
        await page.getByTestId('notice-detail').locator('.rich-text').waitFor();
        assert.equal(new URL(page.url()).pathname, '/noticeDetail');
        await page.goto(`${server.url}/purchaseList`);
        await page.getByTestId('purchase-list').locator('a').first().click();
        await page.getByTestId('purchase-detail').locator('.facts').waitFor();
        await page.screenshot({ path: `${screenshots}/portal-purchase-detail.png`, fullPage: true });
        await page.goto(`${server.url}/huanxianbaoList`);
        await page.getByTestId('idle-list').locator('a').first().click();
        await page.getByTestId('idle-detail').locator('.facts').waitFor();
        assert.equal(new URL(page.url()).pathname, '/huanxinbaodetail');
        await context.close();
      },
    },
    {
      name: 'header tabs follow SPEC §2.2 order and keep the active one in sessionStorage currentIndex',
      run: async () => {
        const { context, page } = await open(browser, `${server.url}/${PRODUCT}`);
        const tabs = page.locator('.portal-header nav.tabs a');
        assert.deepEqual(await tabs.allInnerTexts(), [
          '首页',
          '平台公告',
          '关于我们',
          '帮助中心',
          '联系我们',
        ]);
        await tabs.nth(3).click();
        await page.waitForURL('**/coproblem');
        assert.equal(await page.evaluate(() => sessionStorage.getItem('currentIndex')), '3');
        assert.equal(await tabs.nth(3).getAttribute('aria-current'), 'page');
        // a page outside the tabs keeps the remembered tab
        await page.goto(`${server.url}/buysettlein`);
        await page.getByTestId('page-buysettlein').waitFor();
        assert.equal(await page.locator('.portal-header nav.tabs a.is-active').innerText(), '帮助中心');
        await context.close();
      },
    },
    {
      name: 'the help centre links to /comproblem anchors, which scroll the question 40 px below the top',
      run: async () => {
        const { context, page } = await open(browser, `${server.url}/coproblem`);
        await page.getByTestId('help-index').locator('a[href="/comproblem#q-deposit"]').click();
        await page.waitForURL('**/comproblem#q-deposit');
        await page.waitForFunction(() => {
          const top = document.getElementById('q-deposit')?.getBoundingClientRect().top ?? 0;
          return Math.abs(top - 40) < 2;
        });
        await context.close();
      },
    },
    {
      name: 'at 375 px the tabs live in a 50% drawer that closes after a click',
      run: async () => {
        const { context, page } = await open(browser, `${server.url}/${PRODUCT}`, 375);
        await page.getByTestId('home-notices').waitFor();
        assert.equal(await page.locator('.portal-header nav.tabs').count(), 0);
        await page.screenshot({ path: `${screenshots}/portal-home-375.png`, fullPage: true });
        await page.getByTestId('drawer-toggle').click();
        const drawer = page.getByTestId('drawer');
        await page.waitForFunction(() =>
          document.querySelector('.drawer-mask')?.classList.contains('is-open'),
        );
        await page.waitForTimeout(300);
        const box = await drawer.boundingBox();
        assert.ok(box && Math.abs(box.width - 375 / 2) < 2, `drawer width ${box?.width}`);
        await page.screenshot({ path: `${screenshots}/portal-drawer-375.png` });
        await drawer.getByText('关于我们').click();
        await page.waitForURL('**/aboutus');
        await page.waitForFunction(
          () => !document.querySelector('.drawer-mask')?.classList.contains('is-open'),
        );
        assert.equal(await page.evaluate(() => sessionStorage.getItem('currentIndex')), '2');
        await page.getByTestId('page-aboutus').waitFor();
        await page.waitForTimeout(300); // the drawer's closing transition
        await page.screenshot({ path: `${screenshots}/portal-aboutus-375.png`, fullPage: true });
        await page.goto(`${server.url}/login`);
        await page.getByTestId('login-submit').waitFor();
        await page.screenshot({ path: `${screenshots}/portal-login-375.png`, fullPage: true });
        await context.close();
      },
    },
    {
      name: 'a notice published in the back-office appears in the home preview and the list; an unpublished one does not',
      run: async () => {
        const published = `E2E 已发布公告 ${stamp}`;
        const draft = `E2E 草稿公告 ${stamp}`;
        const future = new Date(Date.now() + 86_400_000).toISOString();
        await admin.call('POST', '/api/notification/notice/add', {
          title: published,
          content: '<p>正文</p>',
          publishTime: future,
          pinned: true,
          published: true,
        });
        await admin.call('POST', '/api/notification/notice/add', {
          title: draft,
          content: '<p>草稿</p>',
          publishTime: future,
          pinned: true,
          published: false,
        });
        const { context, page } = await open(browser, `${server.url}/${PRODUCT}`);
        const preview = page.getByTestId('home-notices');
        await preview.getByText(published).waitFor();
        assert.equal(await preview.getByText(draft).count(), 0);
        await page.goto(`${server.url}/noticeList`);
        const list = page.getByTestId('notice-list');
        await list.getByText(published).waitFor();
        assert.equal(await list.getByText(draft).count(), 0);
        await page.screenshot({ path: `${screenshots}/portal-notices-desktop.png`, fullPage: true });
        await context.close();
      },
    },
    {
      name: 'the notice list is kept alive: its page survives a visit to a notice',
      run: async () => {
        for (let index = 0; index < 8; index += 1) {
          await admin.call('POST', '/api/notification/notice/add', {
            title: `E2E 分页公告 ${index} ${stamp}`,
            content: '<p>x</p>',
            published: true,
          });
        }
        const { context, page } = await open(browser, `${server.url}/noticeList`);
        await page.getByTestId('notice-list').waitFor();
        const firstLink = page.getByTestId('notice-list').locator('a').first();
        const firstOnPage1 = await firstLink.getAttribute('href');
        await page.locator('.pagination button', { hasText: '2' }).click();
        await page.waitForFunction(
          () => document.querySelector('.pagination button.is-active')?.textContent === '2',
        );
        // page 1 stays on screen until page 2 has come: read page 2 once it is drawn
        await page.waitForFunction(
          (href) => document.querySelector('[data-testid="notice-list"] a')?.getAttribute('href') !== href,
          firstOnPage1,
        );
        const firstOnPage2 = await firstLink.innerText();
        await page.getByTestId('notice-list').locator('a').first().click();
        await page.getByTestId('notice-detail').locator('.rich-text').waitFor();
        await page.locator('.portal-header nav.tabs a', { hasText: '平台公告' }).click();
        await page.waitForURL('**/noticeList');
        assert.equal(await page.locator('.pagination button.is-active').innerText(), '2');
        assert.equal(await page.getByTestId('notice-list').locator('a').first().innerText(), firstOnPage2);
        await context.close();
      },
    },
    {
      name: 'sign-in as buyer and as supplier shows the role label, the name and the personal-centre address',
      run: async () => {
        await admin.createUser(`buyer${stamp}`, 'ROLE_SYS_BUYER', 1, `139${String(Date.now()).slice(-8)}`);
        await admin.createUser(
          `supplier${stamp}`,
          'ROLE_SYS_SUPPLIER',
          2,
          `137${String(Date.now() + 7).slice(-8)}`,
        );
        for (const [username, userType, label, address] of [
          // no buyer or supplier program configured: the portal's own personal centre
          [`buyer${stamp}`, 1, '采购商', '/personal'],
          [`supplier${stamp}`, 2, '供应商', '/personal'],
        ] as const) {
          const { context, page } = await open(browser, `${server.url}/${PRODUCT}`);
          await page.getByTestId('login-button').click();
          await page.waitForURL('**/login');
          if (userType === 1) await page.screenshot({ path: `${screenshots}/portal-login-desktop.png` });
          await signInThroughUi(page, server.url, username, userType);
          assert.equal(await page.getByTestId('role-label').innerText(), label);
          assert.equal(await page.getByTestId('user-name').innerText(), username);
          assert.equal(await page.getByTestId('login-button').count(), 0);
          await page.locator('.user-trigger').click();
          assert.equal(await page.getByTestId('personal-centre').getAttribute('data-href'), address);
          await page.getByTestId('personal-centre').click();
          await page.waitForURL(`**${address}`);
          // logout: home, local storage and cookies cleared
          await page.goto(`${server.url}/${PRODUCT}`);
          await page.locator('.user-trigger').click();
          await page.getByText('退出登录').click();
          await page.getByTestId('login-button').waitFor();
          assert.equal(await page.evaluate(() => document.cookie.includes('token=')), false);
          assert.equal(await page.evaluate(() => localStorage.length), 0);
          await context.close();
        }
      },
    },
    {
      name: 'a wrong password shows the server message on the sign-in form',
      run: async () => {
        const { context, page } = await open(browser, `${server.url}/login`);
        await page.fill('#login-username', 'admin');
        await page.fill('#login-password', 'wrong-password');
        await page.getByTestId('login-submit').click();
        const alert = page.getByTestId('form-alert');
        await alert.waitFor();
        assert.ok((await alert.innerText()).length > 2);
        await page.getByTestId('mode-mobile').click();
        await page.getByTestId('login-submit').click();
        assert.ok(
          (await page.locator('.field-error').allInnerTexts()).some((text) => text.includes('手机号码')),
        );
        await context.close();
      },
    },
    {
      name: 'registration and forgotten-password forms check their fields before calling the server',
      run: async () => {
        const { context, page } = await open(browser, `${server.url}/register`);
        await page.getByTestId('register-submit').click();
        const errors = (await page.locator('.field-error').allInnerTexts()).filter(Boolean);
        assert.ok(errors.length >= 6, errors.join(' | '));
        await page.fill('#reg-password', 'secret-1');
        await page.fill('#reg-confirm', 'secret-2');
        await page.getByTestId('register-submit').click();
        assert.ok((await page.locator('.field-error').allInnerTexts()).includes('两次输入的密码不一致'));
        await page.screenshot({ path: `${screenshots}/portal-register-desktop.png`, fullPage: true });
        await page.goto(`${server.url}/forgetPwd`);
        await page.getByTestId('forget-submit').click();
        assert.ok((await page.locator('.field-error').allInnerTexts()).filter(Boolean).length >= 3);
        await context.close();
      },
    },
    {
      name: 'a supplier registers with an SMS code from the outbox, signs in, and resets the password by mobile',
      run: async () => {
        const mobile = `135${String(Date.now()).slice(-8)}`;
        const username = `newsupplier${stamp}`;
        const { context, page } = await open(browser, `${server.url}/register?userType=2`);
        await page.fill('#reg-company', `绿源环保科技有限公司${stamp}`);
        await page.fill('#reg-username', username);
        await page.fill('#reg-mobile', mobile);
        // A number nobody has yet gets a code only with the character captcha solved (outbox answer).
        await page.getByTestId('char-captcha').waitFor();
        const captcha = await waitFor(
          () => outbox<{ text: string }>(server.dataDir, 'captcha').at(-1),
          'the captcha in the outbox',
        );
        await page.fill('#reg-captcha', captcha.text);
        await page.getByTestId('sms-button').click();
        await page.fill('#reg-sms', await smsCodeFor(mobile));
        await page.fill('#reg-email', `${username}@example.com`);
        await page.fill('#reg-password', 'portal-pass-1');
        await page.fill('#reg-confirm', 'portal-pass-1');
        await page.locator('.field.agree input').check();
        await page.getByTestId('register-submit').click();
        await page.locator('.form-alert-success').waitFor();
        await signInThroughUi(page, server.url, username, 2);
        assert.equal(await page.getByTestId('role-label').innerText(), '供应商');
        await page.locator('.user-trigger').click();
        await page.getByText('退出登录').click();
        await page.getByTestId('login-button').waitFor();

        // another number: the server sends one code per number a minute
        const otherMobile = `134${String(Date.now()).slice(-8)}`;
        const otherUser = `forgetful${stamp}`;
        await admin.createUser(otherUser, 'ROLE_SYS_BUYER', 1, otherMobile);
        await page.goto(`${server.url}/forgetPwd`);
        await page.fill('#fp-mobile', otherMobile);
        await page.getByTestId('sms-button').click();
        const code = await smsCodeFor(otherMobile);
        await page.fill('#fp-sms', code);
        await page.fill('#fp-password', 'portal-pass-2');
        await page.fill('#fp-confirm', 'portal-pass-2');
        await page.getByTestId('forget-submit').click();
        await page.locator('.form-alert-success').waitFor();
        const token = await admin.signIn(otherUser, 'portal-pass-2');
        assert.ok(token);
        await context.close();
      },
    },
    {
      name: 'the 在线咨询 button opens the contact panel without a widget, and passes id, name and mobile to one',
      run: async () => {
        const { context, page } = await open(browser, `${server.url}/${PRODUCT}`);
        await page.getByTestId('consult-button').click();
        await page.getByTestId('consult-panel').getByText('400-863-1218').waitFor();
        await page.getByTestId('consult-panel').getByRole('link', { name: '查看全部联系方式' }).click();
        await page.waitForURL('**/contactus');
        await page.getByTestId('contact-cards').waitFor();
        await context.close();

        await admin.setParam('customerServiceUrl', 'https://kefu.example.com/chat');
        const mobile = `136${String(Date.now()).slice(-8)}`;
        await admin.createUser(`consult${stamp}`, 'ROLE_SYS_BUYER', 1, mobile);
        const second = await open(browser, `${server.url}/${PRODUCT}`);
        await second.context.route('https://kefu.example.com/**', (route) =>
          route.fulfill({ status: 200, body: 'ok' }),
        );
        await signInThroughUi(second.page, server.url, `consult${stamp}`, 1);
        const popup = second.context.waitForEvent('page');
        await second.page.getByTestId('consult-button').click();
        const widget = await popup;
        const url = new URL(widget.url());
        assert.equal(url.origin + url.pathname, 'https://kefu.example.com/chat');
        assert.match(url.searchParams.get('userId') ?? '', /^\d+$/);
        assert.ok(url.searchParams.get('name'), 'name');
        assert.equal(url.searchParams.get('mobile'), mobile);
        await second.context.close();
        await admin.setParam('customerServiceUrl', '');
      },
    },
    {
      name: 'a forgotten password is reset by mail: captcha answer and mail read from the outboxes',
      run: async () => {
        const username = `mailreset${stamp}`;
        const email = `${username}@example.com`;
        await admin.createUser(username, 'ROLE_SYS_BUYER', 1, `133${String(Date.now()).slice(-8)}`);
        const { context, page } = await open(browser, `${server.url}/forgetPwd`);
        const drawn = outbox(server.dataDir, 'captcha').length;
        await page.getByTestId('mode-email').click();
        await page.getByTestId('char-captcha').waitFor();
        const captcha = await waitFor(
          () => outbox<{ text: string }>(server.dataDir, 'captcha').slice(drawn).at(-1),
          'the captcha in the outbox',
        );
        await page.fill('#fp-email', email);
        await page.fill('#fp-captcha', captcha.text);
        await page.screenshot({ path: `${screenshots}/portal-forget-mail.png` });
        await page.getByTestId('forget-submit').click();
        await page.getByText('重置密码的邮件已发送，请查收邮箱。').waitFor();
        const mail = await waitFor(
          () =>
            outbox<{ to: string; subject: string; data: { link: string; code: string } }>(
              server.dataDir,
              'mail',
            ).find((item) => item.to === email),
          `a mail to ${email}`,
        );
        assert.ok(mail.subject.length > 0);
        const link = new URL(mail.data.link, server.url);
        assert.equal(link.pathname, '/forgetPwd');
        assert.equal(link.searchParams.get('code'), mail.data.code);
        await page.goto(link.toString());
        await page.fill('#rc-password', 'mail-pass-9');
        await page.fill('#rc-confirm', 'mail-pass-9');
        await page.getByTestId('reset-submit').click();
        await page.getByText('密码已重置，请使用新密码登录。').waitFor();
        await page.screenshot({ path: `${screenshots}/portal-forget-mail-done.png` });
        assert.ok(await admin.signIn(username, 'mail-pass-9'));
        // the link works once
        await page.goto(link.toString());
        await page.fill('#rc-password', 'mail-pass-10');
        await page.fill('#rc-confirm', 'mail-pass-10');
        await page.getByTestId('reset-submit').click();
        await page.getByTestId('form-alert').waitFor();
        await context.close();
      },
    },
    {
      name: 'the page arrives with the product title and params: the first render waits for no params call',
      run: async () => {
        const html = await (await fetch(`${server.url}/aboutus`)).text();
        assert.match(html, /<title>环保产业采购招投标平台<\/title>/);
        assert.match(html, /<meta name="ecobid-params" content="[^"]*400-863-1218/);
        const { context, page } = await open(browser, 'about:blank');
        const paramCalls: string[] = [];
        page.on('request', (request) => {
          if (request.url().includes('/api/notification/home/params')) paramCalls.push(request.url());
        });
        await page.goto(`${server.url}/aboutus`);
        await page.getByTestId('footer-hotline').waitFor();
        assert.equal(await page.title(), '关于我们 - 环保产业采购招投标平台');
        assert.equal(await page.getByTestId('footer-hotline').innerText(), '400-863-1218');
        assert.deepEqual(paramCalls, []);
        const adminHtml = await (await fetch(`${server.url}/admin/workbench`)).text();
        assert.match(adminHtml, /<title>环保产业采购招投标平台<\/title>/);
        assert.match(adminHtml, /<meta name="ecobid-product" content="ecobid"/);
        await context.close();
      },
    },
    {
      name: 'the footer and side-panel QR codes are real codes of the configured addresses',
      run: async () => {
        const { context, page } = await open(browser, `${server.url}/${PRODUCT}`);
        // nothing configured: the codes open the portal's own sign-up information pages
        assert.equal(
          await decodeQrImage(page, '.portal-footer [data-testid="qr-buyerAccountUrl"]'),
          `${server.url}/buysettlein`,
        );
        assert.equal(
          await decodeQrImage(page, '.portal-footer [data-testid="qr-supplierAccountUrl"]'),
          `${server.url}/sellsettlein`,
        );
        await page.screenshot({ path: `${screenshots}/portal-footer-qr.png`, fullPage: false });
        const account = 'https://mp.weixin.qq.com/mp/profile_ext?action=home&__biz=MzU4NjE2MDk3Nw==';
        await admin.setParam('buyerAccountUrl', account);
        // cached for 10 minutes by the browser: a new visitor sees the new code
        await context.close();
        const second = await open(browser, `${server.url}/${PRODUCT}`);
        await second.page.getByTestId('side-account').hover();
        assert.equal(
          await decodeQrImage(second.page, '.side-panel [data-testid="qr-buyerAccountUrl"]'),
          account,
        );
        await second.page.screenshot({ path: `${screenshots}/portal-side-qr.png` });
        await second.context.close();
        await admin.setParam('buyerAccountUrl', '');
      },
    },
  ];
}
