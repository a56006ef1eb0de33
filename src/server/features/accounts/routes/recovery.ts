import type { RouteRateLimit } from '../../sessions/index.js';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../lib/errors.js';
import { ok } from '../../../lib/http.js';
import { localizerFor, type Translate } from '../../../lib/i18n.js';
import { assertField, fieldRule, requireFields, secretOf, textOf } from '../../../lib/input.js';
import type { Mailer } from '../../../lib/mail.js';
import { answer, object, typed } from '../../../lib/route-schema.js';
import {
  mailResetCodes,
  resetPasswordByCode,
  resetPasswordBySms,
  userOfMobileCode,
  type MobileProof,
} from '../services/recovery.js';
import { accountInput, fieldsOf, type AccountInput } from './account-input.js';
import { NO_DATA } from './answers.js';

export interface RecoveryRoutesOptions {
  mailer: Mailer;
  rateLimit: RouteRateLimit;
}

const tags = ['account'];

/** Forgotten passwords: by mail (retrievePassword, resetPassword) or by SMS (checkMobileAndSms, editPassword). */
export async function recoveryRoutes(app: FastifyInstance, options: RecoveryRoutesOptions): Promise<void> {
  const ctx = app.ctx;
  const api = typed(app);
  const config = { isPublic: true, rateLimit: options.rateLimit };
  const passwordRule = fieldRule({ ctx, entityName: 'sysuser', fieldName: 'password' });
  const emailRule = fieldRule({ ctx, entityName: 'sysuser', fieldName: 'email' });
  const tenantOf = (input: AccountInput<'tenantCode'>): string =>
    textOf(input.tenantCode) || ctx.config.defaultTenant;

  /** The new password (newPassword, or password) by the user schema's rule, and its confirmation. */
  const newPasswordOf = (
    input: AccountInput<'newPassword' | 'password' | 'confirmPassword'>,
    t: Translate,
    field: string,
  ): string => {
    const password = secretOf(input.newPassword) || secretOf(input.password);
    assertField(passwordRule(password, `/${field}`, t));
    const confirm = input.confirmPassword;
    if (typeof confirm === 'string' && confirm !== password) {
      throw new AppError('validation', {}, [
        { field: '/confirmPassword', message: t('account.passwordMismatch') },
      ]);
    }
    return password;
  };

  /** A registered mobile number and its SMS code, both required. */
  const mobileProof = (
    input: AccountInput<'mobile' | 'smsCaptcha' | 'tenantCode'>,
    t: Translate,
  ): MobileProof => {
    const mobile = textOf(input.mobile);
    const smsCaptcha = textOf(input.smsCaptcha);
    requireFields(t, { mobile, smsCaptcha });
    return { ctx, t, mobile, smsCaptcha, tenantCode: tenantOf(input) };
  };

  api.post(
    '/api/account/sysuserdetail/retrievePassword',
    {
      config,
      schema: {
        tags,
        summary: 'Mails a password-reset code',
        ...accountInput('email', 'tenantCode', 'captchaId', 'charCaptcha'),
        response: answer(NO_DATA),
      },
    },
    async (request) => {
      const l10n = localizerFor(request);
      const input = fieldsOf(request);
      const email = textOf(input.email);
      assertField(emailRule(email, '/email', l10n.t));
      const captcha = { captchaId: textOf(input.captchaId), charCaptcha: textOf(input.charCaptcha) };
      await mailResetCodes({
        ctx,
        mailer: options.mailer,
        tenantCode: tenantOf(input),
        email,
        captcha,
        ip: request.ip,
        l10n,
      });
      return ok(null);
    },
  );

  api.post(
    '/api/account/sysuserdetail/resetPassword',
    {
      config,
      schema: {
        tags,
        summary: 'Sets a new password with a mailed code',
        ...accountInput('code', 'newPassword', 'password', 'confirmPassword', 'tenantCode'),
        response: answer(NO_DATA),
      },
    },
    async (request) => {
      const t = localizerFor(request).t;
      const input = fieldsOf(request);
      const code = textOf(input.code);
      requireFields(t, { code });
      const password = newPasswordOf(input, t, 'newPassword');
      await resetPasswordByCode({ ctx, tenantCode: tenantOf(input), code, password, t });
      return ok(null);
    },
  );

  api.post(
    '/api/account/sysuserdetail/checkMobileAndSms',
    {
      config,
      schema: {
        tags,
        summary: 'Checks an SMS code of a registered mobile number',
        ...accountInput('mobile', 'smsCaptcha', 'tenantCode'),
        response: answer(
          object(
            {
              mobile: { type: 'string' },
              username: { type: 'string', description: 'the user of the number' },
            },
            ['mobile', 'username'],
          ),
        ),
      },
    },
    async (request) => {
      const proof = mobileProof(fieldsOf(request), localizerFor(request).t);
      const { username } = await userOfMobileCode(proof);
      return ok({ mobile: proof.mobile, username });
    },
  );

  api.post(
    '/api/account/sysuserdetail/editPassword',
    {
      config,
      schema: {
        tags,
        summary: 'Sets a new password with an SMS code',
        ...accountInput('mobile', 'smsCaptcha', 'newPassword', 'password', 'confirmPassword', 'tenantCode'),
        response: answer(NO_DATA),
      },
    },
    async (request) => {
      const input = fieldsOf(request);
      const proof = mobileProof(input, localizerFor(request).t);
      const field = input.newPassword !== undefined ? 'newPassword' : 'password';
      await resetPasswordBySms({ ...proof, password: newPasswordOf(input, proof.t, field) });
      return ok(null);
    },
  );
}
