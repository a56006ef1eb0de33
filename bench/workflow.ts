/**
 * workflow: instances per second of "start + complete two user tasks" through the HTTP API,
 * everything persisted, with BENCH_CONNECTIONS (10) concurrent clients, on PGlite and
 * PostgreSQL. Each client loops: POST processinstance/start, GET task/queryPersonalTask for the
 * instance, POST task/completeTask, again for the second task (5 requests per instance). Beside
 * it: bare `select 1` round trips per second through the same pool and clients, and on
 * PostgreSQL the SQL statements one instance costs (round trips the app needs).
 * Goal (issue 12): at least 300 instances/s on PostgreSQL.
 */
import type { WorkflowServerReady } from './workflow-server.js';
import { figure, type Figure, type SuiteResult } from './lib/report.js';
import {
  createDatabase,
  envNumber,
  median,
  round,
  sleep,
  spawnNode,
  tempDir,
  type DbKind,
} from './lib/util.js';

const SUITE = 'workflow';
const GOAL_POSTGRES = 300;

interface Server {
  ready: WorkflowServerReady;
  ask: <T>(message: Record<string, unknown>, answer: string) => Promise<T>;
  stop: () => Promise<void>;
}

async function startServer(kind: DbKind): Promise<Server> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DATABASE_URL;
  const cleanups: (() => Promise<void>)[] = [];
  const dir = tempDir(`workflow-${kind}`);
  env.DATA_DIR = dir.path;
  cleanups.push(dir.remove);
  if (kind === 'postgres') {
    const database = await createDatabase('workflow');
    env.DATABASE_URL = database.url;
    cleanups.unshift(database.drop);
  }
  const child = spawnNode('bench/workflow-server.ts', { env, ipc: true });
  cleanups.unshift(child.stop);
  const stop = async (): Promise<void> => {
    if (child.process.connected) child.process.send({ type: 'stop' });
    await Promise.race([child.exited, sleep(10_000)]);
    for (const cleanup of cleanups) await cleanup();
  };
  const ask = <T>(message: Record<string, unknown>, answer: string): Promise<T> =>
    new Promise<T>((resolve) => {
      const listen = (reply: { type?: string }): void => {
        if (reply.type !== answer) return;
        child.process.off('message', listen);
        resolve(reply as T);
      };
      child.process.on('message', listen);
      child.process.send(message);
    });
  try {
    const ready = await new Promise<WorkflowServerReady>((resolve, reject) => {
      child.process.on('message', (message: { type?: string; message?: string }) => {
        if (message.type === 'ready') resolve(message as WorkflowServerReady);
        if (message.type === 'error')
          reject(new Error(`workflow server (${kind}) failed: ${message.message}`));
      });
      void child.exited.then((code) =>
        reject(new Error(`workflow server (${kind}) exited with ${code}:\n${child.output()}`)),
      );
    });
    return { ready, ask, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** One instance, start to end, through the API. */
async function oneInstance(url: string, headers: Record<string, string>): Promise<void> {
  const json = async (response: Response): Promise<{ data: Record<string, unknown> }> => {
    if (response.status !== 200)
      throw new Error(`${response.url}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { data: Record<string, unknown> };
  };
  const post = (path: string, body: unknown): Promise<Response> =>
    fetch(`${url}/api/activiti/${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const started = await json(
    await post('processinstance/start', { processDefinitionKey: 'bench_two_tasks', description: 'bench' }),
  );
  for (let step = 0; step < 2; step += 1) {
    const tasks = await json(
      await fetch(`${url}/api/activiti/task/queryPersonalTask?processInstanceId=${String(started.data.id)}`, {
        headers,
      }),
    );
    const [task] = tasks.data.records as { id: number }[];
    if (!task) throw new Error(`no open task of instance ${String(started.data.id)}`);
    await json(await post('task/completeTask', { id: task.id, comment: 'ok' }));
  }
}

async function drive(
  url: string,
  token: string,
  seconds: number,
  clients: number,
): Promise<{ instances: number; perSecond: number; latencies: number[] }> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const until = Date.now() + seconds * 1000;
  const latencies: number[] = [];
  const began = Date.now();
  const client = async (): Promise<void> => {
    while (Date.now() < until) {
      const at = performance.now();
      await oneInstance(url, headers);
      latencies.push(performance.now() - at);
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  const elapsed = (Date.now() - began) / 1000;
  return { instances: latencies.length, perSecond: latencies.length / elapsed, latencies };
}

export async function runWorkflow(kinds: DbKind[], log: (line: string) => void): Promise<SuiteResult> {
  const seconds = envNumber('BENCH_DURATION', 8);
  const warmup = envNumber('BENCH_WARMUP', 3);
  const rounds = envNumber('BENCH_ROUNDS', 3);
  const clients = envNumber('BENCH_CONNECTIONS', 10);
  const figures: Figure[] = [];
  const details: Record<string, unknown> = {};
  for (const kind of kinds) {
    const server = await startServer(kind);
    try {
      const { url, token } = server.ready;
      log(`  ${kind}: app booted in ${server.ready.bootMs} ms`);
      await drive(url, token, warmup, clients);
      const runs: { perSecond: number; p50Ms: number }[] = [];
      let statementsPerInstance = NaN;
      for (let index = 1; index <= rounds; index += 1) {
        const before = await server.ask<{ statements: number }>({ type: 'statements' }, 'statements');
        const result = await drive(url, token, seconds, clients);
        const after = await server.ask<{ statements: number }>({ type: 'statements' }, 'statements');
        if (kind === 'postgres')
          statementsPerInstance = (after.statements - before.statements) / result.instances;
        const p50Ms = median(result.latencies);
        runs.push({ perSecond: result.perSecond, p50Ms });
        log(
          `  ${kind} round ${index}: ${round(result.perSecond, 1)} instances/s (${result.instances}), p50 ${round(p50Ms, 1)} ms per instance`,
        );
      }
      const bare = await server.ask<{ tripsPerSecond: number }>({ type: 'bare', seconds, clients }, 'bare');
      const perSecond = median(runs.map((run) => run.perSecond));
      log(`  ${kind}: bare select 1: ${round(bare.tripsPerSecond)} round trips/s`);
      const goal = kind === 'postgres' ? { op: '>=' as const, value: GOAL_POSTGRES } : undefined;
      figures.push(
        figure(
          SUITE,
          `${kind}: instances/s (start + 2 tasks, ${clients} clients)`,
          round(perSecond, 1),
          'inst/s',
          goal,
        ),
        figure(
          SUITE,
          `${kind}: bare SQL round trips/s (${clients} clients)`,
          round(bare.tripsPerSecond),
          'trips/s',
        ),
      );
      if (kind === 'postgres' && Number.isFinite(statementsPerInstance)) {
        const ratio = (perSecond * statementsPerInstance) / bare.tripsPerSecond;
        figures.push(
          figure(SUITE, `${kind}: SQL statements per instance`, round(statementsPerInstance, 1), 'stmts'),
          figure(
            SUITE,
            `${kind}: app statements/s ÷ bare round trips/s`,
            round(ratio, 3),
            'ratio',
            undefined,
            'how much of the bare round-trip rate the app reaches while doing its statements',
          ),
        );
      }
      details[kind] = { runs, bare, statementsPerInstance };
    } finally {
      await server.stop();
    }
  }
  return { suite: SUITE, figures, details };
}
