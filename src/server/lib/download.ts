import type { ByteRange } from './storage/index.js';

/**
 * The Range header's one range of a file of `size` bytes: undefined for none or one this server
 * does not serve (several ranges, a malformed header: the whole file is sent, as RFC 9110
 * allows), 'unsatisfiable' for a range past the end.
 */
export function rangeOf(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size) return 'unsatisfiable';
  if (end < start) return undefined;
  return { start, end };
}

/**
 * Content-Disposition with the original name: an ASCII fallback (the name's ASCII, or the one given
 * when the name is not ASCII: an export's internal name) and the RFC 5987 UTF-8 name.
 */
export function contentDisposition(name: string, isInline: boolean, asciiName = name): string {
  const fallback = asciiName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${isInline ? 'inline' : 'attachment'}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
