import { Worker } from 'node:worker_threads';
import type { TemplateProblem } from '../../../../../generators/engine.js';
import { GeneratorTemplateError, type RenderAll, type RenderJob } from '../../../../../generators/forward.js';
import { TemplateError } from '../../../../../generators/engine.js';
import { BUDGETS } from '../../../lib/budgets.js';
import { AppError } from '../../../lib/errors.js';

/**
 * Every code-generator template renders here: in a worker thread, never on the request thread,
 * within the budgets of BUDGETS.templates. Past renderMs the worker is terminated, past heapMb
 * it dies of its heap limit, past outputBytes it stops and says so; each is a 422 naming the
 * budget (templateBudget). A few idle workers are kept, so a render does not pay a start.
 */

/** What the template worker answers for a list of jobs: every output, or the first job's problem. */
export type RenderReply =
  | { kind: 'ready' }
  | { kind: 'done'; outputs: string[] }
  | { kind: 'problem'; index: number; problem: TemplateProblem }
  | { kind: 'tooLarge'; index: number; bytes: number };

const MAX_IDLE = 2;

interface Slot {
  worker: Worker;
  ready: Promise<void>;
}

const idle: Slot[] = [];

/** Running from the TypeScript sources (tests, npm run dev) or from the bundle (dist/server). */
const fromSources = import.meta.url.endsWith('.ts');

function newWorker(): Worker {
  const resourceLimits = {
    maxOldGenerationSizeMb: BUDGETS.templates.heapMb,
    maxYoungGenerationSizeMb: 16,
    stackSizeMb: 4,
  };
  if (!fromSources)
    // scripts/build-server.mjs bundles the worker beside main.js.
    return new Worker(new URL('./template-worker.js', import.meta.url), { resourceLimits });
  // From the sources the worker is TypeScript: tsx's loader is registered in the worker first
  // (an --import of execArgv is not applied to a worker's entry module).
  const code = [
    `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};`,
    'register();',
    `await import(${JSON.stringify(new URL('./template-worker.ts', import.meta.url).href)});`,
  ].join('\n');
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), { resourceLimits });
}

function spawn(): Slot {
  const worker = newWorker();
  // An idle worker keeps no process alive.
  worker.unref();
  worker.once('exit', () => {
    const at = idle.findIndex((slot) => slot.worker === worker);
    if (at >= 0) idle.splice(at, 1);
  });
  const ready = new Promise<void>((resolve, reject) => {
    const onMessage = (reply: RenderReply): void => {
      if (reply.kind !== 'ready') return;
      worker.off('error', onError);
      worker.off('message', onMessage);
      resolve();
    };
    const onError = (error: Error): void => {
      worker.off('message', onMessage);
      reject(error);
    };
    worker.on('message', onMessage);
    worker.once('error', onError);
  });
  return { worker, ready };
}

/** "2 MB", "512 KB" or "100 bytes". */
export function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

const budgetError = (budget: 'renderMs' | 'outputBytes' | 'heapMb'): AppError =>
  new AppError('templateBudget', {
    budget: `templates.${budget}`,
    limit:
      budget === 'renderMs'
        ? `${BUDGETS.templates.renderMs} ms`
        : budget === 'heapMb'
          ? `${BUDGETS.templates.heapMb} MB`
          : sizeText(BUDGETS.templates.outputBytes),
  });

const isOutOfMemory = (error: Error): boolean =>
  (error as Error & { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY';

/**
 * Renders the jobs in a worker within the template budgets (a RenderAll for generateForward).
 * A template problem throws GeneratorTemplateError naming the job's item; a budget, AppError
 * templateBudget (422). The time budget counts from the moment the worker has the jobs.
 */
export const renderInWorker: RenderAll = async (jobs: readonly RenderJob[]): Promise<string[]> => {
  if (jobs.length === 0) return [];
  const slot = idle.pop() ?? spawn();
  await slot.ready;
  const { worker } = slot;
  const reply = await new Promise<RenderReply>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (message: RenderReply): void => {
      done();
      if (idle.length < MAX_IDLE) idle.push(slot);
      else void worker.terminate();
      resolve(message);
    };
    const onError = (error: Error): void => {
      done();
      void worker.terminate();
      reject(isOutOfMemory(error) ? budgetError('heapMb') : error);
    };
    const onExit = (code: number): void => {
      done();
      reject(new Error(`the template worker stopped (exit code ${code})`));
    };
    const timer = setTimeout(() => {
      done();
      void worker.terminate();
      reject(budgetError('renderMs'));
    }, BUDGETS.templates.renderMs);
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    worker.postMessage({ jobs, outputBytes: BUDGETS.templates.outputBytes });
  });
  switch (reply.kind) {
    case 'done':
      return reply.outputs;
    case 'problem':
      throw new GeneratorTemplateError(jobs[reply.index]?.item ?? '', new TemplateError(reply.problem));
    case 'tooLarge':
      throw budgetError('outputBytes');
    default:
      throw new Error(`the template worker answered ${reply.kind}`);
  }
};
