import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashCode } from '../../src/server/lib/store/codes.js';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_CAPTCHA: '12', CAPTCHA_SECONDS: '120' } });
});
afterAll(async () => {
  await t.close();
});

/**
 * A new captcha whose answer the test knows: the image cannot be read back, and only a hash of
 * the answer is stored, so the test puts in the hash of an answer of its own.
 */
async function captcha(answer = 'ab3d'): Promise<{ captchaId: string; answer: string }> {
  const response = await t.request({ method: 'GET', url: '/api/account/captcha/getCharCaptcha' });
  expect(response.statusCode).toBe(200);
  const { captchaId, svg, expiresIn } = response.json().data;
  expect(svg).toMatch(/^<svg[\s\S]*<\/svg>$/);
  expect(expiresIn).toBe(120);
  await t.sql('update sys_verification_code set code_hash = $1 where target = $2', [
    hashCode(answer),
    captchaId,
  ]);
  return { captchaId, answer };
}

const compare = (payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/api/account/sysuserdetail/compareCaptcha', payload });

describe('character captcha', () => {
  it('gives an SVG image and an id; stores only a hash of the answer, with an expiry', async () => {
    const response = await t.request({ method: 'GET', url: '/api/account/captcha/getCharCaptcha' });
    const { captchaId } = response.json().data;
    const [row] = await t.sql<{ code_hash: string; seconds: number }>(
      'select code_hash, extract(epoch from expires_at - created_at)::int as seconds from sys_verification_code where target = $1',
      [captchaId],
    );
    expect(row?.code_hash).toMatch(/^[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(row?.seconds).toBe(120);
  });

  it('accepts the right answer once, case-insensitively and trimmed, and refuses reuse', async () => {
    const { captchaId } = await captcha('ab3d');
    const right = await compare({ captchaId, charCaptcha: ' AB3D ' });
    expect(right.statusCode).toBe(200);
    expect(right.json()).toEqual({ code: 200, message: 'success', data: true });
    const reused = await compare({ captchaId, charCaptcha: 'ab3d' });
    expect(reused.statusCode).toBe(400);
    expect(reused.json()).toEqual({
      code: 400,
      message: '图形验证码错误或已失效，请刷新后重试',
      errors: [{ field: '/charCaptcha', message: '图形验证码错误或已失效，请刷新后重试' }],
    });
  });

  it('gives each image one guess: after a wrong answer the right one is refused too', async () => {
    const { captchaId } = await captcha('zz9k');
    expect((await compare({ captchaId, charCaptcha: 'nope' })).statusCode).toBe(400);
    expect((await compare({ captchaId, charCaptcha: 'zz9k' })).statusCode).toBe(400);
  });

  it('refuses an expired captcha, an unknown id and missing fields', async () => {
    const { captchaId } = await captcha('qq7w');
    await t.sql(
      "update sys_verification_code set expires_at = now() - interval '1 second' where target = $1",
      [captchaId],
    );
    expect((await compare({ captchaId, charCaptcha: 'qq7w' })).statusCode).toBe(400);
    expect((await compare({ captchaId: 'no-such-id', charCaptcha: 'qq7w' })).statusCode).toBe(400);
    const missing = await compare({});
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors.map((error: { field: string }) => error.field)).toEqual([
      '/charCaptcha',
      '/captchaId',
    ]);
    const form = await t.request({
      method: 'POST',
      url: '/api/account/sysuserdetail/compareCaptcha?captchaId=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'charCaptcha=abcd',
    });
    expect(form.statusCode).toBe(400);
    expect(form.json().errors[0].field).toBe('/charCaptcha');
  });

  it('rate-limits captcha images per client address with a readable 429 (counters in the database)', async () => {
    const statuses: number[] = [];
    let last;
    for (let call = 0; call < 14; call += 1) {
      last = await t.request({ method: 'GET', url: '/api/account/captcha/getCharCaptcha' });
      statuses.push(last.statusCode);
    }
    expect(statuses).toContain(429);
    expect(last?.statusCode).toBe(429);
    expect(last?.json()).toEqual({ code: 429, message: '请求过于频繁，请稍后再试' });
    expect(last?.headers['retry-after']).toBeDefined();
    const [counter] = await t.sql<{ hits: number }>(
      "select hits from sys_counter where counter_key like 'rate:GET:/api/account/captcha/getCharCaptcha:%'",
    );
    expect(counter?.hits).toBeGreaterThan(12);
    // Another limited route keeps its own count.
    expect((await compare({ captchaId: 'x', charCaptcha: 'y' })).statusCode).toBe(400);
  });
});
