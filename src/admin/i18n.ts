import type { I18nProvider } from '@refinedev/core';
import { createContext, useContext } from 'react';
import type { i18n as I18n } from 'i18next';
import { detectLanguage, type Language } from '../web/i18n.js';
import { createLazyI18n, loadLanguage, switchLanguage } from '../web/locales.js';
import type { AppRoute } from './lib/menus.js';

/** docs/product.md §4: the language cookie, else the browser language by substring, else en. */
export let i18n: I18n;

/** Texts the running server's schemas carry (a published form's titles and help), per language. */
const schemaBundles = new Map<Language, Record<string, unknown>>();

/**
 * Loads the texts of the detected language; call once before rendering. The schemas' texts read
 * before it (a cold load reads the schemas at boot to ask for the first list, providers/warm.ts)
 * are added to the language it loads: without them a published form's screens show its fallback
 * titles (Text, Lines) instead of the designer's (主题, 明细).
 */
export async function initI18n(): Promise<void> {
  const instance = await createLazyI18n(detectLanguage('en', true));
  const bundles = [
    ...schemaBundles,
    ...[...moduleBundles].flatMap(([language, texts]) => texts.map((bundle) => [language, bundle] as const)),
  ];
  for (const [language, bundle] of bundles)
    if (instance.hasResourceBundle(language, 'translation'))
      instance.addResourceBundle(language, 'translation', bundle, true, true);
  i18n = instance;
}

/** Adds texts of the schemas to the languages loaded now, and to the others as they load. */
export function addSchemaTexts(texts: Partial<Record<Language, Record<string, unknown>>>): void {
  for (const [language, bundle] of Object.entries(texts) as [Language, Record<string, unknown>][]) {
    schemaBundles.set(language, bundle);
    // A language not loaded yet gets them after its locale file (loadLanguage skips a bundle it has).
    // (before initI18n, in unit tests of the providers, there is no instance yet)
    const instance = i18n as I18n | undefined;
    if (instance?.hasResourceBundle(language, 'translation'))
      instance.addResourceBundle(language, 'translation', bundle, true, true);
  }
}

/** Texts the modules bring (lib/modules.ts `messages`), per language, every module's together. */
const moduleBundles = new Map<Language, Record<string, unknown>[]>();

/** Adds a module's texts to the languages loaded now, and to the others as they load. */
export function addModuleTexts(texts: Partial<Record<Language, Record<string, unknown>>>): void {
  for (const [language, bundle] of Object.entries(texts) as [Language, Record<string, unknown>][]) {
    moduleBundles.set(language, [...(moduleBundles.get(language) ?? []), bundle]);
    const instance = i18n as I18n | undefined;
    if (instance?.hasResourceBundle(language, 'translation'))
      instance.addResourceBundle(language, 'translation', bundle, true, true);
  }
}

/** Loads (once) and switches the language. */
export async function changeLanguage(language: Language): Promise<void> {
  await loadLanguage(i18n, language);
  const bundle = schemaBundles.get(language);
  if (bundle) i18n.addResourceBundle(language, 'translation', bundle, true, true);
  for (const texts of moduleBundles.get(language) ?? [])
    i18n.addResourceBundle(language, 'translation', texts, true, true);
  return switchLanguage(i18n, language);
}

export type Translate = (key: string, options?: Record<string, unknown>) => string;

export const t: Translate = (key, options) => i18n.t(key, options ?? {});

/** The current language; components read texts through useT so a switch re-renders them. */
export const LanguageContext = createContext<Language>('en');

export function useT(): Translate {
  // The language is read so that a change re-renders the caller.
  useContext(LanguageContext);
  return t;
}

export function useLanguage(): Language {
  return useContext(LanguageContext);
}

/**
 * Route titles: menus.<code>, else the menu's own titles (a published form's), else the entity's
 * title for a schema's own menu (entities.<code>.title, as the server names it when it adds the
 * menu), else its name. Without the entity step, 首页图片 and the other schema menus kept the seed language.
 */
export function routeTitle(route: Pick<AppRoute, 'code' | 'name'> & { meta?: AppRoute['meta'] }): string {
  const own = route.meta?.titles?.[i18n.language as Language];
  const menu = t(`menus.${route.code}`, { defaultValue: '' });
  return menu || own || t(`entities.${route.code}.title`, { defaultValue: '' }) || route.name;
}

export function productTitle(): string {
  return t('admin.productTitle');
}

export const i18nProvider: I18nProvider = {
  translate: (key, options, defaultMessage) =>
    i18n.t(key, {
      ...((options as Record<string, unknown> | undefined) ?? {}),
      defaultValue: defaultMessage ?? key,
    }),
  changeLocale: (language) => changeLanguage(language as Language),
  getLocale: () => i18n.language,
};
