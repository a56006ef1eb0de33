import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { S3Settings } from '../config.js';
import {
  assertStorageKey,
  isStorageKey,
  ObjectTooLargeError,
  type ByteRange,
  type FileStorage,
  type ListedObject,
  type PutOptions,
  type StoredObject,
} from './types.js';

/** A multipart upload part: S3's smallest. At most PART_QUEUE parts are held per upload. */
const PART_BYTES = 5 * 1024 * 1024;
const PART_QUEUE = 2;

const isMissing = (error: unknown): boolean =>
  error instanceof S3ServiceException &&
  (error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404);

/**
 * Files in an S3-compatible store (AWS S3, MinIO, Ceph, …), shared by every server process. A put
 * streams through @aws-sdk/lib-storage's Upload (a multipart upload of 5 MB parts, at most two
 * held in memory; one PutObject when smaller): the object appears only when the upload
 * completes, and a source that fails or passes maxBytes makes Upload abort the multipart upload,
 * so no object is left (a store that cannot abort keeps unreachable parts: a lifecycle rule
 * "AbortIncompleteMultipartUpload" clears them).
 */
export class S3FileStorage implements FileStorage {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.credentials ? { credentials: settings.credentials } : {}),
    });
    this.bucket = settings.bucket;
    this.prefix = settings.prefix;
  }

  private keyOf(key: string): string {
    assertStorageKey(key);
    return `${this.prefix}${key}`;
  }

  async put(key: string, source: AsyncIterable<Uint8Array>, options: PutOptions = {}): Promise<StoredObject> {
    const target = this.keyOf(key);
    const hash = createHash('sha256');
    let size = 0;
    let sourceError: unknown;
    const { maxBytes } = options;
    async function* counted(): AsyncGenerator<Uint8Array> {
      try {
        for await (const chunk of source) {
          size += chunk.length;
          if (maxBytes !== undefined && size > maxBytes) throw new ObjectTooLargeError(maxBytes);
          hash.update(chunk);
          yield chunk;
        }
      } catch (error) {
        sourceError = error;
        throw error;
      }
    }
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: target, Body: Readable.from(counted()) },
      partSize: PART_BYTES,
      queueSize: PART_QUEUE,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      // The source's own error (too large, refused type, client gone) is the one that matters,
      // not a failure of the abort that followed it.
      throw sourceError ?? error;
    }
    return { size, sha256: hash.digest('hex') };
  }

  async get(key: string, range?: ByteRange): Promise<Readable | undefined> {
    try {
      const found = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: this.keyOf(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      const body = found.Body;
      if (!(body instanceof Readable)) throw new Error('the S3 client answered a body that is not a stream');
      return body;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    try {
      const found = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) }),
      );
      return { size: found.ContentLength ?? 0 };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) }));
  }

  async *list(): AsyncIterable<ListedObject> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: this.prefix,
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
      for (const item of page.Contents ?? []) {
        if (!item.Key) continue;
        const key = item.Key.slice(this.prefix.length);
        if (!isStorageKey(key)) continue;
        yield { key, modifiedAt: item.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  close(): void {
    this.client.destroy();
  }
}
