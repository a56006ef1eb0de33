/** The settings panel (docs/product.md §2.4, §9), remembered in local storage. */

export interface Settings {
  theme: string;
  showSettings: boolean;
  tagsView: boolean;
  fixedHeader: boolean;
  sidebarLogo: boolean;
  supportPinyinSearch: boolean;
}

/** Eight presets; the admin default first. */
export const THEME_PRESETS = [
  '#409EFF',
  '#1890ff',
  '#304156',
  '#212121',
  '#11a983',
  '#13c2c2',
  '#6959CD',
  '#f5222d',
] as const;

export const DEFAULT_SETTINGS: Settings = {
  theme: '#409EFF',
  showSettings: true,
  tagsView: true,
  fixedHeader: false,
  sidebarLogo: true,
  supportPinyinSearch: true,
};

const STORAGE_KEY = 'ecobid-admin-settings';

export function parseSettings(text: string | null): Settings {
  if (!text) return DEFAULT_SETTINGS;
  try {
    const stored = JSON.parse(text) as Partial<Record<keyof Settings, unknown>>;
    const flag = (key: Exclude<keyof Settings, 'theme'>): boolean =>
      typeof stored[key] === 'boolean' ? (stored[key] as boolean) : DEFAULT_SETTINGS[key];
    return {
      theme:
        typeof stored.theme === 'string' && /^#[0-9a-fA-F]{6}$/.test(stored.theme)
          ? stored.theme
          : DEFAULT_SETTINGS.theme,
      showSettings: flag('showSettings'),
      tagsView: flag('tagsView'),
      fixedHeader: flag('fixedHeader'),
      sidebarLogo: flag('sidebarLogo'),
      supportPinyinSearch: flag('supportPinyinSearch'),
    };
  } catch {
    return DEFAULT_SETTINGS;
  }
}

export function loadSettings(): Settings {
  return parseSettings(typeof localStorage === 'undefined' ? null : localStorage.getItem(STORAGE_KEY));
}

export function saveSettings(settings: Settings): void {
  if (typeof localStorage !== 'undefined') localStorage.setItem(STORAGE_KEY, JSON.stringify(settings));
}

/** docs/product.md §9 sizes (Element names) and the antd sizes they map to. */
export const SIZES = ['default', 'medium', 'small', 'mini'] as const;
export type Size = (typeof SIZES)[number];
export const DEFAULT_SIZE: Size = 'medium';

export function antdSize(size: Size): 'large' | 'middle' | 'small' {
  if (size === 'default') return 'large';
  if (size === 'medium') return 'middle';
  return 'small';
}

export function parseSize(value: string | undefined): Size {
  return SIZES.find((size) => size === value) ?? DEFAULT_SIZE;
}

/** docs/product.md §4: the sidebar is open unless the cookie says 0. */
export function sidebarOpenedFrom(cookie: string | undefined): boolean {
  return cookie !== '0';
}

export const MOBILE_WIDTH = 992;
export const SIDEBAR_WIDTH = 210;
