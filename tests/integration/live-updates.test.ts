/**
 * Live updates (issue 37; features/events/routes/live.ts): a signed-in session's server-sent
 * events, authorised per event by the read policy. On PostgreSQL (TEST_DATABASE_URL) the changes
 * are made on a second server process of the same database and heard on this one; on the
 * embedded database, by the same process. Streams are read over real HTTP with fetch, the token
 * in the Authorization header, as the back-office reads them.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { data } from '../support/api.js';
import { ADMIN_PASSWORD, BROWSER_CLIENT, startTestApp, type TestApp } from '../support/app.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { createUserWithRole } from '../support/users.js';

interface Message {
  id: number;
  type: string;
  entity: string | null;
  key: string | null;
  changed: string[];
  isMine: boolean;
  inbox?: boolean;
}

interface Stream {
  messages: Message[];
  /** Every byte read, to check that no value ever went out. */
  text(): string;
  events: string[];
  /** The last SSE id (the cursor a reconnect sends as Last-Event-ID). */
  cursor(): string | undefined;
  isEnded(): boolean;
  close(): void;
  status: number;
}

let t: TestApp;
let base = '';
/** Where changes are made: the second process on PostgreSQL, else this one. */
let writer = '';
let second: ServerProcess | undefined;
let writerAdmin = '';
const ROLE = 'ROLE_LIVE_HIDDEN';

async function openStream(token: string, lastEventId?: number | string): Promise<Stream> {
  const controller = new AbortController();
  const answer = await fetch(`${base}/api/events/stream`, {
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'text/event-stream',
      ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }),
    },
    signal: controller.signal,
  });
  const messages: Message[] = [];
  const events: string[] = [];
  let text = '';
  let cursor: string | undefined;
  let isEnded = false;
  if (answer.body && answer.status === 200) {
    const reader = answer.body.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      let buffer = '';
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          const chunk = decoder.decode(value, { stream: true });
          text += chunk;
          buffer += chunk;
          let end = buffer.indexOf('\n\n');
          while (end >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            cursor = /^id: (.*)$/m.exec(block)?.[1] ?? cursor;
            const event = /^event: (.*)$/m.exec(block)?.[1];
            const payload = /^data: (.*)$/m.exec(block)?.[1];
            if (event) events.push(event);
            else if (payload) messages.push(JSON.parse(payload) as Message);
            end = buffer.indexOf('\n\n');
          }
        }
      } catch {
        // aborted
      }
      isEnded = true;
    })();
  } else {
    isEnded = true;
  }
  return {
    messages,
    events,
    text: () => text,
    cursor: () => cursor,
    isEnded: () => isEnded,
    close: () => controller.abort(),
    status: answer.status,
  };
}

async function until(check: () => boolean, limitMs = 5_000): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > limitMs) throw new Error(`not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - started;
}

async function signInAt(
  url: string,
  username: string,
  password: string,
  tenantCode = 'default',
): Promise<string> {
  const answer = await fetch(`${url}/api/uaa/oauth/token`, {
    method: 'POST',
    headers: { authorization: BROWSER_CLIENT, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'password',
      scope: 'ui',
      client_id: 'browser',
      tenantCode,
      username,
      password,
    }),
  });
  const body = (await answer.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`sign-in of ${username} failed: ${JSON.stringify(body)}`);
  return body.access_token;
}

async function call(
  url: string,
  token: string,
  method: string,
  path: string,
  payload?: unknown,
): Promise<{ status: number; body: { data?: Record<string, unknown> } }> {
  const answer = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  });
  return { status: answer.status, body: (await answer.json()) as { data?: Record<string, unknown> } };
}

/** Adds a parameter on the writing process; answers its id. */
async function addParam(key: string, value: string, token = writerAdmin, url = writer): Promise<string> {
  const added = await call(url, token, 'POST', '/api/admin/sysparam/add', {
    paramKey: key,
    paramName: key,
    paramValue: value,
  });
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  return String(added.body.data?.id);
}

const ready = (stream: Stream) => until(() => stream.events.includes('ready'));

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const databaseUrl = t.app.ctx.config.databaseUrl;
  if (databaseUrl) {
    second = await startServerProcess({ DATABASE_URL: databaseUrl, DATA_DIR: ':memory:', ADMIN_PASSWORD });
    writer = second.url;
  } else writer = base;
  writerAdmin = await signInAt(writer, 'admin', ADMIN_PASSWORD);
}, 180_000);

afterAll(async () => {
  await second?.stop();
  await t?.close();
});

const adminToken = () => t.auth.authorization.slice('Bearer '.length);

describe('a session hears the changes it may read', () => {
  it('is told of a record added on the other process within 1 s, with field names and no value', async () => {
    const stream = await openStream(adminToken());
    expect(stream.status).toBe(200);
    await ready(stream);
    const started = Date.now();
    const id = await addParam('live.first', 'value-never-sent-1');
    await until(() => stream.messages.some((message) => message.key === id));
    const elapsed = Date.now() - started;
    const message = stream.messages.find((item) => item.key === id);
    expect(message).toMatchObject({ type: 'record.added', entity: 'sysparam', isMine: true });
    expect(message?.changed).toContain('paramValue');
    expect(stream.text()).not.toContain('value-never-sent-1');
    // The add's own request and answer are part of the second.
    expect(elapsed).toBeLessThan(1_000);
    stream.close();
  });

  it('is not told of a change rolled back', async () => {
    const stream = await openStream(adminToken());
    await ready(stream);
    const clash = await call(writer, writerAdmin, 'POST', '/api/admin/sysparam/add', {
      paramKey: 'live.first',
      paramName: 'again',
      paramValue: 'v',
    });
    expect(clash.status).toBe(409);
    const marker = await addParam('live.marker', 'v');
    await until(() => stream.messages.some((message) => message.key === marker));
    expect(stream.messages.map((message) => message.key)).toEqual([marker]);
    stream.close();
  });

  it('resumes from the outbox after Last-Event-ID', async () => {
    const stream = await openStream(adminToken());
    await ready(stream);
    const first = await addParam('live.resume1', 'v');
    await until(() => stream.messages.some((message) => message.key === first));
    const lastId = stream.messages[stream.messages.length - 1]?.id ?? 0;
    stream.close();
    const missed = await addParam('live.resume2', 'v');
    const again = await openStream(adminToken(), lastId);
    await until(() => again.messages.some((message) => message.key === missed));
    expect(again.messages.some((message) => message.key === first)).toBe(false);
    again.close();
  });

  /** An event id taken now (as a transaction that commits later takes it) and not yet committed. */
  const takeEventId = async (): Promise<number> => {
    const [taken] = await t.sql<{ id: string }>(
      "select nextval(pg_get_serial_sequence('sys_event', 'id'))::text as id",
    );
    return Number(taken?.id);
  };
  /** Commits the event of an id taken before: a change of a parameter, after higher ids committed. */
  const commitLate = (id: number, key: string) =>
    t.sql(
      `insert into sys_event (id, tenant_code, type, entity, record_key, username, version, changed)
        values ($1, 'default', 'record.changed', 'sysparam', $2, 'late', 2, '["paramName"]')`,
      [id, key],
    );

  it('tells an event that commits after a higher id, live', async () => {
    const stream = await openStream(adminToken());
    await ready(stream);
    const late = await takeEventId();
    const key = await addParam('live.late.live', 'v');
    await until(() => stream.messages.some((message) => message.key === key));
    // Not told before it commits (what committed before the stream opened may still arrive).
    expect(stream.messages.some((message) => message.id === late)).toBe(false);
    await commitLate(late, key);
    await until(() => stream.messages.some((message) => message.id === late));
    expect(stream.messages.find((message) => message.id === late)).toMatchObject({
      type: 'record.changed',
      key,
      changed: ['paramName'],
    });
    stream.close();
  });

  it('resumes with the events that committed late below the last id (the cursor names them)', async () => {
    const stream = await openStream(adminToken());
    await ready(stream);
    const late = await takeEventId();
    const key = await addParam('live.late.resume', 'v');
    await until(() => stream.messages.some((message) => message.key === key));
    const told = stream.messages.find((message) => message.key === key);
    // The cursor: the last id, and the lower id that had not committed then.
    const cursor = stream.cursor() ?? '';
    expect(cursor).toMatch(new RegExp(`^${told?.id};(\\d+,)*${late}(,\\d+)*$`));
    stream.close();
    await commitLate(late, key);
    const again = await openStream(adminToken(), cursor);
    await ready(again);
    await until(() => again.messages.some((message) => message.id === late));
    // What the client had is not told again.
    expect(again.messages.map((message) => message.id)).toEqual([late]);
    again.close();
    // A plain last id (an older client) resumes without it: the gap is what the cursor closes.
    const plain = await openStream(adminToken(), told?.id);
    await ready(plain);
    expect(plain.messages.some((message) => message.id === late)).toBe(false);
    plain.close();
  });
});

describe("a notice reaches its recipients' open inboxes", () => {
  it('tells the recipient (without the notification list) and no one else, with no text of it', async () => {
    const role = await t.request({
      method: 'POST',
      url: '/api/admin/sysrole/add',
      headers: t.auth,
      payload: { roleCode: 'ROLE_LIVE_INBOX', roleName: 'inbox only' },
    });
    expect(role.statusCode, role.body).toBe(200);
    const recipient = await createUserWithRole(t, 'liveinbox1', 'ROLE_LIVE_INBOX');
    const bystander = await createUserWithRole(t, 'liveinbox2', 'ROLE_LIVE_INBOX');
    const [toRecipient, toBystander, toAdmin] = await Promise.all([
      openStream(recipient.token),
      openStream(bystander.token),
      openStream(adminToken()),
    ]);
    await Promise.all([ready(toRecipient), ready(toBystander), ready(toAdmin)]);
    const sent = await call(writer, writerAdmin, 'POST', '/api/admin/notification/add', {
      title: 'live-notice-title-1',
      content: '<p>live-notice-body-1</p>',
      type: 'message',
      priority: '2',
      publishObject: [recipient.id],
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const id = String(sent.body.data?.id);
    await until(() => toRecipient.messages.some((message) => message.key === id));
    expect(toRecipient.messages.find((message) => message.key === id)).toMatchObject({
      type: 'record.added',
      entity: 'notification',
      inbox: true,
      changed: [],
    });
    expect(toRecipient.text()).not.toContain('live-notice');
    // The administrator lists every notification (told, as a record) but did not receive this one.
    await until(() => toAdmin.messages.some((message) => message.key === id));
    expect(toAdmin.messages.find((message) => message.key === id)?.inbox).toBeUndefined();
    const marker = await addParam('live.inbox.marker', 'v');
    await until(() => toAdmin.messages.some((message) => message.key === marker));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(toBystander.messages).toEqual([]);
    for (const stream of [toRecipient, toBystander, toAdmin]) stream.close();
  });
});

describe('the read policy', () => {
  it("never tells tenant B's session of tenant A's events", async () => {
    const created = await t.request({
      method: 'POST',
      url: '/api/admin/systenant/add',
      headers: t.auth,
      payload: { tenantCode: 'livebeta', tenantName: 'Live Beta Co.' },
    });
    expect(created.statusCode, created.body).toBe(200);
    const admin = data<{ admin: { username: string; initialPassword: string } }>(created).admin;
    const beta = await signInAt(base, admin.username, admin.initialPassword, 'livebeta');
    const betaOnWriter = await signInAt(writer, admin.username, admin.initialPassword, 'livebeta');
    const stream = await openStream(beta);
    await ready(stream);
    const alphas = await addParam('live.alpha', 'secret-of-alpha');
    const betas = await addParam('live.beta', 'v', betaOnWriter);
    await until(() => stream.messages.some((message) => message.key === betas));
    expect(stream.messages.some((message) => message.key === alphas && message.entity === 'sysparam')).toBe(
      false,
    );
    // Of the parameters, only its own tenant's (the tenant's own earlier events, such as its
    // administrator's creation, may still arrive: they committed just before the stream opened).
    expect(
      stream.messages.filter((message) => message.entity === 'sysparam').map((message) => message.key),
    ).toEqual([betas]);
    expect(stream.text()).not.toContain('secret-of-alpha');
    stream.close();
  });

  it('never names a field the role cannot see, nor tells a role without the list', async () => {
    const role = await t.request({
      method: 'POST',
      url: '/api/admin/sysrole/add',
      headers: t.auth,
      payload: { roleCode: ROLE, roleName: ROLE },
    });
    expect(role.statusCode, role.body).toBe(200);
    const url = await t.request({
      method: 'POST',
      url: '/api/admin/sysurl/add',
      headers: t.auth,
      payload: { url: '/api/admin/sysparam/**' },
    });
    expect(url.statusCode, url.body).toBe(200);
    const granted = await t.request({
      method: 'POST',
      url: '/api/admin/sysurl/authorizeRoleToUrl',
      headers: t.auth,
      payload: { urlId: data(url).id, roleIds: [data(role).id] },
    });
    expect(granted.statusCode, granted.body).toBe(200);
    const hidden = await t.request({
      method: 'POST',
      url: '/api/admin/sysmenu/authorizeMenuDataToRole',
      headers: t.auth,
      payload: { menuCode: 'sysparam', rows: [{ roleCode: ROLE, dataFields: ['paramValue'] }] },
    });
    expect(hidden.statusCode, hidden.body).toBe(200);
    const user = await createUserWithRole(t, 'livehidden', ROLE);
    const nobody = await t.request({
      method: 'POST',
      url: '/api/admin/sysrole/add',
      headers: t.auth,
      payload: { roleCode: 'ROLE_LIVE_NONE', roleName: 'none' },
    });
    expect(nobody.statusCode, nobody.body).toBe(200);
    const other = await createUserWithRole(t, 'livenone', 'ROLE_LIVE_NONE');
    const [seeing, blind, admin] = await Promise.all([
      openStream(user.token),
      openStream(other.token),
      openStream(adminToken()),
    ]);
    await Promise.all([ready(seeing), ready(blind), ready(admin)]);
    const id = await addParam('live.hidden', 'hidden-value-1');
    await until(() => seeing.messages.some((message) => message.key === id));
    await until(() => admin.messages.some((message) => message.key === id));
    const told = seeing.messages.find((message) => message.key === id);
    expect(told?.changed).toContain('paramKey');
    expect(told?.changed).not.toContain('paramValue');
    expect(seeing.text()).not.toContain('paramValue');
    expect(seeing.text()).not.toContain('hidden-value-1');
    expect(admin.messages.find((message) => message.key === id)?.changed).toContain('paramValue');
    // The admin's later change shows the blind stream has been handed everything before it.
    const after = await addParam('live.hidden2', 'v');
    await until(() => admin.messages.some((message) => message.key === after));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(blind.messages).toEqual([]);
    for (const stream of [seeing, blind, admin]) stream.close();
  });
});

describe('the stream ends and is budgeted', () => {
  it('ends on sign-out', async () => {
    const token = await signInAt(base, 'admin', ADMIN_PASSWORD);
    const stream = await openStream(token);
    await ready(stream);
    const out = await fetch(`${writer}/api/uaa/oauth/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(out.status).toBe(200);
    await until(() => stream.isEnded(), 3_000);
    const again = await openStream(token);
    expect(again.status).toBe(401);
  });

  it('answers 406 to a request that does not accept an event stream', async () => {
    const answer = await fetch(`${base}/api/events/stream`, {
      headers: { authorization: t.auth.authorization },
    });
    expect(answer.status).toBe(406);
    expect(((await answer.json()) as { message: string }).message).toContain('text/event-stream');
  });

  it('refuses a sixth stream of one session with 429', async () => {
    const token = await signInAt(base, 'admin', ADMIN_PASSWORD);
    const streams = [];
    for (let index = 0; index < 5; index += 1) streams.push(await openStream(token));
    expect(streams.map((stream) => stream.status)).toEqual([200, 200, 200, 200, 200]);
    const sixth = await openStream(token);
    expect(sixth.status).toBe(429);
    for (const stream of streams) stream.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const later = await openStream(token);
    expect(later.status).toBe(200);
    later.close();
  });
});
