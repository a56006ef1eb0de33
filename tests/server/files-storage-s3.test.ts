import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../src/server/lib/config.js';
import { ObjectTooLargeError } from '../../src/server/lib/storage/index.js';
import { S3FileStorage } from '../../src/server/lib/storage/s3.js';
import { s3Backend, S3_BUCKET, type StorageBackend } from '../integration/files-backends.js';

/** The S3 storage backend against an S3-compatible server on loopback (s3rver). */
let backend: StorageBackend;
let storage: S3FileStorage;
const MB = 1024 * 1024;

async function* chunks(...parts: Buffer[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield part;
}

async function read(stream: AsyncIterable<unknown> | undefined): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream ?? []) parts.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(parts);
}

beforeAll(async () => {
  backend = s3Backend();
  const config = readConfig({ ...(await backend.start()), DATA_DIR: ':memory:', S3_PREFIX: 'site-a/' });
  if (!config.files.s3) throw new Error('S3 settings expected');
  storage = new S3FileStorage(config.files.s3);
});
afterAll(async () => {
  storage?.close();
  await backend?.stop();
});

describe('the S3 storage', () => {
  it('puts a multipart object with its hash, reads it whole and by range, lists, stats and deletes it', async () => {
    const bytes = randomBytes(11 * MB);
    const stored = await storage.put('ab/big', chunks(bytes.subarray(0, 3 * MB), bytes.subarray(3 * MB)));
    expect(stored).toEqual({ size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(await backend.objectKeys()).toEqual(['site-a/ab/big']);
    expect((await read(await storage.get('ab/big'))).equals(bytes)).toBe(true);
    const range = await read(await storage.get('ab/big', { start: 6 * MB - 3, end: 6 * MB + 2 }));
    expect(range.equals(bytes.subarray(6 * MB - 3, 6 * MB + 3))).toBe(true);
    expect(await storage.stat('ab/big')).toEqual({ size: bytes.length });
    const listed = [];
    for await (const item of storage.list()) listed.push(item);
    expect(listed).toEqual([{ key: 'ab/big', modifiedAt: expect.any(Date) }]);
    await storage.delete('ab/big');
    expect(await storage.stat('ab/big')).toBeUndefined();
    expect(await storage.get('ab/big')).toBeUndefined();
    await storage.delete('ab/big');
    await expect(storage.put('../escape', chunks())).rejects.toThrow(/storage key/);
  }, 60_000);

  it('keeps no object of a put whose source fails or passes the limit, small or multipart', async () => {
    const failing = (async function* () {
      yield Buffer.alloc(6 * MB);
      throw new Error('client gone');
    })();
    await expect(storage.put('ab/failed', failing)).rejects.toThrow('client gone');
    await expect(
      storage.put('ab/large', chunks(Buffer.alloc(6 * MB), Buffer.alloc(6 * MB)), { maxBytes: 10 * MB }),
    ).rejects.toBeInstanceOf(ObjectTooLargeError);
    await expect(
      storage.put('ab/small', chunks(Buffer.alloc(600), Buffer.alloc(600)), { maxBytes: 1000 }),
    ).rejects.toBeInstanceOf(ObjectTooLargeError);
    expect(await backend.objectKeys()).toEqual([]);
  }, 60_000);
});

describe('S3 settings', () => {
  it('are read from S3_* and the AWS credential variables, and refused when malformed', () => {
    const s3 = readConfig({
      DATA_DIR: ':memory:',
      S3_BUCKET,
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      AWS_ACCESS_KEY_ID: 'id',
      AWS_SECRET_ACCESS_KEY: 'secret',
    }).files.s3;
    expect(s3).toEqual({
      bucket: S3_BUCKET,
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      forcePathStyle: true,
      prefix: '',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    });
    expect(readConfig({ DATA_DIR: ':memory:' }).files.s3).toBeUndefined();
    const aws = readConfig({ DATA_DIR: ':memory:', S3_BUCKET, S3_REGION: 'eu-west-1' }).files.s3;
    expect(aws).toEqual({ bucket: S3_BUCKET, region: 'eu-west-1', forcePathStyle: false, prefix: '' });
    const refused = (env: Record<string, string>): string => {
      try {
        readConfig({ DATA_DIR: ':memory:', ...env });
        return '';
      } catch (error) {
        return error instanceof ConfigError ? error.message : '';
      }
    };
    expect(refused({ S3_ENDPOINT: 'http://x' })).toMatch(/S3_ENDPOINT is set without S3_BUCKET/);
    expect(refused({ S3_BUCKET: 'A' })).toMatch(/S3_BUCKET must be/);
    expect(refused({ S3_BUCKET, S3_ENDPOINT: 'ftp://x' })).toMatch(/S3_ENDPOINT must be/);
    expect(refused({ S3_BUCKET, AWS_ACCESS_KEY_ID: 'id' })).toMatch(/AWS_SECRET_ACCESS_KEY must be set/);
    expect(refused({ S3_BUCKET, S3_PREFIX: '../x' })).toMatch(/S3_PREFIX must be/);
  });
});
