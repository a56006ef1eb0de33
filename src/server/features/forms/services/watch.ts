import pg from 'pg';
import type { AppContext } from '../../../lib/context.js';
import { applyForm, FORM_CHANNEL, loadPublishedForms } from './forms.js';

export interface FormWatch {
  close(): Promise<void>;
}

const RECONNECT_MS = [250, 1000, 2000, 5000];

/**
 * Keeps this process's registry in line with the published forms: all of them on start, then
 * each publish or unpublish of another process as its transaction commits (PostgreSQL
 * LISTEN/NOTIFY on ecobid_form, payload the form code, on a connection of its own, as sessions
 * do). A lost connection is reopened and everything reloaded, since notifications sent
 * meanwhile are gone. The embedded database has one process: nothing to hear.
 */
export async function watchForms(ctx: AppContext, warn: (message: string) => void): Promise<FormWatch> {
  await loadPublishedForms(ctx, warn);
  const url = ctx.config.databaseUrl;
  if (!url) return { close: async () => undefined };
  let client: pg.Client | undefined;
  let isClosed = false;
  let attempts = 0;
  let timer: NodeJS.Timeout | undefined;
  // Applied one after another, in the order heard.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (work: () => Promise<void>): void => {
    queue = queue.then(work).catch((error: unknown) => warn(`published forms: ${String(error)}`));
  };
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url, application_name: 'ecobid-form-listener' });
    next.on('notification', (message) => {
      const code = message.payload ?? '';
      if (/^[a-z][a-z0-9]{1,39}$/.test(code)) enqueue(() => applyForm(ctx, code));
    });
    const lost = (): void => {
      if (client !== next) return;
      client = undefined;
      next.end().catch(() => undefined);
      schedule();
    };
    next.on('error', lost);
    next.on('end', lost);
    await next.connect();
    await next.query(`listen ${FORM_CHANNEL}`);
    if (isClosed) {
      await next.end().catch(() => undefined);
      return;
    }
    const isReconnect = attempts > 0;
    client = next;
    attempts = 0;
    if (isReconnect) enqueue(() => loadPublishedForms(ctx, warn));
  };
  const schedule = (): void => {
    if (isClosed) return;
    const delay = RECONNECT_MS[Math.min(attempts, RECONNECT_MS.length - 1)] ?? 5000;
    attempts += 1;
    timer = setTimeout(() => {
      connect().catch(() => schedule());
    }, delay);
    timer.unref();
  };
  await connect();
  return {
    close: async () => {
      isClosed = true;
      clearTimeout(timer);
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
      await queue;
    },
  };
}
