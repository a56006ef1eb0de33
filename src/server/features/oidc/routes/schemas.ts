import { object } from '../../../lib/route-schema.js';

const strings = { type: 'array', items: { type: 'string' } };

/** The claim → user field map (engine OidcClaimMap). */
export const CLAIM_MAP = object(
  {
    username: { type: 'string' },
    nickname: { type: 'string' },
    email: { type: 'string' },
    mobile: { type: 'string' },
  },
  ['username', 'nickname', 'email', 'mobile'],
);

/** A provider as the back-office lists it (engine OidcProviderView): never its secret. */
export const PROVIDER = object(
  {
    id: { type: 'integer' },
    name: { type: 'string' },
    issuer: { type: 'string' },
    clientId: { type: 'string' },
    hasSecret: { type: 'boolean', description: 'whether a client secret is stored (never shown)' },
    scopes: { type: 'string' },
    claims: CLAIM_MAP,
    newUserRoles: strings,
    newUserOrgId: { type: ['integer', 'null'] },
    createUsers: { type: 'boolean' },
    allowPrivateNetwork: { type: 'boolean' },
    enabled: { type: 'boolean' },
    sequence: { type: 'integer' },
    createdBy: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
  },
  [
    'id',
    'name',
    'issuer',
    'clientId',
    'hasSecret',
    'scopes',
    'claims',
    'newUserRoles',
    'newUserOrgId',
    'createUsers',
    'allowPrivateNetwork',
    'enabled',
    'sequence',
    'createdBy',
    'createdAt',
  ],
);

/** A provider as the sign-in pages show it. */
export const PROVIDER_BUTTON = object({ id: { type: 'integer' }, name: { type: 'string' } }, ['id', 'name']);

/** A provider as 个人中心 shows it. */
export const LINK = object(
  {
    providerId: { type: 'integer' },
    name: { type: 'string' },
    isLinked: { type: 'boolean' },
    linkedAt: { type: ['string', 'null'], format: 'date-time' },
  },
  ['providerId', 'name', 'isLinked', 'linkedAt'],
);

/** The address the browser goes to next. */
export const GO_TO = object(
  { url: { type: 'string', description: 'the provider’s authorization address' } },
  ['url'],
);
