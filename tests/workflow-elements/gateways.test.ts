import { describe, expect, it } from 'vitest';
import {
  chooseFlows,
  joined,
  releasableJoins,
} from '../../src/server/features/workflow/services/elements/gateways.js';
import { MemoryTokens } from '../support/memory-tokens.js';
import { graphOf } from '../support/element-graph.js';
import { flow } from '../support/workflow.js';

/** The gateways' semantics, without a database: the graph of a real file, the tokens in memory. */

const task = (id: string): string => `<userTask id="${id}" name="${id}"/>`;

/** start → split (of the given type) → a, b, c by conditional flows (c the default when given) → end */
async function split(
  type: 'exclusiveGateway' | 'inclusiveGateway' | 'parallelGateway',
  withDefault: boolean,
) {
  return graphOf(
    `<startEvent id="s"/>${flow('f0', 's', 'g')}
    <${type} id="g"${withDefault ? ' default="toC"' : ''}/>
    ${flow('toA', 'g', 'a', '${amount > 100}')}${flow('toB', 'g', 'b', '${amount > 10}')}${flow('toC', 'g', 'c')}
    ${task('a')}${task('b')}${task('c')}
    ${flow('fa', 'a', 'e')}${flow('fb', 'b', 'e')}${flow('fc', 'c', 'e')}<endEvent id="e"/>`,
  );
}

describe('choosing flows', () => {
  it('an exclusive gateway takes the first flow whose condition holds, in the order of the file', async () => {
    const graph = await split('exclusiveGateway', true);
    const node = graph.nodes.g!;
    expect(chooseFlows({ graph, node, variables: { amount: 500 } })).toEqual(['toA']);
    expect(chooseFlows({ graph, node, variables: { amount: 50 } })).toEqual(['toB']);
  });

  it('an exclusive gateway takes its default flow only when no condition holds', async () => {
    const graph = await split('exclusiveGateway', true);
    expect(chooseFlows({ graph, node: graph.nodes.g!, variables: { amount: 1 } })).toEqual(['toC']);
  });

  it('an exclusive gateway without a default takes a flow without a condition', async () => {
    const graph = await split('exclusiveGateway', false);
    expect(chooseFlows({ graph, node: graph.nodes.g!, variables: { amount: 1 } })).toEqual(['toC']);
  });

  it('an inclusive gateway takes every flow whose condition holds, and the default only when none does', async () => {
    const graph = await split('inclusiveGateway', true);
    const node = graph.nodes.g!;
    expect(chooseFlows({ graph, node, variables: { amount: 500 } })).toEqual(['toA', 'toB']);
    expect(chooseFlows({ graph, node, variables: { amount: 50 } })).toEqual(['toB']);
    expect(chooseFlows({ graph, node, variables: { amount: 1 } })).toEqual(['toC']);
  });

  it('a parallel gateway takes every flow and reads no condition', async () => {
    const graph = await split('parallelGateway', false);
    // No variable is set: a condition read would be an unset variable.
    expect(chooseFlows({ graph, node: graph.nodes.g!, variables: {} })).toEqual(['toA', 'toB', 'toC']);
  });

  it('no flow left is an incident naming the gateway (the caller refuses the request or stops the token)', async () => {
    const graph = await graphOf(
      `<startEvent id="s"/>${flow('f0', 's', 'g')}<exclusiveGateway id="g"/>
      ${flow('toA', 'g', 'a', '${amount > 100}')}${task('a')}${flow('fa', 'a', 'e')}<endEvent id="e"/>`,
    );
    expect(chooseFlows({ graph, node: graph.nodes.g!, variables: { amount: 1 } })).toEqual({
      activityId: 'g',
      flowId: null,
      message: 'no outgoing flow matches',
    });
  });

  it('a condition naming an unset variable is an incident naming the flow and the variable', async () => {
    const graph = await split('exclusiveGateway', true);
    const chosen = chooseFlows({ graph, node: graph.nodes.g!, variables: {} });
    expect(chosen).toMatchObject({ activityId: 'g', flowId: 'toA', variable: 'amount' });
  });

  it("a flow's skip expression decides in place of its condition while skip expressions apply", async () => {
    const graph = await graphOf(
      `<startEvent id="s"/>${flow('f0', 's', 'g')}<exclusiveGateway id="g" default="toB"/>
      <sequenceFlow id="toA" sourceRef="g" targetRef="a" activiti:skipExpression="\${go}" xmlns:activiti="http://activiti.org/bpmn">
        <conditionExpression xsi:type="tFormalExpression">\${false}</conditionExpression></sequenceFlow>
      ${flow('toB', 'g', 'b')}${task('a')}${task('b')}${flow('fa', 'a', 'e')}${flow('fb', 'b', 'e')}<endEvent id="e"/>`,
    );
    const node = graph.nodes.g!;
    expect(chooseFlows({ graph, node, variables: { go: true } })).toEqual(['toB']);
    expect(
      chooseFlows({ graph, node, variables: { go: true, _ACTIVITI_SKIP_EXPRESSION_ENABLED: true } }),
    ).toEqual(['toA']);
  });
});

/** start → fork (parallel or inclusive) → a, b → join of the same type → end */
async function forkJoin(type: 'parallelGateway' | 'inclusiveGateway') {
  return graphOf(
    `<startEvent id="s"/>${flow('f0', 's', 'fork')}<${type} id="fork"/>
    ${flow('toA', 'fork', 'a')}${flow('toB', 'fork', 'b')}${task('a')}${task('b')}
    ${flow('fa', 'a', 'join')}${flow('fb', 'b', 'join')}<${type} id="join"/>${flow('out', 'join', 'e')}<endEvent id="e"/>`,
  );
}

describe('joins', () => {
  it('a parallel join waits for a token by every incoming flow; the last one carries the branches on', async () => {
    const graph = await forkJoin('parallelGateway');
    const tokens = new MemoryTokens();
    const first = tokens.put('join');
    tokens.put('b');
    expect(await joined({ tokens, graph, node: graph.nodes.join!, executionId: first })).toBe(false);
    expect(tokens.standing()).toEqual(['join:joining', 'b:active']);
    const second = tokens.tokens[1]!.id;
    tokens.tokens[1]!.activityId = 'join';
    expect(await joined({ tokens, graph, node: graph.nodes.join!, executionId: second })).toBe(true);
    expect(tokens.tokens).toEqual([{ id: second, activityId: 'join', state: 'active', parentId: null }]);
  });

  it('an inclusive join reached by two tokens of one fork together goes on once (Activiti testMergingInclusiveGateway)', async () => {
    const graph = await forkJoin('inclusiveGateway');
    const tokens = new MemoryTokens();
    // Both branches were taken to the join in one run: the second is queued, not yet joining.
    const first = tokens.put('join');
    const second = tokens.put('join');
    const node = graph.nodes.join!;
    expect(await joined({ tokens, graph, node, executionId: first })).toBe(false);
    expect(await joined({ tokens, graph, node, executionId: second })).toBe(true);
    expect(tokens.standing()).toEqual(['join:active']);
    expect(tokens.tokens[0]!.id).toBe(second);
  });

  it('an inclusive join waits while a token stands where it can still reach it', async () => {
    const graph = await forkJoin('inclusiveGateway');
    const tokens = new MemoryTokens();
    const arrived = tokens.put('join');
    tokens.put('b');
    expect(await joined({ tokens, graph, node: graph.nodes.join!, executionId: arrived })).toBe(false);
    expect(tokens.standing()).toEqual(['join:joining', 'b:active']);
    // Nothing releases it while b can still come.
    expect(await releasableJoins({ tokens, graph })).toEqual([]);
  });

  it('an inclusive join whose only other branch was not taken goes on at once', async () => {
    const graph = await forkJoin('inclusiveGateway');
    const tokens = new MemoryTokens();
    const arrived = tokens.put('join');
    expect(await joined({ tokens, graph, node: graph.nodes.join!, executionId: arrived })).toBe(true);
    expect(tokens.standing()).toEqual(['join:active']);
  });

  it('an inclusive join is released once the last token that could reach it has gone another way', async () => {
    const graph = await graphOf(
      `<startEvent id="s"/>${flow('f0', 's', 'fork')}<inclusiveGateway id="fork"/>
      ${flow('toA', 'fork', 'a')}${flow('toB', 'fork', 'b')}${task('a')}${task('b')}
      <exclusiveGateway id="x" default="back"/>${flow('fb', 'b', 'x')}
      ${flow('away', 'x', 'elsewhere', '${leave}')}${flow('back', 'x', 'join')}${task('elsewhere')}${flow('fe', 'elsewhere', 'e2')}<endEvent id="e2"/>
      ${flow('fa', 'a', 'join')}<inclusiveGateway id="join"/>${flow('out', 'join', 'e')}<endEvent id="e"/>`,
    );
    const tokens = new MemoryTokens();
    const waiting = tokens.put('join');
    const other = tokens.put('b');
    expect(await joined({ tokens, graph, node: graph.nodes.join!, executionId: waiting })).toBe(false);
    tokens.tokens.find((token) => token.id === other)!.activityId = 'elsewhere';
    expect(await releasableJoins({ tokens, graph })).toEqual([
      { executionId: waiting, nodeId: 'join', parentId: null },
    ]);
  });

  it('a process without an inclusive join reads no tokens to find joins to release', async () => {
    const graph = await forkJoin('parallelGateway');
    const tokens = new MemoryTokens();
    tokens.put('join', 'joining');
    expect(await releasableJoins({ tokens, graph })).toEqual([]);
    expect(tokens.reads).toBe(0);
  });

  it('a gateway with one incoming flow is no join: the token goes on without waiting', async () => {
    const graph = await forkJoin('parallelGateway');
    const tokens = new MemoryTokens();
    const token = tokens.put('fork');
    expect(await joined({ tokens, graph, node: graph.nodes.fork!, executionId: token })).toBe(true);
    expect(tokens.standing()).toEqual(['fork:active']);
    expect(tokens.reads).toBe(0);
  });
});
