import type { AppContext } from '../../../lib/context.js';

/**
 * The workflow engine's clock: when timers are due and when due jobs are taken. It is the
 * system clock unless a test sets another one for an app (setWorkflowClock), so a test can move
 * time forward and see a timer fire without waiting.
 */

const clocks = new WeakMap<AppContext, () => Date>();

export function workflowNow(ctx: AppContext): Date {
  return clocks.get(ctx)?.() ?? new Date();
}

/** Sets the clock of an app's workflow engine (undefined: back to the system clock). */
export function setWorkflowClock(ctx: AppContext, now: (() => Date) | undefined): void {
  if (now) clocks.set(ctx, now);
  else clocks.delete(ctx);
}
