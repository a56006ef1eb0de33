import { fileTypeFromBuffer } from 'file-type';
import type { FileUse } from '../../../../engine/index.js';

export type { FileUse };
export const FILE_USES: readonly FileUse[] = ['image', 'attachment'];

/** Pictures as docs/product.md §5 allows them for the editor's dialog and image fields. */
export const IMAGE_TYPES: readonly string[] = ['jpg', 'jpeg', 'gif', 'png', 'bmp'];

/** Bytes read before the type is decided: enough for every signature file-type knows. */
export const SNIFF_BYTES = 4100;

const MAX_NAME_LENGTH = 200;

/**
 * A client's file name made safe to show and to send back: the last path segment only, no
 * control characters (NUL included), no "..", trimmed and bounded. It is only ever stored as
 * text; storage keys are generated.
 */
export function cleanFileName(raw: string): string {
  const lastSegment = raw.split(/[/\\]/).pop() ?? '';
  const cleaned = lastSegment
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/\.{2,}/g, '.')
    .replace(/[<>:"|?*]/g, '_')
    .trim()
    .replace(/^\.+/, '');
  const bounded = [...cleaned].slice(0, MAX_NAME_LENGTH).join('');
  return bounded === '' ? 'file' : bounded;
}

/** The extension of a cleaned name, lower case, without the dot ('' when it has none). */
export function extensionOf(name: string): string {
  const match = /\.([A-Za-z0-9]{1,10})$/.exec(name);
  return match?.[1]?.toLowerCase() ?? '';
}

export interface SniffedType {
  /** The file type by its bytes (jpg, png, pdf, docx, txt, …). */
  fileType: string;
  contentType: string;
}

/** Text types file-type has no signature for: accepted when the bytes are text and the name says so. */
const TEXT_TYPES: Record<string, string> = {
  txt: 'text/plain',
  csv: 'text/csv',
  md: 'text/markdown',
  json: 'application/json',
};

const JPEG_NAMES = new Set(['jpg', 'jpeg']);

function isUtf8Text(head: Uint8Array): boolean {
  if (head.includes(0)) return false;
  try {
    // A multi-byte character cut at the end of the head is not a reason to refuse.
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 3)));
    return true;
  } catch {
    return false;
  }
}

/**
 * The type of the bytes whose start is `head`, checked against what the use accepts; undefined
 * when refused (the caller answers 415). The name's extension only chooses between types the
 * bytes cannot tell apart (jpg or jpeg, a text format): a renamed executable is an executable.
 */
export async function acceptedType({
  head,
  name,
  allowed,
}: {
  head: Uint8Array;
  /** The cleaned file name. */
  name: string;
  /** The file types the use accepts. */
  allowed: readonly string[];
}): Promise<SniffedType | undefined> {
  const named = extensionOf(name);
  const found = await fileTypeFromBuffer(head);
  if (found) {
    const fileType = found.ext === 'jpg' && JPEG_NAMES.has(named) ? named : found.ext;
    return allowed.includes(fileType) ? { fileType, contentType: found.mime } : undefined;
  }
  const textType = TEXT_TYPES[named];
  if (textType && allowed.includes(named) && isUtf8Text(head))
    return { fileType: named, contentType: `${textType}; charset=utf-8` };
  return undefined;
}

/**
 * The type of a stored file after a rename to `name`, decided as its upload would have been: the
 * bytes' type stays (a PDF renamed .txt is still a PDF), and the name only chooses again between
 * types the bytes cannot tell apart (jpg or jpeg; a text format: txt, csv, md, json). A name
 * whose extension says nothing the use accepts keeps the current type.
 */
export function renamedType(current: SniffedType, name: string, allowed: readonly string[]): SniffedType {
  const named = extensionOf(name);
  if (named === current.fileType || !allowed.includes(named)) return current;
  if (JPEG_NAMES.has(current.fileType) && JPEG_NAMES.has(named)) return { ...current, fileType: named };
  const textType = TEXT_TYPES[named];
  if (Object.hasOwn(TEXT_TYPES, current.fileType) && textType)
    return { fileType: named, contentType: `${textType}; charset=utf-8` };
  return current;
}
