/**
 * NProgress's bar without its default role="bar", which is no ARIA role (axe: aria-roles), and the
 * selector NProgress then finds the bar by. The bar is decoration: the page says when it has loaded.
 */
export const PROGRESS_OPTIONS = {
  template: '<div class="bar" aria-hidden="true"><div class="peg"></div></div>',
  barSelector: '.bar',
} as const;
