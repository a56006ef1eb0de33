import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { saveLanguage, type Language } from '../web/i18n.js';
import { readCookie, writeCookie } from '../web/session.js';
import { changeLanguage, i18n, LanguageContext } from './i18n.js';
import {
  loadSettings,
  MOBILE_WIDTH,
  parseSize,
  saveSettings,
  sidebarOpenedFrom,
  type Settings,
  type Size,
} from './lib/settings.js';
import { emptyTags, type TagsState } from './lib/tags.js';

/** One entry of the error log (docs/product.md §2.4, §8). */
export interface ErrorLogEntry {
  message: string;
  info: string;
  url: string;
  stack: string;
  time: number;
}

export type Device = 'desktop' | 'mobile';

export interface AppState {
  language: Language;
  setLanguage(language: Language): Promise<void>;
  size: Size;
  setSize(size: Size): void;
  settings: Settings;
  updateSettings(change: Partial<Settings>): void;
  isSidebarOpened: boolean;
  withoutAnimation: boolean;
  toggleSidebar(): void;
  closeSidebar(withoutAnimation: boolean): void;
  device: Device;
  tags: TagsState;
  setTags(update: (state: TagsState) => TagsState): void;
  errorLog: ErrorLogEntry[];
  addErrorLog(entry: Omit<ErrorLogEntry, 'time'>): void;
  clearErrorLog(): void;
  isSettingsOpen: boolean;
  setSettingsOpen(open: boolean): void;
}

const AppContext = createContext<AppState | undefined>(undefined);

export function useApp(): AppState {
  const state = useContext(AppContext);
  if (!state) throw new Error('useApp outside AppProvider');
  return state;
}

/** The same object for as long as none of its values changes (a useMemo that lists them once). */
function useStableObject<T extends object>(value: T): T {
  return useMemo(() => value, Object.values(value));
}

const isMobileWidth = (): boolean => typeof window !== 'undefined' && window.innerWidth < MOBILE_WIDTH;

/** The shell's client state (docs/product.md §3 settings / UI state, §4 transitions). */
export function AppProvider({ children }: { children: ReactNode }) {
  const [language, setLanguageState] = useState<Language>(i18n.language as Language);
  const [size, setSizeState] = useState<Size>(() => parseSize(readCookie('size')));
  const [settings, setSettings] = useState<Settings>(loadSettings);
  const [device, setDevice] = useState<Device>(() => (isMobileWidth() ? 'mobile' : 'desktop'));
  const [isSidebarOpened, setSidebarOpened] = useState<boolean>(
    () => !isMobileWidth() && sidebarOpenedFrom(readCookie('sidebarStatus')),
  );
  const [withoutAnimation, setWithoutAnimation] = useState(false);
  const [tags, setTagsState] = useState<TagsState>(emptyTags);
  const [errorLog, setErrorLog] = useState<ErrorLogEntry[]>([]);
  const [isSettingsOpen, setSettingsOpen] = useState(false);

  const setLanguage = useCallback((next: Language) => {
    saveLanguage(next);
    // Re-render once the language's texts have arrived.
    return changeLanguage(next).then(() => {
      document.documentElement.lang = next === 'en' ? 'en' : next === 'tw' ? 'zh-TW' : 'zh-CN';
      setLanguageState(next);
    });
  }, []);

  const setSize = useCallback((next: Size) => {
    writeCookie('size', next, 365);
    setSizeState(next);
  }, []);

  const updateSettings = useCallback((change: Partial<Settings>) => {
    setSettings((current) => {
      const next = { ...current, ...change };
      saveSettings(next);
      return next;
    });
  }, []);

  const toggleSidebar = useCallback(() => {
    setSidebarOpened((opened) => {
      writeCookie('sidebarStatus', opened ? '0' : '1', 365);
      return !opened;
    });
    setWithoutAnimation(false);
  }, []);

  const closeSidebar = useCallback((noAnimation: boolean) => {
    writeCookie('sidebarStatus', '0', 365);
    setSidebarOpened(false);
    setWithoutAnimation(noAnimation);
  }, []);

  // docs/product.md §4: mobile under 992 px; on mobile the sidebar closes without animation.
  useEffect(() => {
    const onResize = (): void => {
      if (document.hidden) return;
      const isMobile = isMobileWidth();
      setDevice(isMobile ? 'mobile' : 'desktop');
      if (isMobile) {
        setSidebarOpened(false);
        setWithoutAnimation(true);
      }
    };
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);

  const setTags = useCallback((update: (state: TagsState) => TagsState) => setTagsState(update), []);
  const addErrorLog = useCallback(
    (entry: Omit<ErrorLogEntry, 'time'>) => setErrorLog((list) => [...list, { ...entry, time: Date.now() }]),
    [],
  );
  const clearErrorLog = useCallback(() => setErrorLog([]), []);

  const value = useStableObject<AppState>({
    language,
    setLanguage,
    size,
    setSize,
    settings,
    updateSettings,
    isSidebarOpened,
    withoutAnimation,
    toggleSidebar,
    closeSidebar,
    device,
    tags,
    setTags,
    errorLog,
    addErrorLog,
    clearErrorLog,
    isSettingsOpen,
    setSettingsOpen,
  });

  return (
    <AppContext.Provider value={value}>
      <LanguageContext.Provider value={language}>{children}</LanguageContext.Provider>
    </AppContext.Provider>
  );
}
