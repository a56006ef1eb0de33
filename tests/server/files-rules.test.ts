import { createHash, randomBytes } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_ATTACHMENT_TYPES, readConfig } from '../../src/server/lib/config.js';
import { LocalFileStorage } from '../../src/server/lib/storage/local.js';
import { ObjectTooLargeError } from '../../src/server/lib/storage/index.js';
import { contentDisposition, rangeOf } from '../../src/server/lib/download.js';
import { acceptedType, cleanFileName, IMAGE_TYPES } from '../../src/server/features/files/services/rules.js';

describe('file configuration', () => {
  it('takes FILE_MAX_MB (default 10), FILES_DIR and FILE_ATTACHMENT_TYPES', () => {
    const defaults = readConfig({ DATA_DIR: '/srv/ecobid' });
    expect(defaults.files).toEqual({
      maxBytes: 10 * 1024 * 1024,
      dir: '/srv/ecobid/files',
      attachmentTypes: DEFAULT_ATTACHMENT_TYPES,
    });
    const set = readConfig({
      FILE_MAX_MB: '25',
      FILES_DIR: '/mnt/files',
      FILE_ATTACHMENT_TYPES: 'PDF, .docx',
    });
    expect(set.files).toEqual({
      maxBytes: 25 * 1024 * 1024,
      dir: '/mnt/files',
      attachmentTypes: ['pdf', 'docx'],
    });
  });

  it('names a bad value', () => {
    expect(() => readConfig({ FILE_MAX_MB: '0' })).toThrow(ConfigError);
    expect(() => readConfig({ FILE_MAX_MB: 'ten' })).toThrow(/FILE_MAX_MB/);
    expect(() => readConfig({ FILE_ATTACHMENT_TYPES: 'pdf,../x' })).toThrow(/FILE_ATTACHMENT_TYPES/);
  });
});

describe('file names', () => {
  it.each([
    ['报价单.xlsx', '报价单.xlsx'],
    ['C:\\Users\\a\\报价单.xlsx', '报价单.xlsx'],
    ['../../../etc/passwd', 'passwd'],
    ['a\u0000b.png', 'ab.png'],
    ['new\r\nline.txt', 'newline.txt'],
    ['..', 'file'],
    ['...hidden', 'hidden'],
    ['what?.pdf', 'what_.pdf'],
    ['', 'file'],
  ])('%j is shown as %j', (sent, shown) => {
    expect(cleanFileName(sent)).toBe(shown);
  });

  it('bounds the length by characters', () => {
    expect([...cleanFileName(`${'文'.repeat(500)}.txt`)]).toHaveLength(200);
  });
});

describe('sniffed types', () => {
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
  it('trusts the bytes, not the name', async () => {
    expect(await acceptedType({ head: png, name: 'photo.jpg', allowed: IMAGE_TYPES })).toEqual({
      fileType: 'png',
      contentType: 'image/png',
    });
    expect(
      await acceptedType({ head: Buffer.from('%PDF-1.7\n'), name: 'a.png', allowed: IMAGE_TYPES }),
    ).toBeUndefined();
    expect(await acceptedType({ head: Buffer.from('hello'), name: 'a.txt', allowed: ['txt'] })).toEqual({
      fileType: 'txt',
      contentType: 'text/plain; charset=utf-8',
    });
    expect(
      await acceptedType({ head: Buffer.from([1, 0, 2, 0, 255]), name: 'a.txt', allowed: ['txt'] }),
    ).toBeUndefined();
    expect(
      await acceptedType({ head: Buffer.from('hello'), name: 'a.bin', allowed: ['txt'] }),
    ).toBeUndefined();
  });
});

describe('downloads', () => {
  it('reads one byte range of the Range header', () => {
    expect(rangeOf('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(rangeOf('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(rangeOf('bytes=90-500', 100)).toEqual({ start: 90, end: 99 });
    expect(rangeOf('bytes=-5', 100)).toEqual({ start: 95, end: 99 });
    expect(rangeOf('bytes=-500', 100)).toEqual({ start: 0, end: 99 });
    expect(rangeOf('bytes=100-', 100)).toBe('unsatisfiable');
    expect(rangeOf('bytes=-0', 100)).toBe('unsatisfiable');
    expect(rangeOf('bytes=0-1,5-6', 100)).toBeUndefined();
    expect(rangeOf('bytes=9-3', 100)).toBeUndefined();
    expect(rangeOf('items=0-1', 100)).toBeUndefined();
    expect(rangeOf(undefined, 100)).toBeUndefined();
  });

  it('names the file in ASCII and in RFC 5987 UTF-8', () => {
    expect(contentDisposition('采购 "公告".pdf', true)).toBe(
      `inline; filename="__ ____.pdf"; filename*=UTF-8''%E9%87%87%E8%B4%AD%20%22%E5%85%AC%E5%91%8A%22.pdf`,
    );
    expect(contentDisposition("it's (1).txt", false)).toBe(
      `attachment; filename="it's (1).txt"; filename*=UTF-8''it%27s%20%281%29.txt`,
    );
  });
});

describe('the local storage', () => {
  it('removes partial files older than the given age, and keeps younger ones and objects', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ecobid-storage-'));
    try {
      const storage = new LocalFileStorage(root);
      const stored = await storage.put(
        'ab/kept',
        (async function* () {
          yield Buffer.from('bytes');
        })(),
      );
      expect(stored).toEqual({ size: 5, sha256: createHash('sha256').update('bytes').digest('hex') });
      mkdirSync(join(root, 'partial'), { recursive: true });
      writeFileSync(join(root, 'partial', 'old.part'), 'x');
      writeFileSync(join(root, 'partial', 'young.part'), 'x');
      const dayAgo = new Date(Date.now() - 25 * 60 * 60 * 1000);
      utimesSync(join(root, 'partial', 'old.part'), dayAgo, dayAgo);
      expect(await storage.sweepPartials(24 * 60 * 60 * 1000)).toBe(1);
      expect(readdirSync(join(root, 'partial'))).toEqual(['young.part']);
      expect(await storage.stat('ab/kept')).toEqual({ size: 5 });
      const range = await storage.get('ab/kept', { start: 1, end: 3 });
      const chunks: Buffer[] = [];
      for await (const chunk of range ?? []) chunks.push(Buffer.from(chunk as Uint8Array));
      expect(Buffer.concat(chunks).toString()).toBe('yte');
      await storage.delete('ab/kept');
      expect(await storage.stat('ab/kept')).toBeUndefined();
      expect(await storage.get('ab/kept')).toBeUndefined();
      await expect(storage.put('../escape', (async function* () {})())).rejects.toThrow(/storage key/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('stores and hashes exactly the bytes of puts around and over its 1 MB batches', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ecobid-storage-'));
    const storage = new LocalFileStorage(root);
    try {
      const mb = 1024 * 1024;
      // Odd chunk sizes, so chunks straddle the batches; several puts at once share the worker.
      const sizes = [0, 1, mb - 1, mb, mb + 1, 3 * mb + 4099, 10 * mb];
      await Promise.all(
        sizes.map(async (size, index) => {
          const bytes = randomBytes(size);
          const source = (async function* () {
            for (let offset = 0; offset < size; offset += 65_521)
              yield bytes.subarray(offset, offset + 65_521);
          })();
          const stored = await storage.put(`ab/sized-${index}`, source);
          expect(stored).toEqual({ size, sha256: createHash('sha256').update(bytes).digest('hex') });
          expect(readFileSync(join(root, 'objects', 'ab', `sized-${index}`)).equals(bytes)).toBe(true);
        }),
      );
      expect(readdirSync(join(root, 'partial'))).toEqual([]);
      // A put while the storage closes still hashes what it stores (in this thread).
      storage.close();
      const late = randomBytes(2 * mb + 7);
      const stored = await storage.put(
        'ab/late',
        (async function* () {
          yield late;
        })(),
      );
      expect(stored.sha256).toBe(createHash('sha256').update(late).digest('hex'));
    } finally {
      storage.close();
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('keeps nothing of a put whose source fails or is too large', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ecobid-storage-'));
    const storage = new LocalFileStorage(root);
    try {
      const failing = (async function* () {
        yield Buffer.alloc(1000);
        throw new Error('client gone');
      })();
      await expect(storage.put('ab/failed', failing)).rejects.toThrow('client gone');
      // After batches were written and hashed on the worker.
      const failingLater = (async function* () {
        for (let index = 0; index < 40; index += 1) yield Buffer.alloc(65_536, index);
        throw new Error('client gone');
      })();
      await expect(storage.put('ab/failed-later', failingLater)).rejects.toThrow('client gone');
      const largeLater = (async function* () {
        for (let index = 0; index < 40; index += 1) yield Buffer.alloc(65_536, index);
      })();
      await expect(
        storage.put('ab/large-later', largeLater, { maxBytes: 2 * 1024 * 1024 }),
      ).rejects.toBeInstanceOf(ObjectTooLargeError);
      const large = (async function* () {
        yield Buffer.alloc(600);
        yield Buffer.alloc(600);
      })();
      await expect(storage.put('ab/large', large, { maxBytes: 1000 })).rejects.toBeInstanceOf(
        ObjectTooLargeError,
      );
      expect(readdirSync(join(root, 'partial'))).toEqual([]);
      expect(await storage.stat('ab/failed')).toBeUndefined();
      expect(await storage.stat('ab/large')).toBeUndefined();
      expect(await storage.stat('ab/failed-later')).toBeUndefined();
      expect(await storage.stat('ab/large-later')).toBeUndefined();
    } finally {
      storage.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
