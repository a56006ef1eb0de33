import type { FastifyInstance, FastifyRequest } from 'fastify';
import svgCaptcha from 'svg-captcha';
import type { AppContext } from '../../lib/context.js';
import { AppError } from '../../lib/errors.js';
import { ok } from '../../lib/http.js';
import { localizerFor, type Translate } from '../../lib/i18n.js';
import {
  burnCode,
  checkCode,
  digitCode,
  issueCode,
  markVerified,
  randomToken,
  type LiveCode,
} from '../../services/accounts/codes.js';
import { assertField, fieldRule, inputOf, requireFields, textOf } from '../../lib/input.js';
import type { SmsProvider } from '../../lib/sms.js';

/** Character captchas are not tied to a tenant; they are filed under the default one. */
const captchaTenant = (ctx: AppContext): string => ctx.config.defaultTenant;

export const captchaError = (t: Translate): AppError =>
  new AppError('captchaInvalid', {}, [{ field: '/charCaptcha', message: t('errors.captchaInvalid') }]);

/**
 * The live character captcha of an action (retrievePassword) when the answer is right; the
 * caller uses it up in its transaction with consumeCode. A wrong answer kills the captcha, so
 * each image is worth one guess.
 */
export async function checkCharCaptcha(
  ctx: AppContext,
  t: Translate,
  input: Record<string, unknown>,
): Promise<LiveCode> {
  const captchaId = textOf(input, 'captchaId');
  const answer = textOf(input, 'charCaptcha').toLowerCase();
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
export async function checkSmsCode(
  ctx: AppContext,
  t: Translate,
  check: { tenantCode: string; mobile: string; smsCaptcha: string },
): Promise<LiveCode> {
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

export interface CaptchaRoutesOptions {
  sms: SmsProvider;
  rateLimit: { max: number; timeWindow: number };
}

/** Character captcha (image + compareCaptcha) and SMS captcha (getSmsCaptcha), all public. */
export async function captchaRoutes(app: FastifyInstance, options: CaptchaRoutesOptions): Promise<void> {
  const ctx = app.ctx;
  const limits = ctx.config.abuse;
  const publicLimited = { config: { isPublic: true, rateLimit: options.rateLimit } };
  // SMS codes go only to numbers a user may have: the user schema's mobile rule.
  const mobileRule = fieldRule(ctx, 'sysuser', 'mobile');
  const checkMobile = (mobile: string, t: Translate): void => assertField(mobileRule(mobile, '/mobile', t));

  /** A new character captcha: an id to send back with the answer, and the SVG image. */
  app.get('/api/account/captcha/getCharCaptcha', publicLimited, async (request) => {
    const captcha = svgCaptcha.create({ size: 4, noise: 2, color: true, ignoreChars: '0oO1iIlL' });
    const captchaId = randomToken();
    await issueCode(ctx.store, {
      tenantCode: captchaTenant(ctx),
      purpose: 'captcha',
      target: captchaId,
      code: captcha.text.toLowerCase(),
      seconds: limits.captchaSeconds,
      ip: request.ip,
    });
    return ok({ captchaId, svg: captcha.data, expiresIn: limits.captchaSeconds });
  });

  /**
   * Checks a character captcha once: a right answer passes (and leaves the captcha good for one
   * following action within its lifetime); a wrong answer, or asking a second time, is refused.
   */
  app.post('/api/account/sysuserdetail/compareCaptcha', publicLimited, async (request) => {
    const t = localizerFor(request).t;
    const code = await checkCharCaptcha(ctx, t, inputOf(request));
    if (!(await markVerified(code.id))) throw captchaError(t);
    return ok(true);
  });

  /**
   * Sends an SMS code to a mobile number: one per number every smsIntervalSeconds and at most
   * smsDailyLimit in 24 hours, counted in the shared store so that parallel calls (on any
   * server process) cannot slip past the limits.
   */
  const sendSmsCode = async (request: FastifyRequest): Promise<unknown> => {
    const l10n = localizerFor(request);
    const input = inputOf(request);
    const mobile = textOf(input, 'mobile');
    const tenantCode = textOf(input, 'tenantCode') || ctx.config.defaultTenant;
    requireFields(l10n.t, { mobile });
    checkMobile(mobile, l10n.t);
    const code = digitCode(6);
    const issued = await issueCode(
      ctx.store,
      {
        tenantCode,
        purpose: 'sms',
        target: mobile,
        code,
        seconds: limits.smsCodeSeconds,
        ip: request.ip,
      },
      {
        quota: { intervalSeconds: limits.smsIntervalSeconds, dailyLimit: limits.smsDailyLimit },
        // A failed send leaves no code behind and counts for nothing.
        deliver: () =>
          options.sms.send({
            tenantCode,
            mobile,
            code,
            text: l10n.t('account.smsText', { code, minutes: Math.ceil(limits.smsCodeSeconds / 60) }),
          }),
      },
    );
    if (!issued.issued && issued.reason === 'tooSoon')
      throw new AppError('smsTooSoon', { seconds: issued.seconds });
    if (!issued.issued) throw new AppError('smsDailyLimit', { limit: limits.smsDailyLimit });
    return ok({ mobile, expiresIn: limits.smsCodeSeconds, interval: limits.smsIntervalSeconds });
  };
  app.get('/api/account/captcha/getSmsCaptcha', publicLimited, sendSmsCode);
  app.post('/api/account/captcha/getSmsCaptcha', publicLimited, sendSmsCode);
}
