import { sql } from 'kysely';
import type { TwoFactorSetup, TwoFactorStatus } from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Translate } from '../../../lib/i18n.js';
import { verifySecretOrDummy } from '../../../lib/passwords.js';
import { endSessions, loadUserRoles, signInGuardFor } from '../../sessions/index.js';
import { isTwoFactorRequired } from './policy.js';
import { acceptedStep, looksLikeTotp, newRecoveryCodes, newSecret, recoveryHash, setupOf } from './totp.js';

/** The user a two-factor call is about: always of the caller's tenant. */
export interface TwoFactorUser {
  tenantCode: string;
  userId: number;
  username: string;
}

interface FactorRow {
  secret: string | null;
  pending_secret: string | null;
  enabled_at: Date | null;
  last_step: string | number | null;
}

export async function factorOf(db: Db, userId: number, isLocked = false): Promise<FactorRow | undefined> {
  const lock = isLocked ? sql`for update` : sql``;
  const found = await sql<FactorRow>`select secret, pending_secret, enabled_at, last_step
    from sys_two_factor where user_id = ${userId} ${lock}`.execute(db);
  return found.rows[0];
}

export const isEnabled = (row: FactorRow | undefined): row is FactorRow & { secret: string } =>
  Boolean(row?.secret && row.enabled_at);

const codeError = (t: Translate, field = '/code'): AppError =>
  new AppError('twoFactorCodeInvalid', {}, [{ field, message: t('errors.twoFactorCodeInvalid') }]);

/** The state 个人中心 and the reset screen show. */
export async function twoFactorStatus({
  ctx,
  user,
  roles,
}: {
  ctx: AppContext;
  user: TwoFactorUser;
  roles: readonly string[];
}): Promise<TwoFactorStatus> {
  const row = await factorOf(ctx.db, user.userId);
  const left = await sql<{ count: string }>`select count(*) as count from sys_two_factor_recovery
    where user_id = ${user.userId} and used_at is null`.execute(ctx.db);
  return {
    isEnabled: isEnabled(row),
    isRequired: await isTwoFactorRequired({ db: ctx.db, ctx, tenantCode: user.tenantCode, roles }),
    enabledAt: isEnabled(row) && row.enabled_at ? row.enabled_at.toISOString() : null,
    recoveryCodesLeft: isEnabled(row) ? Number(left.rows[0]?.count ?? 0) : 0,
  };
}

/**
 * Starts an enrolment (or starts it over): a new secret waits, beside any enabled one, until a
 * code of it is confirmed. One transaction.
 */
export async function beginEnrolment({
  ctx,
  user,
}: {
  ctx: AppContext;
  user: TwoFactorUser;
}): Promise<TwoFactorSetup> {
  const secret = newSecret();
  await inTransaction(ctx.db, async (trx) => {
    await sql`insert into sys_two_factor (tenant_code, user_id, pending_secret)
      values (${user.tenantCode}, ${user.userId}, ${secret})
      on conflict (user_id) do update set pending_secret = excluded.pending_secret`.execute(trx);
  });
  return setupOf(secret, ctx.config.product, `${user.username}@${user.tenantCode}`);
}

/**
 * Confirms the waiting secret with a code of it, in the caller's transaction: it becomes the
 * user's secret, the recovery codes are replaced, and the new ones are answered (shown once).
 */
export async function confirmEnrolmentIn({
  trx,
  user,
  code,
  t,
}: {
  trx: Db;
  user: TwoFactorUser;
  code: string;
  t: Translate;
}): Promise<string[]> {
  const row = await factorOf(trx, user.userId, true);
  if (!row?.pending_secret) throw new AppError('twoFactorNotStarted');
  const step = acceptedStep(row.pending_secret, code, null);
  if (step === undefined) throw codeError(t);
  await sql`update sys_two_factor set secret = pending_secret, pending_secret = null, enabled_at = now(),
    last_step = ${step} where user_id = ${user.userId}`.execute(trx);
  await sql`delete from sys_two_factor_recovery where user_id = ${user.userId}`.execute(trx);
  const codes = newRecoveryCodes();
  for (const recovery of codes) {
    await sql`insert into sys_two_factor_recovery (tenant_code, user_id, code_hash)
      values (${user.tenantCode}, ${user.userId}, ${recoveryHash(recovery)})`.execute(trx);
  }
  return codes;
}

/**
 * Checks a code of the user's enabled authenticator or one unused recovery code, in the caller's
 * transaction; a recovery code is used up, a TOTP step remembered. False when it is wrong.
 */
export async function useSecondFactor({
  trx,
  userId,
  code,
}: {
  trx: Db;
  userId: number;
  code: string;
}): Promise<boolean> {
  const row = await factorOf(trx, userId, true);
  if (!isEnabled(row)) return false;
  if (looksLikeTotp(code)) {
    const step = acceptedStep(row.secret, code, row.last_step === null ? null : Number(row.last_step));
    if (step === undefined) return false;
    await sql`update sys_two_factor set last_step = ${step} where user_id = ${userId}`.execute(trx);
    return true;
  }
  const used = await sql`update sys_two_factor_recovery set used_at = now()
    where user_id = ${userId} and code_hash = ${recoveryHash(code)} and used_at is null`.execute(trx);
  return Number(used.numAffectedRows ?? 0) > 0;
}

/**
 * A check of the second factor outside sign-in (disabling it): counted as a failed sign-in of the
 * user, so it cannot be used to guess codes past the password's lockout.
 */
export async function disableTwoFactor({
  ctx,
  user,
  password,
  code,
  t,
}: {
  ctx: AppContext;
  user: TwoFactorUser;
  password: string;
  code: string;
  t: Translate;
}): Promise<void> {
  const guard = await signInGuardFor(ctx);
  await guard.assertNotLocked(user.tenantCode, user.username);
  const users = sql.table(ctx.registry.require('sysuser').table);
  const failed = await inTransaction(ctx.db, async (trx) => {
    const stored = await sql<{ password: string | null }>`select password from ${users}
      where id = ${user.userId} and tenant_code = ${user.tenantCode}`.execute(trx);
    if (!(await verifySecretOrDummy(password, stored.rows[0]?.password)))
      return new AppError('badCredentials', {}, [
        { field: '/password', message: t('errors.badCredentials') },
      ]);
    if (!(await useSecondFactor({ trx, userId: user.userId, code }))) return codeError(t);
    await removeTwoFactor(trx, user.userId);
    return undefined;
  });
  if (failed) {
    await guard.recordFailure(user.tenantCode, user.username);
    throw failed;
  }
}

async function removeTwoFactor(trx: Db, userId: number): Promise<void> {
  await sql`delete from sys_two_factor where user_id = ${userId}`.execute(trx);
  await sql`delete from sys_two_factor_recovery where user_id = ${userId}`.execute(trx);
  await sql`delete from sys_two_factor_challenge where user_id = ${userId}`.execute(trx);
}

/**
 * An administrator's reset: the user's authenticator and recovery codes are removed and every
 * session of the user ends (the user signs in again, enrolling anew if required). The user must be
 * of the administrator's tenant, else 404. One transaction.
 */
export async function resetTwoFactor({
  ctx,
  tenantCode,
  userId,
}: {
  ctx: AppContext;
  tenantCode: string;
  userId: number;
}): Promise<void> {
  const users = sql.table(ctx.registry.require('sysuser').table);
  await inTransaction(ctx.db, async (trx) => {
    const found = await sql<{ id: number }>`select id from ${users}
      where id = ${userId} and tenant_code = ${tenantCode} for update`.execute(trx);
    if (!found.rows[0]) throw new AppError('notFound');
    await removeTwoFactor(trx, userId);
    await endSessions({ trx, userIds: [userId] });
  });
}

/** The user of the caller's tenant with this id (the reset screen's status), else 404. */
export async function tenantUser({
  ctx,
  tenantCode,
  userId,
}: {
  ctx: AppContext;
  tenantCode: string;
  userId: number;
}): Promise<{ user: TwoFactorUser; roles: string[] }> {
  const users = sql.table(ctx.registry.require('sysuser').table);
  const found = await sql<{ username: string }>`select username from ${users}
    where id = ${userId} and tenant_code = ${tenantCode}`.execute(ctx.db);
  const row = found.rows[0];
  if (!row) throw new AppError('notFound');
  const roles = await loadUserRoles({ db: ctx.db, registry: ctx.registry, userId });
  return { user: { tenantCode, userId, username: row.username }, roles };
}
