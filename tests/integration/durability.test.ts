/**
 * No acknowledged write is lost when the server dies (issue 11): writers add records and note
 * every add the server answered 200; the server process is killed with SIGKILL (kill -9) while
 * adds are in flight; a new process on the same data starts cleanly and has every noted record.
 *
 * On the embedded database (PGlite on disk in a DATA_DIR of its own) this is the database's own
 * crash recovery; on PostgreSQL (TEST_DATABASE_URL, a fresh database) it is the server never
 * answering before its commit.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, BROWSER_CLIENT } from '../support/app.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

const serverUrl = process.env.TEST_DATABASE_URL;
const WRITERS = 4;
/** Acknowledged adds after which the server is killed (more are in flight by then). */
const KILL_AFTER = 120;

async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

async function signIn(server: ServerProcess): Promise<string> {
  const response = await fetch(`${server.url}/api/uaa/oauth/token`, {
    method: 'POST',
    headers: { authorization: BROWSER_CLIENT, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'password',
      scope: 'ui',
      client_id: 'browser',
      tenantCode: 'default',
      username: 'admin',
      password: ADMIN_PASSWORD,
    }).toString(),
  });
  const answer = (await response.json()) as { access_token?: string };
  expect(response.status, JSON.stringify(answer)).toBe(200);
  return answer.access_token ?? '';
}

describe(`durability on ${serverUrl ? 'PostgreSQL' : 'the embedded database'}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'ecobid-durability-'));
  const database = `ecobid_test_durable_${randomBytes(6).toString('hex')}`;
  const env: Record<string, string> = {
    DATA_DIR: dir,
    ADMIN_PASSWORD,
    SMS_OUTBOX: join(dir, 'sms.jsonl'),
    MAIL_OUTBOX: join(dir, 'mail.jsonl'),
  };
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    if (!serverUrl) return;
    await onServer(`create database ${database}`);
    const url = new URL(serverUrl);
    url.pathname = `/${database}`;
    env.DATABASE_URL = url.toString();
  });

  afterAll(async () => {
    await server?.stop();
    if (serverUrl) await onServer(`drop database if exists ${database} with (force)`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged add across a kill -9 mid-stream, and starts cleanly after it', async () => {
    const first = await startServerProcess(env);
    server = first;
    const token = await signIn(first);
    const acknowledged = new Map<number, string>();
    let isKilled = false;
    let failedBeforeKill = '';

    const writer = async (writerId: number): Promise<void> => {
      for (let n = 0; !isKilled; n += 1) {
        const paramKey = `durable.w${writerId}.n${n}`;
        try {
          const response = await fetch(`${first.url}/api/admin/sysparam/add`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ paramKey, paramName: `durable ${writerId}/${n}`, paramValue: String(n) }),
          });
          const answer = (await response.json()) as { data?: { id?: number } };
          if (response.status === 200 && typeof answer.data?.id === 'number') {
            acknowledged.set(answer.data.id, paramKey);
          } else if (!isKilled) {
            failedBeforeKill ||= `${response.status} ${JSON.stringify(answer)}`;
            return;
          }
        } catch (error) {
          // Cut off by the kill: not acknowledged, so it may or may not have been kept.
          if (!isKilled) failedBeforeKill ||= String(error);
          return;
        }
      }
    };
    const killer = async (): Promise<void> => {
      while (acknowledged.size < KILL_AFTER && !failedBeforeKill) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      isKilled = true;
      await first.kill();
    };
    await Promise.all([...Array.from({ length: WRITERS }, (_unused, index) => writer(index)), killer()]);
    expect(failedBeforeKill).toBe('');
    expect(acknowledged.size).toBeGreaterThanOrEqual(KILL_AFTER);

    const second = await startServerProcess(env);
    server = second;
    // Start-up after the crash is clean: the banner, and nothing that looks like trouble.
    expect(second.output()).not.toMatch(/error|fatal|panic|corrupt|warn/i);
    const query = new URLSearchParams({ paramKey: 'durable.', pageSize: '10000' });
    const response = await fetch(`${second.url}/api/admin/sysparam/query?${query}`, {
      headers: { authorization: `Bearer ${await signIn(second)}` },
    });
    expect(response.status).toBe(200);
    const page = (await response.json()) as { data: { records: { id: number; paramKey: string }[] } };
    const kept = new Map(page.data.records.map((record) => [record.id, record.paramKey]));
    const lost = [...acknowledged].filter(([id, paramKey]) => kept.get(id) !== paramKey);
    expect(lost, `${lost.length} of ${acknowledged.size} acknowledged adds lost`).toEqual([]);
    // The database took new writes after recovery.
    const after = await fetch(`${second.url}/api/admin/sysparam/add`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await signIn(second)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ paramKey: 'durable.after', paramName: 'after the crash' }),
    });
    expect(after.status).toBe(200);
  }, 240_000);
});
