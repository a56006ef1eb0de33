import type { PGlite } from '@electric-sql/pglite';
import { sql, type CompiledQuery, type RawBuilder } from 'kysely';
import pg from 'pg';
import type { Db } from './types.js';

/**
 * Reading rows as bytes, for bulk reads (exports). Values arrive in PostgreSQL's text form as
 * UTF-8 bytes, the same on both databases:
 *
 * - PGlite runs PostgreSQL in this process and hands its wire-protocol output to a callback as
 *   it is written; reading the data rows straight from there skips decoding every value into a
 *   JavaScript string and PGlite's copies of the whole answer. It has one connection, which a
 *   read holds only while one statement runs.
 * - PostgreSQL runs the query as one statement on a connection of its own; its rows are read off
 *   the connection's socket by the same parser as they come (the driver would make a string of
 *   every value): the driver connects and authenticates, and is set aside for the statement.
 */

/**
 * One data row: field i is src[fields[2i], fields[2i + 1]), or NULL when fields[2i] is -1. The
 * bytes are valid only during the call.
 */
export type RawRowHandler = (src: Buffer, fields: Int32Array, count: number) => void;

/** A query by parts: the values to select (as text) and the rest (from … where … order by …). */
export interface RowQuery {
  select: RawBuilder<unknown>[];
  rest: RawBuilder<unknown>;
}

export interface RowStream {
  /**
   * Runs the query, handing every row to onRow as it arrives, and closes the stream. After each
   * chunk read off the connection, `afterChunk` may hold reading back (a promise: reading goes
   * on when it settles) or give up (false: the statement is abandoned and read() rejects).
   */
  read(onRow: RawRowHandler, afterChunk: () => Promise<void> | boolean): Promise<void>;
  /** Closes the connection (when read() was never called, or to abandon it). */
  close(): Promise<void>;
}

export type RawRowReader =
  | {
      kind: 'statement';
      /** Runs one read-only statement, handing every result row to onRow as it is produced. */
      read(query: RowQuery, onRow: RawRowHandler): Promise<void>;
    }
  | {
      kind: 'stream';
      /** Prepares the query on a connection of its own, held until the stream is read or closed. */
      open(query: RowQuery): Promise<RowStream>;
    };

const readers = new WeakMap<Db, RawRowReader>();

/** The byte reader of a database opened by openDatabase. */
export function rawRowReader(db: Db): RawRowReader | undefined {
  return readers.get(db);
}

const selectOf = (query: RowQuery): RawBuilder<unknown> =>
  sql`select ${sql.join(query.select)} ${query.rest}`;

/** Gives db a byte reader over its PGlite; a read holds db's one connection while it runs. */
export function enablePGliteRawRows(db: Db, pglite: PGlite): void {
  readers.set(db, {
    kind: 'statement',
    read: (query, onRow) =>
      db.connection().execute(() => readPGliteRows({ pglite, query: selectOf(query).compile(db), onRow })),
  });
}

/**
 * Gives db a streaming reader over PostgreSQL. Every stream has a connection of its own, outside
 * the pool: an export lasts as long as its client takes to download it, and a few slow ones
 * must not take the connections every other request needs.
 */
export function enablePostgresRawRows(db: Db, connection: pg.ClientConfig): void {
  readers.set(db, { kind: 'stream', open: (query) => openRowStream(db, connection, query) });
}

/** An error the database reported, with its SQLSTATE like the drivers' errors. */
export class RawQueryError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'RawQueryError';
  }
}

// ---------------------------------------------------------------------------------------------
// Frontend messages: Parse, Bind, Execute, Sync of the extended query protocol

function textParameter(value: unknown): Buffer | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'bigint') return Buffer.from(String(value), 'latin1');
  if (typeof value === 'boolean') return Buffer.from(value ? 'true' : 'false', 'latin1');
  if (value instanceof Date) return Buffer.from(value.toISOString(), 'latin1');
  return Buffer.from(JSON.stringify(value), 'utf8');
}

function message(type: string, parts: Buffer[]): Buffer {
  const length = parts.reduce((sum, part) => sum + part.length, 4);
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(length, 1);
  return Buffer.concat([head, ...parts]);
}

const int16 = (value: number): Buffer => {
  const buffer = Buffer.alloc(2);
  buffer.writeInt16BE(value, 0);
  return buffer;
};
const int32 = (value: number): Buffer => {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value, 0);
  return buffer;
};
const cString = (text: string): Buffer => Buffer.from(`${text}\0`, 'utf8');

/** Parse and Bind of the unnamed statement and portal (all result columns as text). */
function parseAndBind(query: CompiledQuery): Buffer[] {
  const parameters = query.parameters.map(textParameter);
  const bind: Buffer[] = [cString(''), cString(''), int16(0), int16(parameters.length)];
  for (const parameter of parameters) {
    if (parameter === null) bind.push(int32(-1));
    else bind.push(int32(parameter.length), parameter);
  }
  bind.push(int16(0)); // every result column in text form
  return [message('P', [cString(''), cString(query.sql), int16(0)]), message('B', bind)];
}

/** Execute the unnamed portal to its end (no row limit), then Sync. */
const EXECUTE_ALL = Buffer.concat([message('E', [cString(''), int32(0)]), message('S', [])]);

/** A statement run to its end: Parse, Bind, Execute, Sync. */
export function extendedQuery(query: CompiledQuery): Buffer {
  return Buffer.concat([...parseAndBind(query), EXECUTE_ALL]);
}

/**
 * A statement prepared but not run: Parse and Bind, then Flush so that their answers (or the
 * error) come at once. Execute and Sync follow later (EXECUTE_ALL).
 */
function preparedQuery(query: CompiledQuery): Buffer {
  return Buffer.concat([...parseAndBind(query), message('H', [])]);
}

// ---------------------------------------------------------------------------------------------
// Backend messages

const DATA_ROW = 0x44; // D
const ERROR_RESPONSE = 0x45; // E

function errorOf(body: Buffer): RawQueryError {
  let message = 'database error';
  let code: string | undefined;
  for (let at = 0; at < body.length && body[at] !== 0;) {
    const field = body[at] as number;
    const end = body.indexOf(0, at + 1);
    const value = body.toString('utf8', at + 1, end < 0 ? body.length : end);
    if (field === 0x4d) message = value; // M
    if (field === 0x43) code = value; // C
    at = end < 0 ? body.length : end + 1;
  }
  return new RawQueryError(message, code);
}

const READY_FOR_QUERY = 0x5a; // Z
const BIND_COMPLETE = 0x32; // 2

/**
 * The bytes of a message split across chunks, kept between PGlite reads: reads never overlap
 * (each runs to its end inside one synchronous call into PGlite).
 */
let carry: Buffer = Buffer.alloc(0);
let fields = new Int32Array(64);

/** A Buffer over the whole of an ArrayBuffer (PGlite's memory), made once per ArrayBuffer. */
let memory: ArrayBuffer | undefined;
let memoryBytes = Buffer.alloc(0);

/**
 * Splits the backend's output into messages, across the chunks it arrives in, and hands the
 * data rows on, up to the end of the answer (ReadyForQuery). Nothing thrown here may unwind into
 * the caller of feed() (PostgreSQL's own code, a socket's event): the first failure is kept and
 * reported after the statement has finished.
 */
export class RowParser {
  failure: unknown;
  /** Set once the answer is complete (see `until`). */
  isReady = false;
  private carryLength = 0;

  constructor(
    private readonly onRow: RawRowHandler,
    /** The buffer for a message split across chunks (grown as needed; see carried). */
    private carried: Buffer,
    /**
     * Where the answer ends: at ReadyForQuery, or (a statement prepared but not run) at its
     * BindComplete or the error that took its place.
     */
    private readonly until: 'ready' | 'bound' = 'ready',
  ) {}

  /** The carry buffer as it is now, for the next parser. */
  get carry(): Buffer {
    return this.carried;
  }

  /**
   * Reads data[start, end). Returns where the answer ended (just after its ReadyForQuery) within
   * data, or -1 when it goes on in the next chunk.
   */
  feed(data: Buffer, start: number, end: number): number {
    if (this.isReady) return start;
    try {
      if (this.carryLength === 0) {
        const used = this.messages(data, start, end);
        if (this.isReady) return used;
        if (used < end) this.append(data, used, end);
        return -1;
      }
      // Only as much as completes the answer is taken: what follows it is not ours.
      const before = this.carryLength;
      this.append(data, start, end);
      const used = this.messages(this.carried, 0, this.carryLength);
      if (this.isReady) return start + used - before;
      this.carried.copyWithin(0, used, this.carryLength);
      this.carryLength -= used;
    } catch (error) {
      this.failure ??= error;
    }
    return -1;
  }

  private append(data: Buffer, start: number, end: number): void {
    if (this.carryLength + end - start > this.carried.length) {
      const grown = Buffer.allocUnsafe(
        Math.max(this.carried.length * 2, this.carryLength + end - start, 16384),
      );
      this.carried.copy(grown, 0, 0, this.carryLength);
      this.carried = grown;
    }
    data.copy(this.carried, this.carryLength, start, end);
    this.carryLength += end - start;
  }

  /** Handles the complete messages of data[start, end); returns where the first incomplete one begins. */
  private messages(data: Buffer, start: number, end: number): number {
    let at = start;
    while (at + 5 <= end) {
      const type = data[at] as number;
      const next = at + 1 + data.readInt32BE(at + 1);
      if (next > end) break;
      if (type === DATA_ROW) this.dataRow(data, at + 5);
      else if (type === ERROR_RESPONSE) this.failure ??= errorOf(data.subarray(at + 5, next));
      at = next;
      const isEnd =
        this.until === 'ready' ? type === READY_FOR_QUERY : type === BIND_COMPLETE || type === ERROR_RESPONSE;
      if (isEnd) {
        this.isReady = true;
        break;
      }
    }
    return at;
  }

  private dataRow(data: Buffer, start: number): void {
    const count = data.readInt16BE(start);
    if (fields.length < count * 2) fields = new Int32Array(count * 2);
    let at = start + 2;
    for (let index = 0; index < count; index += 1) {
      const length = data.readInt32BE(at);
      at += 4;
      if (length < 0) {
        fields[index * 2] = -1;
        fields[index * 2 + 1] = -1;
      } else {
        fields[index * 2] = at;
        fields[index * 2 + 1] = at + length;
        at += length;
      }
    }
    if (this.failure !== undefined) return;
    try {
      this.onRow(data, fields, count);
    } catch (error) {
      this.failure = error;
    }
  }
}

/**
 * Runs a statement through PGlite's wire protocol and streams its rows to onRow. The caller
 * holds the connection, so no other statement runs in between.
 */
export async function readPGliteRows({
  pglite,
  query,
  onRow,
}: {
  pglite: PGlite;
  query: CompiledQuery;
  onRow: RawRowHandler;
}): Promise<void> {
  const parser = new RowParser(onRow, carry);
  await pglite.execProtocolRawStream(extendedQuery(query), {
    syncToFs: false,
    onRawData: (view) => {
      if (view.buffer !== memory) {
        memory = view.buffer as ArrayBuffer;
        memoryBytes = Buffer.from(memory);
      }
      parser.feed(memoryBytes, view.byteOffset, view.byteOffset + view.byteLength);
    },
  });
  // A huge message (a very long value) is not kept for the next read.
  carry = parser.carry.length > 1 << 20 ? Buffer.alloc(0) : parser.carry;
  if (parser.failure !== undefined) throw parser.failure;
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL: one statement whose rows are read off the connection's socket as they come

/**
 * Sends `request` on the client's socket and reads the answer there, bypassing the driver's
 * parser (which makes a JavaScript string of every value), until the parser is done. The client
 * must be idle (no statement of its own running): its socket listeners are set aside until then,
 * and given back whatever followed. After each chunk `afterChunk` may pause the socket (a
 * promise: reading goes on when it settles; the database waits meanwhile, its send buffer full)
 * or give up (false: the connection is closed).
 */
function exchange(
  client: pg.Client,
  request: Buffer,
  parser: RowParser,
  afterChunk?: () => Promise<void> | boolean,
): Promise<void> {
  const socket = client.connection.stream;
  const listeners = socket.listeners('data') as ((chunk: Buffer) => void)[];
  return new Promise<void>((resolve, reject) => {
    const restore = (): void => {
      socket.off('data', onData);
      socket.off('close', onClose);
      for (const listener of listeners) socket.on('data', listener);
    };
    const onClose = (): void => {
      restore();
      reject(new RawQueryError('the database connection closed during an export', undefined));
    };
    const onData = (chunk: Buffer): void => {
      const end = parser.feed(chunk, 0, chunk.length);
      if (end < 0) {
        const next = afterChunk?.();
        if (next === false) {
          socket.destroy(); // onClose rejects
        } else if (next instanceof Promise) {
          socket.pause();
          void next.then(() => socket.resume());
        }
        return;
      }
      restore();
      // Whatever came after the answer (a notice, a parameter change) goes to the driver.
      if (end < chunk.length) for (const listener of listeners) listener.call(socket, chunk.subarray(end));
      if (parser.failure !== undefined) reject(parser.failure);
      else resolve();
    };
    socket.removeAllListeners('data');
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(request);
  });
}

/**
 * Opens a connection of its own and prepares the query there (parsed, planned and its parameters
 * bound, so a bad statement fails now); read() then runs it and streams every row. One statement
 * rather than a cursor's fetches: no round trip per batch, the database goes on producing rows
 * while the caller encodes the previous ones (backpressure is TCP's).
 */
async function openRowStream(db: Db, connection: pg.ClientConfig, query: RowQuery): Promise<RowStream> {
  const client = new pg.Client({ ...connection, client_encoding: 'UTF8' });
  // A connection the server ends fails the statement running on it; it must not bring the process down.
  client.on('error', () => undefined);
  let isOpen = true;
  const close = async (): Promise<void> => {
    if (!isOpen) return;
    isOpen = false;
    await client.end().catch(() => undefined);
  };
  let carried: Buffer = Buffer.alloc(0);
  try {
    await client.connect();
    // The connection starts as the pool's do (database.ts), without parallel workers.
    const parser = new RowParser(() => undefined, carried, 'bound');
    await exchange(client, preparedQuery(selectOf(query).compile(db)), parser);
    carried = parser.carry;
  } catch (error) {
    await close();
    throw error;
  }
  return {
    read: async (onRow, afterChunk) => {
      try {
        const parser = new RowParser(onRow, carried);
        await exchange(client, EXECUTE_ALL, parser, afterChunk);
      } finally {
        await close();
      }
    },
    close,
  };
}
