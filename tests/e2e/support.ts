import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { chromium, type Browser } from 'playwright-core';

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

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    headless: true,
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface RunningServer {
  url: string;
  adminPassword: string;
  /** DATA_DIR of the server: its SMS, mail and captcha outboxes (sms-, mail-, captcha-outbox.jsonl). */
  dataDir: string;
  stop(): Promise<void>;
}

/** Starts the real server (built front-ends, fresh embedded database) as a child process. */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'ecobid-e2e-'));
  const adminPassword = 'e2e-admin-pass';
  // The captcha outbox preload writes each character captcha's answer beside the other outboxes.
  const preload = ['--import', 'tsx', '--import', './tests/e2e/captcha-outbox.mjs'];
  const child: ChildProcess = spawn(process.execPath, [...preload, 'src/server/main.ts'], {
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
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
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
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
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

/** A minimal runner printing one line per check and the closing 'N passed, N failed' line. */
export async function runChecks(checks: Check[]): Promise<boolean> {
  let passed = 0;
  let failed = 0;
  for (const check of checks) {
    const started = Date.now();
    try {
      await check.run();
      passed += 1;
      console.log(`  ✓ ${check.name} (${Date.now() - started} ms)`);
    } catch (error) {
      failed += 1;
      console.log(
        `  ✗ ${check.name}\n    ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    }
  }
  console.log(`\n${passed} passed, ${failed} failed`);
  return failed === 0;
}
