import type { AuthContext } from '../auth.js';

/**
 * Recently checked sessions, kept in process memory so that a request needs no database round
 * trip for its token. Exact, not merely fresh: database triggers announce every change that can
 * end a session (revocation, deletion, the user disabled or deleted), and every process drops
 * the user's cached sessions when it hears one (features/sessions/services/watch.ts). While a
 * process cannot hear other processes, it serves nothing from the cache. Entries also expire
 * after maxAgeMs and with their token.
 */
export class SessionCache {
  private readonly entries = new Map<string, { auth: AuthContext; validUntil: number }>();
  /** Bumped by every change: a lookup that started before a change must not cache what it read. */
  generation = 0;
  /** Session and param changes committed by this process (a request that made one waits for settle). */
  changesHere = 0;
  private hearing = false;
  /** Resolves once every server process has heard every session change committed so far. */
  settle: () => Promise<void> = async () => undefined;

  /** Told of every change: the user whose sessions may have ended, or null for any (live streams re-check). */
  private readonly observers = new Set<(userId: number | null) => void>();

  constructor(private readonly maxAgeMs = 30_000) {}

  /** Calls `observer` on every change heard from now on; answers the function that stops it. */
  observe(observer: (userId: number | null) => void): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  private tell(userId: number | null): void {
    for (const observer of this.observers) observer(userId);
  }

  get(tokenHash: string): AuthContext | undefined {
    if (!this.hearing) return undefined;
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (entry.validUntil > Date.now()) return entry.auth;
    this.entries.delete(tokenHash);
    return undefined;
  }

  set(tokenHash: string, auth: AuthContext, expiresAt: Date, generation: number): void {
    if (!this.hearing || generation !== this.generation) return;
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(tokenHash, {
      auth,
      validUntil: Math.min(Date.now() + this.maxAgeMs, expiresAt.getTime()),
    });
  }

  /** A session of the user ended or the user changed: forget the user's cached sessions. */
  forgetUser(userId: number): void {
    this.generation += 1;
    for (const [tokenHash, entry] of this.entries) {
      if (entry.auth.userId === userId) this.entries.delete(tokenHash);
    }
    this.tell(userId);
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
    this.tell(null);
  }

  /** Whether changes are heard now; the cache is used only while they are. */
  setHearing(hearing: boolean): void {
    this.clear();
    this.hearing = hearing;
  }
}
