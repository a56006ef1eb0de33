import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import { apiClient, newContext, passwordToken, signedIn, type Check, type E2eContext } from './support.js';

/**
 * Issue 19.2: a back-office page load does not wait for four calls in a row. The server puts the
 * caller's user, menus and buttons, posts and the entity schemas in the page (a JSON block, for
 * the session of the token cookie, kept by no cache) and preloads the list screen of the path
 * opened; the admin reads them through its providers and asks only for the list itself.
 */

const BLOCK = /<script type="application\/json" id="ecobid-bootstrap">([^<]*)<\/script>/;
const SEEDED = [
  '/api/uaa/users/getSysUser',
  '/api/account/sysuserdetail/queryCurrentAuthority',
  '/api/account/sysuserdetail/queryPostOptions',
  '/api/schemas',
];

interface Bootstrap {
  user: { id: number; username: string; nickname: string | null; roles: string[] };
  authority: { roles: string[]; menus: unknown[]; buttons: Record<string, string[]> };
  posts: unknown[];
  schemas: { entities: { name: string }[] };
  actingRole: string | null;
}

async function page(url: string, token?: string, more = ''): Promise<{ html: string; headers: Headers }> {
  const response = await fetch(
    url,
    token ? { headers: { cookie: `language=zh; token=${token}${more}` } } : {},
  );
  assert.equal(response.status, 200);
  return { html: await response.text(), headers: response.headers };
}

function bootstrapOf(html: string): Bootstrap | undefined {
  const text = BLOCK.exec(html)?.[1];
  return text === undefined ? undefined : (JSON.parse(text) as Bootstrap);
}

export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  const stamp = Date.now().toString(36).slice(-5);
  const other = { username: `boot${stamp}`, password: 'bootstrap-pass-1', nickname: `引导用户${stamp}` };
  let context: BrowserContext | undefined;

  return [
    {
      name: 'a signed-in load of a list asks for the list only: no user, menu, post or schema call',
      run: async () => {
        let tab: Page;
        ({ context, page: tab } = await signedIn(browser, server, 'admin', server.adminPassword));
        // a new tab: a page load as after a refresh, with the session cookie
        tab = await context.newPage();
        const asked: string[] = [];
        tab.on('request', (request) => asked.push(new URL(request.url()).pathname));
        const response = await tab.goto(`${server.url}/admin/sysuser`);
        assert.equal(response?.headers()['cache-control'], 'private, no-store');
        await tab.getByTestId('entity-table').locator('tr.ant-table-row').first().waitFor();
        await tab.getByTestId('entity-add').waitFor();
        // the sidebar, the user menu and the list come from the page's own data
        await tab.locator('.admin-sider').getByText('用户管理').first().waitFor();
        assert.deepEqual(
          asked.filter((path) => SEEDED.includes(path)),
          [],
          `asked: ${asked.filter((path) => path.startsWith('/api/')).join(', ')}`,
        );
        assert.ok(asked.includes('/api/admin/sysuser/query'), 'the list itself is asked for');
        // the list screen's chunk was preloaded by the page, not found after the entry ran
        const preloaded = await tab.evaluate(() =>
          [...document.querySelectorAll('link[rel="modulepreload"]')].some((link) =>
            /\/EntityList-[^/]+\.js$/.test(link.getAttribute('href') ?? ''),
          ),
        );
        assert.ok(preloaded, 'the list screen is preloaded');
        // read once and taken out of the document
        assert.equal(await tab.locator('#ecobid-bootstrap').count(), 0);
        await expectNoAxeViolations(tab, 'user list after a bootstrapped load');
        await tab.screenshot({ path: `${screenshots}/bootstrap-user-list.png` });
        await tab.close();
      },
    },
    {
      name: 'a cold load of a list asks for its first page before the list screen renders, and each call once',
      run: async () => {
        assert.ok(context);
        const tab = await context.newPage();
        // when the list screen first shows its table, on the page's clock
        await tab.addInitScript(() => {
          new MutationObserver((_records, observer) => {
            if (!document.querySelector('[data-testid="entity-table"]')) return;
            (window as { tableShown?: number }).tableShown = performance.now();
            observer.disconnect();
          }).observe(document, { childList: true, subtree: true });
        });
        const asked: string[] = [];
        tab.on('request', (request) => {
          const url = new URL(request.url());
          if (url.pathname.startsWith('/api/')) asked.push(`${url.pathname}${url.search}`);
        });
        await tab.goto(`${server.url}/admin/sysuser`);
        const rows = tab.getByTestId('entity-table').locator('tr.ant-table-row');
        await rows.first().waitFor();
        await tab.getByTestId('entity-add').waitFor();
        // the role column shows the role's name (the lookup asked at boot), not its id
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const role = await admin.get<{ records: { roleName: string }[] }>(
          '/api/admin/sysrole/query?id=1&currentPage=1&pageSize=1',
        );
        const roleName = role.records[0]?.roleName;
        assert.ok(roleName);
        await tab.getByTestId('entity-table').getByText(roleName, { exact: true }).first().waitFor();
        // and the table is done loading (no spinner left over the rows)
        await tab.getByTestId('entity-table').locator('.ant-spin-spinning').waitFor({ state: 'detached' });
        const timing = await tab.evaluate(() => ({
          tableShown: (window as { tableShown?: number }).tableShown ?? Number.NaN,
          list: performance
            .getEntriesByType('resource')
            .filter((entry) => new URL(entry.name).pathname === '/api/admin/sysuser/query')
            .map((entry) => entry.startTime),
        }));
        assert.equal(timing.list.length, 1, `list asks: ${asked.join(', ')}`);
        assert.ok(
          (timing.list[0] ?? Number.POSITIVE_INFINITY) < timing.tableShown,
          `the list was asked for at ${timing.list[0]} ms, the table shown at ${timing.tableShown} ms`,
        );
        // the screen took the answers asked at boot: nothing asked twice
        const twice = asked.filter((call, index) => asked.indexOf(call) !== index);
        assert.deepEqual(twice, [], `asked: ${asked.join(', ')}`);
        await tab.close();
      },
    },
    {
      name: 'a tab acting in a chosen role gets that role’s menus from the page too: no authority call',
      run: async () => {
        assert.ok(context);
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const me = await admin.get<{ roles: string[] }>('/api/uaa/users/getSysUser');
        const role = me.roles[0];
        assert.ok(role);
        // the role switch keeps the choice in the tab and, as a hint for the page, in a cookie
        await context.addCookies([{ name: 'roleCode', value: role, url: server.url }]);
        const data = bootstrapOf(
          (await page(`${server.url}/admin/sysuser`, admin.token, `; roleCode=${role}`)).html,
        );
        assert.equal(data?.actingRole, role);
        const tab = await context.newPage();
        await tab.addInitScript((code) => sessionStorage.setItem('roleCode', code), role);
        const asked: string[] = [];
        tab.on('request', (request) => asked.push(new URL(request.url()).pathname));
        await tab.goto(`${server.url}/admin/sysuser`);
        await tab.getByTestId('entity-table').locator('tr.ant-table-row').first().waitFor();
        await tab.locator('.admin-sider').getByText('用户管理').first().waitFor();
        assert.deepEqual(
          asked.filter((path) => SEEDED.includes(path)),
          [],
          `asked: ${asked.filter((path) => path.startsWith('/api/')).join(', ')}`,
        );
        // a role the user does not hold counts for nothing: the menus of every role held
        const foreign = bootstrapOf(
          (await page(`${server.url}/admin/sysuser`, admin.token, '; roleCode=ROLE_NOT_HELD')).html,
        );
        assert.equal(foreign?.actingRole, null);
        assert.deepEqual(foreign?.authority.roles, me.roles);
        await context.clearCookies({ name: 'roleCode' });
        await tab.close();
      },
    },
    {
      name: 'the page carries its caller’s data and no one else’s; signed out or with a dead token, none',
      run: async () => {
        const admin = await apiClient(server.url, 'admin', server.adminPassword);
        const me = await admin.get<{ id: number; username: string }>('/api/uaa/users/getSysUser');
        const roles = await admin.get<{ records: { id: number; roleCode: string }[] }>(
          '/api/admin/sysrole/query?roleCode=ROLE_SYS_TOURIST',
        );
        const tourist = roles.records.find((role) => role.roleCode === 'ROLE_SYS_TOURIST');
        assert.ok(tourist);
        const orgs = await admin.get<{ records: { id: number }[] }>('/api/admin/sysorg/query?pageSize=1');
        const orgId = orgs.records[0]?.id;
        assert.ok(orgId);
        const digits = String(Date.now()).slice(-7);
        await admin.post('/api/admin/sysuser/add', {
          username: other.username,
          nickname: other.nickname,
          password: other.password,
          email: `${other.username}@example.com`,
          countryCode: '+86',
          mobile: `136${digits}9`.slice(0, 11),
          phone: '010-12345678',
          status: '1',
          roleId: tourist.id,
          orgId,
        });
        const adminPage = await page(`${server.url}/admin/sysuser`, admin.token);
        const adminData = bootstrapOf(adminPage.html);
        assert.ok(adminData);
        assert.equal(adminData.user.username, me.username);
        assert.ok(adminData.schemas.entities.some((entity) => entity.name === 'sysuser'));
        // the texts of the page's language (the language cookie) are fetched beside the entry
        assert.match(adminPage.html, /rel="modulepreload" crossorigin href="\/assets\/zh-[^"]+\.js"/);
        assert.match(adminPage.headers.get('cache-control') ?? '', /no-store/);
        assert.match(adminPage.headers.get('cache-control') ?? '', /private/);

        const token = await passwordToken(server.url, other.username, other.password);
        const otherPage = await page(`${server.url}/admin/sysuser`, token);
        const otherData = bootstrapOf(otherPage.html);
        assert.ok(otherData);
        assert.equal(otherData.user.username, other.username);
        assert.notEqual(otherData.user.id, me.id);
        assert.deepEqual(otherData.user.roles, ['ROLE_SYS_TOURIST']);
        assert.deepEqual(otherData.authority.roles, ['ROLE_SYS_TOURIST']);
        // the administrator's menus and buttons are not in it
        assert.ok(
          !('sysuser' in otherData.authority.buttons) || otherData.authority.buttons.sysuser?.length === 0,
        );
        assert.ok(!otherPage.html.includes(`"username":"${me.username}"`));
        // a list's path preloads the list screen, the workbench does not
        assert.match(otherPage.html, /rel="modulepreload" crossorigin href="\/assets\/EntityList-[^"]+\.js"/);
        const workbench = await page(`${server.url}/admin/workbench`, token);
        assert.equal(bootstrapOf(workbench.html)?.user.username, other.username);
        assert.doesNotMatch(workbench.html, /EntityList-[^"]+\.js/);

        for (const html of [
          (await page(`${server.url}/admin/sysuser`)).html,
          (await page(`${server.url}/admin/login`)).html,
          (await page(`${server.url}/admin/sysuser`, 'x'.repeat(43))).html,
        ]) {
          assert.equal(bootstrapOf(html), undefined);
          assert.ok(!html.includes('ecobid-bootstrap'));
        }
        // signed out: the page still works, through the sign-in page
        const tab = await (await newContext(browser)).newPage();
        await tab.goto(`${server.url}/admin/sysuser`);
        await tab.waitForURL(/\/admin\/login\?redirect=/);
        await tab.context().close();
      },
    },
    {
      name: 'built files are kept for good by the browser; the pages are checked each time',
      run: async () => {
        const { html } = await page(`${server.url}/ecobid`);
        const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
        assert.ok(script);
        const asset = await fetch(`${server.url}${script}`);
        assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
        assert.equal((await page(`${server.url}/ecobid`)).headers.get('cache-control'), 'no-cache');
      },
    },
    {
      name: 'closes the browser context',
      run: async () => {
        await context?.close();
      },
    },
  ];
}
