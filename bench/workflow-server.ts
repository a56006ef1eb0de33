/**
 * Child process of the workflow benchmark: boots the real app (buildApp, as main.ts does) on
 * the database the parent chose, listens on loopback, deploys the benchmark's process and tells
 * the parent over IPC. On request it also runs bare `select 1` round trips through the app's own
 * database pool (the same number of concurrent clients), and on PostgreSQL counts the statements
 * the app sends (pg's Client.query), so the parent can put the figure beside the bare SQL rate.
 */
import pg from 'pg';
import { sql } from 'kysely';
import { buildApp } from '../src/server/app.js';
import { readConfig } from '../src/server/lib/config.js';
import { ADMIN_PASSWORD, signIn } from './lib/util.js';

export interface WorkflowServerReady {
  type: 'ready';
  url: string;
  token: string;
  bootMs: number;
}

/** start → two user tasks assigned to the starter → end. */
export const TWO_TASKS = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="bench">
  <process id="bench_two_tasks" name="Bench" isExecutable="true">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="first"/>
    <userTask id="first" name="First" camunda:assignee="\${initiator}"/>
    <sequenceFlow id="f2" sourceRef="first" targetRef="second"/>
    <userTask id="second" name="Second" camunda:assignee="\${initiator}"/>
    <sequenceFlow id="f3" sourceRef="second" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>`;

let statements = 0;
const originalQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
  this: unknown,
  ...args: unknown[]
) {
  statements += 1;
  return originalQuery.apply(this, args);
};

const send = (message: unknown): void => {
  process.send?.(message);
};

async function main(): Promise<void> {
  const began = Date.now();
  const config = readConfig({ ...process.env, ADMIN_PASSWORD, LOG_LEVEL: 'warn' } as Record<string, string>);
  const { app } = await buildApp({ config });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const token = await signIn(address);
  const deployed = await fetch(`${address}/api/activiti/deployment/deployXml`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ xml: TWO_TASKS }),
  });
  if (deployed.status !== 200) throw new Error(`deploy failed: ${deployed.status} ${await deployed.text()}`);
  process.on('message', (message: { type?: string; seconds?: number; clients?: number }) => {
    if (message.type === 'stop') {
      void app.close().then(() => process.exit(0));
    } else if (message.type === 'statements') {
      send({ type: 'statements', statements });
    } else if (message.type === 'bare') {
      const until = Date.now() + (message.seconds ?? 5) * 1000;
      let trips = 0;
      const loop = async (): Promise<void> => {
        while (Date.now() < until) {
          await sql`select 1`.execute(app.ctx.db);
          trips += 1;
        }
      };
      void Promise.all(Array.from({ length: message.clients ?? 10 }, loop)).then(() =>
        send({ type: 'bare', tripsPerSecond: trips / (message.seconds ?? 5) }),
      );
    }
  });
  send({ type: 'ready', url: address, token, bootMs: Date.now() - began } satisfies WorkflowServerReady);
}

main().catch((error: unknown) => {
  send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
