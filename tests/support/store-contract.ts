/**
 * The promises both shared stores (src/server/lib/store) keep: counters and locks, one-time codes
 * (used once, worn out by wrong guesses, replaced by a newer one, expiring) and the SMS quota.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeTarget, SharedStore } from '../../src/server/lib/store/index.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function storeContract(
  name: string,
  open: () => Promise<{ store: SharedStore; close(): Promise<void> }>,
) {
  describe(name, () => {
    let store: SharedStore;
    let close: () => Promise<void>;
    let serial = 0;
    const target = (purpose: CodeTarget['purpose'] = 'sms'): CodeTarget => {
      serial += 1;
      return { tenantCode: 'default', purpose, target: `t${serial}-${randomBytes(3).toString('hex')}` };
    };
    const issue = (where: CodeTarget, code: string, seconds = 60) =>
      store.issueCode({ ...where, code, seconds, ip: null });

    beforeAll(async () => {
      ({ store, close } = await open());
    });
    afterAll(async () => {
      await close?.();
    });

    it('counts hits in a window and starts again when it ends', async () => {
      const key = `test:${randomBytes(4).toString('hex')}`;
      expect((await store.hit(key, 1000)).hits).toBe(1);
      const second = await store.hit(key, 1000);
      expect(second.hits).toBe(2);
      expect(second.ttlMs).toBeGreaterThan(0);
      expect(second.ttlMs).toBeLessThanOrEqual(1000);
      await sleep(1100);
      expect((await store.hit(key, 1000)).hits).toBe(1);
    });

    it('locks a key for a while, starts its counter again, and forgets it on request', async () => {
      const key = `test:${randomBytes(4).toString('hex')}`;
      await store.hit(key, 60_000);
      await store.hit(key, 60_000);
      expect(await store.lockedMs(key)).toBe(0);
      await store.lock(key, 60_000);
      const locked = await store.lockedMs(key);
      expect(locked).toBeGreaterThan(59_000);
      expect(locked).toBeLessThanOrEqual(60_000);
      expect((await store.hit(key, 60_000)).hits).toBe(1);
      await store.forget(key);
      expect(await store.lockedMs(key)).toBe(0);
      const shortKey = `test:${randomBytes(4).toString('hex')}`;
      await store.lock(shortKey, 300);
      await sleep(400);
      expect(await store.lockedMs(shortKey)).toBe(0);
    });

    it('lists the live counters and locks under a prefix, highest first, without the prefix', async () => {
      const prefix = `list_%*:${randomBytes(4).toString('hex')}:`;
      await store.hit(`${prefix}10.0.0.1`, 60_000);
      await store.hit(`${prefix}10.0.0.2`, 60_000);
      await store.hit(`${prefix}10.0.0.2`, 60_000);
      await store.hit(`${prefix}gone`, 200);
      await store.lock(`${prefix}locked`, 60_000);
      // A key that only looks like the prefix with its wildcard characters taken as wildcards.
      await store.hit(`listXY*:${prefix.slice(8)}other`, 60_000);
      await sleep(300);
      const counters = await store.counters(prefix, 10);
      expect(counters.map((counter) => counter.key)).toEqual(['locked', '10.0.0.2', '10.0.0.1']);
      expect(counters[0]?.lockedMs).toBeGreaterThan(59_000);
      expect(counters[1]).toMatchObject({ hits: 2, lockedMs: 0 });
      expect(counters[1]?.ttlMs).toBeGreaterThan(59_000);
      expect(await store.counters(prefix, 1)).toHaveLength(1);
    });

    it('takes a right code once; a wrong one is refused', async () => {
      const where = target();
      expect(await issue(where, '123456')).toEqual({ issued: true });
      expect(await store.checkCode({ ...where, code: '654321' })).toBeUndefined();
      const live = await store.checkCode({ ...where, code: '123456' });
      expect(live).toBeDefined();
      if (!live) return;
      expect(await store.consumeCode(live)).toBe(true);
      expect(await store.consumeCode(live)).toBe(false);
      expect(await store.checkCode({ ...where, code: '123456' })).toBeUndefined();
    });

    it('wears a code out after five wrong guesses', async () => {
      const where = target();
      await issue(where, '111111');
      for (let guess = 0; guess < 5; guess += 1) {
        expect(await store.checkCode({ ...where, code: `99999${guess}` })).toBeUndefined();
      }
      expect(await store.checkCode({ ...where, code: '111111' })).toBeUndefined();
    });

    it('replaces a code by a newer one, burns it on request, and lets it expire', async () => {
      const where = target('captcha');
      await issue(where, 'abcd');
      const old = await store.checkCode({ ...where, code: 'abcd' });
      await issue(where, 'efgh');
      expect(await store.checkCode({ ...where, code: 'abcd' })).toBeUndefined();
      if (old) expect(await store.consumeCode(old)).toBe(false);
      expect(await store.checkCode({ ...where, code: 'efgh' })).toBeDefined();
      await store.burnCode(where);
      expect(await store.checkCode({ ...where, code: 'efgh' })).toBeUndefined();
      const short = target('captcha');
      await issue(short, 'wxyz', 1);
      expect(await store.checkCode({ ...short, code: 'wxyz' })).toBeDefined();
      await sleep(1200);
      expect(await store.checkCode({ ...short, code: 'wxyz' })).toBeUndefined();
    });

    it('marks a code checked once', async () => {
      const where = target('captcha');
      await issue(where, 'ab3d');
      const live = await store.checkCode({ ...where, code: 'ab3d' });
      if (!live) throw new Error('the right answer was refused');
      expect(await store.markVerified(live)).toBe(true);
      expect(await store.markVerified(live)).toBe(false);
      // Checked once, it still serves the one action that follows.
      expect(await store.consumeCode(live)).toBe(true);
    });

    it('issues within the quota: an interval between codes and a daily cap', async () => {
      const where = target();
      const quota = { intervalSeconds: 60, dailyLimit: 10 };
      expect(await store.issueCode({ ...where, code: '1', seconds: 60, ip: null }, { quota })).toEqual({
        issued: true,
      });
      const tooSoon = await store.issueCode({ ...where, code: '2', seconds: 60, ip: null }, { quota });
      expect(tooSoon).toMatchObject({ issued: false, reason: 'tooSoon' });
      expect(tooSoon.issued === false && tooSoon.reason === 'tooSoon' && tooSoon.seconds).toBeGreaterThan(58);
      expect(await store.checkCode({ ...where, code: '1' })).toBeDefined();

      const capped = target();
      const noGap = { intervalSeconds: 1, dailyLimit: 2 };
      for (const code of ['1', '2']) {
        expect(await store.issueCode({ ...capped, code, seconds: 60, ip: null }, { quota: noGap })).toEqual({
          issued: true,
        });
        await sleep(1100);
      }
      expect(
        await store.issueCode({ ...capped, code: '3', seconds: 60, ip: null }, { quota: noGap }),
      ).toEqual({
        issued: false,
        reason: 'dailyLimit',
      });
    });

    it('counts the codes sent to each target of a tenant in the last day, most first', async () => {
      const tenantCode = `q${randomBytes(4).toString('hex')}`;
      const quota = { intervalSeconds: 0, dailyLimit: 10 };
      const send = (to: string, code: string) =>
        store.issueCode({ tenantCode, purpose: 'sms', target: to, code, seconds: 60, ip: null }, { quota });
      expect(await send('13800000001', '1')).toEqual({ issued: true });
      await sleep(5);
      expect(await send('13800000002', '2')).toEqual({ issued: true });
      await sleep(5);
      expect(await send('13800000002', '3')).toEqual({ issued: true });
      const sent = await store.sentCodes('sms', tenantCode, 10);
      expect(sent.map((entry) => [entry.tenantCode, entry.target, entry.sent])).toEqual([
        [tenantCode, '13800000002', 2],
        [tenantCode, '13800000001', 1],
      ]);
      expect(Math.abs(Date.now() - (sent[0]?.lastAt.getTime() ?? 0))).toBeLessThan(60_000);
      expect(await store.sentCodes('sms', tenantCode, 1)).toHaveLength(1);
      expect(await store.sentCodes('reset', tenantCode, 10)).toEqual([]);
      const everyTenant = await store.sentCodes('sms', undefined, 1000);
      expect(everyTenant.filter((entry) => entry.tenantCode === tenantCode)).toHaveLength(2);
    });

    it('leaves no code and no count behind when delivery fails', async () => {
      const where = target();
      const quota = { intervalSeconds: 60, dailyLimit: 10 };
      const failing = store.issueCode(
        { ...where, code: '424242', seconds: 60, ip: null },
        {
          quota,
          deliver: async () => {
            throw new Error('gateway down');
          },
        },
      );
      await expect(failing).rejects.toThrow('gateway down');
      expect(await store.checkCode({ ...where, code: '424242' })).toBeUndefined();
      let delivered = false;
      const retried = await store.issueCode(
        { ...where, code: '434343', seconds: 60, ip: null },
        { quota, deliver: async () => void (delivered = true) },
      );
      expect(retried).toEqual({ issued: true });
      expect(delivered).toBe(true);
      expect(await store.checkCode({ ...where, code: '434343' })).toBeDefined();
    });
  });
}
