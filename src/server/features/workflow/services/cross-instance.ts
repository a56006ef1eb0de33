import type { Run, Thrown, ThrowOutcome } from './activity.js';

/**
 * What the interpreter asks of the other instances of the tenant (events.ts, which starts and
 * locks instances and so cannot be imported by the interpreter): a signal's broadcast, the start
 * of a called process, the caller of an ended called instance, the caller of a called instance
 * that throws an error or escalation it does not catch, the called instances of an ended caller. events.ts installs them when it is loaded (the workflow routes load it).
 */
export interface CrossInstance {
  broadcastSignal(args: { run: Run; signalName: string }): Promise<void>;
  startCalled(args: {
    run: Run;
    key: string;
    executionId: number;
    variables: Record<string, unknown>;
    /** The called instance takes the caller's business key (camunda:in businessKey). */
    withBusinessKey?: boolean;
    /** Or this business key (camunda:in businessKey of an expression of the caller's variables). */
    businessKey?: string;
  }): Promise<{ id: number; ended: boolean; variables: Record<string, unknown> } | undefined>;
  resumeCaller(run: Run): Promise<void>;
  throwToCaller(args: { run: Run; thrown: Thrown }): Promise<ThrowOutcome>;
  endOrphanedCalls(run: Run): Promise<void>;
}

let installed: CrossInstance | undefined;

export function installCrossInstance(hooks: CrossInstance): void {
  installed = hooks;
}

export function crossInstance(): CrossInstance {
  if (!installed) throw new Error('workflow events.ts is not loaded: no cross-instance work possible');
  return installed;
}
