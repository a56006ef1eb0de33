import { describe, expect, it } from 'vitest';
import { THEME_PRESETS } from '../../src/admin/lib/settings.js';
import { contrastOf, readableOnLight, TEXT_RATIO, themeTokens } from '../../src/admin/lib/themeTokens.js';

describe('back-office theme tokens (issue 21: text at 4.5:1 on every preset)', () => {
  it('measures contrast as WCAG does', () => {
    expect(contrastOf('#ffffff', '#000000')).toBeCloseTo(21, 5);
    // the default preset itself is too light for white text or for text on white
    expect(contrastOf('#ffffff', '#409eff')).toBeLessThan(TEXT_RATIO);
  });

  it('writes the hints of empty fields at 4.5:1 on white (antd draws them at 1.8:1)', () => {
    expect(contrastOf(themeTokens('#409eff').colorTextPlaceholder, '#ffffff')).toBeGreaterThanOrEqual(
      TEXT_RATIO,
    );
  });

  it('keeps a preset that reads already', () => {
    expect(readableOnLight('#304156')).toBe('#304156');
  });

  it.each(THEME_PRESETS)(
    'theme %s: primary, hover, press and link read on white and on light tints',
    (theme) => {
      const tokens = themeTokens(theme);
      for (const color of [
        tokens.colorPrimary,
        tokens.colorPrimaryHover,
        tokens.colorPrimaryActive,
        tokens.colorLink,
        tokens.colorError,
      ]) {
        for (const background of ['#ffffff', '#e6f4ff', '#f0f2f5', tokens.controlItemBgActive]) {
          expect(contrastOf(color, background)).toBeGreaterThanOrEqual(TEXT_RATIO);
        }
      }
    },
  );
});
