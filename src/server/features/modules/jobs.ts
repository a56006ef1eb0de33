import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { TableSpec } from '../../../engine/index.js';
import { BUDGETS } from '../../lib/budgets.js';
import type { AppContext } from '../../lib/context.js';
import { inTransaction } from '../../lib/db/transaction.js';
import type { ModuleJob } from '../../lib/modules/index.js';

/**
 * The modules' periodic jobs (docs/extending.md "Jobs"): one row per job in sys_module_job with
 * the moment it is next due. Every server process polls; a due job is claimed by exactly one of
 * them (FOR UPDATE SKIP LOCKED, its next_run_at moved on in the same transaction), which runs it
 * within its time budget. A throw or a run past its budget is logged and kept as last_error.
 */
export function moduleJobTableSpecs(): TableSpec[] {
  return [
    {
      name: 'sys_module_job',
      columns: [
        { name: 'job_key', type: 'text', isNullable: false },
        { name: 'next_run_at', type: 'timestamptz', isNullable: false },
        { name: 'last_run_at', type: 'timestamptz', isNullable: true },
        { name: 'last_error', type: 'text', isNullable: true },
        { name: 'runs', type: 'integer', isNullable: false, defaultSql: '0' },
      ],
      primaryKey: ['job_key'],
      indexes: [],
      foreignKeys: [],
    },
  ];
}

/** The time one run may take: the budget, and never more than the time between two runs. */
export const budgetMsOf = (job: ModuleJob): number => Math.min(BUDGETS.jobs.runMs, job.everySeconds * 1000);

/** Adds a row for every job that has none (due at once). */
async function ensureRows(ctx: AppContext, keys: readonly string[], now: Date): Promise<void> {
  if (keys.length === 0) return;
  await sql`insert into sys_module_job (job_key, next_run_at)
    values ${sql.join(keys.map((key) => sql`(${key}, ${now})`))}
    on conflict (job_key) do nothing`.execute(ctx.db);
}

/** Claims a job if it is due: moves its next run on and answers true, in one transaction. */
async function claim(ctx: AppContext, key: string, job: ModuleJob, now: Date): Promise<boolean> {
  return inTransaction(ctx.db, async (trx) => {
    const due = await sql`select job_key from sys_module_job
      where job_key = ${key} and next_run_at <= ${now} for update skip locked`.execute(trx);
    if (due.rows.length === 0) return false;
    await sql`update sys_module_job set next_run_at = ${new Date(now.getTime() + job.everySeconds * 1000)}
      where job_key = ${key}`.execute(trx);
    return true;
  });
}

/** Runs a job within its budget: the error it ended with (a throw, or the budget spent), or undefined. */
async function runWithin(
  ctx: AppContext,
  job: ModuleJob,
  now: Date,
  log: FastifyBaseLogger,
): Promise<string | undefined> {
  const controller = new AbortController();
  const budgetMs = budgetMsOf(job);
  let timer: NodeJS.Timeout | undefined;
  const overBudget = new Promise<string>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(`the run took longer than its budget of ${budgetMs} ms`);
    }, budgetMs);
  });
  const run = (async (): Promise<string | undefined> => {
    await job.run({
      db: ctx.db,
      tableOf: (entity) => ctx.registry.require(entity).table,
      now,
      signal: controller.signal,
      log: {
        info: (details, message) => log.info(details, message),
        warn: (details, message) => log.warn(details, message),
      },
    });
    return undefined;
  })().catch((error: unknown) => (error instanceof Error ? error.message : String(error)) || 'failed');
  try {
    return await Promise.race([run, overBudget]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One round: every job due at `now` that this process claims is run (one after another). Answers
 * the keys of the jobs it ran. Errors are logged, never thrown.
 */
export async function runDueJobs({
  ctx,
  log,
  now = new Date(),
}: {
  ctx: AppContext;
  log: FastifyBaseLogger;
  now?: Date;
}): Promise<string[]> {
  const jobs = ctx.modules.jobs();
  const ran: string[] = [];
  try {
    await ensureRows(
      ctx,
      jobs.map((item) => item.key),
      now,
    );
  } catch (error) {
    log.warn({ err: error }, 'jobs: the job table could not be read');
    return ran;
  }
  for (const { key, module, job } of jobs) {
    const jobLog = log.child({ module, job: job.name });
    try {
      if (!(await claim(ctx, key, job, now))) continue;
      ran.push(key);
      const error = await runWithin(ctx, job, now, jobLog);
      if (error) jobLog.warn({ error }, 'jobs: a run failed');
      await sql`update sys_module_job set last_run_at = ${now}, runs = runs + 1, last_error = ${error ?? null}
        where job_key = ${key}`.execute(ctx.db);
    } catch (error) {
      jobLog.warn({ err: error }, 'jobs: a job could not be claimed or recorded');
    }
  }
  return ran;
}

export interface JobPoller {
  stop(): Promise<void>;
}

/** Polls for due jobs every second (the shortest everySeconds), until stopped. */
export function startJobPoller(ctx: AppContext, log: FastifyBaseLogger): JobPoller {
  let running: Promise<unknown> = Promise.resolve();
  let isBusy = false;
  const timer = setInterval(() => {
    if (isBusy) return; // a round still under way (a long job): the next tick looks again
    isBusy = true;
    running = runDueJobs({ ctx, log }).finally(() => {
      isBusy = false;
    });
  }, 1000);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
