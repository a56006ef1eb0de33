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
 * - PostgreSQL is read through a cursor on a connection of its own, each row as one text the
 *   server frames (every value prefixed by its length in bytes), so the driver makes one string
 *   per row instead of one per value.
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

export interface RowCursor {
  /** Reads up to `count` more rows into onRow; resolves with how many there were. */
  fetch(count: number, onRow: RawRowHandler): Promise<number>;
  /** Ends the cursor and gives its connection back; after a failure, rolls back. */
  close(failure?: unknown): Promise<void>;
}

export type RawRowReader =
  | {
      kind: 'statement';
      /** Runs one read-only statement, handing every result row to onRow as it is produced. */
      read(query: RowQuery, onRow: RawRowHandler): Promise<void>;
    }
  | {
      kind: 'cursor';
      /** Opens a cursor over the query's rows, on a connection held until close(). */
      open(query: RowQuery): Promise<RowCursor>;
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
      db.connection().execute(() => readPGliteRows(pglite, selectOf(query).compile(db), onRow)),
  });
}

/**
 * Gives db a cursor reader over PostgreSQL. Every cursor has a connection of its own, outside
 * the pool: an export lasts as long as its client takes to download it, and a few slow ones
 * must not take the connections every other request needs.
 */
export function enablePostgresRawRows(db: Db, connection: pg.ClientConfig): void {
  readers.set(db, { kind: 'cursor', open: (query) => openCursor(db, connection, query) });
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

export function extendedQuery(query: CompiledQuery): Buffer {
  const parameters = query.parameters.map(textParameter);
  const bind: Buffer[] = [cString(''), cString(''), int16(0), int16(parameters.length)];
  for (const parameter of parameters) {
    if (parameter === null) bind.push(int32(-1));
    else bind.push(int32(parameter.length), parameter);
  }
  bind.push(int16(0)); // every result column in text form
  return Buffer.concat([
    message('P', [cString(''), cString(query.sql), int16(0)]),
    message('B', bind),
    message('E', [cString(''), int32(0)]),
    message('S', []),
  ]);
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

/**
 * Splits the backend's output into messages, across the chunks it arrives in, and hands the
 * data rows on. Nothing thrown here may unwind into PostgreSQL (it calls back from inside its
 * own code): the first failure is kept and reported after the statement has finished.
 */
/**
 * The bytes of a message split across chunks, kept between reads: reads never overlap (each
 * runs to its end inside one synchronous call into PGlite).
 */
let carry = Buffer.alloc(0);
let fields = new Int32Array(64);

/** A Buffer over the whole of an ArrayBuffer (PGlite's memory), made once per ArrayBuffer. */
let memory: ArrayBuffer | undefined;
let memoryBytes = Buffer.alloc(0);

class RowParser {
  failure: unknown;
  private carryLength = 0;

  constructor(private readonly onRow: RawRowHandler) {}

  chunk(view: Uint8Array): void {
    if (this.failure !== undefined && !(this.failure instanceof RawQueryError)) return;
    try {
      if (view.buffer !== memory) {
        memory = view.buffer as ArrayBuffer;
        memoryBytes = Buffer.from(memory);
      }
      const start = view.byteOffset;
      const end = start + view.byteLength;
      if (this.carryLength === 0) {
        const used = this.messages(memoryBytes, start, end);
        if (used < end) this.append(memoryBytes, used, end);
        return;
      }
      this.append(memoryBytes, start, end);
      const used = this.messages(carry, 0, this.carryLength);
      carry.copyWithin(0, used, this.carryLength);
      this.carryLength -= used;
    } catch (error) {
      this.failure = error;
    }
  }

  private append(data: Buffer, start: number, end: number): void {
    if (this.carryLength + end - start > carry.length) {
      const grown = Buffer.allocUnsafe(Math.max(carry.length * 2, this.carryLength + end - start, 16384));
      carry.copy(grown, 0, 0, this.carryLength);
      carry = grown;
    }
    data.copy(carry, this.carryLength, start, end);
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
      else if (type === ERROR_RESPONSE && this.failure === undefined)
        this.failure = errorOf(data.subarray(at + 5, next));
      at = next;
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
    if (this.failure === undefined) this.onRow(data, fields, count);
  }
}

/**
 * Runs a statement through PGlite's wire protocol and streams its rows to onRow. The caller
 * holds the connection, so no other statement runs in between.
 */
export async function readPGliteRows(
  pglite: PGlite,
  query: CompiledQuery,
  onRow: RawRowHandler,
): Promise<void> {
  const parser = new RowParser(onRow);
  await pglite.execProtocolRawStream(extendedQuery(query), {
    syncToFs: false,
    onRawData: (view) => parser.chunk(view),
  });
  // A huge message (a very long value) is not kept for the next read.
  if (carry.length > 1 << 20) carry = Buffer.alloc(0);
  if (parser.failure !== undefined) throw parser.failure;
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL: a cursor of framed rows

const CURSOR = 'ecobid_rows';
const DASH = 0x2d;
const COLON = 0x3a;

/**
 * How a framed value gives its length: in bytes, which a database in UTF-8 counts as the client
 * receives them, or in characters, for a database in another encoding (converted on the way).
 */
export type FrameUnit = 'bytes' | 'characters';

/** Every value as `<length>:<text>`, NULL as `-`, all in one text. */
function framedSelect(query: RowQuery, unit: FrameUnit): RawBuilder<unknown> {
  const length = unit === 'bytes' ? sql`octet_length` : sql`char_length`;
  const framed = query.select.map(
    (value) => sql`coalesce(${length}(${value})::text || ':' || ${value}, '-')`,
  );
  return sql`select concat(${sql.join(framed)}) ${query.rest}`;
}

/** Splits a framed row (see framedSelect), UTF-8 bytes, into fields; throws when it is not one. */
export function splitFramedRow(
  src: Buffer,
  length: number,
  fields: Int32Array,
  count: number,
  unit: FrameUnit = 'bytes',
): void {
  let at = 0;
  for (let index = 0; index < count; index += 1) {
    if (src[at] === DASH) {
      fields[index * 2] = -1;
      fields[index * 2 + 1] = -1;
      at += 1;
      continue;
    }
    let size = 0;
    const digitsStart = at;
    for (; at < length && src[at] !== COLON; at += 1) {
      const digit = (src[at] as number) - 0x30;
      if (digit < 0 || digit > 9) throw new Error('malformed framed row');
      size = size * 10 + digit;
    }
    if (at === digitsStart || at >= length) throw new Error('malformed framed row');
    at += 1;
    fields[index * 2] = at;
    if (unit === 'bytes') {
      at += size;
    } else {
      // A character is one UTF-8 sequence, its length told by its first byte.
      for (let character = 0; character < size && at < length; character += 1) {
        const lead = src[at] as number;
        at += lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
      }
    }
    fields[index * 2 + 1] = at;
  }
  if (at !== length) throw new Error('malformed framed row');
}

async function openCursor(db: Db, connection: pg.ClientConfig, query: RowQuery): Promise<RowCursor> {
  const count = query.select.length;
  const client = new pg.Client({ ...connection, client_encoding: 'UTF8' });
  // A connection the server ends fails the statement running on it; it must not bring the process down.
  client.on('error', () => undefined);
  let isOpen = true;
  const end = async (failure?: unknown): Promise<void> => {
    if (!isOpen) return;
    isOpen = false;
    await client.query(failure === undefined ? 'commit' : 'rollback').catch(() => undefined);
    await client.end().catch(() => undefined);
  };
  let unit: FrameUnit = 'bytes';
  try {
    await client.connect();
    const encoding = await client.query<{ server_encoding: string }>('show server_encoding');
    if (encoding.rows[0]?.server_encoding !== 'UTF8') unit = 'characters';
    const compiled = framedSelect(query, unit).compile(db);
    await client.query('begin');
    // Every row is read: plan for the whole result, not for its first tenth (the cursor default,
    // which at millions of rows picks an index walk in the sort order with a random heap read per
    // row over a bitmap scan of the filter and one sort).
    await client.query('set local cursor_tuple_fraction = 1');
    await client.query(`declare ${CURSOR} no scroll cursor for ${compiled.sql}`, [...compiled.parameters]);
  } catch (error) {
    await end(error);
    throw error;
  }
  let scratch = Buffer.allocUnsafe(64 * 1024);
  const fields = new Int32Array(count * 2);
  return {
    fetch: (rows, onRow) =>
      new Promise<number>((resolve, reject) => {
        let fetched = 0;
        let failure: unknown;
        const config: pg.QueryArrayConfig = {
          text: `fetch forward ${rows} from ${CURSOR}`,
          rowMode: 'array',
        };
        const fetch = new pg.Query<unknown[]>(config);
        // Called from inside the driver's message handling: nothing may be thrown from here.
        fetch.on('row', (row) => {
          if (failure !== undefined) return;
          try {
            fetched += 1;
            const text = String(row[0] ?? '');
            if (text.length * 3 > scratch.length) scratch = Buffer.allocUnsafe(text.length * 3 + 1024);
            const length = scratch.write(text, 0, 'utf8');
            splitFramedRow(scratch, length, fields, count, unit);
            onRow(scratch, fields, count);
          } catch (error) {
            failure = error;
          }
        });
        fetch.on('error', reject);
        fetch.on('end', () => (failure === undefined ? resolve(fetched) : reject(failure)));
        void client.query(fetch);
      }),
    close: (failure) => end(failure),
  };
}
