/** Back-office rich text shown by both front-ends (notices in the portal, the admin inbox). */

const ALLOWED_TAGS = new Set([
  'P',
  'BR',
  'STRONG',
  'B',
  'EM',
  'I',
  'U',
  'S',
  'UL',
  'OL',
  'LI',
  'H2',
  'H3',
  'H4',
  'BLOCKQUOTE',
  'A',
  'IMG',
  'TABLE',
  'THEAD',
  'TBODY',
  'TR',
  'TH',
  'TD',
  'SPAN',
  'DIV',
  'HR',
]);
const ALLOWED_ATTRIBUTES: Record<string, string[]> = {
  A: ['href', 'title'],
  IMG: ['src', 'alt', 'width', 'height'],
  TD: ['colspan', 'rowspan'],
  TH: ['colspan', 'rowspan'],
  SPAN: ['style'],
};
/** The one inline style kept: the editor's font sizes, 8pt to 36pt (as src/server/lib/html.ts). */
const FONT_SIZE_STYLE = /^\s*font-size:\s*((?:[89]|[12]\d|3[0-6])pt)\s*;?\s*$/i;
const DROPPED_TAGS = new Set([
  'SCRIPT',
  'STYLE',
  'IFRAME',
  'OBJECT',
  'EMBED',
  'FORM',
  'INPUT',
  'TEXTAREA',
  'SVG',
  'MATH',
  'TEMPLATE',
  'NOSCRIPT',
]);
const SAFE_URL = /^(https?:|mailto:|tel:|\/(?!\/)|#|data:image\/(png|jpe?g|gif|webp);)/i;

/** Keeps the formatting of back-office rich text and drops scripts, styles, handlers and unsafe links. */
export function sanitizeHtml(html: string): string {
  const doc = new DOMParser().parseFromString(`<div>${html}</div>`, 'text/html');
  const walk = (node: Element): void => {
    for (const child of [...node.children]) {
      const tag = child.tagName.toUpperCase();
      if (!ALLOWED_TAGS.has(tag)) {
        // unknown wrappers keep their text, dangerous elements go entirely
        if (DROPPED_TAGS.has(tag)) {
          child.remove();
        } else {
          walk(child);
          child.replaceWith(...child.childNodes);
        }
        continue;
      }
      const allowed = ALLOWED_ATTRIBUTES[tag] ?? [];
      for (const attribute of [...child.attributes]) {
        const isUrl = attribute.name === 'href' || attribute.name === 'src';
        if (!allowed.includes(attribute.name) || (isUrl && !SAFE_URL.test(attribute.value.trim())))
          child.removeAttribute(attribute.name);
        else if (attribute.name === 'style') {
          const size = FONT_SIZE_STYLE.exec(attribute.value)?.[1];
          if (size) child.setAttribute('style', `font-size: ${size}`);
          else child.removeAttribute('style');
        }
      }
      if (tag === 'A') {
        child.setAttribute('target', '_blank');
        child.setAttribute('rel', 'noopener noreferrer');
      }
      walk(child);
    }
  };
  const root = doc.body.firstElementChild;
  if (!root) return '';
  walk(root);
  return root.innerHTML;
}
