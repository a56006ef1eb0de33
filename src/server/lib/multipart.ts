/**
 * A streaming multipart/form-data reader (RFC 7578) for uploads: fields are read whole (small,
 * bounded), a file part's body is handed over as pieces of the network chunks themselves
 * (subarrays, never copied), found with the native Buffer.indexOf. One reader per request; its
 * parts are read in order, each before the next.
 */

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
const SPACE = 0x20;
const TAB = 0x09;
const HEADER_END = Buffer.from('\r\n\r\n', 'latin1');

/** The body is not multipart as its Content-Type says (the answer is a 400). */
export class MultipartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MultipartError';
  }
}

/** The body passes one of the reader's limits (the answer is a 413). */
export class MultipartLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MultipartLimitError';
  }
}

export interface MultipartLimits {
  /** Parts read at most (fields and files); one more is a MultipartLimitError. */
  maxParts: number;
  /** Bytes of one field's value at most. */
  maxFieldBytes: number;
  /** Bytes of one part's header block at most. */
  maxHeaderBytes: number;
}

export interface MultipartField {
  type: 'field';
  name: string;
  /** The value as UTF-8 text. */
  value: string;
}

export interface MultipartFile {
  type: 'file';
  name: string;
  /** The name the client sent, its last path segment only (it is never a path here). */
  filename: string;
  /** The part's Content-Type as sent (not trusted: uploads sniff the bytes). */
  contentType: string;
  /** The bytes of the part, piece by piece; read it to its end before asking for the next part. */
  body: AsyncIterableIterator<Uint8Array>;
}

export type MultipartPart = MultipartField | MultipartFile;

/** The boundary of a multipart/form-data Content-Type; undefined when it is not one. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  if (!contentType || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return undefined;
  const match = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  // RFC 2046: 1 to 70 characters, not ending with a space.
  return boundary && !boundary.endsWith(' ') ? boundary : undefined;
}

const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);

/** A header's parameter value: a quoted string (backslash escapes undone) or a token. */
function parameters(header: string): Map<string, string> {
  const found = new Map<string, string>();
  const pattern = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (let match = pattern.exec(header); match; match = pattern.exec(header)) {
    const name = match[1]?.toLowerCase() ?? '';
    const quoted = match[2];
    // As busboy reads them: a backslash escapes a quote or a backslash, and is kept before anything else.
    const value = quoted !== undefined ? quoted.replace(/\\(["\\])/g, '$1') : (match[3] ?? '').trim();
    if (!found.has(name)) found.set(name, value);
  }
  return found;
}

/** RFC 5987 `charset'language'percent-encoded` (UTF-8 or ISO-8859-1); undefined when it is not one. */
function extendedValue(value: string): string | undefined {
  const match = /^(utf-8|iso-8859-1)'[^']*'(.*)$/i.exec(value);
  if (!match) return undefined;
  const bytes = Buffer.from(
    (match[2] ?? '').replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    ),
    'latin1',
  );
  return bytes.toString(match[1]?.toLowerCase() === 'utf-8' ? 'utf8' : 'latin1');
}

/** The last segment of a path a client sent (either separator). */
const lastSegment = (name: string): string =>
  name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);

interface PartHead {
  name: string;
  filename: string | undefined;
  contentType: string;
}

/** Reads a part's header block (UTF-8, as browsers send names); undefined for a part that is not form-data. */
function partHeadOf(block: string): PartHead | undefined {
  const headers = new Map<string, string>();
  let last = '';
  for (const line of block.split('\r\n')) {
    if (line === '') continue;
    // A folded line goes on with the header before it.
    if ((line.startsWith(' ') || line.startsWith('\t')) && last) {
      headers.set(last, `${headers.get(last) ?? ''} ${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MultipartError('malformed part header');
    last = line.slice(0, colon).trim().toLowerCase();
    headers.set(last, line.slice(colon + 1).trim());
  }
  const disposition = headers.get('content-disposition');
  if (!disposition || !/^form-data\s*(;|$)/i.test(disposition)) return undefined;
  const params = parameters(disposition);
  const extended = params.get('filename*');
  const filename = (extended !== undefined ? extendedValue(extended) : undefined) ?? params.get('filename');
  return {
    name: params.get('name') ?? '',
    filename: filename === undefined ? undefined : lastSegment(filename),
    contentType: headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? 'text/plain',
  };
}

/**
 * Reads the parts of a multipart body from its chunks. The body is scanned for the delimiter
 * (CRLF, "--", the boundary); the bytes before it are the part's, the bytes after it either
 * "--" (the last part has ended) or optional spaces and CRLF, a header block, an empty line.
 * A delimiter cut across two chunks is found by keeping the first chunk's tail (the few bytes
 * that may begin one) and joining it to the next chunk.
 */
export class MultipartReader {
  private readonly delimiter: Buffer;
  private readonly source: AsyncIterator<Uint8Array>;
  /** Bytes not read yet: chunk from offset on. */
  private chunk: Buffer;
  private offset = 0;
  private parts = 0;
  /** Where the reader is: before the first delimiter, inside a file part, between parts, or done. */
  private state: 'preamble' | 'file' | 'between' | 'done' = 'preamble';

  constructor(
    source: AsyncIterable<Uint8Array>,
    boundary: string,
    private readonly limits: MultipartLimits,
  ) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
    this.source = source[Symbol.asyncIterator]();
    this.chunk = Buffer.alloc(0);
  }

  /**
   * Reads up to the end of the first delimiter. It has no CRLF before it unless a preamble comes
   * first: a body that does not start with it is read as if it began with a CRLF (one copy).
   */
  private async skipPreamble(): Promise<void> {
    const firstLine = this.delimiter.subarray(2);
    await this.need(Math.min(firstLine.length, 1));
    while (this.chunk.length - this.offset < firstLine.length) {
      if (!(await this.more())) break;
    }
    const startsWithIt =
      this.chunk.length - this.offset >= firstLine.length &&
      this.chunk.compare(firstLine, 0, firstLine.length, this.offset, this.offset + firstLine.length) === 0;
    if (startsWithIt) {
      this.offset += firstLine.length;
      this.state = 'between';
      return;
    }
    this.chunk = Buffer.concat([this.delimiter.subarray(0, 2), this.chunk.subarray(this.offset)]);
    this.offset = 0;
    while ((await this.piece()) !== undefined) {
      // Preamble bytes are dropped.
    }
  }

  /** The next part, or undefined after the last; a file part left unread is skipped first. */
  async nextPart(): Promise<MultipartPart | undefined> {
    if (this.state === 'done') return undefined;
    if (this.state === 'preamble') await this.skipPreamble();
    while (this.state === 'file' && (await this.piece()) !== undefined) {
      // The rest of a file part left unread is dropped.
    }
    for (;;) {
      await this.need(2);
      if (this.chunk[this.offset] === DASH && this.chunk[this.offset + 1] === DASH) {
        this.state = 'done';
        return undefined;
      }
      // Transport padding (spaces, tabs) may come before the CRLF that ends the delimiter line.
      while (this.chunk[this.offset] === SPACE || this.chunk[this.offset] === TAB) {
        this.offset += 1;
        await this.need(2);
      }
      if (this.chunk[this.offset] !== CR || this.chunk[this.offset + 1] !== LF)
        throw new MultipartError('malformed delimiter line');
      this.offset += 2;
      this.parts += 1;
      if (this.parts > this.limits.maxParts) throw new MultipartLimitError('too many parts');
      const head = partHeadOf(await this.headerBlock());
      if (!head) {
        while ((await this.piece()) !== undefined) {
          // A part that is not form-data is dropped.
        }
        continue;
      }
      if (head.filename !== undefined) {
        this.state = 'file';
        return {
          type: 'file',
          name: head.name,
          filename: head.filename,
          contentType: head.contentType,
          body: new PartBody(this),
        };
      }
      return { type: 'field', name: head.name, value: await this.fieldValue() };
    }
  }

  /** The next bytes of the current part, or undefined at its end (the delimiter is then consumed). */
  async piece(): Promise<Uint8Array | undefined> {
    const { delimiter } = this;
    for (;;) {
      const { chunk, offset } = this;
      const found = chunk.indexOf(delimiter, offset);
      if (found === offset) {
        this.offset = found + delimiter.length;
        if (this.state === 'file' || this.state === 'preamble') this.state = 'between';
        return undefined;
      }
      if (found > offset) {
        this.offset = found;
        return chunk.subarray(offset, found);
      }
      const held = this.possibleStart(offset);
      if (held > offset) {
        this.offset = held;
        return chunk.subarray(offset, held);
      }
      if (!(await this.more())) throw new MultipartError('unexpected end of the multipart body');
    }
  }

  /** Where the bytes that may begin a delimiter (a prefix of it ending the chunk) start; the chunk's end if none. */
  private possibleStart(from: number): number {
    const { chunk, delimiter } = this;
    for (
      let index = chunk.indexOf(CR, Math.max(from, chunk.length - delimiter.length + 1));
      index !== -1;
      index = chunk.indexOf(CR, index + 1)
    ) {
      if (chunk.compare(delimiter, 0, chunk.length - index, index) === 0) return index;
    }
    return chunk.length;
  }

  /** Reads the next chunk, joined to what is left of this one; false at the end of the body. */
  private async more(): Promise<boolean> {
    for (;;) {
      const read = await this.source.next();
      if (read.done) return false;
      if (read.value.length === 0) continue;
      const next = asBuffer(read.value);
      this.chunk =
        this.offset < this.chunk.length ? Buffer.concat([this.chunk.subarray(this.offset), next]) : next;
      this.offset = 0;
      return true;
    }
  }

  /** Waits until `count` bytes can be read. */
  private async need(count: number): Promise<void> {
    while (this.chunk.length - this.offset < count) {
      if (!(await this.more())) throw new MultipartError('unexpected end of the multipart body');
    }
  }

  /** The part's header block (without the empty line that ends it), as UTF-8 text. */
  private async headerBlock(): Promise<string> {
    await this.need(2);
    if (this.chunk[this.offset] === CR && this.chunk[this.offset + 1] === LF) {
      this.offset += 2;
      return '';
    }
    for (;;) {
      const end = this.chunk.indexOf(HEADER_END, this.offset);
      if (end >= 0) {
        const block = this.chunk.toString('utf8', this.offset, end);
        this.offset = end + HEADER_END.length;
        return block;
      }
      if (this.chunk.length - this.offset > this.limits.maxHeaderBytes)
        throw new MultipartLimitError('part header too large');
      if (!(await this.more())) throw new MultipartError('unexpected end of the multipart body');
    }
  }

  private async fieldValue(): Promise<string> {
    const pieces: Uint8Array[] = [];
    let bytes = 0;
    for (let piece = await this.piece(); piece !== undefined; piece = await this.piece()) {
      bytes += piece.length;
      if (bytes > this.limits.maxFieldBytes) throw new MultipartLimitError('field too large');
      pieces.push(piece);
    }
    this.state = 'between';
    return Buffer.concat(pieces).toString('utf8');
  }
}

const DONE: IteratorReturnResult<undefined> = { value: undefined, done: true };

/** A file part's bytes: each next() one piece of the reader's chunks. */
class PartBody implements AsyncIterableIterator<Uint8Array> {
  private isEnded = false;

  constructor(private readonly reader: MultipartReader) {}

  async next(): Promise<IteratorResult<Uint8Array>> {
    if (this.isEnded) return DONE;
    const piece = await this.reader.piece();
    if (piece !== undefined) return { value: piece, done: false };
    this.isEnded = true;
    return DONE;
  }

  /** Stops reading this part (what is left of it is skipped if another part is asked for). */
  return(): Promise<IteratorResult<Uint8Array>> {
    this.isEnded = true;
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Uint8Array> {
    return this;
  }
}
