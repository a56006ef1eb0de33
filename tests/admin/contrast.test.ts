import { describe, expect, it } from 'vitest';
import { contrastRatio, readableOn, READABLE_RATIO } from '../../src/admin/lib/contrast.js';
import { THEME_PRESETS } from '../../src/admin/lib/settings.js';
import { SIDEBAR_COLORS } from '../../src/admin/layout/sidebarTheme.js';

describe('sidebar text colours (issue 19.9, 4.5:1 on #304156)', () => {
  it('measures contrast as WCAG does', () => {
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 5);
    expect(contrastRatio('#409eff', '#304156')).toBeLessThan(READABLE_RATIO);
  });

  it('keeps a theme colour that reads and lightens one that does not', () => {
    expect(readableOn('#79bbff', '#304156')).toBe('#79bbff');
    const active = readableOn('#409EFF', '#304156');
    expect(active).not.toBe('#409eff');
    expect(contrastRatio(active, '#304156')).toBeGreaterThanOrEqual(READABLE_RATIO);
  });

  it.each(THEME_PRESETS)('the active item in theme %s reads on every sidebar background', (theme) => {
    const active = readableOn(theme, SIDEBAR_COLORS.background);
    for (const background of [SIDEBAR_COLORS.background, SIDEBAR_COLORS.submenu, SIDEBAR_COLORS.hover]) {
      expect(contrastRatio(active, background)).toBeGreaterThanOrEqual(READABLE_RATIO);
    }
  });

  it('the plain items read on every sidebar background', () => {
    for (const background of [
      SIDEBAR_COLORS.background,
      SIDEBAR_COLORS.submenu,
      SIDEBAR_COLORS.hover,
      SIDEBAR_COLORS.submenuHover,
    ]) {
      expect(contrastRatio(SIDEBAR_COLORS.text, background)).toBeGreaterThanOrEqual(READABLE_RATIO);
      expect(contrastRatio(SIDEBAR_COLORS.openGroup, background)).toBeGreaterThanOrEqual(READABLE_RATIO);
    }
  });
});
