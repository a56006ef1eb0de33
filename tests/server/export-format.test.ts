import { afterEach, describe, expect, it } from 'vitest';
import { displayTimestamp, formatDateTime } from '../../src/server/features/crud/export/records.js';
import { RawQueryError, RowParser } from '../../src/server/lib/db/raw-rows.js';

/**
 * The export reads timestamps as the ISO text PostgreSQL's to_json prints and writes them in the
 * server's time zone without a Date per value; it must show exactly what formatDateTime shows.
 */
const originalZone = process.env.TZ;
afterEach(() => {
  if (originalZone === undefined) delete process.env.TZ;
  else process.env.TZ = originalZone;
});

/** The instant as PostgreSQL prints it in a session time zone of `offsetMinutes`. */
function isoAt(ms: number, offsetMinutes: number, fraction: string): string {
  const local = new Date(ms + offsetMinutes * 60_000);
  const pad = (value: number, width = 2): string => String(value).padStart(width, '0');
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const zone =
    abs % 60 === 0 ? `${sign}${pad(abs / 60)}:00` : `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  return (
    `"${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${fraction}${zone}"`
  );
}

describe('export timestamps', () => {
  const zones = [
    'UTC',
    'Asia/Shanghai',
    'America/New_York',
    'Asia/Kolkata',
    'Australia/Lord_Howe',
    'America/St_Johns',
  ];

  it.each(zones)('shows every instant as formatDateTime does in %s', (zone) => {
    process.env.TZ = zone;
    let seed = 12345;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    // Instants from 1890 (local mean time in many zones) to 2090, and around this year's changes of
    // daylight saving time, printed in several session time zones and with and without a fraction.
    const instants: number[] = [];
    for (let index = 0; index < 3000; index += 1) instants.push(Math.floor(-2.5e12 + random() * 6.3e12));
    const year = new Date().getUTCFullYear();
    for (let hour = 0; hour < 24 * 366; hour += 1)
      instants.push(Date.UTC(year, 0, 1) + hour * 3_600_000 + 1_234);
    for (const [index, ms] of instants.entries()) {
      const offset = [0, 480, -300, 330, -210][index % 5] ?? 0;
      const fraction = ['', '.5', '.123456'][index % 3] ?? '';
      const iso = isoAt(Math.floor(ms / 1000) * 1000, offset, fraction);
      expect(displayTimestamp(iso), iso).toBe(formatDateTime(new Date(JSON.parse(iso) as string)));
    }
  });

  it('reads Z and offsets with seconds, and leaves what is no timestamp as it is', () => {
    process.env.TZ = 'UTC';
    expect(displayTimestamp('"2024-02-29T23:59:59Z"')).toBe('2024-02-29 23:59:59');
    expect(displayTimestamp('"2024-03-01T00:05:43+00:05:43"')).toBe('2024-03-01 00:00:00');
    expect(displayTimestamp('"2024-03-01T00:00:00-01:30"')).toBe('2024-03-01 01:30:00');
    expect(displayTimestamp('"infinity"')).toBe('infinity');
    process.env.TZ = 'Asia/Shanghai';
    expect(displayTimestamp('"2024-01-01T16:00:00.999+00:00"')).toBe('2024-01-02 00:00:00');
  });
});

/** A backend message: type byte, length, body. */
function backendMessage(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** A DataRow message of text values (null for NULL). */
function dataRow(values: (string | null)[]): Buffer {
  const parts: Buffer[] = [Buffer.from([values.length >> 8, values.length & 0xff])];
  for (const value of values) {
    const length = Buffer.alloc(4);
    if (value === null) {
      length.writeInt32BE(-1, 0);
      parts.push(length);
    } else {
      const bytes = Buffer.from(value, 'utf8');
      length.writeInt32BE(bytes.length, 0);
      parts.push(length, bytes);
    }
  }
  return backendMessage('D', Buffer.concat(parts));
}

const readyForQuery = backendMessage('Z', Buffer.from('T', 'latin1'));
const errorResponse = backendMessage(
  'E',
  Buffer.concat([Buffer.from('SERROR\0C22012\0Mdivision by zero\0', 'utf8'), Buffer.from([0])]),
);

/** Feeds the stream to a parser in the given pieces; the rows it handed on and where the answer ended. */
function parse(
  stream: Buffer,
  cuts: number[],
): { rows: (string | null)[][]; end: number; parser: RowParser } {
  const rows: (string | null)[][] = [];
  const parser = new RowParser((src, fields, count) => {
    const row: (string | null)[] = [];
    for (let index = 0; index < count; index += 1) {
      const start = fields[index * 2] as number;
      row.push(start < 0 ? null : src.toString('utf8', start, fields[index * 2 + 1] as number));
    }
    rows.push(row);
  }, Buffer.alloc(0));
  let end = -1;
  let from = 0;
  for (const cut of [...cuts, stream.length]) {
    // Each piece is a buffer of its own, as a socket hands them over.
    const piece = Buffer.from(stream.subarray(from, cut));
    const ended = parser.feed(piece, 0, piece.length);
    if (ended >= 0 && end < 0) end = from + ended;
    from = cut;
  }
  return { rows, end, parser };
}

describe('rows read off the wire', () => {
  const long = '长'.repeat(30_000); // longer than a socket's chunk
  const rows: (string | null)[][] = [
    ['1', 'admin', null, '正常'],
    ['2', '', 'a\tb\nc', '😀'],
    ['3', long, '"q"', null],
  ];
  const answer = Buffer.concat([
    backendMessage('T', Buffer.from([0, 0])), // a row description: not a row
    ...rows.map(dataRow),
    backendMessage('C', Buffer.from('FETCH 3\0', 'utf8')),
    readyForQuery,
  ]);
  const after = backendMessage('S', Buffer.from('TimeZone\0UTC\0', 'utf8'));
  const stream = Buffer.concat([answer, after]);

  it('hands on every row with its values as bytes, however the answer is cut into chunks', () => {
    expect(parse(stream, [])).toMatchObject({ rows, end: answer.length });
    for (let cut = 1; cut < stream.length; cut += cut < 200 ? 1 : 997) {
      const parsed = parse(stream, [cut]);
      expect(parsed.rows, `cut at ${cut}`).toEqual(rows);
      // What follows the answer's ReadyForQuery is left for the driver.
      expect(parsed.end, `cut at ${cut}`).toBe(answer.length);
    }
    const bytewise = parse(
      stream,
      Array.from({ length: stream.length - 1 }, (_, index) => index + 1),
    );
    expect(bytewise.rows).toEqual(rows);
    expect(bytewise.end).toBe(answer.length);
  });

  it('keeps the error of a failed statement and reads to the end of its answer', () => {
    const failed = Buffer.concat([dataRow(['1']), errorResponse, readyForQuery]);
    const parsed = parse(failed, [7]);
    expect(parsed.rows).toEqual([['1']]);
    expect(parsed.end).toBe(failed.length);
    expect(parsed.parser.failure).toBeInstanceOf(RawQueryError);
    expect(parsed.parser.failure).toMatchObject({ code: '22012', message: 'division by zero' });
  });

  it('keeps a failure of the row handler instead of throwing it into the socket', () => {
    const parser = new RowParser(() => {
      throw new Error('cell failed');
    }, Buffer.alloc(0));
    const twoRows = Buffer.concat([dataRow(['1']), dataRow(['2']), readyForQuery]);
    expect(parser.feed(twoRows, 0, twoRows.length)).toBe(twoRows.length);
    expect(parser.failure).toMatchObject({ message: 'cell failed' });
  });
});

describe('a statement prepared before it runs', () => {
  const parseComplete = backendMessage('1', Buffer.alloc(0));
  const bindComplete = backendMessage('2', Buffer.alloc(0));

  it('ends its answer at BindComplete, leaving what follows', () => {
    const stream = Buffer.concat([parseComplete, bindComplete, dataRow(['not ours'])]);
    for (let cut = 1; cut < stream.length; cut += 1) {
      const parser = new RowParser(() => undefined, Buffer.alloc(0), 'bound');
      const first = parser.feed(stream, 0, cut);
      const end = first >= 0 ? first : parser.feed(stream, cut, stream.length);
      expect(end, `cut at ${cut}`).toBe(parseComplete.length + bindComplete.length);
      expect(parser.failure).toBeUndefined();
    }
  });

  it("ends it at the error that takes BindComplete's place (nothing else comes before a Sync)", () => {
    const parser = new RowParser(() => undefined, Buffer.alloc(0), 'bound');
    const stream = Buffer.concat([parseComplete, errorResponse]);
    expect(parser.feed(stream, 0, stream.length)).toBe(stream.length);
    expect(parser.failure).toMatchObject({ code: '22012' });
  });
});
