import i18next, { type i18n } from 'i18next';
import en from '../../locales/en.json';
import tw from '../../locales/tw.json';
import zh from '../../locales/zh.json';
import { matchLanguage, type Language } from '../engine/language.js';
import { readCookie, writeCookie } from './session.js';

export { LANGUAGES, type Language } from '../engine/language.js';

/** The cookie both front-ends (and the API, for its messages) read the language from (docs/product.md §9). */
export const LANGUAGE_COOKIE = 'language';

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
