/** The languages of the product (docs/product.md §4, §9), shared by the server and both front-ends. */
export const LANGUAGES = ['zh', 'tw', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'zh';

/**
 * tw for zh-TW, zh-HK and Hant, zh for other Chinese, en for English, undefined otherwise (docs/product.md §4
 * asks for a substring match, so a cookie value, a navigator language and an Accept-Language entry
 * all go through the same rule).
 */
export function matchLanguage(value: string | undefined): Language | undefined {
  if (!value) return undefined;
  const lower = value.toLowerCase();
  if (lower.includes('tw') || lower.includes('hk') || lower.includes('hant')) return 'tw';
  if (lower.includes('zh')) return 'zh';
  if (lower.includes('en')) return 'en';
  return undefined;
}
