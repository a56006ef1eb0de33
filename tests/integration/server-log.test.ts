/**
 * The server's log goes to stdout, which is a pipe under a process manager, `npm start | tee` or
 * a container runtime. A pipe cannot be synced, so flushing the buffered log before the start-up
 * banner must not stop the server (it did: "EINVAL: invalid argument, fsync"), and a request's
 * log line must still reach the pipe soon after the request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD } from '../support/app.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

describe('the server process logging to a pipe', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ecobid-log-'));
  let server: ServerProcess | undefined;

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts with the info log on a pipe and writes a request line within seconds', async () => {
    server = await startServerProcess(
      {
        DATA_DIR: dir,
        ADMIN_PASSWORD,
        LOG_LEVEL: 'info',
        SMS_OUTBOX: join(dir, 'sms.jsonl'),
        MAIL_OUTBOX: join(dir, 'mail.jsonl'),
      },
      180_000,
    );
    const running = server;
    expect(running.output()).toContain('Back-office:');
    const marker = `/api/no-such-route-${Date.now()}`;
    const answer = await fetch(`${running.url}${marker}`);
    expect(answer.status).toBe(404);
    const deadline = Date.now() + 10_000;
    while (!running.output().includes(marker) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const line = running
      .output()
      .split('\n')
      .find((text) => text.includes(marker));
    expect(line, 'the request is logged as a JSON line').toBeDefined();
    expect(() => JSON.parse(line ?? '')).not.toThrow();
  }, 240_000);
});
