import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportJob } from '../../src/engine/api-types.js';
import { Api, data, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { fileUpload } from '../support/multipart.js';
import { PING_BUDGET_MS } from '../support/stall.js';

/**
 * Import at scale (issue 39, point 4): IMPORT_USERS users (each a password to hash) imported as a
 * background job while a second client pings. The job's answer comes at once, its progress moves,
 * every user is written, and the pings while passwords are hashed stay within PING_BUDGET_MS.
 * Prints the time and the worst ping of each phase. 400 users unless set, to keep CI's time; the
 * measured runs set 5,000 or 50,000.
 */

const USERS = Number(process.env.IMPORT_USERS ?? 400);

const PING = { method: 'GET', url: '/api/notification/home/params' } as const;

let t: TestApp;
let api: Api;
beforeAll(async () => {
  t = await startTestApp();
  api = new Api(t);
});
afterAll(async () => {
  await t?.close();
});

describe(`import of ${USERS} users as a background job`, () => {
  it('answers the job at once, hashes off the event loop, pings stay answered, every user is written', async () => {
    const roles = await api.records(t.app.ctx.registry.require('sysrole'));
    const role = roles.find((item) => item.roleCode === 'ROLE_ADMIN') as Row;
    const org = (await api.records(t.app.ctx.registry.require('sysorg')))[0] as Row;
    const lines = ['username,nickname,password,email,countryCode,mobile,phone,status,roleId,orgId'];
    for (let i = 0; i < USERS; i += 1)
      lines.push(
        `scale${i},Scale ${i},pass-${i}-word,scale${i}@example.com,+86,${13700000000 + i},010-${i},1,${String(role.id)},${String(org.id)}`,
      );
    const form = fileUpload('users.csv', Buffer.from(lines.join('\n')), { type: 'text/csv' });
    const started = performance.now();
    const response = await t.request({
      method: 'POST',
      url: '/api/admin/sysuser/import?background=true',
      headers: { ...t.auth, ...form.headers },
      payload: form.payload,
    });
    const answeredMs = performance.now() - started;
    expect(response.statusCode, response.body).toBe(200);
    const { id } = data<ImportJob>(response);
    // A second client pings every 100 ms; each ping is timed from when it was due (stall.ts) and
    // counted under the job's phase at that moment.
    let phase = 'reading';
    let job: ImportJob | undefined;
    const pings = new Map<string, number[]>();
    const progress: number[] = [];
    let lastPoll = 0;
    while (!job || job.status === 'running') {
      const due = performance.now() + 100;
      await new Promise((resolve) => setTimeout(resolve, 100));
      const ping = await t.request(PING);
      expect(ping.statusCode).toBe(200);
      pings.set(phase, [...(pings.get(phase) ?? []), performance.now() - due]);
      if (performance.now() - lastPoll < 1000) continue;
      lastPoll = performance.now();
      job = data<ImportJob>(
        await t.request({ method: 'GET', url: `/api/import/job?id=${id}`, headers: t.auth }),
      );
      phase = job.phase ?? phase;
      progress.push(job.done);
    }
    const totalMs = performance.now() - started;
    const worst = (name: string): number => Math.max(0, ...(pings.get(name) ?? []));
    console.log(
      `import of ${USERS} users (background job): job answered in ${Math.round(answeredMs)} ms, done in ${Math.round(totalMs / 1000)} s; pings by phase: ${[...pings.entries()].map(([name, list]) => `${name} ${list.length} pings, worst ${Math.round(worst(name))} ms`).join('; ')} (limit ${PING_BUDGET_MS} ms); progress polled ${progress.length} times, last ${progress.slice(-5).join(',')}`,
    );
    expect(job.status, JSON.stringify(job.error)).toBe('done');
    expect(job.result?.imported).toBe(USERS);
    expect(answeredMs).toBeLessThan(5_000);
    expect(new Set(progress).size).toBeGreaterThan(1);
    const [stored] = await t.sql<{ n: number }>(
      `select count(*)::int as n from sys_user where username like 'scale%' and password like 'scrypt$%'`,
    );
    expect(stored?.n).toBe(USERS);
    // Hashing (the long part) runs off the event loop and outside the transaction: pings stay
    // answered. The rows are then checked and written in one transaction, which on the embedded
    // database holds its one connection (the printed figure; not asserted).
    expect(worst('hashing')).toBeLessThan(PING_BUDGET_MS);
  }, 1_800_000);
});
