import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/**
 * The worker's program (CommonJS, run from this text so the bundled server needs no file of its
 * own): one SHA-256 per put, fed in order from shared buffers, each update answered once the
 * bytes are hashed (the buffer may then be filled again), the digest answered at the end.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
parentPort.on('message', (message) => {
  const { op, id, request } = message;
  if (op === 'drop') {
    hashes.delete(id);
    return;
  }
  try {
    let hash = hashes.get(id);
    if (!hash) {
      hash = createHash('sha256');
      hashes.set(id, hash);
    }
    if (op === 'update') {
      hash.update(new Uint8Array(message.buffer, 0, message.length));
      parentPort.postMessage({ request });
    } else {
      hashes.delete(id);
      parentPort.postMessage({ request, digest: hash.digest('hex') });
    }
  } catch (error) {
    hashes.delete(id);
    parentPort.postMessage({ request, error: String(error) });
  }
});
`;

type HashMessage =
  | { op: 'update'; id: number; request: number; buffer: SharedArrayBuffer; length: number }
  | { op: 'digest'; id: number; request: number }
  | { op: 'drop'; id: number };

interface HashReply {
  request: number;
  digest?: string;
  error?: string;
}

interface Pending {
  resolve: (digest: string | undefined) => void;
  reject: (error: Error) => void;
}

/**
 * SHA-256 on a worker thread, so a put's hashing (about 0.8 s of CPU a GB) runs on another core
 * beside the network reads and the parsing of the upload. One worker per storage, started at
 * the first large put and kept (unreferenced while nothing waits on it, so it never holds the
 * process open); a worker that fails fails the puts that wait on it, and the next put starts
 * another.
 */
export class HashWorker {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextRequest = 1;
  private nextId = 1;
  private isClosed = false;

  private start(): Worker {
    if (this.isClosed) throw new Error('the hash worker is closed');
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    worker.on('message', (reply: HashReply) => {
      const waiting = this.pending.get(reply.request);
      if (!waiting) return;
      this.pending.delete(reply.request);
      if (this.pending.size === 0) worker.unref();
      if (reply.error !== undefined) waiting.reject(new Error(`hashing failed: ${reply.error}`));
      else waiting.resolve(reply.digest);
    });
    const fail = (error: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      const waiting = [...this.pending.values()];
      this.pending.clear();
      for (const item of waiting) item.reject(error);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the hash worker stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private ask(message: HashMessage & { request: number }): Promise<string | undefined> {
    const worker = this.start();
    return new Promise<string | undefined>((resolve, reject) => {
      if (this.pending.size === 0) worker.ref();
      this.pending.set(message.request, { resolve, reject });
      worker.postMessage(message);
    });
  }

  /**
   * A new running hash; its updates are hashed in the order they are given. Once the worker is
   * closed (the storage is closing while a put still runs) the hash is made in this thread.
   */
  hash(): RunningHash {
    if (this.isClosed) return inlineHash();
    const id = this.nextId;
    this.nextId += 1;
    return {
      update: async (buffer, length) => {
        const request = this.nextRequest;
        this.nextRequest += 1;
        await this.ask({ op: 'update', id, request, buffer, length });
      },
      digest: async () => {
        const request = this.nextRequest;
        this.nextRequest += 1;
        const digest = await this.ask({ op: 'digest', id, request });
        if (digest === undefined) throw new Error('the hash worker answered no digest');
        return digest;
      },
      drop: () => {
        if (this.worker) this.worker.postMessage({ op: 'drop', id } satisfies HashMessage);
      },
    };
  }

  /** Stops the worker; puts still waiting on it fail. */
  async close(): Promise<void> {
    this.isClosed = true;
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}

/** One put's hash on the worker. */
export interface RunningHash {
  /** Hashes the first `length` bytes of the buffer; resolves once they are read (the buffer is free). */
  update(buffer: SharedArrayBuffer, length: number): Promise<void>;
  /** The hex digest of every byte given; the hash is finished. */
  digest(): Promise<string>;
  /** Forgets the hash (a failed put); updates already sent still answer. */
  drop(): void;
}

/** A running hash made in this thread. */
function inlineHash(): RunningHash {
  const hash = createHash('sha256');
  return {
    update: (buffer, length) => {
      hash.update(new Uint8Array(buffer, 0, length));
      return Promise.resolve();
    },
    digest: () => Promise.resolve(hash.digest('hex')),
    drop: () => undefined,
  };
}
