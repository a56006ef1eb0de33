import type { Db } from '../db/database.js';

/**
 * State that every server process must see the same: counters against guessing and flooding
 * (rate limits, failed sign-ins and the locks they lead to) and one-time codes (character
 * captchas, SMS codes, password-reset codes) with the SMS sending quota. Two implementations:
 * the database (default, lib/store/database.ts) and Redis when REDIS_URL is set
 * (lib/store/redis.ts). Sessions are rows of the database in both cases (features/sessions/services/session.ts).
 */
export interface SharedStore {
  readonly kind: 'database' | 'redis';

  /** Counts one hit of a key in a window of windowMs; a finished window starts again at 1. */
  hit(key: string, windowMs: number): Promise<CounterHit>;
  /** Locks a key for ms milliseconds and starts its counter again. */
  lock(key: string, ms: number): Promise<void>;
  /** Milliseconds a key stays locked, 0 when it is not locked. */
  lockedMs(key: string): Promise<number>;
  /** Forgets a key's counter and lock (the database does it in trx when given). */
  forget(key: string, trx?: Db): Promise<void>;
  /**
   * The live counters and locks of the keys that start with `prefix` (the flow-control page),
   * highest count first, at most `limit`; keys are given without the prefix.
   */
  counters(prefix: string, limit: number): Promise<LiveCounter[]>;
  /**
   * The codes of a purpose sent to each target in the last day (the SMS quota's counts), most
   * first, at most `limit`; one tenant's targets, or every tenant's when tenantCode is undefined.
   */
  sentCodes(purpose: CodePurpose, tenantCode: string | undefined, limit: number): Promise<SentCodes[]>;

  /**
   * Stores a new code for a target; the target's earlier codes stop working. With a quota, the
   * code is issued only within it, and deliver (the SMS) runs before the code counts: when it
   * fails, the code is gone and the quota untouched. With trx (database only), the code is
   * written in that transaction.
   */
  issueCode(issue: IssueCode, options?: IssueOptions): Promise<IssueResult>;
  /**
   * The live code of a target when `code` is right. A wrong guess counts against the code (and
   * sticks even when the caller's transaction fails); after MAX_CODE_ATTEMPTS wrong guesses, or
   * once expired or used, the code is dead.
   */
  checkCode(check: CodeTarget & { code: string }): Promise<CodeId | undefined>;
  /**
   * Uses a code up; false when another request used it first. The database does it in the
   * caller's transaction (trx); Redis at once, whatever becomes of that transaction.
   */
  consumeCode(id: CodeId, trx?: Db): Promise<boolean>;
  /** Marks a code as checked once (compareCaptcha); false when it was checked or used before. */
  markVerified(id: CodeId): Promise<boolean>;
  /** Kills the live code of a target. */
  burnCode(target: CodeTarget): Promise<void>;

  close(): Promise<void>;
}

/** A counter whose window has not ended, or a locked key. */
export interface LiveCounter {
  key: string;
  hits: number;
  /** Milliseconds until the counter's window ends (0 when only the lock is live). */
  ttlMs: number;
  /** Milliseconds the key stays locked, 0 when it is not. */
  lockedMs: number;
}

/** How many codes went to a target in the last day, and when the last one did. */
export interface SentCodes {
  tenantCode: string;
  target: string;
  sent: number;
  lastAt: Date;
}

export interface CounterHit {
  hits: number;
  /** Milliseconds until the window ends. */
  ttlMs: number;
}

export type CodePurpose = 'sms' | 'captcha' | 'reset';

/** Whose code: SMS codes are filed under the mobile, captchas under their id, reset codes under the user id. */
export interface CodeTarget {
  tenantCode: string;
  purpose: CodePurpose;
  target: string;
}

export interface IssueCode extends CodeTarget {
  code: string;
  seconds: number;
  ip: string | null;
}

/** At most one code per target every intervalSeconds, and dailyLimit in 24 hours. */
export interface IssueQuota {
  intervalSeconds: number;
  dailyLimit: number;
}

export interface IssueOptions {
  quota?: IssueQuota;
  deliver?: () => Promise<void>;
  trx?: Db;
}

export type IssueResult =
  | { issued: true }
  | { issued: false; reason: 'tooSoon'; seconds: number }
  | { issued: false; reason: 'dailyLimit' };

/** A code that was found right: what consumeCode and markVerified need to find it again. */
export interface CodeId extends CodeTarget {
  /** Which code of the target (a newer one replaces it). */
  serial: string;
  /** The store that holds it. */
  store: SharedStore;
}

/** Wrong guesses that kill a code. */
export const MAX_CODE_ATTEMPTS = 5;
