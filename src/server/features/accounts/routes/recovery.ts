import type { RouteRateLimit } from '../../sessions/index.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../../lib/errors.js';
import { ok } from '../../../lib/http.js';
import { localizerFor, type Translate } from '../../../lib/i18n.js';
import { assertField, fieldRule, inputOf, requireFields, secretOf, textOf } from '../../../lib/input.js';
import type { Mailer } from '../../../lib/mail.js';
import {
  mailResetCodes,
  resetPasswordByCode,
  resetPasswordBySms,
  userOfMobileCode,
} from '../services/recovery.js';

export interface RecoveryRoutesOptions {
  mailer: Mailer;
  rateLimit: RouteRateLimit;
}

/** Forgotten passwords: by mail (retrievePassword, resetPassword) or by SMS (checkMobileAndSms, editPassword). */
export async function recoveryRoutes(app: FastifyInstance, options: RecoveryRoutesOptions): Promise<void> {
  const ctx = app.ctx;
  const publicLimited = { config: { isPublic: true, rateLimit: options.rateLimit } };
  const passwordRule = fieldRule(ctx, 'sysuser', 'password');
  const emailRule = fieldRule(ctx, 'sysuser', 'email');
  const tenantOf = (input: Record<string, unknown>): string =>
    textOf(input, 'tenantCode') || ctx.config.defaultTenant;

  /** The new password (newPassword, or password) by the user schema's rule, and its confirmation. */
  const newPasswordOf = (input: Record<string, unknown>, t: Translate, field: string): string => {
    const password = secretOf(input, 'newPassword') || secretOf(input, 'password');
    assertField(passwordRule(password, `/${field}`, t));
    const confirm = input.confirmPassword;
    if (typeof confirm === 'string' && confirm !== password) {
      throw new AppError('validation', {}, [
        { field: '/confirmPassword', message: t('account.passwordMismatch') },
      ]);
    }
    return password;
  };

  const mobileProof = (request: FastifyRequest) => {
    const t = localizerFor(request).t;
    const input = inputOf(request);
    const mobile = textOf(input, 'mobile');
    const smsCaptcha = textOf(input, 'smsCaptcha');
    requireFields(t, { mobile, smsCaptcha });
    return { input, proof: { ctx, t, mobile, smsCaptcha, tenantCode: tenantOf(input) } };
  };

  app.post('/api/account/sysuserdetail/retrievePassword', publicLimited, async (request) => {
    const l10n = localizerFor(request);
    const input = inputOf(request);
    const email = textOf(input, 'email');
    assertField(emailRule(email, '/email', l10n.t));
    const { mailer } = options;
    await mailResetCodes({ ctx, mailer, tenantCode: tenantOf(input), email, input, ip: request.ip, l10n });
    return ok(null);
  });

  app.post('/api/account/sysuserdetail/resetPassword', publicLimited, async (request) => {
    const t = localizerFor(request).t;
    const input = inputOf(request);
    const code = textOf(input, 'code');
    requireFields(t, { code });
    const password = newPasswordOf(input, t, 'newPassword');
    await resetPasswordByCode({ ctx, tenantCode: tenantOf(input), code, password, t });
    return ok(null);
  });

  app.post('/api/account/sysuserdetail/checkMobileAndSms', publicLimited, async (request) => {
    const { proof } = mobileProof(request);
    const { username } = await userOfMobileCode(proof);
    return ok({ mobile: proof.mobile, username });
  });

  app.post('/api/account/sysuserdetail/editPassword', publicLimited, async (request) => {
    const { input, proof } = mobileProof(request);
    const field = input.newPassword !== undefined ? 'newPassword' : 'password';
    await resetPasswordBySms({ ...proof, password: newPasswordOf(input, proof.t, field) });
    return ok(null);
  });
}
