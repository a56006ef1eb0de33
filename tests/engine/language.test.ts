import { describe, expect, it } from 'vitest';
import { matchLanguage } from '../../src/engine/language.js';

describe('matchLanguage', () => {
  it('reads a language from a cookie, a browser language or an Accept-Language entry', () => {
    expect(matchLanguage('zh-CN')).toBe('zh');
    expect(matchLanguage('zh')).toBe('zh');
    expect(matchLanguage('zh-TW')).toBe('tw');
    expect(matchLanguage('zh-HK')).toBe('tw');
    expect(matchLanguage('zh-Hant')).toBe('tw');
    expect(matchLanguage('tw')).toBe('tw');
    expect(matchLanguage('en-US')).toBe('en');
    expect(matchLanguage('EN')).toBe('en');
  });

  it('is undefined for other languages and no value', () => {
    expect(matchLanguage('fr-FR')).toBeUndefined();
    expect(matchLanguage('')).toBeUndefined();
    expect(matchLanguage(undefined)).toBeUndefined();
  });
});
