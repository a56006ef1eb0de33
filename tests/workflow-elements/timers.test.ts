import { describe, expect, it } from 'vitest';
import {
  cronProblem,
  nextCronTime,
  parseCron,
} from '../../src/server/features/workflow/services/elements/cron.js';
import {
  firstDue,
  nextOfCycle,
  repeatingCycle,
  timerProblem,
} from '../../src/server/features/workflow/services/elements/timers.js';
import type { ProcessNode } from '../../src/server/features/workflow/services/graph.js';

/** Timer semantics without a database: durations, dates, repeating intervals and cron, in local time. */

/** A local time (cron reads the server's zone, whatever the machine's is). */
const local = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0): Date =>
  new Date(year, month - 1, day, hour, minute, second);

const next = (expression: string, after: Date): Date | undefined => {
  const cron = parseCron(expression);
  if (!cron) throw new Error(`not a cron: ${expression}`);
  return nextCronTime(cron, after);
};

describe('ISO-8601 timers', () => {
  it('a duration counts from now, months by the calendar', () => {
    expect(firstDue({ duration: 'PT1H30M' }, new Date('2026-01-31T10:00:00Z'))).toEqual(
      new Date('2026-01-31T11:30:00Z'),
    );
    expect(firstDue({ duration: 'P1M' }, new Date('2026-01-15T00:00:00Z'))).toEqual(
      new Date('2026-02-15T00:00:00Z'),
    );
    expect(firstDue({ duration: 'P2W' }, new Date('2026-01-01T00:00:00Z'))).toEqual(
      new Date('2026-01-15T00:00:00Z'),
    );
  });

  it('a repeating interval fires as often as it says, then is over', () => {
    const fired = new Date('2026-01-01T08:00:00Z');
    expect(nextOfCycle('R3/PT1H', fired)).toEqual({
      cycle: 'R2/PT1H',
      due: new Date('2026-01-01T09:00:00Z'),
    });
    expect(nextOfCycle('R1/PT1H', fired)).toBeUndefined();
    expect(nextOfCycle('R/PT1H', fired)).toEqual({ cycle: 'R/PT1H', due: new Date('2026-01-01T09:00:00Z') });
    expect(firstDue({ cycle: 'R2/2027-01-01T08:00:00Z/P1D' }, fired)).toEqual(
      new Date('2027-01-01T08:00:00Z'),
    );
    expect(firstDue({ cycle: 'R0/PT1H' }, fired)).toBeUndefined();
  });

  it('repetitions missed while nothing fired are skipped and counted, not made up one after another', () => {
    const fired = new Date('2026-01-01T08:00:00Z');
    const fiveHoursLater = new Date('2026-01-01T13:30:00Z');
    expect(nextOfCycle('R/PT1H', fired, fiveHoursLater)).toEqual({
      cycle: 'R/PT1H',
      due: new Date('2026-01-01T14:00:00Z'),
    });
    expect(nextOfCycle('R10/PT1H', fired, fiveHoursLater)).toEqual({
      cycle: 'R4/PT1H',
      due: new Date('2026-01-01T14:00:00Z'),
    });
    // Every repetition left fell due meanwhile: the cycle is over.
    expect(nextOfCycle('R3/PT1H', fired, fiveHoursLater)).toBeUndefined();
    // Seconds missed over a year: still one step, one interval from now.
    const aYearLater = new Date('2027-01-01T08:00:00Z');
    expect(nextOfCycle('R/PT1S', fired, aYearLater)).toEqual({
      cycle: 'R/PT1S',
      due: new Date('2027-01-01T08:00:01Z'),
    });
  });

  it('what cannot run is named', () => {
    expect(timerProblem({ duration: 'one hour' })).toBe('"one hour" is not an ISO-8601 duration');
    expect(timerProblem({ date: 'tomorrow' })).toBe('"tomorrow" is not an ISO-8601 date and time');
    expect(timerProblem({})).toBe('the timer has no duration, date or cycle');
    expect(timerProblem({ cycle: 'every day' })).toMatch(
      /^"every day" is neither an ISO-8601 repeating interval nor a cron expression \(a cron expression has 6 or 7 fields/,
    );
  });
});

describe('cron expressions (Quartz syntax, as Activiti, Flowable and Camunda read them)', () => {
  it('every hour on the hour', () => {
    expect(next('0 0 * * * ?', local(2026, 12, 6, 10, 15))).toEqual(local(2026, 12, 6, 11));
    // Exactly on a time: the next one, not the same.
    expect(next('0 0 * * * ?', local(2026, 12, 6, 11))).toEqual(local(2026, 12, 6, 12));
  });

  it('weekdays at nine (days by name; Quartz counts Sunday as 1)', () => {
    // 2026-12-05 is a Saturday.
    expect(next('0 0 9 ? * MON-FRI', local(2026, 12, 5, 12))).toEqual(local(2026, 12, 7, 9));
    expect(next('0 0 9 ? * 2-6', local(2026, 12, 5, 12))).toEqual(local(2026, 12, 7, 9));
    expect(next('0 0 9 ? * SUN', local(2026, 12, 5, 12))).toEqual(local(2026, 12, 6, 9));
  });

  it('steps, lists and ranges', () => {
    expect(next('0 */15 * * * ?', local(2026, 1, 1, 8, 16))).toEqual(local(2026, 1, 1, 8, 30));
    expect(next('30 5/20 8-9 * * ?', local(2026, 1, 1, 8, 46))).toEqual(local(2026, 1, 1, 9, 5, 30));
    expect(next('0 0 12 1,15 * ?', local(2026, 1, 2))).toEqual(local(2026, 1, 15, 12));
  });

  it('months and years roll over; the year field bounds it', () => {
    expect(next('0 0 0 1 JAN ?', local(2026, 12, 6))).toEqual(local(2027, 1, 1));
    expect(next('0 0 0 29 2 ?', local(2026, 3, 1))).toEqual(local(2028, 2, 29));
    expect(next('0 0 0 1 1 ? 2026', local(2026, 6, 1))).toBeUndefined();
  });

  it('in the hour a clock set back repeats, the next time is still after the last (never in the past)', () => {
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      // 2026-11-01 06:30 UTC is 01:30 EST, the second 01:30 of that night.
      const inRepeatedHour = new Date('2026-11-01T06:30:00Z');
      const everyMinute = next('0 * * * * ?', inRepeatedHour)!;
      expect(everyMinute.getTime()).toBeGreaterThan(inRepeatedHour.getTime());
      const cycle = nextOfCycle('0 */5 * * * ?', inRepeatedHour, inRepeatedHour)!;
      expect(cycle.due.getTime()).toBeGreaterThan(inRepeatedHour.getTime());
      // Spring forward: 02:30 does not exist that day; the next 02:30 is the day after.
      expect(next('0 30 2 * * ?', new Date('2026-03-08T05:00:00Z'))).toEqual(
        new Date('2026-03-09T06:30:00Z'),
      );
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('refuses what it does not read, naming why', () => {
    expect(cronProblem('0 0 12 L * ?')).toBe(
      'the day of the month "L" uses L, W or #, which are not supported',
    );
    expect(cronProblem('0 0 12 ? * 6#3')).toBe(
      'the day of the week "6#3" uses L, W or #, which are not supported',
    );
    expect(cronProblem('0 0 12 1 * MON')).toBe(
      'a day of the month and a day of the week together are not supported (one must be ?)',
    );
    expect(cronProblem('0 0 25 * * ?')).toBe('the hour "25" is not from 0 to 23');
    expect(cronProblem('0 12 * * *')).toBe(
      'a cron expression has 6 or 7 fields (second to day of the week, and a year), not 5',
    );
    expect(cronProblem('0 0 0 30 2 ?')).toBe('it is never due in the next 10 years');
    for (const field of ['0/15/3', '1-2-3', '*/1e1'])
      expect(cronProblem(`0 ${field} * * * ?`)).toBe(
        `the minute "${field}" is not a value, a range, a step or a list of them`,
      );
    expect(cronProblem('0 0 9 ? * WED')).toBeUndefined();
  });

  it('a cron cycle repeats for ever, and a late firing is followed by the next time after now, not by every missed one', () => {
    const firedLate = local(2026, 1, 1, 8);
    const now = local(2026, 1, 3, 8, 30);
    expect(nextOfCycle('0 0 * * * ?', firedLate, now)).toEqual({
      cycle: '0 0 * * * ?',
      due: local(2026, 1, 3, 9),
    });
    expect(nextOfCycle('0 0 * * * ?', firedLate)).toEqual({
      cycle: '0 0 * * * ?',
      due: local(2026, 1, 1, 9),
    });
    expect(firstDue({ cycle: '0 0 9 ? * MON-FRI' }, local(2026, 12, 5, 12))).toEqual(local(2026, 12, 7, 9));
  });
});

describe('which timers repeat', () => {
  const node = (parts: Partial<ProcessNode>): ProcessNode => ({
    id: 'b',
    type: 'boundaryEvent',
    incoming: [],
    outgoing: [],
    ...parts,
  });

  it('a cycle on a non-interrupting boundary or event sub-process start; nothing else', () => {
    expect(repeatingCycle(node({ timer: { cycle: 'R3/PT1H' }, isNonInterrupting: true }))).toBe('R3/PT1H');
    expect(repeatingCycle(node({ timer: { cycle: 'R3/PT1H' } }))).toBeNull();
    expect(repeatingCycle(node({ timer: { duration: 'PT1H' }, isNonInterrupting: true }))).toBeNull();
  });
});
