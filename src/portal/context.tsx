import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { PortalParams } from './api.js';
import {
  htmlLang,
  loadSection,
  productTitleOf,
  saveLanguage,
  translator,
  type Language,
  type Section,
} from './i18n.js';
import { loadUser, type PortalUser } from './session.js';
import { getToken, onSessionChange } from '../web/session.js';

export type Translate = (key: string, options?: Record<string, unknown>) => string;

interface PortalContextValue {
  t: Translate;
  /** Structured texts (lists of paragraphs, questions and answers) of the current language. */
  list: <T>(key: string) => T[];
  language: Language;
  setLanguage(language: Language): void;
  params: PortalParams;
  /** The product's name in the current language (productTitleOf). */
  productTitle: string;
  /** Home path, /{product}. */
  home: string;
  user: PortalUser | null;
  /** False until the first check of the stored token has answered. */
  isUserKnown: boolean;
  /** Re-reads the signed-in user (after sign-in). */
  refreshUser(): Promise<PortalUser | null>;
}

const PortalContext = createContext<PortalContextValue | null>(null);

export function usePortal(): PortalContextValue {
  const value = useContext(PortalContext);
  if (!value) throw new Error('usePortal outside PortalProvider');
  return value;
}

export function useT(): Translate {
  return usePortal().t;
}

export function PortalProvider({
  initialLanguage,
  initialSection,
  params,
  children,
}: {
  initialLanguage: Language;
  initialSection: Section;
  params: PortalParams;
  children: ReactNode;
}) {
  const [{ language, section }, setLanguageState] = useState({
    language: initialLanguage,
    section: initialSection,
  });
  const [user, setUser] = useState<PortalUser | null>(null);
  const [isUserKnown, setIsUserKnown] = useState(() => !getToken());

  const refreshUser = useCallback(async (): Promise<PortalUser | null> => {
    const next = getToken() ? await loadUser() : null;
    setUser(next);
    setIsUserKnown(true);
    return next;
  }, []);

  useEffect(() => {
    void refreshUser();
    // the token was reset elsewhere (an expired session): forget the user
    return onSessionChange(() => {
      if (!getToken()) setUser(null);
    });
  }, [refreshUser]);

  const value = useMemo<PortalContextValue>(() => {
    const { t, list } = translator(section);
    return {
      t,
      list,
      productTitle: productTitleOf(params, language, t('title')),
      language,
      setLanguage: (next) => {
        saveLanguage(next);
        void loadSection(next).then((loaded) => {
          document.documentElement.lang = htmlLang(next);
          setLanguageState({ language: next, section: loaded });
        });
      },
      params,
      home: `/${params.product}`,
      user,
      isUserKnown,
      refreshUser,
    };
  }, [language, section, params, user, isUserKnown, refreshUser]);

  return <PortalContext.Provider value={value}>{children}</PortalContext.Provider>;
}
