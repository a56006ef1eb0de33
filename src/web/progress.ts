/**
 * NProgress's bar without its default role="bar", which is no ARIA role (axe: aria-roles). The bar
 * is decoration: the page's own content says when it has loaded.
 */
export const PROGRESS_TEMPLATE = '<div class="bar" aria-hidden="true"><div class="peg"></div></div>';
