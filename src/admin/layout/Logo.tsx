/** The platform mark: a leaf in the theme colour (no image request on first load). */
export function LogoMark({ size = 32 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true">
      <circle cx="16" cy="16" r="15" fill="#1f7a4d" />
      <path d="M9 22c0-8 6-13 15-13-1 9-6 14-13 14l-2 2" fill="#8fd694" stroke="#fff" strokeWidth="1.5" />
    </svg>
  );
}

/** Default avatar when a user has none or its image fails to load (docs/product.md §8). */
export const DEFAULT_AVATAR =
  'data:image/svg+xml;utf8,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40"><rect width="40" height="40" rx="8" fill="#c0c4cc"/><circle cx="20" cy="15" r="7" fill="#fff"/><path d="M6 36c2-8 8-11 14-11s12 3 14 11" fill="#fff"/></svg>',
  );
