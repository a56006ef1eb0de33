import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyRequest } from 'fastify';
import i18next, { type i18n } from 'i18next';
import { DEFAULT_LANGUAGE, LANGUAGES, matchLanguage, type Language } from '../../engine/language.js';

export { DEFAULT_LANGUAGE, type Language };

export type Translate = (key: string, params?: Record<string, unknown>) => string;

export interface I18n {
  t(language: Language, key: string, params?: Record<string, unknown>): string;
  /** Like t, but undefined when no language has the key. */
  find(language: Language, keys: string[]): string | undefined;
  /** The text of a key in that language only, undefined when it has none or the key is a group. */
  text(language: Language, key: string): string | undefined;
  /** Adds texts under `key` (a module's messages under modules.<name>), beside the locale files'. */
  add(language: Language, key: string, texts: Record<string, unknown>): void;
}

export function loadI18n(localesDir: string): I18n {
  const resources: Record<string, { translation: Record<string, unknown> }> = {};
  for (const language of LANGUAGES) {
    resources[language] = {
      translation: JSON.parse(readFileSync(join(localesDir, `${language}.json`), 'utf8')) as Record<
        string,
        unknown
      >,
    };
  }
  const instance: i18n = i18next.createInstance();
  void instance.init({
    resources,
    lng: DEFAULT_LANGUAGE,
    fallbackLng: 'en',
    interpolation: { escapeValue: false },
    initAsync: false,
  });
  return {
    t: (language, key, params = {}) => instance.t(key, { ...params, lng: language }),
    find: (language, keys) => {
      for (const key of keys) {
        if (instance.exists(key, { lng: language })) return instance.t(key, { lng: language });
      }
      return undefined;
    },
    text: (language, key) => {
      const found: unknown = instance.getResource(language, 'translation', key);
      return typeof found === 'string' ? found : undefined;
    },
    add: (language, key, texts) => {
      const tree = key
        .split('.')
        .reverse()
        .reduce<Record<string, unknown>>((inner, part) => ({ [part]: inner }), texts);
      instance.addResourceBundle(language, 'translation', tree, true, false);
    },
  };
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

/** The language of a request: the language cookie the front-ends set, else Accept-Language, else Chinese. */
export function requestLanguage(request: FastifyRequest): Language {
  const fromCookie = matchLanguage(cookieValue(request.headers.cookie, 'language'));
  if (fromCookie) return fromCookie;
  const accept = request.headers['accept-language'];
  const first = typeof accept === 'string' ? accept.split(',')[0] : undefined;
  return matchLanguage(first) ?? DEFAULT_LANGUAGE;
}

export function translatorFor(request: FastifyRequest): Translate {
  return localizerFor(request).t;
}

/** Everything a request needs to speak the caller's language. */
export interface Localizer {
  language: Language;
  t: Translate;
  /** The first of these keys that has a text, else undefined. */
  find(keys: string[]): string | undefined;
}

export function localizer(i18n: I18n, language: Language): Localizer {
  return {
    language,
    t: (key, params) => i18n.t(language, key, params),
    find: (keys) => i18n.find(language, keys),
  };
}

export function localizerFor(request: FastifyRequest): Localizer {
  return localizer(request.server.i18n, requestLanguage(request));
}
