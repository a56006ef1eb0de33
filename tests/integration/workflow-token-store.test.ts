import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlTokens, type TokenStore } from '../../src/server/features/workflow/services/tokens.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { sqlWaits, type WaitStore } from '../../src/server/features/workflow/services/waits.js';
import { MemoryTokens, type MemoryToken } from '../support/memory-tokens.js';
import { MemoryWaits } from '../support/memory-waits.js';
import { bpmn, deploy, flow, start } from '../support/workflow.js';

/**
 * The element behaviours' unit tests (tests/workflow-elements) hand them tokens in memory. Here the
 * same questions are put to the database's store (wf_execution, on the suite's database) and to the
 * memory store, and their answers must be the same: what the unit tests prove holds in the engine.
 */

/** Adds a token to a store; answers its id. */
type AddToken = (activityId: string, state: MemoryToken['state'], parentId: number | null) => Promise<number>;

/** A script of questions and changes; answers what each question answered, ids as token numbers. */
async function transcript(store: TokenStore, add: AddToken): Promise<unknown[]> {
  const ids: number[] = [];
  const numbered = (id: number): number => ids.indexOf(id) + 1;
  const put = async (activityId: string, state: MemoryToken['state'], parentId: number | null = null) => {
    ids.push(await add(activityId, state, parentId));
    return ids[ids.length - 1]!;
  };
  const answers: unknown[] = [];
  const scope = await put('sub', 'scope');
  const a = await put('join', 'active', scope);
  const b = await put('join', 'joining', scope);
  await put('task', 'active', scope);
  await put('other', 'joining');
  await put('other', 'joining');
  answers.push((await store.joiningAt('join')).map(numbered));
  answers.push(
    [await store.parentOf(a), await store.parentOf(scope)].map((id) => (id === null ? null : numbered(id))),
  );
  await store.markJoining(a);
  answers.push((await store.joiningAt('join')).map(numbered));
  answers.push((await store.standingExceptJoiningAt('join')).sort());
  answers.push(
    (await store.firstJoiningPerJoin())
      .map((row) => ({
        ...row,
        id: numbered(row.id),
        parentId: row.parentId === null ? null : numbered(row.parentId),
      }))
      .sort((x, y) => x.activityId.localeCompare(y.activityId)),
  );
  await store.remove([b]);
  await store.remove([]);
  await store.activate(a);
  answers.push((await store.joiningAt('join')).map(numbered));
  answers.push((await store.standingExceptJoiningAt('other')).sort());
  answers.push((await store.firstJoiningPerJoin()).map((row) => numbered(row.id)));
  // The interpreter's own token writes and questions.
  const at = (token: { activityId: string; parentId: number | null } | undefined) =>
    token && { ...token, parentId: token.parentId === null ? null : numbered(token.parentId) };
  const call = await put('call', 'active');
  ids.push(await store.add('later', scope));
  const later = ids[ids.length - 1]!;
  await store.wait(call);
  answers.push(at(await store.waitingAt(call)), at(await store.waitingAt(later)), at(await store.at(later)));
  answers.push(
    (await store.liveAt(['call', 'later', 'join', 'sub'])).map((token) => ({
      ...at(token),
      id: numbered(token.id),
      state: token.state,
    })),
  );
  answers.push(await store.liveAt([]));
  answers.push(
    (await store.wakeWaitingAt(['call', 'later'])).map((token) => ({ ...at(token), id: numbered(token.id) })),
  );
  answers.push(await store.wakeWaitingAt(['call']));
  await store.moveTo(later, 'boundary');
  await store.stopAt(call, 'broken');
  answers.push(at(await store.at(later)), at(await store.at(call)), (await store.liveAt(['broken'])).length);
  await store.wait(later);
  await store.activateOutOfLoop(later);
  answers.push(await store.waitingAt(later), await store.exists(later), await store.hasChildren(scope));
  answers.push(await store.hasChildren(later));
  await store.remove([later]);
  answers.push(await store.exists(later), await store.at(later));
  // A token that is gone: changes to it change nothing, as an update of no row.
  await store.wait(later);
  await store.activate(later);
  await store.moveTo(later, 'elsewhere');
  await store.stopAt(later, 'elsewhere');
  await store.remove([later]);
  answers.push(await store.liveToken(later, 'boundary'), await store.liveAt(['elsewhere']));
  answers.push(
    await store.liveToken(call, 'broken'),
    await store.liveToken(a, 'call'),
    (await store.liveToken(a, 'join'))?.state,
  );
  // A loop: its counts kept with its token, children with their variables, all gone when it is over.
  const looping = await put('mi', 'active');
  const counts = { items: ['x', 'y'], total: 2, completed: 0, active: 2, next: 2 };
  answers.push(await store.loopOf(looping));
  await store.openLoop(looping, counts);
  const first = await store.add('mi', looping, { isScope: false, locals: { item: 'x' } });
  const second = await store.add('mi', looping, { isScope: true, locals: { item: 'y' } });
  answers.push(
    await store.loopOf(looping),
    (await store.liveAt(['mi'])).map((token) => [numbered(token.id) || 'child', token.state]),
  );
  await store.remove([first]);
  await store.saveLoop(looping, { ...counts, completed: 1, active: 1 });
  answers.push(await store.loopOf(looping), await store.parentOf(second).then((id) => id === looping));
  await store.removeChildren(looping);
  answers.push(await store.hasChildren(looping), await store.exists(second));
  await store.activateOutOfLoop(looping);
  answers.push(await store.loopOf(looping), (await store.liveAt(['mi']))[0]?.state);
  // Compensation: handlers start under a token waiting for them, in order; each that ends says
  // whether another is left beside it, and where its scope stands and in which state.
  const thrower = await store.add('throw', null);
  await store.moveTo(thrower, 'throw', 'compensating');
  const handlers = await store.addAll(['undoB', 'undoA'], thrower);
  answers.push(
    await store.addAll([], thrower),
    (await store.liveAt(['undoA', 'undoB'])).map((token) => [token.activityId, token.parentId === thrower]),
    handlers.length === 2 && handlers[0]! < handlers[1]!,
  );
  const ended = [await store.removeFromScope(handlers[0]!), await store.removeFromScope(handlers[1]!)];
  answers.push(
    ended.map((left) => left && { ...left, scope: { ...left.scope, id: left.scope.id === thrower } }),
  );
  // A token at the top has no scope: none, and it is gone.
  answers.push(await store.removeFromScope(thrower), await store.exists(thrower));
  // The last token of the instance: each removal says whether one is left.
  const rest = [...ids].filter((id) => id !== later && id !== b);
  const lefts: boolean[] = [];
  for (const id of rest) lefts.push(await store.removeAndAnyLeft(id));
  answers.push(lefts);
  return answers;
}

/** What a wait store holds: its subscriptions and jobs, in the order they were made. */
interface WaitsHeld {
  subscriptions: {
    executionId: number | null;
    waitsAt: string;
    catchId: string;
    kind: string;
    name: string;
  }[];
  jobs: {
    executionId: number | null;
    activityId: string;
    kind: string;
    dueAt: string;
    cycle: string | null;
  }[];
  offers: { executionId: number; processKey: string; activityId: string; topic: string }[];
}

/** A script of waits for tokens 1 and 2 (and the instance); answers what it read and what is held after each step. */
async function waitsTranscript(store: WaitStore, held: () => Promise<WaitsHeld>): Promise<unknown[]> {
  const answers: unknown[] = [];
  const at = new Date('2026-12-06T10:00:00Z');
  const later = new Date('2026-12-06T11:00:00Z');
  await store.subscribe(null, '', [{ kind: 'message', name: 'restart', catchId: 'esp_start' }]);
  await store.subscribe(1, 'task', [
    { kind: 'message', name: 'cancel', catchId: 'b_cancel' },
    { kind: 'signal', name: 'alarm', catchId: 'b_alarm' },
  ]);
  // The same catch again: no second subscription.
  await store.subscribe(1, 'task', [{ kind: 'message', name: 'cancel', catchId: 'b_cancel' }]);
  await store.subscribe(2, 'sub', [{ kind: 'signal', name: 'alarm', catchId: 'inner_start' }]);
  await store.subscribe(2, 'sub', []);
  answers.push(
    await store.subscribedAt(['b_alarm', 'esp_start', 'inner_start']),
    await store.subscribedAt([]),
  );
  await store.addTimers([
    { executionId: 1, activityId: 'b_timer', dueAt: at, cycle: null },
    { executionId: 2, activityId: 'inner_timer', dueAt: later, cycle: 'R/PT1H' },
    { executionId: null, activityId: 'esp_timer', dueAt: at, cycle: null },
  ]);
  await store.addTimers([]);
  await store.callService(1, 'call', at);
  await store.callService(1, 'call', later);
  await store.offerWork(1, { processKey: 'p', activityId: 'work', topic: 'first' });
  await store.offerWork(2, { processKey: 'p', activityId: 'other', topic: 'other' });
  // A second offer of the token's replaces its first.
  await store.offerWork(1, { processKey: 'p', activityId: 'work', topic: 'again' });
  answers.push(await held());
  await store.dropWaitsAt(2, ['inner_start', 'inner_timer']);
  await store.dropWaitsAt(2, []);
  answers.push(await held());
  await store.dropJobs(1, ['boundaryTimer']);
  answers.push(await held());
  await store.dropJobs(1, ['serviceCall']);
  await store.unsubscribe(1);
  await store.dropJobs(1, []);
  answers.push(await held());
  return answers;
}

describe('the token store: the database and memory answer alike', () => {
  let t: TestApp;
  let instanceId: number;

  beforeAll(async () => {
    t = await startTestApp();
    await deploy(
      t,
      bpmn(
        'token_store',
        `<startEvent id="s"/>${flow('f', 's', 'w')}<userTask id="w"/>${flow('g', 'w', 'e')}<endEvent id="e"/>`,
      ),
    );
    instanceId = (await start(t, t.auth, 'token_store')).id;
  });

  afterAll(async () => {
    await t.close();
  });

  it('the same script gets the same answers', async () => {
    // The instance's own token (at its task) is set aside so that only the script's tokens stand.
    await t.sql('delete from wf_execution where instance_id = $1', [instanceId]);
    const inDatabase = await transcript(
      sqlTokens(t.app.ctx.db, { tenantCode: 'default', instanceId }),
      async (activityId, state, parentId) => {
        const rows = await t.sql<{ id: string }>(
          `insert into wf_execution (tenant_code, instance_id, activity_id, state, parent_id)
          values ('default', $1, $2, $3, $4) returning id`,
          [instanceId, activityId, state, parentId],
        );
        return Number(rows[0]!.id);
      },
    );
    const memory = new MemoryTokens();
    const inMemory = await transcript(memory, async (activityId, state, parentId) =>
      memory.put(activityId, state, parentId),
    );
    expect(inMemory).toEqual(inDatabase);
    // And the script asks what it means to: the answers are not empty.
    expect(inDatabase[0]).toEqual([3]);
    expect(inDatabase[1]).toEqual([1, null]);
    expect(inDatabase[2]).toEqual([2, 3]);
    expect(inDatabase[5]).toEqual([]);
    // The token added waits nowhere but stands in its scope; the one told to wait does.
    expect(inDatabase.slice(8, 11)).toEqual([
      { activityId: 'call', parentId: null },
      undefined,
      { activityId: 'later', parentId: 1 },
    ]);
    expect(inDatabase[13]).toEqual([{ activityId: 'call', parentId: null, id: 7 }]);
    expect(inDatabase.at(-1)).toEqual([true, true, true, true, true, true, false]);
    // Compensation handlers: in the order given, under their thrower; the first to end leaves the
    // other, the last finds its thrower compensating and alone.
    const compensated = inDatabase.length - 7;
    expect(inDatabase.slice(compensated, compensated + 6)).toEqual([
      [],
      [
        ['undoB', true],
        ['undoA', true],
      ],
      true,
      [
        { scope: { id: true, activityId: 'throw', parentId: null, state: 'compensating' }, othersLeft: true },
        {
          scope: { id: true, activityId: 'throw', parentId: null, state: 'compensating' },
          othersLeft: false,
        },
      ],
      undefined,
      false,
    ]);
    // A gone token is no live token; one stopped at an incident is none either; one active at its node is.
    expect(inDatabase.slice(24, 29)).toEqual([undefined, [], undefined, undefined, 'active']);
    expect(inDatabase.slice(29, 32)).toEqual([
      undefined,
      { items: ['x', 'y'], total: 2, completed: 0, active: 2, next: 2 },
      [
        [9, 'loop'],
        ['child', 'active'],
        ['child', 'scope'],
      ],
    ]);
  });

  it('the wait store: the same script leaves the same subscriptions and jobs', async () => {
    const other = (await start(t, t.auth, 'token_store')).id;
    const inDatabase = await waitsTranscript(
      sqlWaits(t.app.ctx.db, { tenantCode: 'default', instanceId: other }),
      async () => ({
        subscriptions: (
          await t.sql<{
            execution_id: string | null;
            waits_at: string;
            activity_id: string;
            kind: string;
            name: string;
          }>(
            'select execution_id, waits_at, activity_id, kind, name from wf_event_subscription where instance_id = $1 order by id',
            [other],
          )
        ).map((row) => ({
          executionId: row.execution_id === null ? null : Number(row.execution_id),
          waitsAt: row.waits_at,
          catchId: row.activity_id,
          kind: row.kind,
          name: row.name,
        })),
        jobs: (
          await t.sql<{
            execution_id: string | null;
            activity_id: string;
            kind: string;
            due_at: Date;
            cycle: string | null;
          }>(
            'select execution_id, activity_id, kind, due_at, cycle from wf_job where instance_id = $1 order by id',
            [other],
          )
        ).map((row) => ({
          executionId: row.execution_id === null ? null : Number(row.execution_id),
          activityId: row.activity_id,
          kind: row.kind,
          dueAt: new Date(row.due_at).toISOString(),
          cycle: row.cycle,
        })),
        offers: (
          await t.sql<{ execution_id: string; process_key: string; activity_id: string; topic: string }>(
            'select execution_id, process_key, activity_id, topic from wf_external_task where instance_id = $1 order by id',
            [other],
          )
        ).map((row) => ({
          executionId: Number(row.execution_id),
          processKey: row.process_key,
          activityId: row.activity_id,
          topic: row.topic,
        })),
      }),
    );
    const memory = new MemoryWaits();
    const inMemory = await waitsTranscript(memory, async () => ({
      subscriptions: memory.subscriptions.map((held) => ({ ...held })),
      jobs: memory.jobs.map((job) => ({ ...job, dueAt: job.dueAt.toISOString() })),
      offers: memory.offers.map((offer) => ({ ...offer })),
    }));
    expect(inMemory).toEqual(inDatabase);
    expect(memory.notified).toBe(2);
    // What the script means: one subscription per catch, the later call in place of the first.
    expect(inDatabase[0]).toEqual([
      { executionId: null, waitsAt: '', catchId: 'esp_start' },
      { executionId: 1, waitsAt: 'task', catchId: 'b_alarm' },
      { executionId: 2, waitsAt: 'sub', catchId: 'inner_start' },
    ]);
    const after = inDatabase[3] as WaitsHeld;
    expect(after.jobs.map((job) => `${job.activityId}:${job.dueAt.slice(11, 13)}`)).toEqual([
      'b_timer:10',
      'esp_timer:10',
      'call:11',
    ]);
    expect((inDatabase.at(-1) as WaitsHeld).subscriptions.map((held) => held.catchId)).toEqual(['esp_start']);
    expect(after.offers.map((offer) => `${offer.executionId}:${offer.topic}`)).toEqual([
      '2:other',
      '1:again',
    ]);
  });
});
