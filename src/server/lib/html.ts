import sanitize from 'sanitize-html';
import type { EntityDef, FieldDef } from '../../engine/index.js';

/**
 * Rich text (x-ui widget richtext) is cleaned here before it is stored, with the allow-list the
 * front-ends clean it with again when they show it (src/web/sanitize.ts): formatting, links,
 * pictures and tables stay; scripts, styles, event handlers, frames and unsafe URLs go. Font
 * sizes of the editor (8pt to 36pt) are the only inline style kept.
 */

/** Elements dropped with everything inside them (the rest of unknown tags keeps its text). */
const DROPPED_TAGS = [
  'script',
  'style',
  'iframe',
  'object',
  'embed',
  'form',
  'input',
  'textarea',
  'select',
  'option',
  'button',
  'svg',
  'math',
  'template',
  'noscript',
  'title',
  'head',
];

/** A font size of the editor: 8pt to 36pt. */
export const FONT_SIZE = /^(?:[89]|[12]\d|3[0-6])pt$/;

/** Pictures pasted into the editor may be inline data of the common raster types. */
const DATA_IMAGE = /^data:image\/(?:png|jpe?g|gif|webp);/i;

const OPTIONS: sanitize.IOptions = {
  allowedTags: [
    'p',
    'br',
    'strong',
    'b',
    'em',
    'i',
    'u',
    's',
    'ul',
    'ol',
    'li',
    'h2',
    'h3',
    'h4',
    'blockquote',
    'a',
    'img',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'span',
    'div',
    'hr',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'target', 'rel'],
    img: ['src', 'alt', 'width', 'height'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan'],
    span: ['style'],
  },
  allowedStyles: { span: { 'font-size': [FONT_SIZE] } },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  nonTextTags: DROPPED_TAGS,
  transformTags: {
    a: (tagName, attribs) => ({
      tagName,
      attribs: { ...attribs, target: '_blank', rel: 'noopener noreferrer' },
    }),
    img: (tagName, attribs) => {
      const { src, ...rest } = attribs;
      const isData = src?.trim().toLowerCase().startsWith('data:') === true;
      return { tagName, attribs: src && (!isData || DATA_IMAGE.test(src.trim())) ? attribs : rest };
    },
  },
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
};

/** Rich text as it may be stored and shown. */
export function sanitizeRichText(html: string): string {
  return sanitize(html, OPTIONS);
}

/** Whether a field holds rich text (x-ui widget richtext). */
export function isRichText(field: FieldDef): boolean {
  return field.type === 'string' && field.schema['x-ui']?.widget === 'richtext';
}

/**
 * Cleans the rich-text values of a create or update body in place; answers the names of the
 * fields that were not empty but are after cleaning (nothing but scripts or handlers).
 */
export function sanitizeRichTextValues(entity: EntityDef, values: Record<string, unknown>): string[] {
  const emptied: string[] = [];
  for (const field of entity.fields) {
    const value = values[field.name];
    if (!isRichText(field) || typeof value !== 'string') continue;
    const clean = sanitizeRichText(value);
    if (clean.trim() === '' && value.trim() !== '') emptied.push(field.name);
    values[field.name] = clean;
  }
  return emptied;
}
