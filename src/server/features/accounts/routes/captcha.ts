import { findSession, type RouteRateLimit } from '../../sessions/index.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken, ok } from '../../../lib/http.js';
import { localizerFor, type Translate } from '../../../lib/i18n.js';
import { assertField, fieldRule, inputOf, requireFields, textOf } from '../../../lib/input.js';
import type { SmsProvider } from '../../../lib/sms.js';
import {
  assertMaySendSms,
  captchaError,
  checkCharCaptcha,
  newCharCaptcha,
  sendSmsCode,
} from '../services/captcha.js';
import { markVerified } from '../../../lib/store/codes.js';

export interface CaptchaRoutesOptions {
  sms: SmsProvider;
  rateLimit: RouteRateLimit;
}

/** Character captcha (image + compareCaptcha) and SMS captcha (getSmsCaptcha), all public. */
export async function captchaRoutes(app: FastifyInstance, options: CaptchaRoutesOptions): Promise<void> {
  const ctx = app.ctx;
  const publicLimited = { config: { isPublic: true, rateLimit: options.rateLimit } };
  // SMS codes go only to numbers a user may have: the user schema's mobile rule.
  const mobileRule = fieldRule(ctx, 'sysuser', 'mobile');
  const checkMobile = (mobile: string, t: Translate): void => assertField(mobileRule(mobile, '/mobile', t));

  app.get('/api/account/captcha/getCharCaptcha', publicLimited, async (request) =>
    ok(await newCharCaptcha({ ctx, ip: request.ip })),
  );

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

  const userTable = ctx.registry.require('sysuser').table;
  /** A public route: a bearer token, when sent, is checked here (signed-in callers need no captcha). */
  const isSignedIn = async (request: FastifyRequest): Promise<boolean> => {
    const token = bearerToken(request);
    if (!token) return false;
    return (
      (await findSession({ db: ctx.db, userTable, accessToken: token, cache: ctx.sessionCache })) !==
      undefined
    );
  };

  const smsCaptcha = async (request: FastifyRequest): Promise<unknown> => {
    const t = localizerFor(request).t;
    const input = inputOf(request);
    const mobile = textOf(input, 'mobile');
    const tenantCode = textOf(input, 'tenantCode') || ctx.config.defaultTenant;
    requireFields(t, { mobile });
    checkMobile(mobile, t);
    await assertMaySendSms({ ctx, t, tenantCode, mobile, input, isSignedIn: await isSignedIn(request) });
    return ok(await sendSmsCode({ ctx, sms: options.sms, tenantCode, mobile, ip: request.ip, t }));
  };
  // GET and POST draw on one counter per client address (and the code quota is per number).
  const smsLimited = { config: { isPublic: true, rateLimit: { ...options.rateLimit, groupId: 'sms' } } };
  app.get('/api/account/captcha/getSmsCaptcha', smsLimited, smsCaptcha);
  app.post('/api/account/captcha/getSmsCaptcha', smsLimited, smsCaptcha);
}
