import { describe, expect, it } from 'vitest';
import { ChunkWriter } from '../../src/server/features/crud/import/writer.js';

/** The import's insert of one chunk while the next is checked (features/crud/import/import.ts). */
describe('ChunkWriter', () => {
  const later = <T>(value: T, ms = 20): Promise<T> =>
    new Promise((resolve) => setTimeout(() => resolve(value), ms));
  const failLater = (error: Error, ms = 20): Promise<never> =>
    new Promise((_, reject) => setTimeout(() => reject(error), ms));

  it('counts the rows of every insert, one under way at a time', async () => {
    const writer = new ChunkWriter();
    writer.start(later(2000));
    expect(await writer.during(later('checked'))).toBe('checked');
    expect(await writer.settle()).toBe(2000);
    writer.start(later(500));
    expect(await writer.settle()).toBe(2500);
    expect(await writer.settle()).toBe(2500);
  });

  it("names the insert's failure, not the check that failed after it (an aborted transaction)", async () => {
    const writer = new ChunkWriter();
    const refused = new Error('date/time field value out of range');
    writer.start(failLater(refused, 5));
    const aborted = new Error('current transaction is aborted');
    await expect(writer.during(failLater(aborted, 30))).rejects.toBe(refused);
  });

  it('a check that fails on its own is named once the insert under way has ended well', async () => {
    const writer = new ChunkWriter();
    const ownError = new Error('lookup failed');
    writer.start(later(7, 30));
    await expect(writer.during(failLater(ownError, 5))).rejects.toBe(ownError);
    expect(await writer.settle()).toBe(7);
  });

  it('an insert that fails while nothing awaits it is thrown by settle (and does not end the process)', async () => {
    const writer = new ChunkWriter();
    const refused = new Error('refused');
    writer.start(failLater(refused, 1));
    await later(null, 30);
    await expect(writer.settle()).rejects.toBe(refused);
  });
});
