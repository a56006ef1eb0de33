import { parentPort } from 'node:worker_threads';
import { compileTemplate, TemplateError } from '../../../../../generators/engine.js';
import type { RenderJob } from '../../../../../generators/forward.js';
import type { RenderReply } from './render.js';

/**
 * The worker that renders code-generator templates off the request thread (render.ts starts it
 * with a heap limit and terminates it past the time budget). It only compiles and renders: the
 * models come ready from the server; the answer is the text of every job, or the first problem.
 */
const port = parentPort;
if (!port) throw new Error('template-worker runs as a worker thread');

function answer({ jobs, outputBytes }: { jobs: RenderJob[]; outputBytes: number }): RenderReply {
  const compiled = new Map<string, (model: object) => string>();
  const outputs: string[] = [];
  for (const [index, job] of jobs.entries()) {
    try {
      let render = compiled.get(job.source);
      if (!render) {
        render = compileTemplate(job.source);
        compiled.set(job.source, render);
      }
      const output = render(job.model);
      // Past the budget the rest is not rendered.
      const bytes = Buffer.byteLength(output);
      if (bytes > outputBytes) return { kind: 'tooLarge', index, bytes };
      outputs.push(output);
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      // The text outgrew what a string can hold: far past the output budget.
      if (/Invalid string length/.test(error.problem.message)) return { kind: 'tooLarge', index, bytes: -1 };
      return { kind: 'problem', index, problem: error.problem };
    }
  }
  return { kind: 'done', outputs };
}

port.on('message', (message: { jobs: RenderJob[]; outputBytes: number }) => {
  port.postMessage(answer(message));
});
port.postMessage({ kind: 'ready' } satisfies RenderReply);
