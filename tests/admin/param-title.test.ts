import { describe, expect, it } from 'vitest';
import { paramTitle } from '../../src/admin/features/monitor/param-title.js';

/** The config centre's param names (issue 17): known params translated, the administrator's names as given. */
const english: Record<string, string> = {
  'params.hotline': 'Hotline',
  'params.rateLimit.token': 'Rate limit: sign-in token (per minute per address)',
};
const translated = (key: string): string | undefined => english[key];
const defaults = { hotline: '服务热线', 'rateLimit.token': '限流：登录令牌（次/分钟/地址）' };

describe('paramTitle', () => {
  it('shows a known param under its stored default name in the language shown', () => {
    expect(paramTitle({ paramKey: 'hotline', paramName: '服务热线' }, defaults, translated)).toBe('Hotline');
    expect(
      paramTitle(
        { paramKey: 'rateLimit.token', paramName: '限流：登录令牌（次/分钟/地址）' },
        defaults,
        translated,
      ),
    ).toBe('Rate limit: sign-in token (per minute per address)');
  });

  it('shows the name the administrator gave: a param added by hand, or a known one renamed', () => {
    expect(paramTitle({ paramKey: 'custom.flag', paramName: '我的开关' }, defaults, translated)).toBe(
      '我的开关',
    );
    expect(paramTitle({ paramKey: 'hotline', paramName: '客服电话（夜间）' }, defaults, translated)).toBe(
      '客服电话（夜间）',
    );
  });

  it('falls back to the stored name when the language has no text, and to the text when the name is blank', () => {
    expect(
      paramTitle({ paramKey: 'mailbox', paramName: '联系邮箱' }, { mailbox: '联系邮箱' }, translated),
    ).toBe('联系邮箱');
    expect(paramTitle({ paramKey: 'hotline', paramName: ' ' }, {}, translated)).toBe('Hotline');
  });
});
