import i18next, { type i18n } from 'i18next';
import en from '../../locales/en.json';
import tw from '../../locales/tw.json';
import zh from '../../locales/zh.json';
import { readCookie, writeCookie } from './session.js';

export const LANGUAGES = ['zh', 'tw', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The cookie both front-ends (and the API, for its messages) read the language from (SPEC §9). */
export const LANGUAGE_COOKIE = 'language';

/** tw for zh-TW/zh-HK/tw, zh for other Chinese, en for English (SPEC §4: substring match). */
export function matchLanguage(value: string | undefined): Language | undefined {
  if (!value) return undefined;
  const lower = value.toLowerCase();
  if (lower.includes('tw') || lower.includes('hk') || lower.includes('hant')) return 'tw';
  if (lower.includes('zh')) return 'zh';
  if (lower.includes('en')) return 'en';
  return undefined;
}

/** The language cookie, else (when asked) the browser's language, else the fallback. */
export function detectLanguage(
  fallback: Language,
  useBrowserLanguage: boolean,
  browserLanguage?: string,
): Language {
  const browser = browserLanguage ?? (typeof navigator === 'undefined' ? undefined : navigator.language);
  return (
    matchLanguage(readCookie(LANGUAGE_COOKIE)) ??
    (useBrowserLanguage ? matchLanguage(browser) : undefined) ??
    fallback
  );
}

/** Remembers the chosen language for both front-ends and the API. */
export function saveLanguage(language: Language): void {
  writeCookie(LANGUAGE_COOKIE, language, 365);
}

export function createI18n(language: Language): i18n {
  const instance = i18next.createInstance();
  void instance.init({
    resources: { zh: { translation: zh }, tw: { translation: tw }, en: { translation: en } },
    lng: language,
    fallbackLng: 'en',
    interpolation: { escapeValue: false },
    initAsync: false,
  });
  return instance;
}
