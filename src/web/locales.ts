import i18next, { type i18n } from 'i18next';
import type { Language } from './i18n.js';

/**
 * Locale texts loaded on demand: each language is its own chunk, so a front-end downloads only
 * the language it shows (the three together weigh about 60 KB gzip).
 */
const LOADERS: Record<Language, () => Promise<{ default: Record<string, unknown> }>> = {
  zh: () => import('../../locales/zh.json'),
  tw: () => import('../../locales/tw.json'),
  en: () => import('../../locales/en.json'),
};

/** Adds a language's texts to an instance unless it has them already. */
export async function loadLanguage(instance: i18n, language: Language): Promise<void> {
  if (instance.hasResourceBundle(language, 'translation')) return;
  const texts = await LOADERS[language]();
  instance.addResourceBundle(language, 'translation', texts.default, true, true);
}

/** An i18next instance with only the given language loaded; switch with switchLanguage. */
export async function createLazyI18n(language: Language): Promise<i18n> {
  const instance = i18next.createInstance();
  await instance.init({
    resources: {},
    lng: language,
    // Every language has every key (tests/locales.test.ts), so no fallback bundle is needed.
    fallbackLng: false,
    interpolation: { escapeValue: false },
    initAsync: false,
  });
  await loadLanguage(instance, language);
  return instance;
}

/** Loads (once) and switches to a language. */
export async function switchLanguage(instance: i18n, language: Language): Promise<void> {
  await loadLanguage(instance, language);
  await instance.changeLanguage(language);
}
