/**
 * Text colours that stay readable (WCAG 2 contrast) on the shell's dark sidebar, whatever theme
 * colour the settings panel picks: the theme colour itself when it reads well enough, else the
 * theme colour mixed with white until it does.
 */

/** WCAG AA for normal text. */
export const READABLE_RATIO = 4.5;

export type Rgb = [number, number, number];

export function rgbOf(hex: string): Rgb {
  const value = /^#?([0-9a-f]{6})$/i.exec(hex.trim())?.[1];
  if (!value) throw new Error(`not a #rrggbb colour: ${hex}`);
  return [0, 2, 4].map((start) => parseInt(value.slice(start, start + 2), 16)) as Rgb;
}

export function hexOf(rgb: Rgb): string {
  return `#${rgb.map((channel) => Math.round(channel).toString(16).padStart(2, '0')).join('')}`;
}

function luminance(rgb: Rgb): number {
  const [r, g, b] = rgb.map((channel) => {
    const c = channel / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two #rrggbb colours. */
export function contrastRatio(foreground: string, background: string): number {
  const [light, dark] = [luminance(rgbOf(foreground)), luminance(rgbOf(background))].sort(
    (a, b) => b - a,
  ) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** The colour, lightened towards white in small steps until it reads on the (dark) background. */
export function readableOn(color: string, background: string, ratio = READABLE_RATIO): string {
  const rgb = rgbOf(color);
  for (let step = 0; step <= 20; step += 1) {
    const share = step / 20;
    const mixed = hexOf(rgb.map((channel) => channel + (255 - channel) * share) as Rgb);
    if (contrastRatio(mixed, background) >= ratio) return mixed;
  }
  return '#ffffff';
}
