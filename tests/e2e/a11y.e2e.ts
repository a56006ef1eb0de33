import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeTally, expectNoAxeViolations } from './a11y.js';
import {
  allToTheEnd,
  networkQuiet,
  passwordToken,
  type Check,
  type E2eContext,
  type RunningServer,
} from './support.js';

/**
 * Issue 21: WCAG 2.1 AA, checked by axe on every portal route (SPEC §2.2), the back-office shell,
 * every generated list with its create form, the tree lists and the hand-written screens, in
 * Chinese and English. Each check visits all of its pages and then fails with every violation.
 */

const PRODUCT = 'ecobid';
const LANGUAGES = ['zh', 'en'] as const;
type Language = (typeof LANGUAGES)[number];

const PORTAL_ROUTES = [
  `/${PRODUCT}`,
  `/${PRODUCT}2`,
  '/huanxianbaoList',
  '/purchaseList',
  '/noticeList',
  '/buysettlein',
  '/sellsettlein',
  '/aboutus',
  '/service',
  '/coproblem',
  '/contactus',
  '/comproblem',
  '/novice',
  '/biddingAgreement',
  '/login',
  '/register',
  '/newRegister',
  '/touristRegister',
  '/forgetPwd',
  '/502',
  '/404',
];

/** Detail pages, opened from their lists as a visitor does. */
const PORTAL_DETAILS = [
  { list: '/noticeList', items: 'notice-list', detail: 'notice-detail' },
  { list: '/purchaseList', items: 'purchase-list', detail: 'purchase-detail' },
  { list: '/huanxianbaoList', items: 'idle-list', detail: 'idle-detail' },
];

/** Runs every page of a check and fails once at the end with all the violations found. */
class Sweep {
  private readonly failures: string[] = [];

  async check(page: Page, label: string): Promise<void> {
    await this.step(label, () => expectNoAxeViolations(page, label));
  }

  /** Runs a part of the walk; a failure is recorded and the walk goes on with the next part. */
  async step(label: string, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.failures.push(text.startsWith(label) ? text : `${label}: ${text}`);
    }
  }

  finish(): void {
    assert.equal(this.failures.length, 0, `\n${this.failures.join('\n\n')}`);
  }
}

async function languageContext(
  browser: Browser,
  server: RunningServer,
  language: Language,
  width = 1440,
): Promise<BrowserContext> {
  const context = await browser.newContext({
    locale: language === 'zh' ? 'zh-CN' : 'en-US',
    viewport: { width, height: 900 },
    // both front-ends honour it: no slide or fade is measured half-way (the rotation moves every few seconds)
    reducedMotion: 'reduce',
  });
  await context.addCookies([{ name: 'language', value: language, url: server.url }]);
  return context;
}

/** Waits until the page has its content and nothing is loading any more. */
async function settled(page: Page): Promise<void> {
  await networkQuiet(page);
  await page.waitForFunction(() => (document.getElementById('root')?.innerText.trim().length ?? 0) > 0);
  // a generated list has rendered its rows (or its empty state) once its query has answered
  if ((await page.getByTestId('entity-table').count()) > 0)
    await page
      .getByTestId('entity-table')
      .locator('tr.ant-table-row, .ant-table-placeholder')
      .first()
      .waitFor();
  await page
    .locator('.ant-spin-spinning, .ant-skeleton-active, .page-loading')
    .first()
    .waitFor({ state: 'detached', timeout: 10_000 })
    .catch(() => undefined);
}

async function portalPages(browser: Browser, server: RunningServer, language: Language): Promise<void> {
  const sweep = new Sweep();
  const label = (what: string): string => `portal ${language} ${what}`;
  const context = await languageContext(browser, server, language);
  const page = await context.newPage();
  for (const path of PORTAL_ROUTES) {
    await sweep.step(label(path), async () => {
      await page.goto(`${server.url}${path}`);
      await settled(page);
      await expectNoAxeViolations(page, label(path));
    });
  }
  for (const { list, items, detail } of PORTAL_DETAILS) {
    await sweep.step(label(`${list} detail`), async () => {
      await page.goto(`${server.url}${list}`);
      await page.getByTestId(items).locator('a').first().click();
      await page.getByTestId(detail).waitFor();
      await settled(page);
      await expectNoAxeViolations(page, label(new URL(page.url()).pathname));
    });
  }
  await sweep.step(label(`/${PRODUCT} idle tab`), async () => {
    await page.goto(`${server.url}/${PRODUCT}`);
    await page.getByTestId('idle-tab').click();
    await page.getByTestId('idle-grid').waitFor();
    await settled(page);
    await expectNoAxeViolations(page, label(`/${PRODUCT} idle tab`));
  });
  await context.close();

  // small screens: the tabs live in a drawer
  const mobile = await languageContext(browser, server, language, 375);
  const phone = await mobile.newPage();
  await sweep.step(label(`/${PRODUCT} at 375 px`), async () => {
    await phone.goto(`${server.url}/${PRODUCT}`);
    await settled(phone);
    await sweep.check(phone, label(`/${PRODUCT} at 375 px`));
    await phone.getByTestId('drawer-toggle').click();
    await phone.waitForFunction(() => document.querySelector('.drawer-mask')?.classList.contains('is-open'));
    await settled(phone);
    await expectNoAxeViolations(phone, label(`/${PRODUCT} at 375 px, drawer open`));
  });
  await mobile.close();
  sweep.finish();
}

interface MenuNode {
  menuPath: string;
  menuComponent?: string | null;
  menuStatus?: string | null;
  menuMeta?: { hidden?: boolean } | null;
  children?: MenuNode[];
}

/** The pages of the back-office menu tree (groups and hidden routes left out). */
async function adminPages(server: RunningServer): Promise<string[]> {
  const token = await passwordToken(server.url, 'admin', server.adminPassword);
  const response = await fetch(`${server.url}/api/admin/sysmenu/querySysMenuTree`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as { data: MenuNode[] };
  const paths: string[] = [];
  const walk = (nodes: readonly MenuNode[]): void => {
    for (const node of nodes) {
      if ((node.menuStatus ?? '1') !== '1' || node.menuMeta?.hidden) continue;
      const children = node.children ?? [];
      if (children.length > 0) walk(children);
      else if (node.menuComponent && node.menuComponent !== 'layout')
        paths.push(node.menuPath.startsWith('/') ? node.menuPath : `/${node.menuPath}`);
    }
  };
  walk(body.data);
  return paths;
}

/** Closes the drawer or dialog on top with its close button and waits until it has gone. */
async function closeOverlay(page: Page): Promise<void> {
  const close = page.locator('.ant-drawer-open .ant-drawer-close, .ant-modal-wrap:visible .ant-modal-close');
  if ((await close.count()) > 0) await close.last().click();
  else await page.keyboard.press('Escape');
  await page
    .locator('.ant-drawer-open, .ant-modal-wrap:visible')
    .first()
    .waitFor({ state: 'detached', timeout: 5_000 })
    .catch(() => undefined);
}

/** Signs the administrator in on the back-office sign-in page, whatever its language. */
async function signInAdmin(page: Page, server: RunningServer): Promise<void> {
  await page.locator('#username').fill('admin');
  await page.locator('#password').fill(server.adminPassword);
  await page.getByTestId('login-submit').click();
  await page.waitForURL(/\/admin\/workbench$/);
}

async function openOverlay(page: Page, selector: string, open: () => Promise<void>): Promise<void> {
  await open();
  await page.locator(selector).last().waitFor();
  await settled(page);
}

async function backOfficePages(browser: Browser, server: RunningServer, language: Language): Promise<void> {
  const sweep = new Sweep();
  const context = await languageContext(browser, server, language);
  const page = await context.newPage();
  const label = (what: string): string => `admin ${language} ${what}`;
  await page.goto(`${server.url}/admin/login`);
  await settled(page);
  await sweep.check(page, label('/login'));
  await signInAdmin(page, server);
  await settled(page);
  await sweep.check(page, label('/workbench'));

  const dropdown = '.ant-dropdown:not(.ant-dropdown-hidden)';
  await sweep.step(label('user menu'), async () => {
    await openOverlay(page, dropdown, () => page.getByTestId('avatar-menu').click());
    await expectNoAxeViolations(page, label('user menu'));
    await page.keyboard.press('Escape');
  });
  await sweep.step(label('settings panel'), async () => {
    await openOverlay(page, '.ant-drawer-open', () => page.getByTestId('settings-button').click());
    await expectNoAxeViolations(page, label('settings panel'));
    await closeOverlay(page);
  });
  await sweep.step(label('menu search'), async () => {
    await openOverlay(page, '[data-testid="menu-search"]', () =>
      page.getByTestId('menu-search-toggle').click(),
    );
    await expectNoAxeViolations(page, label('menu search'));
    await page.keyboard.press('Escape');
  });
  await sweep.step(label('tags context menu'), async () => {
    await openOverlay(page, dropdown, () =>
      page.getByTestId('tags-view').locator('a').first().click({ button: 'right' }),
    );
    await expectNoAxeViolations(page, label('tags context menu'));
    await page.keyboard.press('Escape');
  });

  const firstRow = page.getByTestId('entity-table').locator('tr.ant-table-row .ant-checkbox-input').first();
  for (const path of await adminPages(server)) {
    await sweep.step(label(path), async () => {
      await page.goto(`${server.url}/admin${path}`);
      await settled(page);
      await sweep.check(page, label(path));
      if ((await page.getByTestId('entity-add').count()) > 0) {
        await sweep.step(label(`${path} create form`), async () => {
          await openOverlay(page, '.entity-form-modal', () => page.getByTestId('entity-add').click());
          await expectNoAxeViolations(page, label(`${path} create form`));
          await closeOverlay(page);
        });
      }
      // A record action opens on a chosen row: lists that a fresh database leaves empty (URLs,
      // posts) have none to choose, so only lists with rows open their record actions here.
      const actions = page.locator('[data-testid^="entity-action-"]');
      const actionCount = (await firstRow.count()) > 0 ? await actions.count() : 0;
      for (let index = 0; index < actionCount; index += 1) {
        const action = actions.nth(index);
        const name = (await action.getAttribute('data-testid'))?.replace('entity-action-', '') ?? '';
        await sweep.step(label(`${path} ${name}`), async () => {
          await firstRow.check();
          await openOverlay(page, '.ant-drawer-open', () => action.click());
          await expectNoAxeViolations(page, label(`${path} ${name}`));
          await closeOverlay(page);
          await firstRow.uncheck();
        });
      }
    });
  }
  for (const path of ['/profile/index', '/404']) {
    await sweep.step(label(path), async () => {
      await page.goto(`${server.url}/admin${path}`);
      await settled(page);
      await expectNoAxeViolations(page, label(path));
    });
  }
  await context.close();
  sweep.finish();
}

/** What has the keyboard focus: its tag, text or label, and whether it lies inside a selector. */
async function focused(page: Page, inside = 'body'): Promise<{ name: string; isInside: boolean }> {
  return page.evaluate((selector) => {
    const element = document.activeElement;
    const name = element
      ? (element.getAttribute('aria-label') ?? (element as HTMLElement).innerText ?? element.tagName).trim()
      : '';
    return { name, isInside: Boolean(element?.closest(selector)) };
  }, inside);
}

/**
 * Tabs through a page `count` times: every element that takes the focus shows it (an outline
 * or a focus ring drawn as a box shadow), as WCAG 2.4.7 asks.
 */
async function expectVisibleFocus(page: Page, count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    await page.keyboard.press('Tab');
    // antd draws some rings in a transition (and the *-focused wrapper comes with a render): the
    // styles are read until the ring shows, for a while, rather than once after a fixed pause
    const read = () =>
      page.evaluate(() => {
        const element = document.activeElement as HTMLElement | null;
        if (!element || element === document.body) return { name: 'body', visible: true };
        // a select's or picker's inner input shows its focus on the field around it (antd's
        // *-focused wrapper, or the selector inside that wrapper); no named helper: the page has
        // no __name of the TypeScript loader
        const field = element.closest(
          '.ant-select-focused, .ant-picker-focused, [class*="-affix-wrapper-focused"], .ant-input-number-focused',
        );
        const candidates = field
          ? [element, field, ...Array.from(field.querySelectorAll('.ant-select-selector'))]
          : [element];
        const visible = candidates.some((node) => {
          const style = getComputedStyle(node);
          const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
          return outline || (style.boxShadow !== 'none' && style.boxShadow !== '');
        });
        const name = (element.getAttribute('aria-label') ?? element.innerText ?? element.tagName).trim();
        return { name: `${element.tagName} ${name.slice(0, 40)}`, visible };
      });
    let state = await read();
    for (let tries = 0; !state.visible && tries < 40; tries += 1) {
      await page.waitForTimeout(50);
      state = await read();
    }
    assert.ok(state.visible, `Tab ${index + 1}: ${state.name} shows no focus`);
  }
}

async function portalKeyboard(browser: Browser, server: RunningServer): Promise<void> {
  const context = await languageContext(browser, server, 'zh');
  const page = await context.newPage();
  await page.goto(`${server.url}/${PRODUCT}`);
  await settled(page);
  // the first Tab reaches the skip link, which shows itself and moves focus to the page
  await page.keyboard.press('Tab');
  assert.equal((await focused(page)).name, '跳到主要内容');
  // it slides in (a short transition): on screen within a second
  let box = await page.locator('.skip-link').boundingBox();
  for (let tries = 0; tries < 20 && !(box && box.y >= 0); tries += 1) {
    await page.waitForTimeout(50);
    box = await page.locator('.skip-link').boundingBox();
  }
  assert.ok(box && box.y >= 0, 'the focused skip link is on screen');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
  assert.equal(new URL(page.url()).hash, '');
  await expectVisibleFocus(page, 30);
  await context.close();

  // the mobile menu: opened from the keyboard, focus stays inside, Escape returns it
  const mobile = await languageContext(browser, server, 'zh', 375);
  const phone = await mobile.newPage();
  await phone.goto(`${server.url}/${PRODUCT}`);
  await settled(phone);
  await phone.getByTestId('drawer-toggle').focus();
  await phone.keyboard.press('Enter');
  await phone.waitForFunction(() => document.querySelector('.drawer-mask')?.classList.contains('is-open'));
  // focus moves in as soon as the fading menu's buttons can take it (within a second)
  await phone
    .waitForFunction(() => document.activeElement?.closest('.drawer-mask') !== null, undefined, {
      timeout: 2_000,
    })
    .catch(() => undefined);
  assert.ok((await focused(phone, '.drawer-mask')).isInside, 'focus moves into the open menu');
  for (let index = 0; index < 8; index += 1) {
    await phone.keyboard.press('Tab');
    assert.ok((await focused(phone, '.drawer-mask')).isInside, `Tab ${index + 1} stays in the menu`);
  }
  await phone.keyboard.press('Escape');
  await phone.waitForFunction(() => !document.querySelector('.drawer-mask')?.classList.contains('is-open'));
  assert.equal(
    await phone.evaluate(() => document.activeElement?.getAttribute('data-testid')),
    'drawer-toggle',
  );
  await mobile.close();
}

async function backOfficeKeyboard(browser: Browser, server: RunningServer): Promise<void> {
  const context = await languageContext(browser, server, 'zh');
  const page = await context.newPage();
  await page.goto(`${server.url}/admin/login`);
  await signInAdmin(page, server);
  await settled(page);
  await page.locator('body').focus();
  await page.keyboard.press('Tab');
  assert.equal((await focused(page)).name, '跳到主要内容');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'admin-main');
  // a list page from the top: sidebar, top bar, tags, filter bar, toolbar, table
  await page.goto(`${server.url}/admin/sysuser`);
  await page.getByTestId('entity-table').locator('tr.ant-table-row').first().waitFor();
  await page.locator('body').focus();
  await expectVisibleFocus(page, 45);

  // the top bar's buttons work from the keyboard
  await page.getByTestId('hamburger').focus();
  await page.keyboard.press('Enter');
  await page.locator('.admin-layout.sidebar-collapsed').waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.admin-layout.sidebar-opened').waitFor();

  // the user menu opens from the keyboard; the change-password dialog traps and returns focus
  await page.getByTestId('avatar-menu').focus();
  await page.keyboard.press('Enter');
  const menu = page.locator('.ant-dropdown:not(.ant-dropdown-hidden) .ant-dropdown-menu');
  await menu.waitFor();
  // the menu is placed beside its button, inside the window, before it is used
  await page.waitForFunction(() => {
    const box = document
      .querySelector('.ant-dropdown:not(.ant-dropdown-hidden) .ant-dropdown-menu')
      ?.getBoundingClientRect();
    return (
      box !== undefined &&
      box.top >= 0 &&
      box.left >= 0 &&
      box.bottom <= innerHeight &&
      box.right <= innerWidth
    );
  });
  await menu.getByText('修改密码').click();
  const dialog = page.locator('.ant-modal-wrap:visible');
  await dialog.waitFor();
  await page.waitForFunction(() => document.activeElement?.closest('.ant-modal-wrap') !== null);
  for (let index = 0; index < 8; index += 1) {
    await page.keyboard.press('Tab');
    assert.ok((await focused(page, '.ant-modal-wrap')).isInside, `Tab ${index + 1} stays in the dialog`);
  }
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });

  // the tags context menu opens on the focused tag with the context-menu key (Shift+F10)
  await page.getByTestId('tags-view').locator('a').first().focus();
  await page.keyboard.press('Shift+F10');
  await page.locator('.ant-dropdown:not(.ant-dropdown-hidden) .ant-dropdown-menu').last().waitFor();
  await context.close();
}

/**
 * A sweep in each language side by side, each in a browser context (and renderer) of its own: a
 * sweep waits on its pages about as long as axe works on them. Fails with every language's findings.
 */
const inEveryLanguage = (sweep: (language: Language) => Promise<void>): Promise<void> =>
  allToTheEnd(LANGUAGES.map(sweep));

export function checks({ server, browser }: E2eContext): Check[] {
  return [
    {
      name: `portal (${LANGUAGES.join(', ')}): no WCAG 2.1 AA violation on any route of SPEC §2.2`,
      run: () => inEveryLanguage((language) => portalPages(browser, server, language)),
    },
    {
      name: `back-office (${LANGUAGES.join(', ')}): no WCAG 2.1 AA violation in the shell, lists, forms and screens`,
      run: () => inEveryLanguage((language) => backOfficePages(browser, server, language)),
    },
    {
      name: 'portal keyboard: skip link first, the mobile menu traps Tab and gives focus back on Escape',
      run: () => portalKeyboard(browser, server),
    },
    {
      name: 'back-office keyboard: skip link first, top bar buttons, dialog focus trap, tags context menu',
      run: () => backOfficeKeyboard(browser, server),
    },
    {
      name: 'pages checked by axe',
      run: async () => {
        const tally = axeTally();
        console.log(
          `    axe: ${tally.pages} pages checked, ${tally.failing} with violations (${tally.violations} nodes)`,
        );
        assert.ok(tally.pages > 0);
      },
    },
  ];
}
