import type { RouteRateLimit } from '../../sessions/index.js';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../lib/errors.js';
import { ok } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { textOf } from '../../../lib/input.js';
import { answer, object, typed } from '../../../lib/route-schema.js';
import { isCompanyNameTaken, register, REGISTRATION_FIELDS } from '../services/register.js';
import { accountInput, fieldsOf } from './account-input.js';

const tags = ['account'];

/** The new account (services/register.ts Registered). */
const REGISTERED = object(
  {
    id: { type: 'integer' },
    username: { type: 'string' },
    userType: { type: 'integer', description: '0 tourist, 1 buyer, 2 supplier' },
    roleCode: { type: 'string', description: 'the role of its kind' },
    orgId: { type: 'integer', description: 'its organisation (the shared one of tourists)' },
  },
  ['id', 'username', 'userType', 'roleCode', 'orgId'],
);

/** Registration (docs/product.md §7): registerAccount and register take the same body; all public. */
export async function registerRoutes(
  app: FastifyInstance,
  options: { rateLimit: RouteRateLimit },
): Promise<void> {
  const { ctx, i18n } = app;
  const api = typed(app);
  const config = { isPublic: true, rateLimit: options.rateLimit };
  // The form also sends the character captcha it showed; the SMS code is the proof checked.
  const registration = accountInput(...REGISTRATION_FIELDS, 'captchaId', 'charCaptcha');
  for (const name of ['registerAccount', 'register']) {
    api.post(
      `/api/account/sysuserdetail/${name}`,
      {
        config,
        schema: {
          tags,
          summary: 'Registers a buyer or supplier with their organisation',
          ...registration,
          response: answer(REGISTERED),
        },
      },
      async (request) =>
        ok(await register({ ctx, i18n, l10n: localizerFor(request), input: fieldsOf(request) })),
    );
  }

  /** Is an organisation name taken in the tenant? (companyName or orgName) */
  api.post(
    '/api/account/sysuserdetail/queryCompanyName',
    {
      config,
      schema: {
        tags,
        summary: 'Is an organisation name taken in the tenant?',
        ...accountInput('companyName', 'orgName', 'tenantCode'),
        response: answer(
          object({ companyName: { type: 'string' }, isTaken: { type: 'boolean' } }, [
            'companyName',
            'isTaken',
          ]),
        ),
      },
    },
    async (request) => {
      const l10n = localizerFor(request);
      const input = fieldsOf(request);
      const field = textOf(input.companyName) || !textOf(input.orgName) ? 'companyName' : 'orgName';
      const companyName = textOf(input[field]);
      if (!companyName) {
        throw new AppError('validation', {}, [
          { field: `/${field}`, message: l10n.t('validation.required') },
        ]);
      }
      const tenantCode = textOf(input.tenantCode) || ctx.config.defaultTenant;
      return ok({ companyName, isTaken: await isCompanyNameTaken({ ctx, tenantCode, companyName }) });
    },
  );
}
