// Generated from locales/zh.json (npm run gen): only the portal's section travels with its first load.
import { portal as zhPortal } from '../generated/portal-zh.json';
import { LANGUAGES, matchLanguage, type Language } from '../engine/language.js';
import { readCookie, writeCookie } from '../web/session.js';

/**
 * The portal's translator. The back-office uses i18next; the portal needs only key lookup and
 * {{name}} interpolation, and a hand-written one keeps its first load inside the 150 KB budget.
 * Texts live in locales/<lang>.json under "portal"; Chinese travels with the first load, the
 * other languages are fetched when chosen.
 */
export type { Language };
export const PORTAL_LANGUAGES: readonly Language[] = LANGUAGES;
const LANGUAGE_COOKIE = 'language';

type Tree = { [key: string]: unknown };
export type Section = typeof zhPortal;

/** The portal speaks Chinese unless the visitor chose another language (the shared language cookie). */
export function detectLanguage(): Language {
  return matchLanguage(readCookie(LANGUAGE_COOKIE)) ?? 'zh';
}

export function saveLanguage(language: Language): void {
  writeCookie(LANGUAGE_COOKIE, language, 365);
}

export async function loadSection(language: Language): Promise<Section> {
  if (language === 'tw') return (await import('../../locales/tw.json')).portal;
  if (language === 'en') return (await import('../../locales/en.json')).portal;
  return zhPortal;
}

function lookup(tree: unknown, key: string): unknown {
  let node: unknown = tree;
  for (const part of key.split('.')) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Tree)[part];
  }
  return node;
}

export interface Translator {
  t(key: string, values?: Record<string, unknown>): string;
  /** Structured texts (paragraph lists, questions and answers). */
  list<T>(key: string): T[];
}

/** A translator over one language's portal section, falling back to Chinese, then to the key. */
export function translator(section: Section): Translator {
  return {
    t: (key, values) => {
      const found = lookup(section, key) ?? lookup(zhPortal, key);
      if (typeof found !== 'string') return key;
      return values
        ? found.replace(/\{\{\s*(\w+)\s*\}\}/g, (match, name: string) =>
            name in values ? String(values[name]) : match,
          )
        : found;
    },
    list: <T>(key: string): T[] => {
      const found = lookup(section, key) ?? lookup(zhPortal, key);
      return Array.isArray(found) ? (found as T[]) : [];
    },
  };
}

export function htmlLang(language: Language): string {
  return language === 'en' ? 'en' : language === 'tw' ? 'zh-TW' : 'zh-CN';
}

/** The params that may name the product per language (a site that renamed it names it in each). */
export interface ProductTitles {
  productTitle?: string | undefined;
  productTitleTw?: string | undefined;
  productTitleEn?: string | undefined;
}

/**
 * The product's name in a language: the site's own name for that language when it gave one; the
 * Chinese name (productTitle) when the site renamed the product; else the translated default.
 * The seeded Chinese name is the default's Chinese, so tw and en readers see their own language.
 */
export function productTitleOf(params: ProductTitles, language: Language, translated: string): string {
  const own =
    language === 'zh'
      ? params.productTitle
      : language === 'tw'
        ? params.productTitleTw
        : params.productTitleEn;
  if (own) return own;
  const chinese = params.productTitle;
  return chinese && chinese !== zhPortal.title ? chinese : translated;
}
