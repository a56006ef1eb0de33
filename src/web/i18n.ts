import i18next, { type i18n } from 'i18next';
import en from '../../locales/en.json';
import tw from '../../locales/tw.json';
import zh from '../../locales/zh.json';

export const LANGUAGES = ['zh', 'tw', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

function readCookie(name: string): string | undefined {
  const prefix = `${name}=`;
  const found = document.cookie.split('; ').find((part) => part.startsWith(prefix));
  return found ? decodeURIComponent(found.slice(prefix.length)) : undefined;
}

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
export function detectLanguage(fallback: Language, useBrowserLanguage: boolean): Language {
  return (
    matchLanguage(readCookie('language')) ?? (useBrowserLanguage ? matchLanguage(navigator.language) : undefined) ?? fallback
  );
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
