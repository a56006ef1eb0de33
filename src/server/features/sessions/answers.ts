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

/** The token answer (engine TokenAnswer): OAuth2-shaped, so not in the envelope's data. */
export const TOKEN_ANSWER = object(
  {
    code: { type: 'integer', enum: [200] },
    ...TOKEN_PROPERTIES,
    message: { type: 'string', enum: ['success'] },
  },
  ['code', ...TOKEN_REQUIRED, 'message'],
);

/** A session renewed in place of the caller's (a changed password): the page goes on with these tokens. */
export const RENEWED_SESSION = object(TOKEN_PROPERTIES, TOKEN_REQUIRED);
