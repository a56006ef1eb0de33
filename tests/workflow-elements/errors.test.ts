import { describe, expect, it } from 'vitest';
import {
  handlerAt,
  handlerInScopes,
  interrupts,
} from '../../src/server/features/workflow/services/elements/errors.js';
import type { ProcessGraph } from '../../src/server/features/workflow/services/graph.js';
import { graphOf as graphWith } from '../support/element-graph.js';
import { MemoryTokens } from '../support/memory-tokens.js';
import { flow } from '../support/workflow.js';

/** Which handler catches a thrown error or escalation, without a database. */

const ERRORS = `<error id="errA" errorCode="A"/><error id="errB" errorCode="B"/><escalation id="escA" escalationCode="A"/>`;

const graphOf = (body: string): Promise<ProcessGraph> => graphWith(body, { beside: ERRORS });

/** A boundary error event on `attachedTo`, catching `ref` (any error without one), with a way out. */
const errorBoundary = (id: string, attachedTo: string, ref?: string): string =>
  `<boundaryEvent id="${id}" attachedToRef="${attachedTo}"><errorEventDefinition${ref ? ` errorRef="${ref}"` : ''}/></boundaryEvent>
  ${flow(`${id}_out`, id, `${id}_end`)}<endEvent id="${id}_end"/>`;

/** An event sub-process started by an error (`ref`) or escalation, interrupting or not. */
const eventSubProcess = (id: string, definition: string, interrupting = true): string =>
  `<subProcess id="${id}" triggeredByEvent="true"><startEvent id="${id}_start" isInterrupting="${interrupting}">${definition}</startEvent>
  ${flow(`${id}_f`, `${id}_start`, `${id}_end`)}<endEvent id="${id}_end"/></subProcess>`;

describe('catching a thrown error or escalation', () => {
  it('on the activity: the boundary event naming the code wins over the one catching any', async () => {
    const graph = await graphOf(
      `<startEvent id="s"/>${flow('f0', 's', 'work')}<serviceTask id="work" camunda:type="external" camunda:topic="t"/>
      ${flow('f1', 'work', 'e')}<endEvent id="e"/>${errorBoundary('any', 'work')}${errorBoundary('onA', 'work', 'errA')}`,
    );
    const tokens = new MemoryTokens();
    const execution = { id: tokens.put('work'), parent_id: null };
    const node = graph.nodes.work!;
    const caughtA = await handlerAt({ tokens, graph, node, execution, thrown: { kind: 'error', code: 'A' } });
    expect(caughtA).toMatchObject({ boundary: { id: 'onA' }, execution });
    const caughtB = await handlerAt({ tokens, graph, node, execution, thrown: { kind: 'error', code: 'B' } });
    expect(caughtB).toMatchObject({ boundary: { id: 'any' } });
    // An escalation is not an error: no boundary of the activity catches it, and nothing else does.
    expect(
      await handlerAt({ tokens, graph, node, execution, thrown: { kind: 'escalation', code: 'A' } }),
    ).toBe(undefined);
  });

  it('inside a sub-process: its event sub-process first, then its boundary, then the process’s own', async () => {
    const inner = (withEventSubProcess: boolean): string =>
      `<subProcess id="sub"><startEvent id="in_s"/>${flow('in_f0', 'in_s', 'work')}<serviceTask id="work" camunda:type="external" camunda:topic="t"/>
      ${flow('in_f1', 'work', 'in_e')}<endEvent id="in_e"/>${withEventSubProcess ? eventSubProcess('inner_esp', '<errorEventDefinition errorRef="errA"/>') : ''}</subProcess>`;
    const outer = (withEventSubProcess: boolean): Promise<ProcessGraph> =>
      graphOf(
        `<startEvent id="s"/>${flow('f0', 's', 'sub')}${inner(withEventSubProcess)}${flow('f1', 'sub', 'e')}<endEvent id="e"/>
        ${errorBoundary('onSub', 'sub', 'errA')}${eventSubProcess('process_esp', '<errorEventDefinition/>')}`,
      );
    const tokens = new MemoryTokens();
    const subToken = tokens.put('sub', 'scope');
    const work = { id: tokens.put('work', 'active', subToken), parent_id: subToken };
    const thrownA = { kind: 'error' as const, code: 'A' };

    const caughtIn = async (graph: ProcessGraph, thrown = thrownA) =>
      handlerAt({ tokens, graph, node: graph.nodes.work!, execution: work, thrown });

    expect(await caughtIn(await outer(true))).toMatchObject({
      start: { id: 'inner_esp_start' },
      scopeId: subToken,
    });
    const withoutInner = await outer(false);
    expect(await caughtIn(withoutInner)).toMatchObject({
      boundary: { id: 'onSub' },
      execution: { id: subToken, parent_id: null },
    });

    // Code B: the sub-process's boundary names A, so the process's catch-all event sub-process takes it.
    expect(await caughtIn(withoutInner, { kind: 'error', code: 'B' })).toMatchObject({
      start: { id: 'process_esp_start' },
      scopeId: null,
    });
  });

  it('from a sub-process in a sub-process, the outer one’s boundary catches it, on the outer token', async () => {
    const graph = await graphOf(
      `<startEvent id="s"/>${flow('f0', 's', 'outer')}
      <subProcess id="outer"><startEvent id="o_s"/>${flow('o_f0', 'o_s', 'inner')}
        <subProcess id="inner"><startEvent id="i_s"/>${flow('i_f0', 'i_s', 'work')}<serviceTask id="work" camunda:type="external" camunda:topic="t"/>
          ${flow('i_f1', 'work', 'i_e')}<endEvent id="i_e"/></subProcess>
        ${flow('o_f1', 'inner', 'o_e')}<endEvent id="o_e"/></subProcess>
      ${flow('f1', 'outer', 'e')}<endEvent id="e"/>${errorBoundary('onOuter', 'outer')}`,
    );
    const tokens = new MemoryTokens();
    const outerToken = tokens.put('outer', 'scope');
    const innerToken = tokens.put('inner', 'scope', outerToken);
    const work = { id: tokens.put('work', 'active', innerToken), parent_id: innerToken };
    const caught = await handlerAt({
      tokens,
      graph,
      node: graph.nodes.work!,
      execution: work,
      thrown: { kind: 'error', code: 'A' },
    });
    expect(caught).toMatchObject({
      boundary: { id: 'onOuter' },
      execution: { id: outerToken, parent_id: null },
    });
  });

  it('an error thrown inside an event sub-process is not caught by that event sub-process again', async () => {
    const graph = await graphOf(
      `<startEvent id="s"/>${flow('f0', 's', 'work')}<userTask id="work"/>${flow('f1', 'work', 'e')}<endEvent id="e"/>
      ${eventSubProcess('esp', '<errorEventDefinition/>')}`,
    );
    const tokens = new MemoryTokens();
    const scope = tokens.put('esp', 'scope');
    // Thrown in the event sub-process's own scope: the walk leaves it and finds no other catcher.
    expect(
      await handlerInScopes({
        tokens,
        graph,
        scopeId: 'esp',
        scopeExecution: scope,
        thrown: { kind: 'error', code: 'A' },
      }),
    ).toBeUndefined();
  });

  it('a non-interrupting escalation event sub-process runs beside what threw; an error one interrupts it', async () => {
    const graph = await graphOf(
      `<startEvent id="s"/>${flow('f0', 's', 'work')}<userTask id="work"/>${flow('f1', 'work', 'e')}<endEvent id="e"/>
      ${eventSubProcess('beside', '<escalationEventDefinition escalationRef="escA"/>', false)}
      ${eventSubProcess('instead', '<errorEventDefinition errorRef="errA"/>')}`,
    );
    const tokens = new MemoryTokens();
    const execution = { id: tokens.put('work'), parent_id: null };
    const node = graph.nodes.work!;
    const escalated = await handlerAt({
      tokens,
      graph,
      node,
      execution,
      thrown: { kind: 'escalation', code: 'A' },
    });
    expect(escalated).toMatchObject({ start: { id: 'beside_start' } });
    expect(interrupts(escalated!)).toBe(false);
    const failed = await handlerAt({ tokens, graph, node, execution, thrown: { kind: 'error', code: 'A' } });
    expect(failed).toMatchObject({ start: { id: 'instead_start' } });
    expect(interrupts(failed!)).toBe(true);
  });
});
