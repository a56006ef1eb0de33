import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const ADMIN_PASSWORD = 'bench-admin-1';
export const BROWSER_CLIENT = `Basic ${Buffer.from('browser:').toString('base64')}`;
export const PG_SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export type DbKind = 'pglite' | 'postgres';

// ---------------------------------------------------------------------------------------------
// Cleanup: every temp dir, database and child process is registered here and released in
// reverse order, on success, on failure and on Ctrl-C.

type Cleanup = () => Promise<void> | void;
const cleanups: Cleanup[] = [];

export function onCleanup(cleanup: Cleanup): () => Promise<void> {
  cleanups.push(cleanup);
  let isDone = false;
  return async () => {
    if (isDone) return;
    isDone = true;
    const index = cleanups.indexOf(cleanup);
    if (index >= 0) cleanups.splice(index, 1);
    await cleanup();
  };
}

export async function cleanupAll(): Promise<void> {
  while (cleanups.length > 0) {
    const cleanup = cleanups.pop();
    try {
      await cleanup?.();
    } catch (error) {
      console.error('cleanup failed:', error instanceof Error ? error.message : error);
    }
  }
}

export function tempDir(label: string): { path: string; remove: () => Promise<void> } {
  const path = mkdtempSync(join(tmpdir(), `ecobid-bench-${label}-`));
  const remove = onCleanup(() => rmSync(path, { recursive: true, force: true }));
  return { path, remove };
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL: a fresh database per benchmark, dropped afterwards.

export async function isPostgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_SERVER_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_SERVER_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

export async function createDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `ecobid_bench_${label}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const drop = onCleanup(() => adminQuery(`drop database if exists ${name} with (force)`));
  const url = new URL(PG_SERVER_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop };
}

/**
 * A database kept between runs (BENCH_SCALE_DATABASE): created when missing, never dropped here.
 * `created` says whether it is new (so the caller seeds it).
 */
export async function keptDatabase(name: string): Promise<{ url: string; created: boolean }> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
  const client = new pg.Client({ connectionString: PG_SERVER_URL });
  await client.connect();
  let created = false;
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rows.length === 0) {
      await client.query(`create database ${name}`);
      created = true;
    }
  } finally {
    await client.end();
  }
  const url = new URL(PG_SERVER_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), created };
}

// ---------------------------------------------------------------------------------------------
// Child processes

export interface Child {
  process: ChildProcess;
  pid: number;
  output(): string;
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/**
 * Starts `node --import tsx <script>` (plain `node` for isTypeScript: false) from the repository root. Output is kept (the last 64 KiB)
 * for error messages. stop() sends SIGTERM, then SIGKILL after a grace period.
 */
export function spawnNode(
  script: string,
  options: {
    env?: NodeJS.ProcessEnv;
    args?: string[];
    nodeArgs?: string[];
    ipc?: boolean;
    isTypeScript?: boolean;
    /** Another checkout to run from (the scale suite's "before"); the repository root otherwise. */
    cwd?: string;
  } = {},
): Child {
  const loader = options.isTypeScript === false || script.endsWith('.js') ? [] : ['--import', 'tsx'];
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), ...loader, script, ...(options.args ?? [])],
    {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? process.env,
      stdio: options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
    },
  );
  if (child.pid === undefined) throw new Error(`could not start ${script}`);
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-65536);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
  const stop = onCleanup(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  });
  return { process: child, pid: child.pid, output: () => output, exited, stop };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once anything answers HTTP on the port (any status counts); polls every few ms. */
export async function waitForHttp(port: number, child: Child, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let hasExited = false;
  void child.exited.then(() => {
    hasExited = true;
  });
  for (;;) {
    if (hasExited) throw new Error(`server exited before answering HTTP:\n${child.output()}`);
    if (Date.now() > deadline)
      throw new Error(`server did not answer HTTP within ${timeoutMs} ms:\n${child.output()}`);
    const isUp = await new Promise<boolean>((resolve) => {
      const request = http.get(
        { host: '127.0.0.1', port, path: '/api/uaa/users/getSysUser', agent: false, timeout: 1000 },
        (response) => {
          response.resume();
          resolve(true);
        },
      );
      request.on('error', () => resolve(false));
      request.on('timeout', () => {
        request.destroy();
        resolve(false);
      });
    });
    if (isUp) return;
    await sleep(5);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// HTTP helpers

/** A bearer token of a user of the default tenant (password grant of the browser client), as signInApp. */
export async function signIn(
  baseUrl: string,
  username = 'admin',
  password = ADMIN_PASSWORD,
): Promise<string> {
  const response = await fetch(`${baseUrl}/api/uaa/oauth/token`, {
    method: 'POST',
    headers: { authorization: BROWSER_CLIENT, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'password',
      scope: 'ui',
      client_id: 'browser',
      tenantCode: 'default',
      username,
      password,
    }).toString(),
  });
  const body = (await response.json()) as { access_token?: string };
  if (response.status !== 200 || !body.access_token)
    throw new Error(`sign-in of ${username} failed: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

// ---------------------------------------------------------------------------------------------
// Process memory (Linux /proc)

export interface Memory {
  rssMb: number;
  hwmMb: number;
}

export function readMemory(pid: number): Memory | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string): number =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/** CPU seconds (user and system, every thread) a process has used so far, from /proc/<pid>/stat. */
export function readCpuSeconds(pid: number): number {
  try {
    // The command name (field 2) may hold spaces: count the fields after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command name; in clock ticks (100 a second).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Samples VmRSS every few ms; peak() is the larger of the highest sample and the kernel's VmHWM. */
export function sampleMemory(
  pid: number,
  everyMs = 10,
): { stop(): { peakRssMb: number; hwmMb: number; samples: number } } {
  let peak = 0;
  let hwm = 0;
  let samples = 0;
  const take = (): void => {
    const memory = readMemory(pid);
    if (!memory) return;
    samples += 1;
    peak = Math.max(peak, memory.rssMb);
    hwm = Math.max(hwm, memory.hwmMb);
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop: () => {
      take();
      clearInterval(timer);
      return { peakRssMb: peak, hwmMb: hwm, samples };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Statistics

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? NaN)
    : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
}

export const round = (value: number, digits = 0): number => Math.round(value * 10 ** digits) / 10 ** digits;

export function envNumber(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/** What `npm start` runs: the bundled server. Built once per benchmark run, like npm start does. */
export const SERVER_ENTRY = 'dist/server/main.js';
let isServerBuilt = false;
export function ensureServerBuilt(): void {
  if (isServerBuilt) return;
  const result = spawnSync(process.execPath, ['scripts/build-server.mjs'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('building the server failed');
  isServerBuilt = true;
}
