import { ruleLimit } from '../../monitor/index.js';
import { sql } from 'kysely';
import svgCaptcha from 'svg-captcha';
import { EntityInputError, type CharCaptcha } from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Translate } from '../../../lib/i18n.js';
import { requireFields } from '../../../lib/input.js';
import type { SmsProvider } from '../../../lib/sms.js';
import {
  burnCode,
  checkCode,
  consumeCode,
  digitCode,
  issueCode,
  randomToken,
  type LiveCode,
} from '../../../lib/store/codes.js';

/** Character captchas are not tied to a tenant; they are filed under the default one. */
const captchaTenant = (ctx: AppContext): string => ctx.config.defaultTenant;

export const captchaError = (t: Translate): AppError =>
  new AppError('captchaInvalid', {}, [{ field: '/charCaptcha', message: t('errors.captchaInvalid') }]);

/** A character captcha as a form sends it back: its id and the characters read (both trimmed). */
export interface CaptchaAnswer {
  captchaId: string;
  charCaptcha: string;
}

/**
 * The live character captcha of an action (retrievePassword) when the answer is right; the
 * caller uses it up in its transaction with consumeCode. A wrong answer kills the captcha, so
 * each image is worth one guess.
 */
export async function checkCharCaptcha({
  ctx,
  t,
  captcha,
}: {
  ctx: AppContext;
  t: Translate;
  captcha: CaptchaAnswer;
}): Promise<LiveCode> {
  const { captchaId } = captcha;
  const answer = captcha.charCaptcha.toLowerCase();
  requireFields(t, { charCaptcha: answer, captchaId });
  const target = { tenantCode: captchaTenant(ctx), purpose: 'captcha', target: captchaId } as const;
  const code = await checkCode(ctx.store, { ...target, code: answer });
  if (!code) {
    await burnCode(ctx.store, target);
    throw captchaError(t);
  }
  return code;
}

/** The live SMS code of a mobile number when smsCaptcha is right, else 400 naming smsCaptcha. */
export async function checkSmsCode({
  ctx,
  t,
  ...check
}: {
  ctx: AppContext;
  t: Translate;
  tenantCode: string;
  mobile: string;
  smsCaptcha: string;
}): Promise<LiveCode> {
  const code = await checkCode(ctx.store, {
    tenantCode: check.tenantCode,
    purpose: 'sms',
    target: check.mobile,
    code: check.smsCaptcha,
  });
  if (!code) throw smsCodeError(t);
  return code;
}

export const smsCodeError = (t: Translate): AppError =>
  new AppError('smsCodeInvalid', {}, [{ field: '/smsCaptcha', message: t('errors.smsCodeInvalid') }]);

/** A new character captcha: an id to send back with the answer, and the SVG image. */
export async function newCharCaptcha({ ctx, ip }: { ctx: AppContext; ip: string }): Promise<CharCaptcha> {
  const seconds = ctx.config.abuse.captchaSeconds;
  const captcha = svgCaptcha.create({ size: 4, noise: 2, color: true, ignoreChars: '0oO1iIlL' });
  const captchaId = randomToken();
  await issueCode({
    store: ctx.store,
    issue: {
      tenantCode: captchaTenant(ctx),
      purpose: 'captcha',
      target: captchaId,
      code: captcha.text.toLowerCase(),
      seconds,
      ip,
    },
  });
  return { captchaId, svg: captcha.data, expiresIn: seconds };
}

/**
 * Sends an SMS code to a mobile number: one per number every smsIntervalSeconds and at most
 * smsDailyLimit in 24 hours, counted in the shared store so that parallel calls (on any
 * server process) cannot slip past the limits.
 */
export async function sendSmsCode({
  ctx,
  sms,
  tenantCode,
  mobile,
  ip,
  t,
}: {
  ctx: AppContext;
  sms: SmsProvider;
  tenantCode: string;
  mobile: string;
  ip: string;
  t: Translate;
}): Promise<{ mobile: string; expiresIn: number; interval: number }> {
  // The quota is read live (flow-control page); the code's lifetime comes from the environment.
  const limits = {
    ...ctx.config.abuse,
    smsIntervalSeconds: await ruleLimit(ctx, 'smsInterval'),
    smsDailyLimit: await ruleLimit(ctx, 'smsDaily'),
  };
  const code = digitCode(6);
  const issued = await issueCode({
    store: ctx.store,
    issue: { tenantCode, purpose: 'sms', target: mobile, code, seconds: limits.smsCodeSeconds, ip },
    quota: { intervalSeconds: limits.smsIntervalSeconds, dailyLimit: limits.smsDailyLimit },
    // A failed send leaves no code behind and counts for nothing.
    deliver: () =>
      sms.send({
        tenantCode,
        mobile,
        code,
        text: t('account.smsText', { code, minutes: Math.ceil(limits.smsCodeSeconds / 60) }),
      }),
  });
  if (!issued.issued && issued.reason === 'tooSoon')
    throw new AppError('smsTooSoon', { seconds: issued.seconds });
  if (!issued.issued) throw new AppError('smsDailyLimit', { limit: limits.smsDailyLimit });
  return { mobile, expiresIn: limits.smsCodeSeconds, interval: limits.smsIntervalSeconds };
}

/**
 * Whether an SMS code may go to a mobile number, before any is sent. The tenant must exist (a
 * made-up tenant code would be a fresh quota for the same number). A number that no user of the
 * tenant has costs money and may belong to a stranger: unless the caller is signed in, it needs a
 * solved character captcha (captchaId, charCaptcha), used up here, as registration asks for.
 */
export async function assertMaySendSms({
  ctx,
  t,
  tenantCode,
  mobile,
  captcha,
  isSignedIn,
}: {
  ctx: AppContext;
  t: Translate;
  tenantCode: string;
  mobile: string;
  /** The character captcha the request carried (empty when it carried none). */
  captcha: CaptchaAnswer;
  isSignedIn: boolean;
}): Promise<void> {
  const tenants = ctx.registry.require('systenant');
  const users = ctx.registry.require('sysuser');
  const found = await sql<{ is_tenant: boolean; is_registered: boolean }>`select
      exists (select 1 from ${sql.table(tenants.table)} where tenant_code = ${tenantCode}) as is_tenant,
      exists (select 1 from ${sql.table(users.table)} where tenant_code = ${tenantCode} and mobile = ${mobile})
        as is_registered`.execute(ctx.db);
  const row = found.rows[0];
  if (!row?.is_tenant) {
    throw new EntityInputError([
      { field: '/tenantCode', message: t('errors.refMissing', { entity: tenants.name, key: tenantCode }) },
    ]);
  }
  if (row.is_registered || isSignedIn) return;
  const solved = await checkCharCaptcha({ ctx, t, captcha });
  if (!(await inTransaction(ctx.db, (trx) => consumeCode(trx, solved.id)))) throw captchaError(t);
}
