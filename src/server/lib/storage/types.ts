import type { Readable } from 'node:stream';

/** What a completed put wrote: the byte count and the SHA-256 of the bytes, as hex. */
export interface StoredObject {
  size: number;
  sha256: string;
}

/** Bytes start to end, both inclusive (as an HTTP Range header counts them). */
export interface ByteRange {
  start: number;
  end: number;
}

/** An object as a listing gives it: its key and when it was last written. */
export interface ListedObject {
  key: string;
  modifiedAt: Date;
}

export interface PutOptions {
  /** The put fails with ObjectTooLargeError as soon as the source passes this many bytes. */
  maxBytes?: number;
}

/** The put's source passed PutOptions.maxBytes; nothing was kept. */
export class ObjectTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`object larger than ${maxBytes} bytes`);
    this.name = 'ObjectTooLargeError';
  }
}

/**
 * Where uploaded files are kept: the local directory under DATA_DIR, or an S3-compatible store
 * (several server processes). Keys are chosen by the server ([A-Za-z0-9/_-], never a name
 * a client sent). A put is all or nothing: the object exists only once every byte is written,
 * and a source that fails or passes maxBytes leaves no object behind.
 */
export interface FileStorage {
  /**
   * Streams the source into the object `key`, hashing and counting on the way. The source's
   * chunks may be kept (not copied) until they are written: a source never refills a chunk it
   * has handed over.
   */
  put(key: string, source: AsyncIterable<Uint8Array>, options?: PutOptions): Promise<StoredObject>;
  /** The object's bytes, or the given range of them; undefined when there is no such object. */
  get(key: string, range?: ByteRange): Promise<Readable | undefined>;
  /** The object's size, or undefined when there is no such object. */
  stat(key: string): Promise<{ size: number } | undefined>;
  /** Removes the object; removing a missing one is not an error. */
  delete(key: string): Promise<void>;
  /** Every stored object (for the sweep of objects no row refers to). */
  list(): AsyncIterable<ListedObject>;
  /** Releases connections; the storage is not used afterwards. */
  close(): void;
}

const KEY = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

/** Whether the key is in the storage alphabet. */
export const isStorageKey = (key: string): boolean => KEY.test(key) && key.length <= 200;

/** Refuses a key outside the storage alphabet (a bug in the caller, never client input). */
export function assertStorageKey(key: string): void {
  if (!isStorageKey(key)) throw new Error(`invalid storage key "${key}"`);
}
