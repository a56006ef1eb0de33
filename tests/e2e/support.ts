import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Locator,
  type Page,
  type Request,
} from 'playwright-core';
import { freePort } from '../support/net.js';

/** Flags that keep Debian's Chromium quiet on a machine without outside network. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * The requests each browser context has open, but the live-update stream (it stays open for the
 * page's life, so Playwright's 'networkidle' never comes on a page that listens): see networkQuiet.
 */
const openRequests = new WeakMap<BrowserContext, Set<Request>>();
const isLiveStream = (url: string): boolean => url.includes('/api/events/stream');

function trackRequests(context: BrowserContext): BrowserContext {
  const open = new Set<Request>();
  openRequests.set(context, open);
  context.on('request', (request) => {
    if (!isLiveStream(request.url())) open.add(request);
  });
  context.on('requestfinished', (request) => open.delete(request));
  context.on('requestfailed', (request) => open.delete(request));
  return context;
}

export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    headless: true,
  });
  // every context counts its open requests, however a check makes it
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options?: BrowserContextOptions) => trackRequests(await newContext(options));
  return browser;
}

/**
 * 'networkidle' without the live-update stream: the page has loaded and its context has had no
 * other request open for `quietMs`. Throws after `timeout`, as waitForLoadState does.
 */
export async function networkQuiet(page: Page, { quietMs = 500, timeout = 30_000 } = {}): Promise<void> {
  await page.waitForLoadState('load', { timeout });
  const open = openRequests.get(page.context());
  if (!open) throw new Error("networkQuiet: a context not made by launchBrowser's browser");
  const started = Date.now();
  let quietSince = Date.now();
  for (;;) {
    if (open.size > 0) quietSince = Date.now();
    else if (Date.now() - quietSince >= quietMs) return;
    if (Date.now() - started > timeout)
      throw new Error(`networkQuiet: requests still open after ${timeout} ms`);
    await page.waitForTimeout(50);
  }
}

/**
 * Runs side by side (each in a context or tab of its own) until every one has ended, then fails
 * with the messages of all that failed: none is left running behind a failure.
 */
export async function allToTheEnd(runs: readonly Promise<void>[]): Promise<void> {
  const ended = await Promise.allSettled(runs);
  const failures = ended.flatMap((run) =>
    run.status === 'rejected' ? [run.reason instanceof Error ? run.reason.message : String(run.reason)] : [],
  );
  assert.equal(failures.length, 0, failures.join('\n\n'));
}

/** Servers started and not stopped: killed when the runner exits, whatever made it exit. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface RunningServer {
  url: string;
  adminPassword: string;
  /** DATA_DIR of the server: its SMS, mail and captcha outboxes (sms-, mail-, captcha-outbox.jsonl). */
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * Starts the real server (built front-ends, fresh embedded database) as a child process; `cwd`:
 * another copy of the project (its own src/ and dist/web), this one by default; `isBuilt`: the
 * bundled server (`node dist/server/main.js`, as `npm start` runs it) instead of src/ through tsx.
 */
export async function startServer(
  env: Record<string, string> = {},
  options: { cwd?: string; isBuilt?: boolean } = {},
): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'ecobid-e2e-'));
  const adminPassword = 'e2e-admin-pass';
  // The captcha outbox preload writes each character captcha's answer beside the other outboxes.
  const captchaOutbox = ['--import', fileURLToPath(new URL('captcha-outbox.mjs', import.meta.url))];
  const args = options.isBuilt
    ? [...captchaOutbox, 'dist/server/main.js']
    : ['--import', 'tsx', ...captchaOutbox, 'src/server/main.ts'];
  const child: ChildProcess = spawn(process.execPath, args, {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: adminPassword,
      DATABASE_URL: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  // a loaded machine (2 cores shared by parallel suites) can take a minute and more to start
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`server not listening after 300 s:\n${output}`);
    }
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
    try {
      const response = await fetch(`${url}/admin/`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    adminPassword,
    dataDir,
    stop: async () => {
      // a server that already exited sends no second 'exit'; one that hangs is killed after 30 s
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        await exited;
        clearTimeout(killer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A bearer token of the user, through the password grant of the built-in browser client. */
export async function passwordToken(url: string, username: string, password: string): Promise<string> {
  const response = await fetch(`${url}/api/uaa/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${btoa('browser:')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'password',
      scope: 'ui',
      client_id: 'browser',
      username,
      password,
    }),
  });
  const body = (await response.json()) as { access_token?: string; message?: string };
  assert.ok(body.access_token, `sign-in of ${username}: ${body.message ?? response.status}`);
  return body.access_token;
}

/** The JSON API as one signed-in user calls it: each answer's data, any status but 200 a failure. */
export interface ApiClient {
  token: string;
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  put<T>(path: string, body?: unknown): Promise<T>;
}

/** Signs the user in (password grant) and returns an ApiClient with their bearer token. */
export async function apiClient(url: string, username: string, password: string): Promise<ApiClient> {
  const token = await passwordToken(url, username, password);
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, `${method} ${path}: ${text}`);
    return (JSON.parse(text) as { data: T }).data;
  };
  return {
    token,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    put: (path, body) => call('PUT', path, body),
  };
}

/** A fresh browser context as the admin checks use it: Chinese, 1360 × 820 unless told otherwise. */
export function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  return browser.newContext({ locale: 'zh-CN', viewport: { width: 1360, height: 820 }, ...options });
}

/** Signs in on the admin's sign-in page (the administrator by default) and waits for the workbench. */
export async function signIn(
  page: Page,
  server: RunningServer,
  username = 'admin',
  password = server.adminPassword,
): Promise<void> {
  await page.goto(`${server.url}/admin/login`);
  await page.getByPlaceholder('账号').fill(username);
  await page.getByPlaceholder('密码').fill(password);
  await page.getByTestId('login-submit').click();
  try {
    await page.waitForURL(/\/admin\/workbench$/, { timeout: 15_000 });
  } catch (error) {
    // Still on the sign-in page after 15 s: the press was lost on a busy machine (seen once in
    // CI, the form filled and nothing sent), and a user would press again.
    if (!page.url().includes('/admin/login')) throw error;
    await page.getByTestId('login-submit').click();
    await page.waitForURL(/\/admin\/workbench$/);
  }
}

/** A fresh browser context (see newContext) whose page has signed in as the user (see signIn). */
export async function signedIn(
  browser: Browser,
  server: RunningServer,
  username: string,
  password: string,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(browser, options);
  const page = await context.newPage();
  await signIn(page, server, username, password);
  return { context, page };
}

export interface E2eContext {
  server: RunningServer;
  browser: Browser;
  /** Directory for screenshots (test-results/e2e, not committed). */
  screenshots: string;
}

export interface Check {
  name: string;
  run(): Promise<void>;
}

/**
 * A minimal runner printing one line per check and the closing 'N passed, N failed' line;
 * `onFailure` runs after a failed attempt (the runner takes screenshots of the open pages).
 * A check that fails is run again up to `retries` times (CI sets E2E_RETRIES=1, as Playwright's
 * own CI default does): one that then passes is counted as passed and listed as flaky at the
 * end with its first failure, so a timing slip on a loaded machine is seen but does not fail
 * the run, and a check that fails every time still does.
 */
export async function runChecks(
  checks: Check[],
  onFailure: (checkName: string) => Promise<void> = async () => {},
  retries = 0,
): Promise<boolean> {
  let passed = 0;
  const failures: string[] = [];
  const flaky: string[] = [];
  for (const check of checks) {
    const firstFailures: string[] = [];
    for (let attempt = 0; attempt <= retries; attempt += 1) {
      const started = Date.now();
      const label = attempt === 0 ? check.name : `${check.name} (attempt ${attempt + 1})`;
      try {
        await check.run();
        passed += 1;
        console.log(`  ✓ ${label} (${Date.now() - started} ms)`);
        if (attempt > 0) flaky.push(`  ~ ${check.name}\n    first: ${firstFailures[0]}`);
        break;
      } catch (error) {
        const reason = error instanceof Error ? (error.stack ?? error.message) : String(error);
        const short = reason.split('\n').slice(0, 12).join('\n    ');
        firstFailures.push(short);
        console.log(`  ✗ ${label}\n    ${reason}`);
        await onFailure(label).catch((failure: unknown) =>
          console.log(`    (no screenshot: ${String(failure)})`),
        );
        if (attempt === retries)
          failures.push(`  ✗ ${check.name}\n    ${firstFailures.join('\n    then: ')}`);
      }
    }
  }
  const flakyNote = flaky.length > 0 ? ` (${flaky.length} of them on a retry)` : '';
  console.log(`\n${passed} passed${flakyNote}, ${failures.length} failed`);
  // The flaky and failed checks again at the end, where a CI log's tail shows them.
  if (flaky.length > 0) console.log(`\nPassed on a retry:\n${flaky.join('\n')}`);
  if (failures.length > 0) console.log(`\nFailed:\n${failures.join('\n')}`);
  return failures.length === 0;
}

/**
 * A read-only field of a form is shown in the text colour (its label's), not antd's faint
 * disabled grey. antd animates colours, so they are read again until the transition is over
 * (3 s at most) before they are compared.
 */
export async function expectTextColour(form: Locator, id: string): Promise<void> {
  const colour = (locator: Locator) => locator.evaluate((element) => getComputedStyle(element).color);
  const colours = async () => [
    await colour(form.locator(`#${id}`)),
    await colour(form.locator(`label[for="${id}"]`)),
  ];
  let [field, label] = await colours();
  for (let tries = 0; field !== label && tries < 30; tries += 1) {
    await form.page().waitForTimeout(100);
    [field, label] = await colours();
  }
  assert.equal(field, label, `${id} in the text colour`);
}
