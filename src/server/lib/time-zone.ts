/**
 * Wall-clock times of an IANA time zone (a reader's, as their screen shows them): the offset at
 * an instant and the instant of a wall-clock time, from Intl's tables (no package).
 */

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

function formatOf(zone: string): Intl.DateTimeFormat {
  let format = zoneFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (zoneFormats.size >= 64) zoneFormats.clear();
    zoneFormats.set(zone, format);
  }
  return format;
}

/** Seconds since the epoch of a wall-clock time read as universal time. */
function wallSeconds(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime() / 1000;
}

/** A time zone's wall-clock time minus universal time at an instant (seconds since the epoch), in seconds. */
export function zoneOffset(utcSeconds: number, zone: string): number {
  const whole = Math.floor(utcSeconds);
  const parts: Record<string, string> = {};
  for (const part of formatOf(zone).formatToParts(new Date(whole * 1000))) parts[part.type] = part.value;
  const year = parts.era === 'BC' ? 1 - Number(parts.year) : Number(parts.year);
  const local = wallSeconds(
    year,
    Number(parts.month),
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return local - whole;
}

/** The instant (a Date) of a wall-clock time in a time zone; a time a clock skips is read after the change. */
export function zonedDate(
  zone: string,
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
): Date {
  const wall = wallSeconds(year, month, day, hour, minute, second);
  const first = wall - zoneOffset(wall, zone);
  const second_ = wall - zoneOffset(first, zone);
  return new Date(second_ * 1000);
}
