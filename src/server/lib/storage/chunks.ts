import { finished, Readable } from 'node:stream';

/** Bytes chunksOf lets wait before it pauses the stream. */
const MAX_QUEUED_BYTES = 1024 * 1024;

const DONE: IteratorReturnResult<undefined> = { value: undefined, done: true };

/**
 * A stream's chunks one by one in flowing mode (see chunksOf). An iterator object rather than
 * an async generator: a chunk that is already queued is handed over in a resolved promise,
 * without a generator's resumption for each of an upload's 64 KB network chunks.
 */
class StreamChunks implements AsyncIterableIterator<Uint8Array> {
  private readonly queue: Uint8Array[] = [];
  private queued = 0;
  private isStarted = false;
  private isEnded = false;
  private isStopped = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private stopWatching: (() => void) | undefined;

  constructor(
    private readonly stream: Readable,
    private readonly maxQueued: number,
    private readonly isDrainedWhenLeft: boolean,
  ) {}

  private readonly onData = (chunk: Uint8Array): void => {
    this.queue.push(chunk);
    this.queued += chunk.length;
    if (this.queued >= this.maxQueued) this.stream.pause();
    this.signal();
  };

  private signal(): void {
    const resolve = this.wake;
    this.wake = undefined;
    resolve?.();
  }

  /** Starts reading at the first call, as a generator's body would. */
  private start(): void {
    this.isStarted = true;
    const { stream } = this;
    stream.on('data', this.onData);
    // A stream paused before it came here does not start on its own for a new 'data' listener.
    if (stream.isPaused()) stream.resume();
    this.stopWatching = finished(stream, (error) => {
      if (error) this.failure = error;
      else this.isEnded = true;
      this.signal();
    });
  }

  /**
   * Stops listening; a stream left before its end is destroyed (as the stream's own iterator
   * does), or read on to its end and dropped when isDrainedWhenLeft (a request body whose
   * answer is still to be sent).
   */
  private stop(): void {
    if (this.isStopped) return;
    this.isStopped = true;
    this.queue.length = 0;
    if (!this.isStarted) return;
    this.stream.off('data', this.onData);
    this.stopWatching?.();
    if (this.isEnded) return;
    if (this.isDrainedWhenLeft) this.stream.resume();
    else this.stream.destroy();
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    if (this.isStopped) return Promise.resolve(DONE);
    if (!this.isStarted) this.start();
    const chunk = this.queue.shift();
    if (chunk) {
      this.queued -= chunk.length;
      if (this.queued < this.maxQueued && this.stream.isPaused()) this.stream.resume();
      return Promise.resolve({ value: chunk, done: false });
    }
    if (this.failure) {
      const { failure } = this;
      this.stop();
      return Promise.reject(failure);
    }
    if (this.isEnded) {
      this.stop();
      return Promise.resolve(DONE);
    }
    return new Promise<void>((resolve) => {
      this.wake = resolve;
    }).then(() => this.next());
  }

  return(): Promise<IteratorResult<Uint8Array>> {
    this.stop();
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Uint8Array> {
    return this;
  }
}

/**
 * The chunks of a stream as they were pushed, without copying them. A Readable's own async
 * iterator hands over everything it holds as one new buffer, a copy of each byte whenever more
 * than one chunk waits (as an upload's file part does while the storage writes); this one takes
 * the chunks one by one in flowing mode and pauses the stream while `maxQueued` bytes wait.
 * Like the stream's own iterator, it destroys the stream when the consumer stops early, and
 * ends with the stream's error or a premature close. Other iterables pass through.
 */
export function chunksOf(
  source: AsyncIterable<Uint8Array>,
  maxQueued = MAX_QUEUED_BYTES,
): AsyncIterable<Uint8Array> {
  return source instanceof Readable ? new StreamChunks(source, maxQueued, false) : source;
}

/**
 * A request body's chunks as chunksOf gives them, except that leaving it early (return())
 * reads the rest and drops it instead of destroying the request: its answer is still to be sent.
 */
export function requestChunks(
  request: Readable,
  maxQueued = MAX_QUEUED_BYTES,
): AsyncIterableIterator<Uint8Array> {
  return new StreamChunks(request, maxQueued, true);
}
