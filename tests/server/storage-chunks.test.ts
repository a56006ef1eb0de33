import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { chunksOf } from '../../src/server/lib/storage/chunks.js';

/** An upload's file part as the multipart parser gives it: chunks pushed ahead of the reader. */
function pushed(chunks: Buffer[], end = true): Readable {
  const stream = new Readable({ highWaterMark: 1 << 20, read() {} });
  for (const chunk of chunks) stream.push(chunk);
  if (end) stream.push(null);
  return stream;
}

describe('chunksOf', () => {
  it('hands over each chunk as it was pushed, the same bytes, not one copy of them all', async () => {
    const chunks = [Buffer.alloc(65_536, 1), Buffer.alloc(65_536, 2), Buffer.alloc(100, 3)];
    const got: Uint8Array[] = [];
    for await (const chunk of chunksOf(pushed(chunks))) got.push(chunk);
    expect(got.map((chunk) => chunk.length)).toEqual([65_536, 65_536, 100]);
    // The very buffers pushed: nothing was copied on the way.
    got.forEach((chunk, index) => expect(chunk.buffer).toBe(chunks[index]?.buffer));
  });

  it('pauses the stream while too much waits, so the rest stays in the stream', async () => {
    const source = new PassThrough({ highWaterMark: 1 << 20 });
    for (let i = 0; i < 10; i += 1) source.write(Buffer.alloc(60));
    const reader = chunksOf(source, 100)[Symbol.asyncIterator]();
    expect((await reader.next()).value).toHaveLength(60);
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.isPaused()).toBe(true);
    expect(source.readableLength).toBeGreaterThanOrEqual(6 * 60);
    source.end();
    let count = 1;
    while (!(await reader.next()).done) count += 1;
    expect(count).toBe(10);
  });

  it('ends with the stream’s error, and destroys a stream the reader leaves early', async () => {
    const failing = pushed([Buffer.from('abc')], false);
    setImmediate(() => failing.destroy(new Error('client gone')));
    await expect(
      (async () => {
        for await (const chunk of chunksOf(failing)) expect(chunk).toHaveLength(3);
      })(),
    ).rejects.toThrow('client gone');

    const left = pushed([Buffer.from('a'), Buffer.from('b')], false);
    for await (const chunk of chunksOf(left)) {
      expect(chunk).toHaveLength(1);
      break;
    }
    expect(left.destroyed).toBe(true);
  });

  it('passes other iterables through', async () => {
    async function* made(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('x');
      yield Buffer.from('yz');
    }
    const got: number[] = [];
    for await (const chunk of chunksOf(made())) got.push(chunk.length);
    expect(got).toEqual([1, 2]);
  });
});
