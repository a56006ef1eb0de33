import type { EventWait } from '../../src/server/features/workflow/services/graph.js';
import type { Timer } from '../../src/server/features/workflow/services/store.js';
import type {
  Subscribed,
  TokenJobKind,
  WaitStore,
} from '../../src/server/features/workflow/services/waits.js';

/** A job as the memory store holds it. */
export interface MemoryJob {
  executionId: number | null;
  activityId: string;
  kind: TokenJobKind;
  dueAt: Date;
  cycle: string | null;
}

/**
 * What an instance's tokens wait for, in memory: the WaitStore of tests in place of the
 * database's (waits.ts sqlWaits), with the same answers (workflow-token-store.test.ts).
 */
export class MemoryWaits implements WaitStore {
  readonly subscriptions: (Subscribed & { kind: EventWait['kind']; name: string })[] = [];
  readonly jobs: MemoryJob[] = [];
  /** Service calls announced to the job pollers. */
  notified = 0;
  /** External tasks offered to workers, one per token. */
  readonly offers: { executionId: number; processKey: string; activityId: string; topic: string }[] = [];

  async subscribe(executionId: number | null, waitsAt: string, waits: EventWait[]): Promise<void> {
    for (const { catchId, kind, name } of waits) {
      const isTaken =
        executionId !== null &&
        this.subscriptions.some((held) => held.executionId === executionId && held.catchId === catchId);
      if (!isTaken) this.subscriptions.push({ executionId, waitsAt, catchId, kind, name });
    }
  }

  async unsubscribe(executionId: number): Promise<void> {
    this.keep(this.subscriptions, (held) => held.executionId !== executionId);
  }

  async subscribedAt(catchIds: string[]): Promise<Subscribed[]> {
    return this.subscriptions
      .filter((held) => catchIds.includes(held.catchId))
      .map(({ executionId, waitsAt, catchId }) => ({ executionId, waitsAt, catchId }));
  }

  async addTimers(timers: Timer[]): Promise<void> {
    for (const timer of timers) this.jobs.push({ ...timer, kind: 'boundaryTimer' });
  }

  async dropJobs(executionId: number, kinds: TokenJobKind[]): Promise<void> {
    this.keep(this.jobs, (job) => !(job.executionId === executionId && kinds.includes(job.kind)));
  }

  async dropWaitsAt(executionId: number, catchIds: string[]): Promise<void> {
    const isDropped = (item: {
      executionId: number | null;
      catchId?: string;
      activityId?: string;
    }): boolean =>
      item.executionId === executionId && catchIds.includes(item.catchId ?? item.activityId ?? '');
    this.keep(this.subscriptions, (held) => !isDropped(held));
    this.keep(this.jobs, (job) => !isDropped(job));
  }

  async callService(executionId: number, activityId: string, at: Date): Promise<void> {
    await this.dropJobs(executionId, ['serviceCall']);
    this.jobs.push({ executionId, activityId, kind: 'serviceCall', dueAt: at, cycle: null });
    this.notified += 1;
  }

  async offerWork(
    executionId: number,
    work: { processKey: string; activityId: string; topic: string },
  ): Promise<void> {
    this.keep(this.offers, (offer) => offer.executionId !== executionId);
    this.offers.push({ executionId, ...work });
  }

  private keep<T>(items: T[], isKept: (item: T) => boolean): void {
    const kept = items.filter(isKept);
    items.splice(0, items.length, ...kept);
  }
}
