import { findSession, type RouteRateLimit } from '../../sessions/index.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken, ok } from '../../../lib/http.js';
import { localizerFor, type Translate } from '../../../lib/i18n.js';
import { assertField, fieldRule, requireFields, textOf } from '../../../lib/input.js';
import { answer, bool, object, PUBLIC_SECURITY, typed } from '../../../lib/route-schema.js';
import type { SmsProvider } from '../../../lib/sms.js';
import {
  assertMaySendSms,
  captchaError,
  checkCharCaptcha,
  newCharCaptcha,
  sendSmsCode,
  type CaptchaAnswer,
} from '../services/captcha.js';
import { markVerified } from '../../../lib/store/codes.js';
import { accountInput, fieldsOf, type AccountInput } from './account-input.js';

export interface CaptchaRoutesOptions {
  sms: SmsProvider;
  rateLimit: RouteRateLimit;
}

const tags = ['account'];

/** The captcha a request carried, trimmed (empty texts when none). */
const captchaOf = (fields: AccountInput<'captchaId' | 'charCaptcha'>): CaptchaAnswer => ({
  captchaId: textOf(fields.captchaId),
  charCaptcha: textOf(fields.charCaptcha),
});

const SMS_FIELDS = ['mobile', 'tenantCode', 'captchaId', 'charCaptcha'] as const;

/** What getSmsCaptcha answers once the code is sent. */
const SMS_SENT = object(
  {
    mobile: { type: 'string' },
    expiresIn: { type: 'integer', description: 'seconds the code stays good' },
    interval: { type: 'integer', description: 'seconds before another code may go to the number' },
  },
  ['mobile', 'expiresIn', 'interval'],
);

/** Character captcha (image + compareCaptcha) and SMS captcha (getSmsCaptcha), all public. */
export async function captchaRoutes(app: FastifyInstance, options: CaptchaRoutesOptions): Promise<void> {
  const ctx = app.ctx;
  const api = typed(app);
  const publicLimited = { isPublic: true, rateLimit: options.rateLimit };
  // SMS codes go only to numbers a user may have: the user schema's mobile rule.
  const mobileRule = fieldRule({ ctx, entityName: 'sysuser', fieldName: 'mobile' });
  const checkMobile = (mobile: string, t: Translate): void => assertField(mobileRule(mobile, '/mobile', t));

  api.get(
    '/api/account/captcha/getCharCaptcha',
    {
      config: publicLimited,
      schema: {
        tags,
        summary: 'A character captcha image and its id',
        security: PUBLIC_SECURITY,
        response: answer(
          object(
            {
              captchaId: { type: 'string', description: 'sent back with the answer (captchaId)' },
              svg: { type: 'string', description: 'the image, as SVG markup' },
              expiresIn: { type: 'integer', description: 'seconds the captcha stays good' },
            },
            ['captchaId', 'svg', 'expiresIn'],
          ),
        ),
      },
    },
    async (request) => ok(await newCharCaptcha({ ctx, ip: request.ip })),
  );

  /**
   * Checks a character captcha once: a right answer passes (and leaves the captcha good for one
   * following action within its lifetime); a wrong answer, or asking a second time, is refused.
   */
  api.post(
    '/api/account/sysuserdetail/compareCaptcha',
    {
      config: publicLimited,
      schema: {
        tags,
        summary: 'Checks a character captcha once',
        ...accountInput('captchaId', 'charCaptcha'),
        response: answer(bool({ description: 'true: the answer is right (a wrong one is a 400)' })),
      },
    },
    async (request) => {
      const t = localizerFor(request).t;
      const code = await checkCharCaptcha({ ctx, t, captcha: captchaOf(fieldsOf(request)) });
      if (!(await markVerified(code.id))) throw captchaError(t);
      return ok(true);
    },
  );

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

  const smsCaptcha = async (request: FastifyRequest, fields: AccountInput<(typeof SMS_FIELDS)[number]>) => {
    const t = localizerFor(request).t;
    const mobile = textOf(fields.mobile);
    const tenantCode = textOf(fields.tenantCode) || ctx.config.defaultTenant;
    requireFields(t, { mobile });
    checkMobile(mobile, t);
    const captcha = captchaOf(fields);
    await assertMaySendSms({ ctx, t, tenantCode, mobile, captcha, isSignedIn: await isSignedIn(request) });
    return ok(await sendSmsCode({ ctx, sms: options.sms, tenantCode, mobile, ip: request.ip, t }));
  };
  // GET and POST draw on one counter per client address (and the code quota is per number).
  const smsLimited = { isPublic: true, rateLimit: { ...options.rateLimit, groupId: 'sms' } };
  const smsSchema = { tags, summary: 'Sends an SMS code to a mobile number', response: answer(SMS_SENT) };
  const smsInput = accountInput(...SMS_FIELDS);
  api.get(
    '/api/account/captcha/getSmsCaptcha',
    { config: smsLimited, schema: { ...smsSchema, querystring: smsInput.querystring } },
    async (request) => smsCaptcha(request, request.query),
  );
  api.post(
    '/api/account/captcha/getSmsCaptcha',
    { config: smsLimited, schema: { ...smsSchema, ...smsInput } },
    async (request) => smsCaptcha(request, fieldsOf(request)),
  );
}
