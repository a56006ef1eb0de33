import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  boundaryOf,
  MultipartError,
  MultipartLimitError,
  MultipartReader,
  type MultipartPart,
} from '../../src/server/lib/multipart.js';

const BOUNDARY = '----test-boundary-7MA4YWxkTrZu0gW';
const LIMITS = { maxParts: 10, maxFieldBytes: 1024, maxHeaderBytes: 16 * 1024 };

interface ReadPart {
  type: 'field' | 'file';
  name: string;
  value?: string;
  filename?: string;
  contentType?: string;
  /** sha256 and length of the file's bytes (cheap to compare). */
  bytes?: string;
}

/** A multipart body of those parts, as a browser builds it. */
function body(
  parts: Array<{ name: string; value: string | Buffer; filename?: string }>,
  epilogue = '',
): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const type = part.filename !== undefined ? 'Content-Type: application/octet-stream\r\n' : '';
    pieces.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`));
    pieces.push(Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value));
    pieces.push(Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${BOUNDARY}--\r\n${epilogue}`));
  return Buffer.concat(pieces);
}

/** The bytes cut into chunks at the given sizes (the last size repeats). */
async function* chunked(bytes: Buffer, sizes: number[]): AsyncGenerator<Uint8Array> {
  let offset = 0;
  let index = 0;
  while (offset < bytes.length) {
    const size = sizes[Math.min(index, sizes.length - 1)] ?? 1;
    index += 1;
    yield bytes.subarray(offset, offset + size);
    offset += size;
  }
}

const digest = (bytes: Buffer): string =>
  `${bytes.length}:${createHash('sha256').update(bytes).digest('hex')}`;

async function readAll(source: AsyncIterable<Uint8Array>, boundary = BOUNDARY): Promise<ReadPart[]> {
  const reader = new MultipartReader(source, boundary, LIMITS);
  const parts: ReadPart[] = [];
  for (let part: MultipartPart | undefined = await reader.nextPart(); part; part = await reader.nextPart()) {
    if (part.type === 'field') {
      parts.push({ type: 'field', name: part.name, value: part.value });
      continue;
    }
    const pieces: Uint8Array[] = [];
    for await (const piece of part.body) pieces.push(piece);
    parts.push({
      type: 'file',
      name: part.name,
      filename: part.filename,
      contentType: part.contentType,
      bytes: digest(Buffer.concat(pieces)),
    });
  }
  return parts;
}

describe('boundaryOf', () => {
  it('reads the boundary of multipart/form-data, quoted or not, and nothing else', () => {
    expect(boundaryOf(`multipart/form-data; boundary=${BOUNDARY}`)).toBe(BOUNDARY);
    expect(boundaryOf('Multipart/Form-Data; charset=utf-8; boundary="a b:c"')).toBe('a b:c');
    expect(boundaryOf('multipart/form-data')).toBeUndefined();
    expect(boundaryOf('application/json')).toBeUndefined();
    expect(boundaryOf('multipart/mixed; boundary=x')).toBeUndefined();
    expect(boundaryOf(undefined)).toBeUndefined();
  });
});

describe('MultipartReader', () => {
  // Bytes that look like the delimiter's start ("\r\n--") and like its whole boundary but one byte.
  const tricky = Buffer.concat([
    Buffer.from(`\r\n--${BOUNDARY.slice(0, -1)}X\r\n-\r\n--\r`),
    randomBytes(70_000),
    Buffer.from(`\r\n--${BOUNDARY.slice(0, 10)}`),
    Buffer.from('\r'),
  ]);
  const form = body([
    { name: 'use', value: 'image' },
    { name: 'folderId', value: '42' },
    { name: 'file', value: tricky, filename: 'a.bin' },
    { name: 'note', value: '中文 text' },
  ]);
  const expected: ReadPart[] = [
    { type: 'field', name: 'use', value: 'image' },
    { type: 'field', name: 'folderId', value: '42' },
    {
      type: 'file',
      name: 'file',
      filename: 'a.bin',
      contentType: 'application/octet-stream',
      bytes: digest(tricky),
    },
    { type: 'field', name: 'note', value: '中文 text' },
  ];

  it('reads fields and a file whatever the chunk sizes, the delimiter cut anywhere', async () => {
    for (const sizes of [
      [form.length],
      [1],
      [2],
      [3],
      [7],
      [64 * 1024],
      [41],
      [42],
      [43],
      [100, 1, 65_536],
    ]) {
      expect(await readAll(chunked(form, sizes)), `chunks of ${sizes.join(',')}`).toEqual(expected);
    }
    // Every cut of the body in two.
    for (let cut = 1; cut < 400; cut += 1) {
      const parts = await readAll(chunked(form, [cut, form.length]));
      expect(parts, `cut at ${cut}`).toEqual(expected);
    }
    for (let cut = form.length - 300; cut < form.length; cut += 1) {
      expect(await readAll(chunked(form, [cut, form.length])), `cut at ${cut}`).toEqual(expected);
    }
  });

  it('hands a file over as pieces of the chunks themselves (no copy) when no delimiter is cut', async () => {
    // No CR in the bytes, so no chunk ends with what may begin a delimiter.
    const file = Buffer.from(randomBytes(200_000).map((byte) => (byte === 0x0d ? 0x0e : byte)));
    const chunks = [
      ...(function* () {
        const whole = body([{ name: 'file', value: file, filename: 'x.bin' }]);
        for (let offset = 0; offset < whole.length; offset += 65_536)
          yield whole.subarray(offset, offset + 65_536);
      })(),
    ];
    const reader = new MultipartReader(
      (async function* () {
        yield* chunks;
      })(),
      BOUNDARY,
      LIMITS,
    );
    const part = await reader.nextPart();
    if (part?.type !== 'file') throw new Error('no file part');
    const buffers = new Set(chunks.map((chunk) => chunk.buffer));
    let shared = 0;
    let total = 0;
    for await (const piece of part.body) {
      total += piece.length;
      if (buffers.has(piece.buffer as ArrayBuffer)) shared += piece.length;
    }
    expect(total).toBe(file.length);
    expect(shared).toBe(total);
  });

  it('skips a preamble and an epilogue, and padding after a delimiter', async () => {
    const padded = Buffer.from(
      `preamble text\r\n--${BOUNDARY}  \t\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--${BOUNDARY}--\r\nepilogue`,
    );
    expect(await readAll(chunked(padded, [5]))).toEqual([{ type: 'field', name: 'a', value: '1' }]);
  });

  it('keeps CR and LF inside values, and an empty file', async () => {
    const form2 = body([
      { name: 'a', value: 'line 1\r\nline 2\n\r' },
      { name: 'file', value: Buffer.alloc(0), filename: 'empty.txt' },
    ]);
    expect(await readAll(chunked(form2, [3]))).toEqual([
      { type: 'field', name: 'a', value: 'line 1\r\nline 2\n\r' },
      {
        type: 'file',
        name: 'file',
        filename: 'empty.txt',
        contentType: 'application/octet-stream',
        bytes: digest(Buffer.alloc(0)),
      },
    ]);
  });

  it('reads names as browsers send them: UTF-8, escaped quotes, RFC 5987, the last path segment only', async () => {
    const head = (disposition: string): Buffer =>
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n\r\nx\r\n--${BOUNDARY}--\r\n`);
    const filenameOf = async (disposition: string): Promise<string | undefined> =>
      (await readAll(chunked(head(disposition), [9])))[0]?.filename;
    expect(await filenameOf('form-data; name="file"; filename="报告 2026.pdf"')).toBe('报告 2026.pdf');
    expect(await filenameOf('form-data; name="file"; filename="a\\"b;c.pdf"')).toBe('a"b;c.pdf');
    expect(await filenameOf('form-data; name="file"; filename="..\\..\\windows\\evil.png"')).toBe('evil.png');
    expect(await filenameOf('form-data; name="file"; filename="../../etc/passwd"')).toBe('passwd');
    expect(await filenameOf("form-data; name=file; filename=plain.txt; filename*=UTF-8''%E4%B8%AD.txt")).toBe(
      '中.txt',
    );
    // A part that is not form-data is skipped.
    expect(await readAll(chunked(head('attachment; name="file"; filename="a"'), [9]))).toEqual([]);
  });

  it('refuses a body that ends early or is not multipart (MultipartError)', async () => {
    const cutShort = form.subarray(0, form.length - 60_000);
    await expect(readAll(chunked(cutShort, [1000]))).rejects.toBeInstanceOf(MultipartError);
    await expect(readAll(chunked(Buffer.from('{"json": true}'), [100]))).rejects.toBeInstanceOf(
      MultipartError,
    );
    const badLine = Buffer.from(`--${BOUNDARY}xx\r\n\r\n`);
    await expect(readAll(chunked(badLine, [100]))).rejects.toBeInstanceOf(MultipartError);
    const badHeader = Buffer.from(`--${BOUNDARY}\r\nno colon here\r\n\r\nx\r\n--${BOUNDARY}--`);
    await expect(readAll(chunked(badHeader, [100]))).rejects.toBeInstanceOf(MultipartError);
  });

  it('stops at its limits (MultipartLimitError): parts, a field value, a header block', async () => {
    const many = body(Array.from({ length: 11 }, (_, index) => ({ name: `f${index}`, value: 'x' })));
    await expect(readAll(chunked(many, [100]))).rejects.toBeInstanceOf(MultipartLimitError);
    const longField = body([{ name: 'use', value: 'x'.repeat(1025) }]);
    await expect(readAll(chunked(longField, [100]))).rejects.toBeInstanceOf(MultipartLimitError);
    const justField = body([{ name: 'use', value: 'x'.repeat(1024) }]);
    expect(await readAll(chunked(justField, [100]))).toHaveLength(1);
    const longHeader = Buffer.from(`--${BOUNDARY}\r\nX-Long: ${'y'.repeat(20_000)}\r\n\r\n`);
    await expect(readAll(chunked(longHeader, [1000]))).rejects.toBeInstanceOf(MultipartLimitError);
  });

  it('skips a file part left unread when the next part is asked for', async () => {
    const reader = new MultipartReader(chunked(form, [1000]), BOUNDARY, LIMITS);
    const names: string[] = [];
    for (let part = await reader.nextPart(); part; part = await reader.nextPart()) names.push(part.name);
    expect(names).toEqual(['use', 'folderId', 'file', 'note']);
  });

  it('passes on the error of its source', async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield form.subarray(0, 5000);
      throw new Error('client gone');
    }
    await expect(readAll(failing())).rejects.toThrow('client gone');
  });
});
