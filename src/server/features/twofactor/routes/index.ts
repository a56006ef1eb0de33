import type { FastifyInstance } from 'fastify';
import { ok, requireAuth } from '../../../lib/http.js';
import { translatorFor } from '../../../lib/i18n.js';
import { answer, id, object, PUBLIC_SECURITY, text, typed } from '../../../lib/route-schema.js';
import { AppError } from '../../../lib/errors.js';
import { isKeyRequest } from '../../apikeys/index.js';
import { liveRateLimit, registerRateLimit, TOKEN_ANSWER, tokenAnswerWith } from '../../sessions/index.js';
import {
  beginEnrolment,
  confirmEnrolmentIn,
  disableTwoFactor,
  resetTwoFactor,
  tenantUser,
  twoFactorStatus,
} from '../services/account.js';
import { beginSignInEnrolment, confirmSignInEnrolment, verifySecondStep } from '../services/challenge.js';
import { inTransaction } from '../../../lib/db/transaction.js';

const tags = ['twoFactor'];
const SELF = { isSelfService: true };

const SETUP = object(
  {
    secret: { type: 'string', description: 'base32, for typing into the app' },
    otpauthUrl: { type: 'string', description: 'the otpauth:// address the QR code holds' },
    qrSvg: { type: 'string', description: 'the QR code, an SVG document' },
  },
  ['secret', 'otpauthUrl', 'qrSvg'],
);

const STATUS = object(
  {
    isEnabled: { type: 'boolean' },
    isRequired: { type: 'boolean', description: 'the tenant or one of the roles requires two-factor' },
    enabledAt: { type: ['string', 'null'], format: 'date-time' },
    recoveryCodesLeft: { type: 'integer' },
  },
  ['isEnabled', 'isRequired', 'enabledAt', 'recoveryCodesLeft'],
);

const RECOVERY_CODES = {
  type: 'array',
  items: { type: 'string' },
  description: 'recovery codes, each usable once instead of a code; shown this once only',
};

const CODE = text(32, { description: 'a code of the authenticator app, or a recovery code' });
const CHALLENGE = text(128, { description: 'the challenge_token of the token answer' });

const ENROLLED_SIGN_IN = tokenAnswerWith({ recovery_codes: RECOVERY_CODES });

/**
 * Two-factor: the second step of a sign-in (public, under its challenge token), the user's own
 * enrolment in 个人中心, and the administrator's status and reset of a user of the tenant.
 */
export async function twoFactorRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  await registerRateLimit(app);
  const api = typed(app);
  // The second step is a sign-in: counted with the token endpoint's per-address limit.
  const signInLimit = { isPublic: true, rateLimit: liveRateLimit(app, 'token') };
  const stepOf = (request: Parameters<typeof translatorFor>[0], challengeToken: string) => ({
    ctx,
    challengeToken: challengeToken.trim(),
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
    t: translatorFor(request),
  });

  api.post(
    '/api/uaa/twoFactor/verify',
    {
      config: signInLimit,
      schema: {
        tags,
        summary: 'Second step of a sign-in: a code of the authenticator or a recovery code opens the session',
        security: PUBLIC_SECURITY,
        body: object({ challengeToken: CHALLENGE, code: CODE }, ['challengeToken', 'code']),
        response: { 200: TOKEN_ANSWER },
      },
    },
    async (request) =>
      verifySecondStep({ ...stepOf(request, request.body.challengeToken), code: request.body.code.trim() }),
  );

  api.post(
    '/api/uaa/twoFactor/enrol',
    {
      config: signInLimit,
      schema: {
        tags,
        summary: 'Enrolment required at sign-in: the secret and its QR code',
        security: PUBLIC_SECURITY,
        body: object({ challengeToken: CHALLENGE }, ['challengeToken']),
        response: answer(SETUP),
      },
    },
    async (request) => ok(await beginSignInEnrolment(stepOf(request, request.body.challengeToken))),
  );

  api.post(
    '/api/uaa/twoFactor/confirm',
    {
      config: signInLimit,
      schema: {
        tags,
        summary:
          'Enrolment required at sign-in: a code of the new secret opens the session (recovery codes once)',
        security: PUBLIC_SECURITY,
        body: object({ challengeToken: CHALLENGE, code: CODE }, ['challengeToken', 'code']),
        response: { 200: ENROLLED_SIGN_IN },
      },
    },
    async (request) =>
      confirmSignInEnrolment({
        ...stepOf(request, request.body.challengeToken),
        code: request.body.code.trim(),
      }),
  );

  // A person's own second factor and its reset are a session's business, never an API key's.
  const sessionAuth = (request: Parameters<typeof requireAuth>[0]) => {
    const auth = requireAuth(request);
    if (isKeyRequest(request)) throw new AppError('apiKeySessionOnly');
    return auth;
  };
  const ownUser = (request: Parameters<typeof requireAuth>[0]) => {
    const auth = sessionAuth(request);
    return { user: { tenantCode: auth.tenantCode, userId: auth.userId, username: auth.username }, auth };
  };

  api.get(
    '/api/account/twoFactor/status',
    { config: SELF, schema: { tags, summary: "The caller's two-factor state", response: answer(STATUS) } },
    async (request) => {
      const { user, auth } = ownUser(request);
      return ok(await twoFactorStatus({ ctx, user, roles: auth.heldRoles }));
    },
  );

  api.post(
    '/api/account/twoFactor/setup',
    {
      config: SELF,
      schema: {
        tags,
        summary: 'Starts an enrolment: a new secret and its QR code (confirmed by enable)',
        response: answer(SETUP),
      },
    },
    async (request) => ok(await beginEnrolment({ ctx, user: ownUser(request).user })),
  );

  api.post(
    '/api/account/twoFactor/enable',
    {
      config: SELF,
      schema: {
        tags,
        summary: 'Confirms the enrolment with a code of the new secret; answers the recovery codes once',
        body: object({ code: CODE }, ['code']),
        response: answer(object({ recoveryCodes: RECOVERY_CODES }, ['recoveryCodes'])),
      },
    },
    async (request) => {
      const { user } = ownUser(request);
      const t = translatorFor(request);
      const recoveryCodes = await inTransaction(ctx.db, (trx) =>
        confirmEnrolmentIn({ trx, user, code: request.body.code.trim(), t }),
      );
      return ok({ recoveryCodes });
    },
  );

  api.post(
    '/api/account/twoFactor/disable',
    {
      config: SELF,
      schema: {
        tags,
        summary: 'Turns two-factor off: the password and a code (or a recovery code)',
        body: object({ password: text(256), code: CODE }, ['password', 'code']),
        response: answer({ type: 'null' }),
      },
    },
    async (request) => {
      await disableTwoFactor({
        ctx,
        user: ownUser(request).user,
        password: request.body.password,
        code: request.body.code.trim(),
        t: translatorFor(request),
      });
      return ok(null);
    },
  );

  api.get(
    '/api/admin/sysuser/twoFactorStatus',
    {
      schema: {
        tags,
        summary: "A user's two-factor state (a user of the caller's tenant)",
        querystring: object({ userId: id('the user') }, ['userId']),
        response: answer(STATUS),
      },
    },
    async (request) => {
      const auth = sessionAuth(request);
      const { user, roles } = await tenantUser({
        ctx,
        tenantCode: auth.tenantCode,
        userId: request.query.userId,
      });
      return ok(await twoFactorStatus({ ctx, user, roles }));
    },
  );

  api.post(
    '/api/admin/sysuser/resetTwoFactor',
    {
      schema: {
        tags,
        summary: "Resets a user's two-factor (authenticator and recovery codes) and ends the user's sessions",
        body: object({ userId: id('the user') }, ['userId']),
        response: answer({ type: 'null' }),
      },
    },
    async (request) => {
      await resetTwoFactor({ ctx, tenantCode: sessionAuth(request).tenantCode, userId: request.body.userId });
      return ok(null);
    },
  );
}
