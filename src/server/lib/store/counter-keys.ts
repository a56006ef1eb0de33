/**
 * The keys of the shared store's counters that the rate limits and the sign-in lockout keep
 * (features/sessions/services/guard.ts) and the flow-control page lists (features/monitor/services/flow-counters.ts).
 */

/** Prefix of every rate-limit counter (then the route or group, the rule and the address). */
export const RATE_COUNTER_PREFIX = 'rate:';

/** The last part of a rate-limit counter's key: the rule and the client's address. */
export function rateCounterKey(rule: string, address: string): string {
  return `@${rule}@${address}`;
}

/** The rule, route and address of a rate-limit counter's key (without RATE_COUNTER_PREFIX). */
export function parseRateCounterKey(
  key: string,
): { rule: string; route: string; address: string } | undefined {
  const match = /^(.*):@([A-Za-z]+)@(.+)$/.exec(key);
  if (!match) return undefined;
  const [, scope = '', rule = '', address = ''] = match;
  const route = scope.startsWith('group:') ? scope.slice('group:'.length) : scope.replace(':', ' ');
  return { rule, route, address };
}

/** Prefix of the counters of failed sign-ins (then tenant and user name). */
export const SIGN_IN_PREFIX = 'sign-in:';

/** The counter of a user's failed sign-ins (a password reset forgets it). */
export const signInKey = (tenantCode: string, username: string): string =>
  `${SIGN_IN_PREFIX}${tenantCode}:${username.toLowerCase()}`;
