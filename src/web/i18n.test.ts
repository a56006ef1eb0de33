import { beforeEach, describe, expect, it } from 'vitest';
import { createI18n, detectLanguage, saveLanguage } from './i18n.js';
import { setCookieJar } from './session.js';

describe('language detection (docs/product.md §4)', () => {
  let jar: { cookie: string };
  beforeEach(() => {
    // A jar that only remembers the last cookie written is enough here.
    let last = '';
    jar = {
      get cookie() {
        return last.split(';')[0] ?? '';
      },
      set cookie(value: string) {
        last = value;
      },
    };
    setCookieJar(jar);
  });

  it('prefers the cookie, then the browser language, then en', () => {
    expect(detectLanguage('en', true, 'zh-CN')).toBe('zh');
    expect(detectLanguage('en', true, 'fr')).toBe('en');
    expect(detectLanguage('en', false, 'zh-CN')).toBe('en');
    saveLanguage('tw');
    expect(jar.cookie).toBe('language=tw');
    expect(detectLanguage('en', true, 'zh-CN')).toBe('tw');
  });

  it('creates translators for each language', () => {
    expect(createI18n('zh').t('menus.sysuser')).toBe('用户管理');
    expect(createI18n('en').t('menus.sysuser')).not.toBe('用户管理');
  });
});
