import type { RouteRateLimit } from '../../sessions/index.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../../lib/errors.js';
import { ok } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { inputOf, textOf } from '../../../lib/input.js';
import { isCompanyNameTaken, register } from '../services/register.js';

/** Registration (SPEC §7): registerAccount and register take the same body; all public. */
export async function registerRoutes(
  app: FastifyInstance,
  options: { rateLimit: RouteRateLimit },
): Promise<void> {
  const { ctx, i18n } = app;
  const publicLimited = { config: { isPublic: true, rateLimit: options.rateLimit } };
  const handler = async (request: FastifyRequest) =>
    ok(await register({ ctx, i18n, l10n: localizerFor(request), input: inputOf(request) }));
  app.post('/api/account/sysuserdetail/registerAccount', publicLimited, handler);
  app.post('/api/account/sysuserdetail/register', publicLimited, handler);

  /** Is an organisation name taken in the tenant? (companyName or orgName) */
  app.post('/api/account/sysuserdetail/queryCompanyName', publicLimited, async (request) => {
    const l10n = localizerFor(request);
    const input = inputOf(request);
    const field = textOf(input, 'companyName') || !textOf(input, 'orgName') ? 'companyName' : 'orgName';
    const companyName = textOf(input, field);
    if (!companyName) {
      throw new AppError('validation', {}, [{ field: `/${field}`, message: l10n.t('validation.required') }]);
    }
    const tenantCode = textOf(input, 'tenantCode') || ctx.config.defaultTenant;
    return ok({ companyName, isTaken: await isCompanyNameTaken({ ctx, tenantCode, companyName }) });
  });
}
