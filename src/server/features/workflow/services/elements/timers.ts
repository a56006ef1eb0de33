import type { ProcessNode, TimerSpec } from '../graph.js';
import { cronProblem, nextCronTime, parseCron } from './cron.js';

/**
 * Timer semantics of BPMN timer events: ISO-8601 durations (PT5M, P1DT2H, P2W), dates
 * (2026-12-01T08:00:00Z) and repeating intervals (R3/PT1H, R/2026-12-01T08:00:00Z/P1D), and
 * cron expressions in a time cycle as Activiti, Flowable and Camunda read them (Quartz's:
 * `0 0 9 ? * MON-FRI`, elements/cron.ts), which repeat for ever.
 */

interface Duration {
  years: number;
  months: number;
  weeks: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

const DURATION =
  /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/** An ISO-8601 duration, or undefined when the text is not one (or is empty: "P", "PT"). */
export function parseDuration(text: string): Duration | undefined {
  const match = DURATION.exec(text.trim());
  if (!match || /^PT?$/.test(text.trim())) return undefined;
  const [, years, months, weeks, days, hours, minutes, seconds] = match.map((part) => Number(part ?? 0));
  return {
    years: years ?? 0,
    months: months ?? 0,
    weeks: weeks ?? 0,
    days: days ?? 0,
    hours: hours ?? 0,
    minutes: minutes ?? 0,
    seconds: seconds ?? 0,
  };
}

/** The instant a duration after another (calendar months and years, UTC). */
export function addDuration(from: Date, duration: Duration): Date {
  const at = new Date(from.getTime());
  at.setUTCFullYear(at.getUTCFullYear() + duration.years, at.getUTCMonth() + duration.months);
  at.setUTCDate(at.getUTCDate() + duration.weeks * 7 + duration.days);
  return new Date(at.getTime() + ((duration.hours * 60 + duration.minutes) * 60 + duration.seconds) * 1000);
}

const parseDate = (text: string): Date | undefined => {
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim())) return undefined;
  const at = new Date(text.trim());
  return Number.isNaN(at.getTime()) ? undefined : at;
};

/** A repeating interval: how many times (null: for ever), from when, how often. */
interface Cycle {
  repeats: number | null;
  start?: Date;
  every: Duration;
}

function parseCycle(text: string): Cycle | undefined {
  const parts = text.trim().split('/');
  const repeat = /^R(\d*)$/.exec(parts[0] ?? '');
  if (!repeat || parts.length < 2 || parts.length > 3) return undefined;
  const repeats = repeat[1] === '' ? null : Number(repeat[1]);
  const every = parseDuration(parts[parts.length - 1] ?? '');
  if (!every) return undefined;
  if (parts.length === 2) return { repeats, every };
  const start = parseDate(parts[1] ?? '');
  return start ? { repeats, start, every } : undefined;
}

/** Why a timer cannot run here, or undefined. */
export function timerProblem(timer: TimerSpec): string | undefined {
  if (timer.duration !== undefined)
    return parseDuration(timer.duration) ? undefined : `"${timer.duration}" is not an ISO-8601 duration`;
  if (timer.date !== undefined)
    return parseDate(timer.date) ? undefined : `"${timer.date}" is not an ISO-8601 date and time`;
  if (timer.cycle !== undefined) {
    if (parseCycle(timer.cycle)) return undefined;
    const cron = cronProblem(timer.cycle);
    return cron === undefined
      ? undefined
      : `"${timer.cycle}" is neither an ISO-8601 repeating interval nor a cron expression (${cron})`;
  }
  return 'the timer has no duration, date or cycle';
}

/** When a timer is first due, counted from now; undefined for a timer that cannot run. */
export function firstDue(timer: TimerSpec, now: Date): Date | undefined {
  if (timer.duration !== undefined) {
    const duration = parseDuration(timer.duration);
    return duration ? addDuration(now, duration) : undefined;
  }
  if (timer.date !== undefined) return parseDate(timer.date);
  if (timer.cycle === undefined) return undefined;
  const cron = parseCron(timer.cycle);
  if (cron) return nextCronTime(cron, now);
  const cycle = parseCycle(timer.cycle);
  if (!cycle || cycle.repeats === 0) return undefined;
  if (!cycle.start) return addDuration(now, cycle.every);
  return cycle.start;
}

/**
 * A cycle after one firing: the cycle text for the rest (one repetition fewer) and when it is
 * next due, or undefined when it is over. The next time is after `now`: a firing that was late (a
 * server that was down) is followed by the next time to come, not by every time it missed; a
 * repeating interval counts the missed ones as gone. A cron expression stays as it is.
 */
export function nextOfCycle(
  cycleText: string,
  firedAt: Date,
  now: Date = firedAt,
): { cycle: string; due: Date } | undefined {
  const cron = parseCron(cycleText);
  if (cron) {
    const due = nextCronTime(cron, firedAt.getTime() > now.getTime() ? firedAt : now);
    return due ? { cycle: cycleText, due } : undefined;
  }
  const cycle = parseCycle(cycleText);
  if (!cycle) return undefined;
  let left = cycle.repeats === null ? null : cycle.repeats - 1;
  let due = addDuration(firedAt, cycle.every);
  // Repetitions that fell due while nothing fired (a server that was down, an instance that was
  // suspended) are skipped and counted, not made up one after another.
  for (let skipped = 0; due.getTime() <= now.getTime() && skipped < MAX_SKIPPED; skipped++) {
    if (left !== null) left -= 1;
    due = addDuration(due, cycle.every);
  }
  if (due.getTime() <= now.getTime()) due = addDuration(now, cycle.every);
  if (left !== null && left <= 0) return undefined;
  return {
    cycle: `R${left === null ? '' : String(left)}/${cycleText.split('/').slice(-1)[0] ?? ''}`,
    due,
  };
}

/** Most missed repetitions counted one by one (past them the next is one interval from now). */
const MAX_SKIPPED = 10_000;

/**
 * The cycle a timer fires by again after it fired: a time cycle on a non-interrupting boundary
 * event or event sub-process start (what it interrupts would be gone); null for any other timer.
 */
export function repeatingCycle(node: ProcessNode): string | null {
  return node.timer?.cycle !== undefined && node.isNonInterrupting ? node.timer.cycle : null;
}
