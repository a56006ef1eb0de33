import type { ThemeConfig } from 'antd';
import { readableOn } from '../lib/contrast.js';

/**
 * vue-element-admin's sidebar (the seed's template, what this product's users know): flat rows
 * on #304156, submenus a shade darker, the active item in the theme colour as text, no pills.
 * The text colours meet 4.5:1 on every background they stand on (tests/admin/contrast.test.ts).
 */
export const SIDEBAR_COLORS = {
  background: '#304156',
  submenu: '#1f2d3d',
  hover: '#263445',
  submenuHover: '#001528',
  text: '#bfcbd9',
  /** The title of the group that holds the active page. */
  openGroup: '#f4f4f5',
} as const;

export const SIDEBAR_ITEM_HEIGHT = 56;
export const SIDEBAR_SUBITEM_HEIGHT = 50;

/** The antd Menu tokens of the sidebar for a theme colour. */
export function sidebarMenuTheme(theme: string): ThemeConfig {
  return {
    components: {
      Menu: {
        darkItemBg: SIDEBAR_COLORS.background,
        darkSubMenuItemBg: SIDEBAR_COLORS.submenu,
        darkPopupBg: SIDEBAR_COLORS.submenu,
        darkItemColor: SIDEBAR_COLORS.text,
        darkItemHoverColor: SIDEBAR_COLORS.text,
        darkItemHoverBg: SIDEBAR_COLORS.hover,
        darkItemSelectedBg: 'transparent',
        darkItemSelectedColor: readableOn(theme, SIDEBAR_COLORS.background),
        itemBorderRadius: 0,
        subMenuItemBorderRadius: 0,
        itemMarginInline: 0,
        itemMarginBlock: 0,
        itemHeight: SIDEBAR_ITEM_HEIGHT,
        iconSize: 16,
        collapsedIconSize: 16,
        iconMarginInlineEnd: 16,
      },
    },
  };
}
