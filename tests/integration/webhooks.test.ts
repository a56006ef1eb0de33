/**
 * Events out (docs/extending.md "Events"): every committed change is one outbox event, handed
 * once to the modules' subscriptions and delivered to each matching webhook of its tenant as a
 * signed POST; a 500 is retried later, a disabled webhook gets nothing, a change rolled back
 * sends nothing, the SSRF guard refuses private addresses not allowed by the configuration, and
 * another tenant sees none of it. The receiver is a real HTTP server of this test, allowed by
 * WEBHOOK_ALLOWED_ADDRESSES. Run on PGlite and (TEST_DATABASE_URL) on PostgreSQL.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressGuard, purgeOldEvents, runEventRound } from '../../src/server/features/events/index.js';
import type { OutboxEvent } from '../../src/server/lib/events/index.js';
import { data, errorFields } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { bpmn, complete, deploy, flow, openTasks, start } from '../support/workflow.js';

type Json = Record<string, unknown>;

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  event: OutboxEvent & { delivery: { id: number; attempt: number } };
}

const SECRET = 'a-long-test-secret-1234';
let t: TestApp;
let server: Server;
let hookUrl = '';
const received: Received[] = [];
/** Statuses the receiver answers, in order; 200 once they are used up. */
const answers: number[] = [];
let beta: { authorization: string };

const heard = (): OutboxEvent[] =>
  (globalThis as { ecobidHeardEvents?: OutboxEvent[] }).ecobidHeardEvents ?? [];

const round = (now?: Date) =>
  runEventRound({
    ctx: t.app.ctx,
    i18n: t.app.i18n,
    guard: addressGuard(['127.0.0.1']),
    ...(now ? { now } : {}),
    onError: (error) => {
      throw error;
    },
  });

const isSigned = (item: Received): boolean => {
  const timestamp = String(item.headers['x-ecobid-timestamp']);
  const expected = `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${item.body}`).digest('hex')}`;
  return item.headers['x-ecobid-signature'] === expected;
};

async function addParam(key: string, value: string): Promise<Json> {
  const added = await t.request({
    method: 'POST',
    url: '/api/admin/sysparam/add',
    headers: t.auth,
    payload: { paramKey: key, paramName: key, paramValue: value },
  });
  expect(added.statusCode, added.body).toBe(200);
  return data(added);
}

let hookId = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: request.headers, body, event: JSON.parse(body) as Received['event'] });
      response.statusCode = answers.shift() ?? 200;
      response.end(response.statusCode === 200 ? 'thanks' : 'try later');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  t = await startTestApp({
    env: { WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1', MODULE_DIRS: 'tests/fixtures/event-modules' },
  });
  const tenant = await t.request({
    method: 'POST',
    url: '/api/admin/systenant/add',
    headers: t.auth,
    payload: { tenantCode: 'hookbeta', tenantName: 'Hook Beta' },
  });
  expect(tenant.statusCode, tenant.body).toBe(200);
  const admin = (tenant.json() as { data: { admin: { username: string; initialPassword: string } } }).data
    .admin;
  const signedIn = await t.signIn(admin.username, admin.initialPassword, 'hookbeta');
  beta = { authorization: `Bearer ${String(signedIn.json().access_token)}` };
  // What happened before (seeding, the tenant) is dispatched before the webhook exists.
  await round();
});

afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('webhooks', () => {
  it('refuses a loopback or private address the configuration does not allow, naming the field', async () => {
    for (const url of [
      'http://10.1.2.3/hook',
      'http://[::1]:8080/hook',
      'http://169.254.169.254/latest',
      'ftp://example.com/x',
    ]) {
      const refused = await t.request({
        method: 'POST',
        url: '/api/admin/syswebhook/add',
        headers: t.auth,
        payload: { name: 'bad', url, secret: SECRET },
      });
      expect(refused.statusCode, `${url}: ${refused.body}`).toBe(400);
      expect(errorFields(refused)).toEqual(['/url']);
    }
    const shortSecret = await t.request({
      method: 'POST',
      url: '/api/admin/syswebhook/add',
      headers: t.auth,
      payload: { name: 'bad', url: hookUrl, secret: 'short' },
    });
    expect(shortSecret.statusCode).toBe(400);
    expect(errorFields(shortSecret)).toEqual(['/secret']);
  });

  it('adds a webhook whose secret is never answered', async () => {
    const added = await t.request({
      method: 'POST',
      url: '/api/admin/syswebhook/add',
      headers: t.auth,
      payload: {
        name: 'params',
        url: hookUrl,
        secret: SECRET,
        eventTypes: ['record.added', 'record.changed', 'record.deleted'],
        entities: ['sysparam'],
      },
    });
    expect(added.statusCode, added.body).toBe(200);
    expect(added.body).not.toContain(SECRET);
    hookId = Number(data(added).id);
    const listed = await t.request({ method: 'GET', url: '/api/admin/syswebhook/query', headers: t.auth });
    expect(listed.body).not.toContain(SECRET);
    expect(data<Json[]>(listed).map((row) => row.id)).toContain(hookId);
  });

  it('delivers each committed change once, signed, with the changed field names and no values', async () => {
    const param = await addParam('hookParamOne', 'first-secret-value');
    const updated = await t.request({
      method: 'PUT',
      url: '/api/admin/sysparam/update',
      headers: t.auth,
      payload: { id: param.id, version: param.version, paramValue: 'second-secret-value' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(received).toHaveLength(0); // nothing leaves before the round
    await round();
    expect(received.map((item) => item.event.type)).toEqual(['record.added', 'record.changed']);
    for (const item of received) {
      expect(isSigned(item)).toBe(true);
      expect(item.event.entity).toBe('sysparam');
      expect(item.event.key).toBe(String(param.id));
      expect(item.event.tenant).toBe('default');
      expect(item.event.actor.username).toBe('admin');
      expect(item.body).not.toContain('secret-value');
    }
    expect(received[0]?.event.changed).toEqual(expect.arrayContaining(['paramKey', 'paramValue']));
    expect(received[1]?.event.changed).toEqual(['paramValue']);
    expect(received[1]?.event.version).toBe(Number(param.version) + 1);
    // once per delivery: another round sends nothing more
    await round();
    expect(received).toHaveLength(2);
    // the module's subscription heard both, after commit
    expect(
      heard()
        .filter((event) => event.key === String(param.id))
        .map((event) => event.type),
    ).toEqual(['record.added', 'record.changed']);
  });

  it('sends nothing for a change rolled back', async () => {
    received.length = 0;
    const before = await t.sql<{ n: number }>('select count(*)::int as n from sys_event');
    const clash = await t.request({
      method: 'POST',
      url: '/api/admin/sysparam/add',
      headers: t.auth,
      payload: { paramKey: 'hookParamOne', paramName: 'again', paramValue: 'x' },
    });
    expect(clash.statusCode).toBeGreaterThanOrEqual(400);
    expect(clash.statusCode).toBeLessThan(500);
    const after = await t.sql<{ n: number }>('select count(*)::int as n from sys_event');
    expect(after[0]?.n).toBe(before[0]?.n);
    await round();
    expect(received).toHaveLength(0);
  });

  it('retries after a 500 (once per attempt), logs every attempt, and 重发 sends again', async () => {
    received.length = 0;
    answers.push(500);
    await addParam('hookParamTwo', 'v');
    await round();
    expect(received).toHaveLength(1);
    expect(received[0]?.event.delivery.attempt).toBe(1);
    // not due yet: nothing
    await round();
    expect(received).toHaveLength(1);
    // due after the backoff
    await round(new Date(Date.now() + 60_000));
    expect(received).toHaveLength(2);
    expect(received[1]?.event.delivery).toEqual({ id: received[0]?.event.delivery.id, attempt: 2 });
    expect(received[1]?.event.id).toBe(received[0]?.event.id);
    expect(received.every(isSigned)).toBe(true);
    const log = await t.request({
      method: 'GET',
      url: `/api/admin/syswebhook/queryDeliveries?id=${hookId}`,
      headers: t.auth,
    });
    expect(log.statusCode, log.body).toBe(200);
    const [latest] = data<{ records: Json[] }>(log).records;
    expect(latest).toMatchObject({ status: 'delivered', attempts: 2, lastStatus: 200, lastAnswer: 'thanks' });
    const again = await t.request({
      method: 'POST',
      url: '/api/admin/syswebhook/redeliver',
      headers: t.auth,
      payload: { id: latest?.id },
    });
    expect(again.statusCode, again.body).toBe(200);
    await round();
    expect(received).toHaveLength(3);
    expect(received[2]?.event.id).toBe(received[0]?.event.id);
  });

  it('sends nothing to a disabled webhook', async () => {
    received.length = 0;
    const disabled = await t.request({
      method: 'PUT',
      url: '/api/admin/syswebhook/update',
      headers: t.auth,
      payload: { id: hookId, isEnabled: false },
    });
    expect(disabled.statusCode, disabled.body).toBe(200);
    await addParam('hookParamThree', 'v');
    await round();
    expect(received).toHaveLength(0);
  });

  it('disables a webhook whose delivery failed for the whole retry time and tells the administrators', async () => {
    received.length = 0;
    const enabled = await t.request({
      method: 'PUT',
      url: '/api/admin/syswebhook/update',
      headers: t.auth,
      payload: { id: hookId, isEnabled: true },
    });
    expect(enabled.statusCode, enabled.body).toBe(200);
    answers.push(500, 500);
    await addParam('hookParamFour', 'v');
    await round();
    expect(received).toHaveLength(1);
    // the delivery began a day ago: the next failure ends it
    await t.sql(
      `update sys_webhook_delivery set created_at = now() - interval '25 hours' where status = 'pending'`,
    );
    await round(new Date(Date.now() + 3 * 3_600_000));
    expect(received).toHaveLength(2);
    const [hook] = await t.sql<{ is_enabled: boolean; disabled_reason: string }>(
      'select is_enabled, disabled_reason from sys_webhook where id = $1',
      [hookId],
    );
    expect(hook).toEqual({ is_enabled: false, disabled_reason: 'failures' });
    const inbox = await t.request({
      method: 'GET',
      url: '/api/admin/notification/queryMyNotification?pageSize=50',
      headers: t.auth,
    });
    expect(inbox.body).toContain('params');
  });

  it("shows another tenant none of this tenant's webhooks or deliveries", async () => {
    const listed = await t.request({ method: 'GET', url: '/api/admin/syswebhook/query', headers: beta });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(data<Json[]>(listed)).toEqual([]);
    const log = await t.request({
      method: 'GET',
      url: `/api/admin/syswebhook/queryDeliveries?id=${hookId}`,
      headers: beta,
    });
    expect(log.statusCode).toBe(404);
    const update = await t.request({
      method: 'PUT',
      url: '/api/admin/syswebhook/update',
      headers: beta,
      payload: { id: hookId, name: 'taken' },
    });
    expect(update.statusCode).toBe(404);
    const [delivery] = await t.sql<{ id: number }>('select id from sys_webhook_delivery limit 1');
    const redo = await t.request({
      method: 'POST',
      url: '/api/admin/syswebhook/redeliver',
      headers: beta,
      payload: { id: Number(delivery?.id) },
    });
    expect(redo.statusCode).toBe(404);
    const removed = await t.request({
      method: 'DELETE',
      url: `/api/admin/syswebhook/delete?id=${hookId}`,
      headers: beta,
    });
    expect(removed.statusCode).toBe(404);
  });

  it('writes the events of a process, its tasks and a lock-out to the outbox of their tenant', async () => {
    const xml = bpmn(
      'hookFlow',
      `<startEvent id="s"/><userTask id="review" name="Review" camunda:assignee="admin"/><endEvent id="e"/>
      ${flow('f1', 's', 'review')}${flow('f2', 'review', 'e')}`,
    );
    await deploy(t, xml);
    const instance = await start(t, t.auth, 'hookFlow');
    const [task] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, Number(task?.id))).statusCode).toBe(200);
    const events = await t.sql<{ type: string; entity: string; record_key: string }>(
      `select type, entity, record_key from sys_event where tenant_code = 'default' and entity in ('wfInstance', 'wfTask')
        order by id`,
    );
    // the completion and the end are one statement: their order in it is the database's
    expect(events.map((event) => event.type).slice(0, 2)).toEqual([
      'workflow.started',
      'workflow.taskCreated',
    ]);
    expect(
      events
        .map((event) => event.type)
        .slice(2)
        .sort(),
    ).toEqual(['workflow.ended', 'workflow.taskCompleted']);
    expect(events[0]?.record_key).toBe(String(instance.id));
    expect(events[1]?.record_key).toBe(String(task?.id));
    for (let attempt = 0; attempt < 5; attempt += 1) await t.signIn('admin', 'not-the-password', 'hookbeta');
    const locked = await t.sql<{ tenant_code: string; type: string }>(
      "select tenant_code, type from sys_event where type = 'user.locked'",
    );
    expect(locked).toEqual([{ tenant_code: 'hookbeta', type: 'user.locked' }]);
  });
  it('keeps events and the delivery log eventRetentionDays days, then purges them in batches', async () => {
    const [seeded] = await t.sql<{ param_value: string }>(
      "select param_value from sys_param where param_key = 'eventRetentionDays' and tenant_code = 'default'",
    );
    expect(seeded?.param_value).toBe('30');
    await round();
    // A delivery still to be made keeps its event, however old.
    const [kept] = await t.sql<{ id: string; event_id: string }>(
      `insert into sys_webhook_delivery (tenant_code, webhook_id, event_id, event_type, status, next_at)
        select 'default', $1, min(id), 'record.added', 'pending', now() from sys_event where tenant_code = 'default'
        returning id::text, event_id::text`,
      [hookId],
    );
    const count = async (text: string): Promise<number> =>
      Number((await t.sql<{ n: string }>(text))[0]?.n ?? 0);
    const logged = () =>
      count("select count(*) as n from sys_webhook_delivery where tenant_code = 'default'");
    const events = () => count("select count(*) as n from sys_event where tenant_code = 'default'");
    const betaEvents = () => count("select count(*) as n from sys_event where tenant_code = 'hookbeta'");
    const pending = () =>
      count(
        "select count(*) as n from sys_webhook_delivery where tenant_code = 'default' and status = 'pending'",
      );
    const named = async () =>
      (
        await t.sql<{ id: string }>(
          `select distinct event_id::text as id from sys_webhook_delivery
            where tenant_code = 'default' and status = 'pending' order by 1`,
        )
      ).map((row) => row.id);
    const before = { logged: await logged(), events: await events(), beta: await betaEvents() };
    const stillToDo = { deliveries: await pending(), events: await named() };
    expect(stillToDo.events).toContain(kept?.event_id);
    expect(before.logged - stillToDo.deliveries).toBeGreaterThan(3);
    expect(before.events).toBeGreaterThan(3);
    const registry = t.app.ctx.registry;
    // Within the 30 days: nothing goes.
    expect(await purgeOldEvents({ db: t.app.ctx.db, registry, now: new Date(), batch: 2 })).toEqual({
      events: 0,
      deliveries: 0,
    });
    await t.sql(
      "update sys_param set param_value = '1' where param_key = 'eventRetentionDays' and tenant_code = 'default'",
    );
    const purged = await purgeOldEvents({
      db: t.app.ctx.db,
      registry,
      now: new Date(Date.now() + 2 * 86_400_000),
      batch: 2,
    });
    expect(purged.deliveries).toBe(before.logged - stillToDo.deliveries);
    expect(purged.events).toBe(before.events - stillToDo.events.length);
    expect(await logged()).toBe(stillToDo.deliveries);
    const left = await t.sql<{ id: string }>(
      "select id::text from sys_event where tenant_code = 'default' order by 1",
    );
    expect(left.map((row) => row.id)).toEqual(stillToDo.events);
    // Another tenant keeps its own 30 days.
    expect(await betaEvents()).toBe(before.beta);
    await t.sql(`delete from sys_webhook_delivery where id = $1`, [kept?.id]);
  });
});
