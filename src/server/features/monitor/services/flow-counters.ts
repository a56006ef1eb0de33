import type { FlowCounter } from '../../../../engine/api-types.js';
import type { AppContext } from '../../../lib/context.js';
import { ruleLimit } from './settings.js';
import { parseRateCounterKey, RATE_COUNTER_PREFIX, SIGN_IN_PREFIX } from '../../../lib/store/counter-keys.js';

/** Counters listed per kind, at most (the highest ones). */
const MAX_COUNTERS = 200;

/** A mobile number as the page shows it: the first three and the last four digits. */
export const maskedMobile = (mobile: string): string =>
  mobile.length > 7 ? `${mobile.slice(0, 3)}${'*'.repeat(mobile.length - 7)}${mobile.slice(-4)}` : mobile;

/**
 * The live counters of every process (they are in the shared store): per client address for
 * the per-minute rules, per user for failed sign-ins, per mobile for SMS codes (codes of the last
 * day, and the wait before the next one while it lasts); users and mobiles of the caller's tenant
 * only, unless tenantCode is undefined (the platform administrator).
 */
export async function flowCounters(ctx: AppContext, tenantCode: string | undefined): Promise<FlowCounter[]> {
  const signInPrefix = tenantCode === undefined ? SIGN_IN_PREFIX : `${SIGN_IN_PREFIX}${tenantCode}:`;
  const [rates, signIns, sms, intervalSeconds] = await Promise.all([
    ctx.store.counters(RATE_COUNTER_PREFIX, MAX_COUNTERS),
    ctx.store.counters(signInPrefix, MAX_COUNTERS),
    ctx.store.sentCodes('sms', tenantCode, MAX_COUNTERS),
    ruleLimit(ctx, 'smsInterval'),
  ]);
  const byAddress = rates.flatMap((counter): FlowCounter[] => {
    const parsed = parseRateCounterKey(counter.key);
    if (!parsed) return [];
    const { rule, route, address } = parsed;
    return [{ rule, scope: route, key: address, hits: counter.hits, ttlMs: counter.ttlMs, lockedMs: 0 }];
  });
  const byUser = signIns.map((counter): FlowCounter => {
    const full = `${signInPrefix}${counter.key}`.slice(SIGN_IN_PREFIX.length);
    const colon = full.indexOf(':');
    return {
      rule: 'signInFailures',
      scope: full.slice(0, colon),
      key: full.slice(colon + 1),
      hits: counter.hits,
      ttlMs: counter.ttlMs,
      lockedMs: counter.lockedMs,
    };
  });
  const now = Date.now();
  const byMobile = sms.flatMap((entry): FlowCounter[] => {
    const key = maskedMobile(entry.target);
    const waitMs = Math.max(0, entry.lastAt.getTime() + intervalSeconds * 1000 - now);
    const daily = { rule: 'smsDaily', scope: entry.tenantCode, key, hits: entry.sent, ttlMs: 0, lockedMs: 0 };
    return waitMs > 0
      ? [daily, { rule: 'smsInterval', scope: entry.tenantCode, key, hits: 1, ttlMs: waitMs, lockedMs: 0 }]
      : [daily];
  });
  return [...byAddress, ...byUser, ...byMobile];
}
