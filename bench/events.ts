/**
 * events: live-update streams and webhooks (issue 37).
 *
 *   npm run bench -- events [pglite|postgres]
 *
 * The built server (dist/server/main.js) in a child process, this process its clients:
 * 1. The added latency of a mutation (POST /api/admin/sysparam/add, sequential, BENCH_EVENTS_ADDS
 *    each side) with 10 enabled webhooks of every event (posting to a receiver here answering 200)
 *    against none: median with / median without (goal: below 1.1). Sides alternate in rounds, so
 *    both see the same machine load.
 * 2. BENCH_EVENTS_STREAMS (1,000) open live streams (GET /api/events/stream) held by the one
 *    process: 100 users of ROLE_ADMIN, 2 sessions each, 5 streams a session (the budgets). The
 *    server's RSS a stream (from an idle baseline, after the first half and after all: a flat
 *    figure is the same for both halves), and the time from a change's answer until every stream
 *    has its event.
 *
 * BENCH_EVENTS_BEFORE=<another checkout, its server built> also starts that checkout's server
 * (its own database) and measures (1) on it in the same rounds, the two servers taking turns,
 * for a before/after comparison in one run. BENCH_EVENTS_STREAMS=0 leaves (2) out.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { figure, perDatabase, type Figure, type SuiteResult } from './lib/report.js';
import {
  ADMIN_PASSWORD,
  createDatabase,
  ensureServerBuilt,
  envNumber,
  freePort,
  median,
  readMemory,
  round,
  SERVER_ENTRY,
  signIn,
  sleep,
  spawnNode,
  tempDir,
  waitForHttp,
  type Child,
  type DbKind,
} from './lib/util.js';

const STREAMS = envNumber('BENCH_EVENTS_STREAMS', 1_000);
const ADDS = envNumber('BENCH_EVENTS_ADDS', 200);
const ROUNDS = 4;
const HOOKS = 10;
const PASSWORD = 'bench-live-1';
const BEFORE_ROOT = process.env.BENCH_EVENTS_BEFORE;

const round2 = (value: number): number => round(value, 2);
const loadAverage = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

async function call(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const answer = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await answer.text();
  if (answer.status !== 200) throw new Error(`${method} ${path}: ${answer.status} ${text}`);
  return (JSON.parse(text) as { data: Record<string, unknown> }).data;
}

/** Adds `count` parameters one after another; answers each add's milliseconds. */
async function timedAdds(base: string, token: string, prefix: string, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const started = performance.now();
    await call(base, token, 'POST', '/api/admin/sysparam/add', {
      paramKey: `${prefix}.${index}`,
      paramName: `${prefix} ${index}`,
      paramValue: 'v',
    });
    times.push(performance.now() - started);
  }
  return times;
}

interface OpenStream {
  text: () => string;
  close: () => void;
}

function openStream(port: number, token: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    let text = '';
    const request = http.get(
      {
        host: '127.0.0.1',
        port,
        path: '/api/events/stream',
        agent: false,
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      },
      (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`stream: ${response.statusCode}`));
          response.resume();
          return;
        }
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          // Only the tail matters for the key looked for: keep the memory of this side small.
          text = (text + chunk).slice(-2048);
        });
        response.once('data', () => resolve({ text: () => text, close: () => request.destroy() }));
      },
    );
    request.on('error', reject);
  });
}

/** One server measured: the built server of this tree, or of the "before" checkout. */
interface Side {
  name: string;
  base: string;
  port: number;
  token: string;
  server: Child;
  without: number[];
  withHooks: number[];
  stop: () => Promise<void>;
}

async function startSide(kind: DbKind, name: string, root?: string): Promise<Side> {
  const dir = tempDir(`events-${name}`);
  const database = kind === 'postgres' ? await createDatabase(`events_${name}`) : undefined;
  const port = await freePort();
  // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the server process when it stops.
  const nodeArgs = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  const server = spawnNode(SERVER_ENTRY, {
    nodeArgs,
    ...(root ? { cwd: root } : {}),
    env: {
      ...process.env,
      ADMIN_PASSWORD,
      DATA_DIR: join(dir.path, 'data'),
      DATABASE_URL: database?.url ?? '',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1',
      RATE_LIMIT_TOKEN: '100000',
    },
  });
  try {
    await waitForHttp(port, server, 300_000);
  } catch (error) {
    await server.stop();
    await database?.drop();
    await dir.remove();
    throw error;
  }
  const base = `http://127.0.0.1:${port}`;
  return {
    name,
    base,
    port,
    token: await signIn(base),
    server,
    without: [],
    withHooks: [],
    stop: async () => {
      await server.stop();
      await database?.drop();
      await dir.remove();
    },
  };
}

/** One round of (1) on one server: adds without webhooks, then with 10 enabled, which are then disabled. */
async function mutationRound(side: Side, hookUrl: string, round: number): Promise<void> {
  const { base, token } = side;
  side.without.push(...(await timedAdds(base, token, `plain${round}`, ADDS / ROUNDS)));
  const hookIds: number[] = [];
  for (let index = 0; index < HOOKS; index += 1) {
    const hook = await call(base, token, 'POST', '/api/admin/syswebhook/add', {
      name: `bench ${round}.${index}`,
      url: hookUrl,
      secret: `bench-secret-${round}-${index}-0000`,
    });
    hookIds.push(Number(hook.id));
  }
  side.withHooks.push(...(await timedAdds(base, token, `hooked${round}`, ADDS / ROUNDS)));
  for (const id of hookIds)
    await call(base, token, 'PUT', '/api/admin/syswebhook/update', { id, isEnabled: false });
  // The deliveries still being posted are not left to the next measurement (of either server).
  await drained();
}

/** Deliveries the bench's receiver got. */
let delivered = 0;

/** Waits until the receiver got nothing for 2 s (at most 120 s). */
async function drained(): Promise<void> {
  const deadline = Date.now() + 120_000;
  let seen = -1;
  while (seen !== delivered && Date.now() < deadline) {
    seen = delivered;
    await sleep(2_000);
  }
}

async function measure(kind: DbKind): Promise<{ figures: Figure[]; details: unknown }> {
  const receiver = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      delivered += 1;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  ensureServerBuilt();
  const sides: Side[] = [];
  const streams: OpenStream[] = [];
  try {
    const app = await startSide(kind, 'app');
    sides.push(app);
    if (BEFORE_ROOT) sides.push(await startSide(kind, 'before', BEFORE_ROOT));
    const { base, token, server, port } = app;

    // 1. A mutation's latency with 10 webhooks and without (each server in turn, the order alternating).
    for (const side of sides) await timedAdds(side.base, side.token, 'warm', 30);
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) await mutationRound(side, hookUrl, round);
      log(
        `  ${kind} round ${round + 1} (load ${loadAverage()}): ${sides
          .map(
            (side) =>
              `${side.name} p50 ${round2(median(side.without.slice(-ADDS / ROUNDS)))} / ${round2(
                median(side.withHooks.slice(-ADDS / ROUNDS)),
              )} ms`,
          )
          .join(', ')}`,
      );
    }
    const figures: Figure[] = [];
    for (const side of sides) {
      const p50Without = median(side.without);
      const p50With = median(side.withHooks);
      const label = side.name === 'app' ? kind : `${kind} (before: ${BEFORE_ROOT ?? ''})`;
      log(
        `  ${label}: add p50 ${round(p50Without, 2)} ms without webhooks, ${round(p50With, 2)} ms with ${HOOKS}, ratio ${round(p50With / p50Without, 3)}`,
      );
      figures.push(
        figure(
          'events',
          `${label}: mutation p50 with ${HOOKS} webhooks / without`,
          p50With / p50Without,
          'ratio',
          side.name === 'app' ? { op: '<' as const, value: 1.1 } : undefined,
        ),
        figure('events', `${label}: mutation p50 without webhooks`, p50Without, 'ms'),
        figure('events', `${label}: mutation p50 with ${HOOKS} webhooks`, p50With, 'ms'),
      );
    }
    const mutationDetails = Object.fromEntries(
      sides.map((side) => [side.name, { without: side.without, withHooks: side.withHooks }]),
    );
    if (STREAMS <= 0) return { figures, details: { mutations: mutationDetails, load: loadAverage() } };

    // 2. Open live streams held by the one process.
    const roles = await call(base, token, 'GET', '/api/admin/sysrole/query?roleCode=ROLE_ADMIN&pageSize=10');
    const roleId = (roles.records as { id: number; roleCode: string }[]).find(
      (role) => role.roleCode === 'ROLE_ADMIN',
    )?.id;
    const users = Math.ceil(STREAMS / 10);
    const tokens: string[] = [];
    for (let index = 0; index < users; index += 1) {
      const username = `live${index}`;
      await call(base, token, 'POST', '/api/admin/sysuser/add', {
        username,
        nickname: username,
        password: PASSWORD,
        email: `${username}@example.com`,
        mobile: `1370000${String(index).padStart(4, '0')}`,
        phone: '010-1234',
        status: '1',
        roleId,
        orgId: 1,
      });
      tokens.push(await signIn(base, username, PASSWORD), await signIn(base, username, PASSWORD));
    }
    await sleep(2_000);
    const idleMb = readMemory(server.pid)?.rssMb ?? Number.NaN;
    const half = Math.floor(STREAMS / 2);
    const openUpTo = async (count: number): Promise<void> => {
      while (streams.length < count) {
        const batch: Promise<OpenStream>[] = [];
        for (let index = streams.length; index < Math.min(count, streams.length + 50); index += 1)
          batch.push(openStream(port, tokens[Math.floor(index / 5)] ?? token));
        streams.push(...(await Promise.all(batch)));
      }
    };
    await openUpTo(half);
    await sleep(2_000);
    const halfMb = readMemory(server.pid)?.rssMb ?? Number.NaN;
    await openUpTo(STREAMS);
    await sleep(2_000);
    const fullMb = readMemory(server.pid)?.rssMb ?? Number.NaN;
    const firstKb = ((halfMb - idleMb) * 1024) / half;
    const secondKb = ((fullMb - halfMb) * 1024) / (STREAMS - half);
    // One change told to every stream.
    const fanOut: number[] = [];
    for (let index = 0; index < 5; index += 1) {
      const added = await call(base, token, 'POST', '/api/admin/sysparam/add', {
        paramKey: `fan.${index}`,
        paramName: `fan ${index}`,
        paramValue: 'v',
      });
      const started = performance.now();
      const wanted = `"key":"${String(added.id)}"`;
      const deadline = Date.now() + 30_000;
      while (!streams.every((stream) => stream.text().includes(wanted))) {
        if (Date.now() > deadline) throw new Error('not every stream got the event within 30 s');
        await sleep(2);
      }
      fanOut.push(performance.now() - started);
    }
    log(
      `  ${kind}: ${STREAMS} streams, RSS ${round(idleMb)} → ${round(halfMb)} → ${round(fullMb)} MB; fan-out p50 ${round(median(fanOut))} ms`,
    );
    figures.push(
      figure('events', `${kind}: server RSS a live stream (first ${half})`, firstKb, 'KiB'),
      figure('events', `${kind}: server RSS a live stream (next ${STREAMS - half})`, secondKb, 'KiB'),
      figure('events', `${kind}: one change told to ${STREAMS} streams (p50)`, median(fanOut), 'ms'),
    );
    return {
      figures,
      details: { mutations: mutationDetails, idleMb, halfMb, fullMb, fanOut, streams: STREAMS },
    };
  } finally {
    for (const stream of streams) stream.close();
    for (const side of sides) await side.stop();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

let log: (line: string) => void = console.log;

export async function runEvents(kinds: DbKind[], logLine: (line: string) => void): Promise<SuiteResult> {
  log = logLine;
  return perDatabase('events', kinds, measure);
}
