import { StringDecoder } from 'node:string_decoder';
import { ImportBudgetError, READ_BUDGETS } from './budget.js';

/**
 * A small streaming XML scanner for the parts of an .xlsx: tags and text as they come, a chunk
 * of UTF-8 at a time, with no tree and no per-event objects. Enough for SpreadsheetML (no DTDs);
 * namespace prefixes are dropped from tag names (`x:row` is `row`).
 */
export interface XmlHandler {
  /** A start tag (or an empty-element tag, `selfClosing`); `attributes` is its raw attribute text. */
  open(name: string, attributes: string, selfClosing: boolean): void;
  close(name: string): void;
  /** Text between two tags, entities not decoded yet (decodeXml). */
  text(raw: string): void;
}

const ENTITY = /&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Text or an attribute value with its entities (named and numeric) decoded. */
export function decodeXml(raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(ENTITY, (_, entity: string) => {
    if (entity.startsWith('#')) {
      const code = entity.startsWith('#x')
        ? Number.parseInt(entity.slice(2), 16)
        : Number.parseInt(entity.slice(1), 10);
      return code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    return NAMED[entity] ?? '';
  });
}

const QUOT = 34; // "
const APOS = 39; // '

const isSpace = (code: number): boolean => code === 32 || code === 9 || code === 10 || code === 13;

/**
 * The attributes of a tag by name (a prefixed name is also found by its local name). One pass
 * over the text: a name, `=`, a quoted value; anything else is skipped a character at a time.
 */
export function attributesOf(raw: string): Map<string, string> {
  const found = new Map<string, string>();
  let at = 0;
  const end = raw.length;
  while (at < end) {
    while (at < end && isSpace(raw.charCodeAt(at))) at += 1;
    const nameStart = at;
    while (at < end) {
      const code = raw.charCodeAt(at);
      if (isSpace(code) || code === 61 /* = */) break;
      at += 1;
    }
    if (at === nameStart) {
      at += 1;
      continue;
    }
    const name = raw.slice(nameStart, at);
    while (at < end && isSpace(raw.charCodeAt(at))) at += 1;
    if (raw.charCodeAt(at) !== 61) continue;
    at += 1;
    while (at < end && isSpace(raw.charCodeAt(at))) at += 1;
    const quote = raw.charCodeAt(at);
    if (quote !== QUOT && quote !== APOS) continue;
    const close = raw.indexOf(quote === QUOT ? '"' : "'", at + 1);
    if (close < 0) break;
    const value = decodeXml(raw.slice(at + 1, close));
    at = close + 1;
    found.set(name, value);
    const colon = name.indexOf(':');
    if (colon >= 0 && !found.has(name.slice(colon + 1))) found.set(name.slice(colon + 1), value);
  }
  return found;
}

const GT = 62; // >
const SLASH = 47; // /

const localName = (name: string): string => {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
};

/** Where the tag that starts at `lt` ends (its `>`, outside quoted values), or -1 if not in `text`. */
function tagEnd(text: string, lt: number): number {
  let quote = 0;
  for (let at = lt + 1; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (quote !== 0) {
      if (code === quote) quote = 0;
    } else if (code === QUOT || code === APOS) quote = code;
    else if (code === GT) return at;
  }
  return -1;
}

/** Hands one tag's content (between `<` and `>`) to the handler. */
function emitTag(tag: string, handler: XmlHandler): void {
  if (tag.charCodeAt(0) === SLASH) {
    handler.close(localName(tag.slice(1).trim()));
    return;
  }
  const selfClosing = tag.charCodeAt(tag.length - 1) === SLASH;
  const body = selfClosing ? tag.slice(0, -1) : tag;
  let nameEnd = 0;
  while (nameEnd < body.length && body.charCodeAt(nameEnd) > 32) nameEnd += 1;
  handler.open(localName(body.slice(0, nameEnd)), body.slice(nameEnd), selfClosing);
  if (selfClosing) handler.close(localName(body.slice(0, nameEnd)));
}

/** The longest entity (`&#x10FFFF;`): a text cut at a chunk's end may hold the start of one. */
const ENTITY_MAX = 10;

/**
 * Scans the XML in `chunks`, calling the handler as it goes, and yields after each chunk so that
 * the caller can take what the handler gathered before the next chunk is read. Text is handed
 * over as it comes (a long text in several pieces, never an entity cut in two); only a tag,
 * comment or CDATA section cut by a chunk's end is held, and one longer than `maxMarkup` is an
 * ImportBudgetError: the work of a chunk is linear in its size.
 */
export async function* scanXml(
  chunks: AsyncIterable<Buffer>,
  handler: XmlHandler,
  maxMarkup = READ_BUDGETS.markupBytes,
): AsyncGenerator<void> {
  const decoder = new StringDecoder('utf8');
  const tooLong = (length: number): void => {
    if (length > maxMarkup) throw new ImportBudgetError('markupBytes', maxMarkup);
  };
  let rest = '';
  for await (const chunk of chunks) {
    const text = rest + decoder.write(chunk);
    let at = 0;
    for (;;) {
      const lt = text.indexOf('<', at);
      if (lt < 0) {
        // Text up to the chunk's end: all of it but an entity that may go on in the next chunk.
        let cut = text.length;
        const amp = text.lastIndexOf('&');
        if (amp >= at && text.length - amp <= ENTITY_MAX && !text.includes(';', amp)) cut = amp;
        if (cut > at) handler.text(text.slice(at, cut));
        at = cut;
        break;
      }
      if (lt > at) handler.text(text.slice(at, lt));
      at = lt;
      const next = text.charCodeAt(lt + 1);
      if (next === 33 /* ! */ || next === 63 /* ? */) {
        // A comment, CDATA section, declaration or processing instruction.
        if (text.startsWith('<!--', lt)) {
          const end = text.indexOf('-->', lt + 4);
          if (end < 0) break;
          tooLong(end - lt);
          at = end + 3;
        } else if (text.startsWith('<![CDATA[', lt)) {
          const end = text.indexOf(']]>', lt + 9);
          if (end < 0) break;
          tooLong(end - lt);
          // Handed over as text whose `&` are already literal: escape them for decodeXml.
          handler.text(text.slice(lt + 9, end).replace(/&/g, '&amp;'));
          at = end + 3;
        } else {
          const end = tagEnd(text, lt);
          if (end < 0) break;
          tooLong(end - lt);
          at = end + 1;
        }
        continue;
      }
      const end = tagEnd(text, lt);
      if (end < 0) break;
      tooLong(end - lt);
      emitTag(text.slice(lt + 1, end), handler);
      at = end + 1;
    }
    rest = text.slice(at);
    tooLong(rest.length);
    yield;
  }
  if (rest.trim() !== '' && rest.includes('<')) throw new Error('xml: unexpected end of the part');
}
