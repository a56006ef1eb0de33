import { finished, Readable } from 'node:stream';

/** Bytes chunksOf lets wait before it pauses the stream. */
const MAX_QUEUED_BYTES = 1024 * 1024;

/**
 * The chunks of a stream as they were pushed, without copying them. A Readable's own async
 * iterator hands over everything it holds as one new buffer, a copy of each byte whenever more
 * than one chunk waits (as an upload's file part does while the storage writes); this one takes
 * the chunks one by one in flowing mode and pauses the stream while `maxQueued` bytes wait.
 * Like the stream's own iterator, it destroys the stream when the consumer stops early, and
 * ends with the stream's error or a premature close. Other iterables pass through.
 */
export async function* chunksOf(
  source: AsyncIterable<Uint8Array>,
  maxQueued = MAX_QUEUED_BYTES,
): AsyncGenerator<Uint8Array> {
  if (!(source instanceof Readable)) {
    yield* source;
    return;
  }
  const stream = source;
  const queue: Uint8Array[] = [];
  let queued = 0;
  let isEnded = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const signal = (): void => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const onData = (chunk: Uint8Array): void => {
    queue.push(chunk);
    queued += chunk.length;
    if (queued >= maxQueued) stream.pause();
    signal();
  };
  stream.on('data', onData);
  // A stream paused before it came here does not start on its own for a new 'data' listener.
  if (stream.isPaused()) stream.resume();
  const stopWatching = finished(stream, (error) => {
    if (error) failure = error;
    else isEnded = true;
    signal();
  });
  try {
    for (;;) {
      const chunk = queue.shift();
      if (chunk) {
        queued -= chunk.length;
        if (queued < maxQueued && stream.isPaused()) stream.resume();
        yield chunk;
        continue;
      }
      if (failure) throw failure;
      if (isEnded) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    stream.off('data', onData);
    stopWatching();
    if (!isEnded) stream.destroy();
  }
}
