import type { AppContext } from '../../../lib/context.js';
import { startListener } from '../../../lib/db/listener.js';
import { applyForm, FORM_CHANNEL, loadPublishedForms } from './forms.js';

export interface FormWatch {
  close(): Promise<void>;
}

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
  // Applied one after another, in the order heard.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (work: () => Promise<void>): void => {
    queue = queue.then(work).catch((error: unknown) => warn(`published forms: ${String(error)}`));
  };
  const listener = await startListener({
    url,
    channels: [FORM_CHANNEL],
    applicationName: 'ecobid-form-listener',
    onNotification: (_channel, code) => {
      if (/^[a-z][a-z0-9]{1,39}$/.test(code)) enqueue(() => applyForm(ctx, code));
    },
    onListening: (isReconnect) => {
      if (isReconnect) enqueue(() => loadPublishedForms(ctx, warn));
    },
  });
  return {
    close: async () => {
      await listener.close();
      await queue;
    },
  };
}
