import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import type { BrowserContext, Page } from 'playwright-core';
import { onServer, SERVER_URL } from './scratch-database.js';
import {
  apiClient,
  signedIn,
  startServer,
  type ApiClient,
  type Check,
  type E2eContext,
  type RunningServer,
} from './support.js';

/**
 * Issue 37, live updates on every process: two server processes of the built app (`node
 * dist/server/main.js`) on one scratch PostgreSQL database (TEST_DATABASE_URL's server), each on
 * its own port. The administrator works on process A; a second administrator watches the same
 * list on process B (one's own saves are not announced, so the watcher is another user). A record
 * added through A's form is announced on B's list (「1 条新记录」) within 1 s of A's answer; a
 * task assigned through A shows on B's task badge. Both servers stop and the database is dropped,
 * whether the checks passed or not.
 */
const PASSWORD = 'live2p-e2e-pass-1';
const WATCHER = 'live2pwatcher';
/** The goal: announced on the other process within 1 s. */
const ANNOUNCE_GOAL_MS = 1_000;

const TASK_PROCESS = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="Definitions_live2p" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="live_two_processes" name="跨进程待办" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="check"/>
    <bpmn:userTask id="check" name="核对" camunda:assignee="${WATCHER}"/>
    <bpmn:sequenceFlow id="f2" sourceRef="check" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>`;

/** TEST_DATABASE_URL without its password, for messages. */
const shownServerUrl = (): string => {
  const url = new URL(SERVER_URL);
  if (url.password) url.password = '***';
  return url.toString();
};

/** Fails at once, naming the server, when PostgreSQL does not answer (instead of hanging). */
async function assertPostgresReachable(): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER_URL, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is unreachable at ${shownServerUrl()} (TEST_DATABASE_URL): ${
        error instanceof Error ? error.message : String(error)
      }. This check needs a PostgreSQL server for its two processes.`,
    );
  }
  try {
    await client.query('select 1');
  } finally {
    await client.end();
  }
}

/**
 * Records in the page the wall-clock time (Date.now(), the same clock as a request's timing in
 * another page of the browser) at which an element matching `selector` first shows `text`: the
 * moment a user would see it, not when Playwright's next poll noticed.
 */
async function watchFor(page: Page, key: string, selector: string, text: string): Promise<void> {
  await page.evaluate(
    ({ key, selector, text }) => {
      const seen = window as unknown as Record<string, number | undefined>;
      seen[key] = undefined;
      // no named functions in here: tsx would wrap them in a helper the page does not have
      const observer = new MutationObserver(() => {
        const elements = [...document.querySelectorAll(selector)];
        if (!elements.some((element) => (element.textContent ?? '').includes(text))) return;
        seen[key] = Date.now();
        observer.disconnect();
      });
      observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    },
    { key, selector, text },
  );
}

const seenAt = (page: Page, key: string): Promise<number | undefined> =>
  page.evaluate((key) => (window as unknown as Record<string, number | undefined>)[key], key);

export function checks({ browser, screenshots }: E2eContext): Check[] {
  const database = `ecobid_e2e_live2p_${randomBytes(5).toString('hex')}`;
  const adminDatabase = new URL(SERVER_URL).pathname.slice(1) || 'postgres';
  let isCreated = false;
  let processA: RunningServer | undefined;
  let processB: RunningServer | undefined;
  let admin: ApiClient | undefined;
  let writer: { context: BrowserContext; page: Page } | undefined;
  let watcher: { context: BrowserContext; page: Page } | undefined;
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(screenshots, `live-2p-${name}.png`), fullPage: true });
  /** What the setup made, or a clear failure when it did not finish. */
  const ready = () => {
    assert.ok(
      processA && processB && admin && writer && watcher,
      'the setup did not finish (see its failure above)',
    );
    return { a: processA, b: processB, admin, writer, watcher };
  };
  /** Opens the parameter list and waits for its rows and for its live stream to be open. */
  const openParams = async (page: Page, server: RunningServer) => {
    const streamOpen = page.waitForResponse((answer) => answer.url().includes('/api/events/stream'));
    await page.goto(`${server.url}/admin/sysparam`);
    await page.getByTestId('entity-table').locator('tr.ant-table-row').first().waitFor();
    await streamOpen;
  };

  return [
    {
      name: 'setup: two processes of the built server on one scratch PostgreSQL database, a session on each',
      run: async () => {
        await assertPostgresReachable();
        await onServer(adminDatabase, (client) => client.query(`create database ${database}`));
        isCreated = true;
        const url = new URL(SERVER_URL);
        url.pathname = `/${database}`;
        const env = { DATABASE_URL: url.toString() };
        // one after the other: the second starts on the schema the first made
        processA = await startServer(env, { isBuilt: true });
        processB = await startServer(env, { isBuilt: true });
        assert.notEqual(processA.url, processB.url);
        const client = await apiClient(processA.url, 'admin', processA.adminPassword);
        const roles = await client.get<{ records: { id: number; roleCode: string }[] }>(
          '/api/admin/sysrole/query?roleCode=ROLE_ADMIN&pageSize=10',
        );
        const role = roles.records.find((item) => item.roleCode === 'ROLE_ADMIN');
        assert.ok(role);
        await client.post('/api/admin/sysuser/add', {
          username: WATCHER,
          nickname: '跨进程值班员',
          password: PASSWORD,
          email: `${WATCHER}@example.com`,
          mobile: '13900000379',
          phone: '010-1234567',
          status: '1',
          roleId: role.id,
          orgId: 1,
        });
        await client.post('/api/activiti/deployment/deployXml', { xml: TASK_PROCESS, name: '跨进程待办' });
        admin = client;
        writer = await signedIn(browser, processA, 'admin', processA.adminPassword);
        watcher = await signedIn(browser, processB, WATCHER, PASSWORD);
      },
    },
    {
      name: "a record added through process A's form is announced on process B's list within 1 s",
      run: async () => {
        const { a, b, writer, watcher } = ready();
        await Promise.all([openParams(writer.page, a), openParams(watcher.page, b)]);
        await watchFor(watcher.page, 'live2pNoticeAt', '[data-testid="live-notice"]', '1 条新记录');
        const { page } = writer;
        await page.getByTestId('entity-add').click();
        const modal = page.locator('.entity-form-modal');
        await modal.locator('#root_paramName').waitFor();
        await modal.locator('#root_paramName').fill('跨进程参数');
        await modal.locator('#root_paramKey').fill('live2p.e2e.added');
        await modal.locator('#root_paramValue').fill('37');
        await modal.locator('.ant-modal-title').click();
        const answered = page.waitForResponse(
          (answer) => answer.request().method() === 'POST' && answer.url().includes('/api/admin/sysparam/'),
        );
        await modal.locator('.ant-modal-footer .ant-btn-primary').click();
        const answer = await answered;
        const answerHeard = Date.now();
        assert.equal(answer.status(), 200, await answer.text());
        await answer.finished();
        // when A's answer had arrived in the browser (its timing: the wall clock, as Date.now())
        const timing = answer.request().timing();
        const answeredAt = timing.responseEnd >= 0 ? timing.startTime + timing.responseEnd : Date.now();
        await watcher.page
          .getByTestId('live-notice')
          .filter({ hasText: '1 条新记录' })
          .waitFor({ timeout: 10_000 });
        const noticeHeard = Date.now();
        const announcedAt = await seenAt(watcher.page, 'live2pNoticeAt');
        assert.ok(announcedAt, 'the notice was seen by the page');
        // Below 0 when B announced before A's answer arrived: a parameter's save is answered only
        // once every process dropped its cached parameters (README, Configuration).
        const elapsed = Math.round(announcedAt - answeredAt);
        console.log(
          `    process B announced the record ${elapsed} ms after process A answered the save (goal < ${ANNOUNCE_GOAL_MS} ms;` +
            ` ${Math.round(announcedAt - timing.startTime)} ms after A's browser sent it;` +
            ` as Playwright noticed both: ${noticeHeard - answerHeard} ms)`,
        );
        assert.ok(
          elapsed < ANNOUNCE_GOAL_MS,
          `announced on B ${elapsed} ms after A's answer: the goal is under ${ANNOUNCE_GOAL_MS} ms`,
        );
        await modal.waitFor({ state: 'detached' });
        // the writer's own list shows the record and announces nothing
        await page
          .getByTestId('entity-table')
          .locator('tr.ant-table-row')
          .filter({ hasText: 'live2p.e2e.added' })
          .waitFor();
        assert.equal(await page.getByTestId('live-notice').count(), 0);
        await shot(page, 'a-saved');
        await shot(watcher.page, 'b-announced');
        // 刷新 on B shows the record A added
        await watcher.page.getByTestId('live-refresh').click();
        await watcher.page.getByTestId('live-notice').waitFor({ state: 'detached' });
        await watcher.page
          .getByTestId('entity-table')
          .locator('tr.ant-table-row')
          .filter({ hasText: 'live2p.e2e.added' })
          .waitFor();
        await shot(watcher.page, 'b-refreshed');
      },
    },
    {
      name: 'the task badge on process B counts a task assigned through process A, without a reload',
      run: async () => {
        const { b, admin, watcher } = ready();
        const { page } = watcher;
        const streamOpen = page.waitForResponse((answer) => answer.url().includes('/api/events/stream'));
        await page.goto(`${b.url}/admin/workbench`);
        await page.locator('.ant-menu').first().waitFor();
        await streamOpen;
        const badges = page.locator('.admin-menu-badge');
        assert.equal(await badges.count(), 0, 'no open task yet');
        await watchFor(page, 'live2pBadgeAt', '.admin-menu-badge', '1');
        // the task event reaching B's page shows as its recount of the open tasks
        const recounted = page.waitForRequest((request) =>
          request.url().includes('/api/activiti/task/countOpen'),
        );
        await admin.post('/api/activiti/processinstance/start', {
          processDefinitionKey: 'live_two_processes',
          description: '跨进程待办',
        });
        const started = Date.now();
        await badges.filter({ hasText: '1' }).first().waitFor({ timeout: 10_000 });
        const shownAt = await seenAt(page, 'live2pBadgeAt');
        assert.ok(shownAt, 'the badge was seen by the page');
        const recount = await recounted;
        await (await recount.response())?.finished();
        const asked = recount.timing();
        console.log(
          `    badge on process B 0 → 1 ${Math.round(shownAt - started)} ms after process A answered the task's start` +
            ` (B's page asked for the count after ${Math.round(asked.startTime - started)} ms,` +
            ` had it after ${Math.round(asked.startTime + asked.responseEnd - started)} ms)`,
        );
        await shot(page, 'b-badge');
      },
    },
    {
      name: 'cleanup: both server processes stopped and the scratch database dropped',
      run: async () => {
        await writer?.context.close();
        await watcher?.context.close();
        await Promise.all([processA?.stop(), processB?.stop()]);
        processA = processB = undefined;
        if (isCreated)
          await onServer(adminDatabase, (client) =>
            client.query(`drop database if exists ${database} with (force)`),
          );
        const left = isCreated
          ? await onServer(
              adminDatabase,
              async (client) =>
                (await client.query('select 1 from pg_database where datname = $1', [database])).rows,
            )
          : [];
        assert.equal(left.length, 0, `${database} is dropped`);
      },
    },
  ];
}
