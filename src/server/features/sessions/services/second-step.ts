import type { SecondStepAnswer } from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';

/** The grants that prove a person's credentials (a refresh only continues a session). */
export type SignInGrant = 'password' | 'mobile';

/** A sign-in whose credentials were just proven, before any session exists. */
export interface ProvenSignIn {
  trx: Db;
  ctx: AppContext;
  tenantCode: string;
  userId: number;
  username: string;
  roles: string[];
  clientCode: string;
  scope: string | null;
  grant: SignInGrant;
  ip: string;
}

/**
 * A step between proven credentials and the session (two-factor: features/twofactor). It answers
 * a challenge when the user must do more before a session is opened, else undefined.
 */
export interface SignInStep {
  begin(proven: ProvenSignIn): Promise<SecondStepAnswer | undefined>;
}

/** One step per app (a test process builds several apps): set by the feature's start. */
const steps = new WeakMap<AppContext, SignInStep>();

export function setSignInStep(ctx: AppContext, step: SignInStep): void {
  steps.set(ctx, step);
}

export function signInStepOf(ctx: AppContext): SignInStep | undefined {
  return steps.get(ctx);
}
