import { sql } from 'kysely';
import { writeAudit } from '../../../lib/audit.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer, Translate } from '../../../lib/i18n.js';
import type { Mailer } from '../../../lib/mail.js';
import { hashSecret } from '../../../lib/passwords.js';
import { endSessions } from '../../sessions/index.js';
import { signInKey } from '../../../lib/store/counter-keys.js';
import { captchaError, checkCharCaptcha, checkSmsCode, smsCodeError, type CaptchaAnswer } from './captcha.js';
import { checkCode, consumeCode, issueCode, randomToken } from '../../../lib/store/codes.js';

interface UserRow {
  id: number;
  username: string;
  email: string | null;
  status: string | null;
}

const userTable = (ctx: AppContext): ReturnType<typeof sql.table> =>
  sql.table(ctx.registry.require('sysuser').table);

/**
 * Sets a user's password (in the caller's transaction), ends all of the user's sessions and
 * lifts a sign-in lock: whoever proved control of the mailbox or mobile owns the account now.
 */
async function setPassword(
  ctx: AppContext,
  trx: Db,
  user: UserRow,
  tenantCode: string,
  password: string,
  how: string,
): Promise<void> {
  const entity = ctx.registry.require('sysuser');
  await sql`update ${sql.table(entity.table)} set password = ${await hashSecret(password)}, version = version + 1,
    updated_at = now(), updated_by = ${user.username} where id = ${user.id}`.execute(trx);
  await endSessions({ trx, userIds: [user.id] });
  await ctx.store.forget(signInKey(tenantCode, user.username), trx);
  await writeAudit({
    trx,
    actor: { userId: user.id, username: user.username, tenantCode },
    entries: [
      {
        entity: entity.name,
        recordKey: user.id,
        action: 'update',
        before: null,
        after: { passwordChanged: how },
      },
    ],
  });
}

/**
 * Mails a one-time reset code and link to every active user of the tenant with that address,
 * after a character captcha. Nothing tells whether the address is known.
 */
export async function mailResetCodes({
  ctx,
  mailer,
  tenantCode,
  email,
  captcha,
  ip,
  l10n,
}: {
  ctx: AppContext;
  mailer: Mailer;
  tenantCode: string;
  email: string;
  captcha: CaptchaAnswer;
  ip: string;
  l10n: Localizer;
}): Promise<void> {
  const minutes = ctx.config.abuse.resetCodeMinutes;
  // Checked outside the transaction: the embedded database has one connection, and a wrong guess must stick.
  const solved = await checkCharCaptcha({ ctx, t: l10n.t, captcha });
  const mails = await inTransaction(ctx.db, async (trx) => {
    if (!(await consumeCode(trx, solved.id))) throw captchaError(l10n.t);
    const users = await sql<UserRow>`select id, username, email, status from ${userTable(ctx)}
      where tenant_code = ${tenantCode} and lower(email) = lower(${email}) and status = '1'`.execute(trx);
    const prepared = [];
    for (const user of users.rows) {
      const secret = randomToken(32);
      await issueCode({
        store: ctx.store,
        issue: {
          tenantCode,
          purpose: 'reset',
          target: String(user.id),
          code: secret,
          seconds: minutes * 60,
          ip,
        },
        trx,
      });
      const code = `${user.id}.${secret}`;
      const query = new URLSearchParams({ code, tenantCode });
      // Never built from the Host header: a forged one would send the reset link to another site.
      const link = `${ctx.config.publicUrl ?? ''}/forgetPwd?${query.toString()}`;
      prepared.push({ user, code, link });
    }
    return prepared;
  });
  for (const { user, code, link } of mails) {
    await mailer.send({
      tenantCode,
      to: user.email ?? email,
      subject: l10n.t('account.resetMailSubject'),
      text: l10n.t('account.resetMailText', { username: user.username, link, code, minutes }),
      data: { username: user.username, code, link, minutes },
    });
  }
}

/** Sets a new password with the code of a reset mail; the code works once, within its lifetime. */
export async function resetPasswordByCode({
  ctx,
  tenantCode,
  code,
  password,
  t,
}: {
  ctx: AppContext;
  tenantCode: string;
  code: string;
  password: string;
  t: Translate;
}): Promise<void> {
  const invalid = (): AppError =>
    new AppError('resetCodeInvalid', {}, [{ field: '/code', message: t('errors.resetCodeInvalid') }]);
  // A mailed code is "<user id>.<secret>": the secret is filed under the user id as text.
  const dot = code.indexOf('.');
  const userId = dot > 0 ? code.slice(0, dot) : '';
  if (userId === '') throw invalid();
  const live = await checkCode(ctx.store, {
    tenantCode,
    purpose: 'reset',
    target: userId,
    code: code.slice(dot + 1),
  });
  if (!live) throw invalid();
  await inTransaction(ctx.db, async (trx) => {
    if (!(await consumeCode(trx, live.id))) throw invalid();
    // Only a live code vouches for the id: it was filed under the id's own digits, which the
    // database reads as the key.
    const found = await sql<UserRow>`select id, username, email, status from ${userTable(ctx)}
      where id = cast(${userId} as bigint) and tenant_code = ${tenantCode} for update`.execute(trx);
    const user = found.rows[0];
    if (!user) throw invalid();
    await setPassword(ctx, trx, user, tenantCode, password, 'mail');
  });
}

async function userByMobile(
  ctx: AppContext,
  db: Db,
  tenantCode: string,
  mobile: string,
  t: Translate,
): Promise<UserRow> {
  const found = await sql<UserRow>`select id, username, email, status from ${userTable(ctx)}
    where tenant_code = ${tenantCode} and mobile = ${mobile}`.execute(db);
  const user = found.rows[0];
  if (!user) {
    throw new AppError('mobileNotRegistered', {}, [
      { field: '/mobile', message: t('errors.mobileNotRegistered') },
    ]);
  }
  return user;
}

export interface MobileProof {
  ctx: AppContext;
  tenantCode: string;
  mobile: string;
  smsCaptcha: string;
  t: Translate;
}

/** Step one of a reset by SMS: the user of a registered mobile whose code is right (the code stays usable). */
export async function userOfMobileCode({ ctx, tenantCode, mobile, smsCaptcha, t }: MobileProof): Promise<{
  username: string;
}> {
  await checkSmsCode({ ctx, t, tenantCode, mobile, smsCaptcha });
  const user = await userByMobile(ctx, ctx.db, tenantCode, mobile, t);
  return { username: user.username };
}

/** Step two: a new password for the user of the mobile number, with the SMS code (used up here). */
export async function resetPasswordBySms(proof: MobileProof & { password: string }): Promise<void> {
  const { ctx, tenantCode, mobile, smsCaptcha, t } = proof;
  const code = await checkSmsCode({ ctx, t, tenantCode, mobile, smsCaptcha });
  await inTransaction(ctx.db, async (trx) => {
    if (!(await consumeCode(trx, code.id))) throw smsCodeError(t);
    const user = await userByMobile(ctx, trx, tenantCode, mobile, t);
    await setPassword(ctx, trx, user, tenantCode, proof.password, 'sms');
  });
}
