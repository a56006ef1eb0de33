import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { writeAudit } from '../../lib/audit.js';
import { signInKey } from '../../services/sessions/guard.js';
import { hashSecret } from '../../lib/passwords.js';
import type { AppContext } from '../../lib/context.js';
import type { Db } from '../../lib/db/database.js';
import { AppError } from '../../lib/errors.js';
import { ok } from '../../lib/http.js';
import { localizerFor, type Translate } from '../../lib/i18n.js';
import { captchaError, checkCharCaptcha, checkSmsCode, smsCodeError } from './captcha.js';
import { checkCode, consumeCode, issueCode, randomToken } from '../../services/accounts/codes.js';
import type { Mailer } from '../../lib/mail.js';
import { assertField, fieldRule, inputOf, requireFields, secretOf, textOf } from '../../lib/input.js';
import { inTransaction } from './register.js';

interface UserRow {
  id: number;
  username: string;
  email: string | null;
  status: string | null;
}

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
) {
  const entity = ctx.registry.require('sysuser');
  await sql`update ${sql.table(entity.table)} set password = ${await hashSecret(password)}, version = version + 1,
    updated_at = now(), updated_by = ${user.username} where id = ${user.id}`.execute(trx);
  await sql`update sys_session set revoked_at = now() where user_id = ${user.id} and revoked_at is null`.execute(
    trx,
  );
  await ctx.store.forget(signInKey(tenantCode, user.username), trx);
  await writeAudit(trx, { userId: user.id, username: user.username, tenantCode }, [
    {
      entity: entity.name,
      recordKey: user.id,
      action: 'update',
      before: null,
      after: { passwordChanged: how },
    },
  ]);
}

export interface RecoveryRoutesOptions {
  mailer: Mailer;
  rateLimit: { max: number; timeWindow: number };
}

/** Forgotten passwords: by mail (retrievePassword, resetPassword) or by SMS (checkMobileAndSms, editPassword). */
export async function recoveryRoutes(app: FastifyInstance, options: RecoveryRoutesOptions): Promise<void> {
  const ctx = app.ctx;
  const userTable = sql.table(ctx.registry.require('sysuser').table);
  const publicLimited = { config: { isPublic: true, rateLimit: options.rateLimit } };
  const passwordRule = fieldRule(ctx, 'sysuser', 'password');
  const checkPassword = (password: string, field: string, t: Translate): void =>
    assertField(passwordRule(password, `/${field}`, t));
  const emailRule = fieldRule(ctx, 'sysuser', 'email');
  const tenantOf = (input: Record<string, unknown>): string =>
    textOf(input, 'tenantCode') || ctx.config.defaultTenant;

  /**
   * Mails a one-time reset code and link to every active user of the tenant with that address,
   * after a character captcha. The answer is the same whether or not the address is known.
   */
  app.post('/api/account/sysuserdetail/retrievePassword', publicLimited, async (request) => {
    const l10n = localizerFor(request);
    const input = inputOf(request);
    const email = textOf(input, 'email');
    assertField(emailRule(email, '/email', l10n.t));
    const tenantCode = tenantOf(input);
    const minutes = ctx.config.abuse.resetCodeMinutes;
    // Checked outside the transaction: the embedded database has one connection, and a wrong guess must stick.
    const captcha = await checkCharCaptcha(ctx, l10n.t, input);
    const mails = await inTransaction(ctx.db, async (trx) => {
      if (!(await consumeCode(trx, captcha.id))) throw captchaError(l10n.t);
      const users = await sql<UserRow>`select id, username, email, status from ${userTable}
        where tenant_code = ${tenantCode} and lower(email) = lower(${email}) and status = '1'`.execute(trx);
      const prepared = [];
      for (const user of users.rows) {
        const secret = randomToken(32);
        await issueCode(
          ctx.store,
          {
            tenantCode,
            purpose: 'reset',
            target: String(user.id),
            code: secret,
            seconds: minutes * 60,
            ip: request.ip,
          },
          { trx },
        );
        const code = `${user.id}.${secret}`;
        const query = new URLSearchParams({ code, tenantCode });
        // Never built from the Host header: a forged one would send the reset link to another site.
        const link = `${ctx.config.publicUrl ?? ''}/forgetPwd?${query.toString()}`;
        prepared.push({ user, code, link });
      }
      return prepared;
    });
    for (const { user, code, link } of mails) {
      await options.mailer.send({
        tenantCode,
        to: user.email ?? email,
        subject: l10n.t('account.resetMailSubject'),
        text: l10n.t('account.resetMailText', { username: user.username, link, code, minutes }),
        data: { username: user.username, code, link, minutes },
      });
    }
    return ok(null);
  });

  /** Sets a new password with the code of a reset mail; the code works once, within its lifetime. */
  app.post('/api/account/sysuserdetail/resetPassword', publicLimited, async (request) => {
    const t = localizerFor(request).t;
    const input = inputOf(request);
    const code = textOf(input, 'code');
    const password = secretOf(input, 'newPassword') || secretOf(input, 'password');
    requireFields(t, { code });
    checkPassword(password, 'newPassword', t);
    const confirm = input.confirmPassword;
    if (typeof confirm === 'string' && confirm !== password) {
      throw new AppError('validation', {}, [
        { field: '/confirmPassword', message: t('account.passwordMismatch') },
      ]);
    }
    const tenantCode = tenantOf(input);
    const invalid = (): AppError =>
      new AppError('resetCodeInvalid', {}, [{ field: '/code', message: t('errors.resetCodeInvalid') }]);
    const dot = code.indexOf('.');
    const userId = dot > 0 ? code.slice(0, dot) : '';
    if (!/^\d{1,15}$/.test(userId)) throw invalid();
    const live = await checkCode(ctx.store, {
      tenantCode,
      purpose: 'reset',
      target: userId,
      code: code.slice(dot + 1),
    });
    if (!live) throw invalid();
    await inTransaction(ctx.db, async (trx) => {
      if (!(await consumeCode(trx, live.id))) throw invalid();
      const found = await sql<UserRow>`select id, username, email, status from ${userTable}
        where id = ${Number(userId)} and tenant_code = ${tenantCode} for update`.execute(trx);
      const user = found.rows[0];
      if (!user) throw invalid();
      await setPassword(ctx, trx, user, tenantCode, password, 'mail');
    });
    return ok(null);
  });

  const userByMobile = async (db: Db, tenantCode: string, mobile: string, t: Translate): Promise<UserRow> => {
    const found = await sql<UserRow>`select id, username, email, status from ${userTable}
      where tenant_code = ${tenantCode} and mobile = ${mobile}`.execute(db);
    const user = found.rows[0];
    if (!user) {
      throw new AppError('mobileNotRegistered', {}, [
        { field: '/mobile', message: t('errors.mobileNotRegistered') },
      ]);
    }
    return user;
  };

  const mobileAndCode = (request: FastifyRequest) => {
    const t = localizerFor(request).t;
    const input = inputOf(request);
    const mobile = textOf(input, 'mobile');
    const smsCaptcha = textOf(input, 'smsCaptcha');
    requireFields(t, { mobile, smsCaptcha });
    return { t, input, mobile, smsCaptcha, tenantCode: tenantOf(input) };
  };

  /** Step one of a reset by SMS: is the code right for a registered mobile? The code stays usable. */
  app.post('/api/account/sysuserdetail/checkMobileAndSms', publicLimited, async (request) => {
    const { t, mobile, smsCaptcha, tenantCode } = mobileAndCode(request);
    await checkSmsCode(ctx, t, { tenantCode, mobile, smsCaptcha });
    const user = await userByMobile(ctx.db, tenantCode, mobile, t);
    return ok({ mobile, username: user.username });
  });

  /** Step two: a new password for the user of the mobile number, with the SMS code (used up here). */
  app.post('/api/account/sysuserdetail/editPassword', publicLimited, async (request) => {
    const { t, input, mobile, smsCaptcha, tenantCode } = mobileAndCode(request);
    const password = secretOf(input, 'newPassword') || secretOf(input, 'password');
    checkPassword(password, input.newPassword !== undefined ? 'newPassword' : 'password', t);
    const confirm = input.confirmPassword;
    if (typeof confirm === 'string' && confirm !== password) {
      throw new AppError('validation', {}, [
        { field: '/confirmPassword', message: t('account.passwordMismatch') },
      ]);
    }
    const code = await checkSmsCode(ctx, t, { tenantCode, mobile, smsCaptcha });
    await inTransaction(ctx.db, async (trx) => {
      if (!(await consumeCode(trx, code.id))) throw smsCodeError(t);
      const user = await userByMobile(trx, tenantCode, mobile, t);
      await setPassword(ctx, trx, user, tenantCode, password, 'sms');
    });
    return ok(null);
  });
}
