import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { TestApp } from './app.js';

/**
 * The stall check of bounded work: while one hostile request runs, a second client's simple
 * request must still be answered quickly. Both go through the same app (the same event loop and,
 * on PGlite, the same database thread), so any work that holds either shows in the pings.
 */
export interface StallMeasure {
  /** The hostile request's answer and how long it took. */
  hostile: { status: number; ms: number; body: string };
  /** Each ping's time in ms, in the order sent. */
  pings: number[];
  /** The slowest ping. */
  worstPingMs: number;
}

/** How quickly a simple request must still be answered: PostgreSQL 1 s, PGlite (one thread) 2 s. */
export const PING_BUDGET_MS = process.env.TEST_DATABASE_URL ? 1_000 : 2_000;

const PING = { method: 'GET', url: '/api/notification/home/params' } as const;

/**
 * Sends `hostile`, then a ping every `everyMs` until it has answered (at least one ping, due
 * `firstPingAfterMs` after the hostile request started). Each ping is timed from when it was
 * due, not from when it could be sent: when the hostile work holds the event loop, the ping's
 * timer fires late, and that wait is part of what a second client would have seen.
 */
export async function measureStall(
  t: TestApp,
  hostile: () => Promise<LightMyRequestResponse>,
  {
    everyMs = 100,
    firstPingAfterMs = 50,
    ping = PING,
  }: {
    everyMs?: number;
    firstPingAfterMs?: number;
    /** The simple request (PING by default: public params, which may come from a cache). */
    ping?: InjectOptions;
  } = {},
): Promise<StallMeasure> {
  const started = performance.now();
  let answer: { status: number; ms: number; body: string } | undefined;
  const running = hostile().then((response) => {
    answer = { status: response.statusCode, ms: performance.now() - started, body: response.body };
  });
  const pings: number[] = [];
  let due = started + firstPingAfterMs;
  do {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    const pinged = await t.request(ping);
    if (pinged.statusCode !== 200) throw new Error(`the ping failed: ${pinged.statusCode} ${pinged.body}`);
    const answered = performance.now();
    pings.push(answered - due);
    due = answered + everyMs;
  } while (answer === undefined);
  await running;
  if (!answer) throw new Error('the hostile request did not answer');
  return { hostile: answer, pings, worstPingMs: Math.max(...pings) };
}

/** One line for the test log: what was tried, its budget, and what was measured. */
export function stallReport(name: string, budget: string, measure: StallMeasure): string {
  return `stall ${name}: budget ${budget}; answered ${measure.hostile.status} in ${Math.round(measure.hostile.ms)} ms; ${measure.pings.length} pings, worst ${Math.round(measure.worstPingMs)} ms (limit ${PING_BUDGET_MS} ms)`;
}
