/**
 * Cron expressions in a timer's time cycle, as Activiti, Flowable and Camunda read them (Quartz's
 * syntax): six or seven fields, `second minute hour day-of-month month day-of-week [year]`, each
 * `*`, `?` (either day field: any), a number, a range `a-b`, a step `*\/n`, `a/n` or `a-b/n`, or a
 * list of those; months JAN–DEC and days SUN–SAT by name too (Quartz counts days 1 = SUN to
 * 7 = SAT). Quartz's `L`, `W` and `#` are refused by name. Times are the server's local time, as
 * the Java engines use the JVM's zone.
 */

/** A parsed cron expression: the values each field allows; a day field of any is undefined. */
export interface Cron {
  seconds: Set<number>;
  minutes: Set<number>;
  hours: Set<number>;
  daysOfMonth: Set<number> | undefined;
  months: Set<number>;
  /** 1 = Sunday … 7 = Saturday. */
  daysOfWeek: Set<number> | undefined;
  years: Set<number> | undefined;
}

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;

const FIELDS: readonly FieldSpec[] = [
  { name: 'second', min: 0, max: 59 },
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of the month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of the week', min: 1, max: 7, names: DAYS },
  { name: 'year', min: 1970, max: 2099 },
];

/** How far ahead a next time is looked for: a cron that matches no time in it is never due. */
const HORIZON_YEARS = 10;

class CronError extends Error {}

function valueOf(text: string, field: FieldSpec): number {
  const named = field.names?.indexOf(text.toUpperCase()) ?? -1;
  const value = named >= 0 ? named + field.min : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(value) || value < field.min || value > field.max)
    throw new CronError(`the ${field.name} "${text}" is not from ${field.min} to ${field.max}`);
  return value;
}

/** The values a field allows; undefined for any (`*` or `?`). */
function parseField(text: string, field: FieldSpec): Set<number> | undefined {
  if (text === '*' || text === '?') return undefined;
  const withoutNames = text.replace(/[A-Z]{3}/gi, (name) =>
    field.names?.includes(name.toUpperCase()) ? '' : name,
  );
  if (/[LW#]/i.test(withoutNames))
    throw new CronError(`the ${field.name} "${text}" uses L, W or #, which are not supported`);
  // Each part of a list: *, a value or a range, with at most one step.
  for (const part of text.split(','))
    if (!/^(\*|[A-Z0-9]+(-[A-Z0-9]+)?)(\/\d+)?$/i.test(part))
      throw new CronError(`the ${field.name} "${text}" is not a value, a range, a step or a list of them`);
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const [range = '', stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1)
      throw new CronError(`the ${field.name} step "${part}" is not a whole number`);
    let from: number;
    let to: number;
    if (range === '*') [from, to] = [field.min, field.max];
    else if (range.includes('-')) {
      const [low = '', high = ''] = range.split('-');
      [from, to] = [valueOf(low, field), valueOf(high, field)];
      if (from > to) throw new CronError(`the ${field.name} range "${range}" runs backwards`);
    } else {
      from = valueOf(range, field);
      to = stepText === undefined ? from : field.max;
    }
    for (let value = from; value <= to; value += step) values.add(value);
  }
  return values;
}

function parse(text: string): Cron {
  const parts = text.trim().split(/\s+/);
  if (parts.length < 6 || parts.length > 7)
    throw new CronError(
      `a cron expression has 6 or 7 fields (second to day of the week, and a year), not ${parts.length}`,
    );
  const sets = parts.map((part, index) => parseField(part, FIELDS[index]!));
  const [seconds, minutes, hours, daysOfMonth, months, daysOfWeek, years] = sets;
  if (daysOfMonth && daysOfWeek)
    throw new CronError(
      'a day of the month and a day of the week together are not supported (one must be ?)',
    );
  const all = (index: number): Set<number> => {
    const field = FIELDS[index]!;
    return new Set(Array.from({ length: field.max - field.min + 1 }, (_, offset) => field.min + offset));
  };
  return {
    seconds: seconds ?? all(0),
    minutes: minutes ?? all(1),
    hours: hours ?? all(2),
    daysOfMonth,
    months: months ?? all(4),
    daysOfWeek,
    years,
  };
}

/** A cron expression, or undefined when the text is not one. */
export function parseCron(text: string): Cron | undefined {
  try {
    return parse(text);
  } catch (error) {
    if (error instanceof CronError) return undefined;
    throw error;
  }
}

/** Why a text is not a cron expression that is ever due, or undefined when it is one. */
export function cronProblem(text: string, now: Date = new Date()): string | undefined {
  let cron: Cron;
  try {
    cron = parse(text);
  } catch (error) {
    if (error instanceof CronError) return error.message;
    throw error;
  }
  return nextCronTime(cron, now) ? undefined : `it is never due in the next ${HORIZON_YEARS} years`;
}

/**
 * The first time after `after` (to the second, the server's local time) that the cron allows;
 * undefined when there is none within HORIZON_YEARS. Always later than `after`: in the hour a
 * clock set back repeats, a local time names the earlier of its two instants, so a search from
 * inside the repeated hour that lands before `after` starts again once that hour has passed (its
 * times are not fired twice).
 */
export function nextCronTime(cron: Cron, after: Date): Date | undefined {
  const found = searchFrom(cron, new Date(Math.floor(after.getTime() / 1000) * 1000 + 1000));
  if (!found || found.getTime() > after.getTime()) return found;
  return searchFrom(cron, new Date(Math.floor(after.getTime() / 1000) * 1000 + 3_600_000));
}

/**
 * The first time at or after `from` that the cron allows, by local time. Each miss skips its whole
 * unit (a month, a day, an hour, a minute), so the search is a few thousand steps at most.
 */
function searchFrom(cron: Cron, from: Date): Date | undefined {
  const at = new Date(from.getTime());
  const lastYear = from.getFullYear() + HORIZON_YEARS;
  while (at.getFullYear() <= lastYear) {
    if (cron.years && !cron.years.has(at.getFullYear())) {
      at.setFullYear(at.getFullYear() + 1, 0, 1);
      at.setHours(0, 0, 0);
    } else if (!cron.months.has(at.getMonth() + 1)) {
      at.setMonth(at.getMonth() + 1, 1);
      at.setHours(0, 0, 0);
    } else if (
      (cron.daysOfMonth && !cron.daysOfMonth.has(at.getDate())) ||
      (cron.daysOfWeek && !cron.daysOfWeek.has(at.getDay() + 1))
    ) {
      at.setDate(at.getDate() + 1);
      at.setHours(0, 0, 0);
    } else if (!cron.hours.has(at.getHours())) {
      at.setHours(at.getHours() + 1, 0, 0);
    } else if (!cron.minutes.has(at.getMinutes())) {
      at.setMinutes(at.getMinutes() + 1, 0);
    } else if (!cron.seconds.has(at.getSeconds())) {
      at.setSeconds(at.getSeconds() + 1);
    } else return at;
  }
  return undefined;
}
