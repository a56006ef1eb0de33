import { describe, expect, it } from 'vitest';
import {
  childDone,
  childLocals,
  loopItems,
  openLoop,
  runLoopInline,
  type LoopState,
} from '../../src/server/features/workflow/services/elements/multi-instance.js';
import type { ProcessNode } from '../../src/server/features/workflow/services/graph.js';
import { nodeBetween } from '../support/element-graph.js';

/** Multi-instance semantics without a database: the node of a real file, the loop state in hand. */

/** A user task `sign` with the given loop characteristics (attributes and children). */
const signTask = (attributes: string, children = ''): Promise<ProcessNode> =>
  nodeBetween(
    `<userTask id="sign" name="sign"><multiInstanceLoopCharacteristics ${attributes}>${children}</multiInstanceLoopCharacteristics></userTask>`,
    'sign',
  );

const ANY_ONE = '<completionCondition>${nrOfCompletedInstances >= 1}</completionCondition>';

describe('what a loop runs over', () => {
  it('a collection variable: its items, each child seeing its own as the element variable', async () => {
    const node = await signTask(
      'isSequential="false" camunda:collection="signers" camunda:elementVariable="signer"',
    );
    const loop = openLoop({ node, variables: { signers: ['li', 'wang', 'zhao'] } })!;
    expect(loop.children).toEqual([0, 1, 2]);
    expect(childLocals({ node, state: loop.state, index: 1 })).toEqual({
      loopCounter: 1,
      signer: 'wang',
      nrOfInstances: 3,
      nrOfActiveInstances: 3,
      nrOfCompletedInstances: 0,
    });
  });

  it('a collection expression is evaluated', async () => {
    const node = await signTask('isSequential="false" camunda:collection="${order.signers}"');
    expect(loopItems({ node, variables: { order: { signers: ['a', 'b'] } } })).toEqual(['a', 'b']);
  });

  it('a loop cardinality: as many children, counted from 0', async () => {
    const node = await signTask('isSequential="false"', '<loopCardinality>${copies}</loopCardinality>');
    expect(loopItems({ node, variables: { copies: 3 } })).toEqual([0, 1, 2]);
  });

  it('an unset collection variable is an error naming it (the incident names what a retry may give)', async () => {
    const node = await signTask('isSequential="false" camunda:collection="signers"');
    expect(() => loopItems({ node, variables: {} })).toThrow(
      expect.objectContaining({ variable: 'signers', message: 'the collection variable signers is not set' }),
    );
  });

  it('a collection that is not a list, or a cardinality past 1000, is an error', async () => {
    const collection = await signTask('isSequential="false" camunda:collection="signers"');
    expect(() => loopItems({ node: collection, variables: { signers: 'li' } })).toThrow(/is not a list/);
    const counted = await signTask('isSequential="false"', '<loopCardinality>${copies}</loopCardinality>');
    expect(() => loopItems({ node: counted, variables: { copies: 1001 } })).toThrow(
      /whole number up to 1000/,
    );
    expect(() => loopItems({ node: counted, variables: { copies: 2.5 } })).toThrow(/whole number up to 1000/);
  });

  it('no items: no loop, the token goes on at once', async () => {
    const node = await signTask('isSequential="false" camunda:collection="signers"');
    expect(openLoop({ node, variables: { signers: [] } })).toBeUndefined();
  });
});

describe('a loop in progress', () => {
  it('parallel (会签): every child at once; the loop is over when the last is done', async () => {
    const node = await signTask('isSequential="false"', '<loopCardinality>3</loopCardinality>');
    const loop = openLoop({ node, variables: {} })!;
    expect(loop.children).toEqual([0, 1, 2]);
    let state: LoopState = loop.state;
    for (const expected of [false, false, true]) {
      const done = childDone({ node, state, variables: {} });
      expect(done.isOver).toBe(expected);
      expect('start' in done && done.start !== undefined).toBe(false);
      state = done.state;
    }
    expect(state).toMatchObject({ completed: 3, active: 0 });
  });

  it('sequential: one child at a time, the next started when one is done', async () => {
    const node = await signTask(
      'isSequential="true" camunda:collection="signers" camunda:elementVariable="signer"',
    );
    const loop = openLoop({ node, variables: { signers: ['li', 'wang'] } })!;
    expect(loop.children).toEqual([0]);
    const first = childDone({ node, state: loop.state, variables: {} });
    expect(first).toMatchObject({ isOver: false, start: 1, state: { completed: 1, active: 1, next: 2 } });
    expect(childLocals({ node, state: first.state, index: 1 })).toMatchObject({
      loopCounter: 1,
      signer: 'wang',
    });
    expect(childDone({ node, state: first.state, variables: {} }).isOver).toBe(true);
  });

  it('a completion condition ends it early (或签: any one of them)', async () => {
    const node = await signTask('isSequential="false"', `<loopCardinality>3</loopCardinality>${ANY_ONE}`);
    const loop = openLoop({ node, variables: {} })!;
    expect(childDone({ node, state: loop.state, variables: {} })).toMatchObject({
      isOver: true,
      state: { completed: 1, active: 2 },
    });
  });

  it('the completion condition sees the instance variables beside the counts', async () => {
    const node = await signTask(
      'isSequential="false"',
      '<loopCardinality>3</loopCardinality><completionCondition>${rejected || nrOfCompletedInstances == nrOfInstances}</completionCondition>',
    );
    const loop = openLoop({ node, variables: {} })!;
    expect(childDone({ node, state: loop.state, variables: { rejected: false } }).isOver).toBe(false);
    expect(childDone({ node, state: loop.state, variables: { rejected: true } }).isOver).toBe(true);
  });
});

describe('a loop that waits for nothing (service task, plain task)', () => {
  it('runs once per item, one after another, each counted before it runs, until the condition holds', async () => {
    const node = await signTask(
      'isSequential="false" camunda:collection="items" camunda:elementVariable="item"',
      ANY_ONE,
    );
    const seen: unknown[] = [];
    let counted = 0;
    await runLoopInline({
      node,
      variables: { items: ['a', 'b', 'c'] },
      countStep: () => {
        counted += 1;
      },
      each: async (locals) => {
        seen.push(locals.item);
      },
    });
    expect(seen).toEqual(['a']);
    expect(counted).toBe(1);
  });

  it('a step budget that throws stops it before the child runs', async () => {
    const node = await signTask('isSequential="false"', '<loopCardinality>5</loopCardinality>');
    const ran: unknown[] = [];
    let counted = 0;
    const budget = new Error('step budget');
    await expect(
      runLoopInline({
        node,
        variables: {},
        countStep: () => {
          counted += 1;
          if (counted > 2) throw budget;
        },
        each: async (locals) => {
          ran.push(locals.loopCounter);
        },
      }),
    ).rejects.toBe(budget);
    expect(ran).toEqual([0, 1]);
  });
});
