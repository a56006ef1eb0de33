import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type {
  EnrolledSignIn,
  SecondStepAnswer,
  TokenAnswer,
  TwoFactorSetup,
} from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Translate } from '../../../lib/i18n.js';
import {
  completeSignIn,
  hashToken,
  signInGuardFor,
  type ProvenSignIn,
  type SignInGrant,
  type SignInStep,
} from '../../sessions/index.js';
import {
  beginEnrolment,
  confirmEnrolmentIn,
  factorOf,
  isEnabled,
  useSecondFactor,
  type TwoFactorUser,
} from './account.js';
import { isTwoFactorRequired } from './policy.js';

/** How long a sign-in waits for its second step. */
export const CHALLENGE_SECONDS = 300;

type Kind = SecondStepAnswer['second_step'];

interface ChallengeRow {
  id: number;
  tenant_code: string;
  user_id: number;
  username: string;
  kind: Kind;
  client_code: string;
  scope: string | null;
  grant_type: SignInGrant;
}

/**
 * The second step of a sign-in: a user with an authenticator sends a code of it (or a recovery
 * code); a user the tenant or a role requires two-factor of, without one, enrols first. Either
 * way the sign-in waits under a challenge token, and no session exists until the step is done.
 */
export const twoFactorStep: SignInStep = {
  async begin(proven: ProvenSignIn): Promise<SecondStepAnswer | undefined> {
    const { trx, userId } = proven;
    const kind: Kind | undefined = isEnabled(await factorOf(trx, userId))
      ? 'totp'
      : (await isTwoFactorRequired({
            db: trx,
            ctx: proven.ctx,
            tenantCode: proven.tenantCode,
            roles: proven.roles,
          }))
        ? 'enrol'
        : undefined;
    if (!kind) return undefined;
    const token = randomBytes(32).toString('base64url');
    // Challenges left over by earlier sign-ins of the user are of no more use.
    await sql`delete from sys_two_factor_challenge where user_id = ${userId} and expires_at < now()`.execute(
      trx,
    );
    await sql`insert into sys_two_factor_challenge (tenant_code, user_id, token_hash, kind, client_code, scope,
        grant_type, expires_at)
      values (${proven.tenantCode}, ${userId}, ${hashToken(token)}, ${kind}, ${proven.clientCode}, ${proven.scope},
        ${proven.grant}, now() + make_interval(secs => ${CHALLENGE_SECONDS}))`.execute(trx);
    return {
      code: 200,
      message: 'success',
      second_step: kind,
      challenge_token: token,
      expires_in: CHALLENGE_SECONDS,
    };
  },
};

const challengeError = (t: Translate): AppError =>
  new AppError('twoFactorChallengeInvalid', {}, [
    { field: '/challengeToken', message: t('errors.twoFactorChallengeInvalid') },
  ]);

async function liveChallenge(db: Db, ctx: AppContext, token: string, isLocked: boolean) {
  const users = sql.table(ctx.registry.require('sysuser').table);
  const lock = isLocked ? sql`for update of c` : sql``;
  const found =
    await sql<ChallengeRow>`select c.id, c.tenant_code, c.user_id, u.username, c.kind, c.client_code,
      c.scope, c.grant_type
    from sys_two_factor_challenge c join ${users} u on u.id = c.user_id and u.tenant_code = c.tenant_code
    where c.token_hash = ${hashToken(token)} and c.used_at is null and c.expires_at > now() ${lock}`.execute(
      db,
    );
  return found.rows[0];
}

/** The request of a second step. */
export interface SecondStepRequest {
  ctx: AppContext;
  challengeToken: string;
  ip: string;
  userAgent: string | null;
  t: Translate;
}

const userOf = (row: ChallengeRow): TwoFactorUser => ({
  tenantCode: row.tenant_code,
  userId: Number(row.user_id),
  username: row.username,
});

/**
 * Runs the step's work on its challenge in one transaction. A wrong code counts as a failed
 * sign-in of the user (the password's lockout, sessions/services/guard.ts): a stolen password
 * does not buy unlimited guesses; the session opening forgets the failures.
 */
async function underChallenge<T>(
  request: SecondStepRequest,
  kind: Kind,
  work: (trx: Db, row: ChallengeRow) => Promise<T>,
): Promise<T> {
  const { ctx, challengeToken, t } = request;
  const first = await liveChallenge(ctx.db, ctx, challengeToken, false);
  if (!first || first.kind !== kind) throw challengeError(t);
  const guard = await signInGuardFor(ctx);
  await guard.assertNotLocked(first.tenant_code, first.username);
  try {
    const result = await inTransaction(ctx.db, async (trx) => {
      const row = await liveChallenge(trx, ctx, challengeToken, true);
      if (!row) throw challengeError(t);
      return work(trx, row);
    });
    await guard.reset(first.tenant_code, first.username);
    return result;
  } catch (error) {
    if (error instanceof AppError && error.code === 'twoFactorCodeInvalid')
      await guard.recordFailure(first.tenant_code, first.username);
    throw error;
  }
}

async function openSession(trx: Db, request: SecondStepRequest, row: ChallengeRow): Promise<TokenAnswer> {
  await sql`update sys_two_factor_challenge set used_at = now() where id = ${row.id}`.execute(trx);
  return completeSignIn({
    trx,
    ctx: request.ctx,
    tenantCode: row.tenant_code,
    userId: Number(row.user_id),
    clientCode: row.client_code,
    scope: row.scope,
    grant: row.grant_type,
    ip: request.ip,
    userAgent: request.userAgent,
  });
}

/** The second step of a user with an authenticator: a code of it or an unused recovery code. */
export function verifySecondStep(request: SecondStepRequest & { code: string }): Promise<TokenAnswer> {
  return underChallenge(request, 'totp', async (trx, row) => {
    if (!(await useSecondFactor({ trx, userId: Number(row.user_id), code: request.code })))
      throw new AppError('twoFactorCodeInvalid', {}, [
        { field: '/code', message: request.t('errors.twoFactorCodeInvalid') },
      ]);
    return openSession(trx, request, row);
  });
}

/** An enrolment required at sign-in, first part: the secret and its QR code. */
export async function beginSignInEnrolment(request: SecondStepRequest): Promise<TwoFactorSetup> {
  const row = await liveChallenge(request.ctx.db, request.ctx, request.challengeToken, false);
  if (!row || row.kind !== 'enrol') throw challengeError(request.t);
  return beginEnrolment({ ctx: request.ctx, user: userOf(row) });
}

/** An enrolment required at sign-in, second part: a code of the new secret opens the session. */
export function confirmSignInEnrolment(
  request: SecondStepRequest & { code: string },
): Promise<EnrolledSignIn> {
  return underChallenge(request, 'enrol', async (trx, row) => {
    const codes = await confirmEnrolmentIn({ trx, user: userOf(row), code: request.code, t: request.t });
    return { ...(await openSession(trx, request, row)), recovery_codes: codes };
  });
}
