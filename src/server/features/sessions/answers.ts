import { object } from '../../lib/route-schema.js';

/** The tokens of a session: the token endpoint's answer without its envelope fields (engine RenewedSession). */
const TOKEN_PROPERTIES = {
  access_token: { type: 'string' },
  token_type: { type: 'string', enum: ['bearer'] },
  refresh_token: { type: 'string' },
  expires_in: { type: 'integer', description: 'seconds the access token lives' },
  scope: { type: 'string' },
};
const TOKEN_REQUIRED = ['access_token', 'token_type', 'refresh_token', 'expires_in', 'scope'] as const;

const TOKEN_ANSWER_PROPERTIES = {
  code: { type: 'integer', enum: [200] },
  ...TOKEN_PROPERTIES,
  message: { type: 'string', enum: ['success'] },
};

/** The token answer (engine TokenAnswer): OAuth2-shaped, so not in the envelope's data. */
export const TOKEN_ANSWER = object(TOKEN_ANSWER_PROPERTIES, ['code', ...TOKEN_REQUIRED, 'message']);

/** The token answer with more properties (a sign-in that also answers something once). */
export const tokenAnswerWith = (properties: Record<string, object>) => ({
  type: 'object',
  properties: { ...TOKEN_ANSWER_PROPERTIES, ...properties },
  required: ['code', ...TOKEN_REQUIRED, 'message', ...Object.keys(properties)],
});

/** A session renewed in place of the caller's (a changed password): the page goes on with these tokens. */
export const RENEWED_SESSION = object(TOKEN_PROPERTIES, TOKEN_REQUIRED);

/**
 * The token endpoint's answer: the tokens (engine TokenAnswer), or, when a second step
 * (two-factor) stands before the session, its challenge (engine SecondStepAnswer): one set of
 * properties or the other, never both.
 */
export const GRANT_ANSWER = {
  type: 'object',
  description:
    'the tokens (access_token, token_type, refresh_token, expires_in, scope), or the challenge of a second step (second_step, challenge_token, expires_in): no session yet',
  properties: {
    ...TOKEN_ANSWER_PROPERTIES,
    second_step: {
      type: 'string',
      enum: ['totp', 'enrol'],
      description:
        'totp: send a code (POST /api/uaa/twoFactor/verify); enrol: enrol first (/api/uaa/twoFactor/enrol, confirm)',
    },
    challenge_token: { type: 'string', description: 'names this sign-in in the second step' },
    expires_in: { type: 'integer', description: 'seconds the access token, or the challenge, lives' },
  },
  required: ['code', 'message', 'expires_in'],
};
