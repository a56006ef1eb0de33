import { object, textOrNumber, type Schema } from '../../../lib/route-schema.js';

/**
 * The fields account calls take. The front-ends send them in the query string or in a JSON or
 * form body (a JSON body may send a number where digits are meant), so each call declares them
 * for both, and reads them merged, the body winning (fieldsOf).
 */
const ACCOUNT_FIELDS = {
  username: textOrNumber(128),
  password: textOrNumber(256),
  newPassword: textOrNumber(256),
  confirmPassword: textOrNumber(256),
  mobile: textOrNumber(32),
  countryCode: textOrNumber(8),
  phone: textOrNumber(32),
  email: textOrNumber(256),
  smsCaptcha: textOrNumber(16),
  charCaptcha: textOrNumber(16),
  captchaId: textOrNumber(128),
  code: textOrNumber(128),
  nickname: textOrNumber(128),
  companyName: textOrNumber(256),
  orgName: textOrNumber(256),
  tenantCode: textOrNumber(64),
  userType: textOrNumber(8),
  type: textOrNumber(32),
  // Above the user schema's own limits, which decide (with their messages).
  geographic: textOrNumber(256),
  address: textOrNumber(512),
  profile: textOrNumber(4000),
} satisfies Record<string, Schema<string | number>>;

export type AccountField = keyof typeof ACCOUNT_FIELDS;

/** The fields of one account call, as the handler gets them (each may be absent). */
export type AccountInput<N extends AccountField = AccountField> = { [K in N]?: string | number };

/** The query string and the body of an account call that takes the fields `names`. */
export function accountInput<const N extends AccountField>(...names: N[]) {
  const properties = Object.fromEntries(names.map((name) => [name, ACCOUNT_FIELDS[name]])) as Pick<
    typeof ACCOUNT_FIELDS,
    N
  >;
  const fields = object(properties);
  return {
    querystring: fields,
    body: fields,
    consumes: ['application/json', 'application/x-www-form-urlencoded'],
  };
}

/** The fields of an account call: the query string and the body together, the body winning. */
export function fieldsOf<T extends object>(request: { query: T; body: T }): T {
  return { ...request.query, ...request.body };
}
