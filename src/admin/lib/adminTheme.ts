import { theme as antdTheme, type ThemeConfig } from 'antd';
import { themeTokens } from './themeTokens.js';

/** The back-office's antd theme for a theme colour, with or without motion (reduced motion). */
export function adminTheme(color: string, motion: boolean): ThemeConfig {
  return {
    token: { ...themeTokens(color), borderRadius: 4, motion },
    algorithm: antdTheme.defaultAlgorithm,
  };
}
