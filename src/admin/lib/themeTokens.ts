/**
 * The antd tokens of the back-office for a theme colour of the settings panel, chosen so that
 * text meets WCAG 2.1 AA (4.5:1): the presets stay what the panel shows, but the shade the UI
 * writes text with (links, selected items) or writes white text on (primary buttons, the active
 * tag) is darkened until it reads on white and on the light tints antd puts under it.
 */

import { contrastRatio, hexOf, rgbOf, type Rgb } from './contrast.js';

export const TEXT_RATIO = 4.5;

/** Backgrounds primary-coloured text stands on: cards, the light tint of a selected item, the page. */
const LIGHT_BACKGROUNDS = ['#ffffff', '#e6f4ff', '#f0f2f5'] as const;

/** WCAG 2 contrast ratio of two #rrggbb colours (the sidebar's helper: one formula for both). */
export const contrastOf = contrastRatio;

/** The colour mixed with black by the share (0..1). */
function darker(color: string, share: number): string {
  return hexOf(rgbOf(color).map((channel) => channel * (1 - share)) as Rgb);
}

/** How much of the theme colour the tint under a selected item (option, tree node) has. */
const SELECTED_TINT_SHARE = 0.1;

/**
 * The light tint a selected option or tree node stands on (antd's colorPrimaryBg, which antd
 * would derive from the colour by its own palette): set here so that its contrast is known.
 */
export function selectedTint(color: string): string {
  return hexOf(
    rgbOf(color).map((channel) => channel * SELECTED_TINT_SHARE + 255 * (1 - SELECTED_TINT_SHARE)) as Rgb,
  );
}

/** The colour, darkened in small steps until it reads on every light background and its own tint. */
export function readableOnLight(color: string, ratio = TEXT_RATIO): string {
  for (let step = 0; step <= 40; step += 1) {
    const shade = darker(color, step / 40);
    const backgrounds = [...LIGHT_BACKGROUNDS, selectedTint(shade)];
    if (backgrounds.every((background) => contrastOf(shade, background) >= ratio)) return shade;
  }
  return '#000000';
}

/** Text that is secondary but still text (descriptions, breadcrumbs, captions): 5.7:1 on white. */
const SECONDARY_TEXT = 'rgba(0, 0, 0, 0.6)';
/** How strongly the focus ring around a field shows the theme colour. */
const FOCUS_RING_ALPHA = 0.45;
/** A hint inside an empty field (antd's #bfbfbf reads 1.8:1): lighter than text, still 4.5:1 on white. */
export const PLACEHOLDER_TEXT = '#757575';
/** antd's red (#ff4d4f) reads 3.3:1; this one 5.6:1 on white and on its own light tint. */
const ERROR = '#cf1322';

/** The global antd tokens for a theme colour. */
export function themeTokens(theme: string) {
  const primary = readableOnLight(theme);
  // hover and press go darker, not lighter (antd's default), so that they keep the contrast
  const hover = darker(primary, 0.12);
  const active = darker(primary, 0.22);
  return {
    colorPrimary: primary,
    colorPrimaryHover: hover,
    colorPrimaryActive: active,
    colorPrimaryText: primary,
    colorPrimaryTextHover: hover,
    colorPrimaryTextActive: active,
    // the tint under selected options and tree nodes, which primary text is written on
    colorPrimaryBg: selectedTint(primary),
    controlItemBgActive: selectedTint(primary),
    colorInfo: primary,
    colorLink: primary,
    colorLinkHover: hover,
    colorLinkActive: active,
    colorError: ERROR,
    colorTextDescription: SECONDARY_TEXT,
    colorTextTertiary: SECONDARY_TEXT,
    colorTextPlaceholder: PLACEHOLDER_TEXT,
    // the ring of a focused select, picker or input: antd's 10 % tint is hard to see (WCAG 2.4.7)
    controlOutline: `rgba(${rgbOf(primary).join(', ')}, ${FOCUS_RING_ALPHA})`,
    controlOutlineWidth: 2,
  };
}
