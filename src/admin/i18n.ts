import type { I18nProvider } from '@refinedev/core';
import { createContext, useContext } from 'react';
import type { i18n as I18n } from 'i18next';
import { detectLanguage, type Language } from '../web/i18n.js';
import { createLazyI18n, switchLanguage } from '../web/locales.js';
import type { AppRoute } from './lib/menus.js';

/** SPEC §4: the language cookie, else the browser language by substring, else en. */
export let i18n: I18n;

/** Loads the texts of the detected language; call once before rendering. */
export async function initI18n(): Promise<void> {
  i18n = await createLazyI18n(detectLanguage('en', true));
}

/** Loads (once) and switches the language. */
export function changeLanguage(language: Language): Promise<void> {
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

/** Route titles: menus.<code>, else the menu's own name. */
export function routeTitle(route: Pick<AppRoute, 'code' | 'name'>): string {
  return t(`menus.${route.code}`, { defaultValue: route.name });
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
