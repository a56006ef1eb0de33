/** docs/product.md §9's editor defaults: height 360 px (width auto), font sizes 8pt to 36pt. */
export const EDITOR_HEIGHT = 360;
export const FONT_SIZES: readonly string[] = Array.from(
  { length: 36 - 8 + 1 },
  (_, index) => `${index + 8}pt`,
);
