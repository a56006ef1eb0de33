import { Readable } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import type { ReadMeter } from './budget.js';

/**
 * Just enough of the zip format to read the parts of an .xlsx held in memory: the central
 * directory names every entry with its offset, and an entry is inflated as it is read, a slice
 * at a time, so that a large worksheet is never held inflated.
 */

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  compressedSize: number;
  /** The size the central directory declares (not trusted: inflated bytes are counted). */
  size: number;
  /** Offset of the entry's local file header. */
  headerOffset: number;
}

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
/** The end-of-directory record is 22 bytes, then a comment of up to 65 535 bytes. */
const MAX_TAIL = 22 + 0xffff;
/** Compressed bytes handed to the inflater at a time. */
const SLICE_BYTES = 64 * 1024;

export class ZipFormatError extends Error {}

/** The entries of a zip file, by name (the central directory at its end). */
export function zipEntries(bytes: Buffer): Map<string, ZipEntry> {
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - MAX_TAIL); at -= 1) {
    if (bytes.readUInt32LE(at) === END_OF_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new ZipFormatError('not a zip file: no central directory');
  const count = bytes.readUInt16LE(end + 10);
  let at = bytes.readUInt32LE(end + 16);
  if (at === 0xffffffff || count === 0xffff) throw new ZipFormatError('zip64 files are not supported');
  const entries = new Map<string, ZipEntry>();
  for (let index = 0; index < count; index += 1) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== DIRECTORY_ENTRY)
      throw new ZipFormatError('broken zip central directory');
    const flags = bytes.readUInt16LE(at + 8);
    const method = bytes.readUInt16LE(at + 10);
    const compressedSize = bytes.readUInt32LE(at + 20);
    const size = bytes.readUInt32LE(at + 24);
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const headerOffset = bytes.readUInt32LE(at + 42);
    // Bit 11: the name is UTF-8; otherwise code page 437, which for the ASCII names of an
    // .xlsx's parts is the same.
    const name = bytes.toString(flags & 0x800 ? 'utf8' : 'latin1', at + 46, at + 46 + nameLength);
    entries.set(name.replace(/^\//, ''), { name, method, compressedSize, size, headerOffset });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function* slices(data: Buffer): Generator<Buffer> {
  for (let start = 0; start < data.length; start += SLICE_BYTES)
    yield data.subarray(start, start + SLICE_BYTES);
}

/**
 * An entry's content, inflated as it is walked (a chunk of at most 64 KiB at a time). With a
 * meter, every byte inflated is counted against its budget as it comes out of the inflater: past
 * the budget the inflater is stopped, so no part is ever unpacked further than that.
 */
export async function* entryContent(
  bytes: Buffer,
  entry: ZipEntry,
  meter?: ReadMeter,
): AsyncGenerator<Buffer> {
  const at = entry.headerOffset;
  if (at + 30 > bytes.length || bytes.readUInt32LE(at) !== LOCAL_HEADER)
    throw new ZipFormatError(`broken zip entry ${entry.name}`);
  const start = at + 30 + bytes.readUInt16LE(at + 26) + bytes.readUInt16LE(at + 28);
  const data = bytes.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) {
    for (const slice of slices(data)) {
      meter?.unpacked(slice.length);
      yield slice;
    }
    return;
  }
  if (entry.method !== 8) throw new ZipFormatError(`zip method ${entry.method} is not supported`);
  const inflater = Readable.from(slices(data)).pipe(createInflateRaw({ chunkSize: SLICE_BYTES }));
  try {
    for await (const chunk of inflater as AsyncIterable<Buffer>) {
      meter?.unpacked(chunk.length);
      yield chunk;
    }
  } finally {
    inflater.destroy();
  }
}
