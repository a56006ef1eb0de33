import { afterEach, describe, expect, it } from 'vitest';
import { displayTimestamp, formatDateTime } from '../../src/server/services/export/records.js';
import { splitFramedRow } from '../../src/server/lib/db/raw-rows.js';

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

describe('framed rows of PostgreSQL', () => {
  it('splits values by their byte length, NULL as a dash', () => {
    const row = Buffer.from('3:a:b-0:6:正常', 'utf8');
    const fields = new Int32Array(8);
    splitFramedRow(row, row.length, fields, 4);
    const value = (index: number): string | null =>
      (fields[index * 2] as number) < 0
        ? null
        : row.toString('utf8', fields[index * 2] as number, fields[index * 2 + 1] as number);
    expect([value(0), value(1), value(2), value(3)]).toEqual(['a:b', null, '', '正常']);
    expect(() => splitFramedRow(row, row.length, fields, 3)).toThrow(/malformed/);
    const short = Buffer.from('9:abc', 'utf8');
    expect(() => splitFramedRow(short, short.length, fields, 1)).toThrow(/malformed/);
  });

  it('counts characters instead of bytes for a database in another encoding', () => {
    const row = Buffer.from('2:正常3:a😀b-', 'utf8');
    const fields = new Int32Array(6);
    splitFramedRow(row, row.length, fields, 3, 'characters');
    const text = (index: number): string =>
      row.toString('utf8', fields[index * 2] as number, fields[index * 2 + 1] as number);
    expect([text(0), text(1), fields[4]]).toEqual(['正常', 'a😀b', -1]);
  });
});
