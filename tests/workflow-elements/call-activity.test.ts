import { describe, expect, it } from 'vitest';
import {
  calledKey,
  variablesIn,
  variablesOut,
} from '../../src/server/features/workflow/services/elements/call-activity.js';
import type { CallSpec } from '../../src/server/features/workflow/services/graph.js';
import { nodeBetween } from '../support/element-graph.js';

/** Call-activity semantics without a database: the called process and the variables passed. */

async function callOf(callActivity: string): Promise<CallSpec> {
  const call = (await nodeBetween(callActivity, 'call')).call;
  if (!call) throw new Error('no call');
  return call;
}

describe('a call activity', () => {
  it('calls the process its called element names, expressions evaluated', async () => {
    const call = await callOf('<callActivity id="call" calledElement="review_${region}"/>');
    expect(calledKey({ call, variables: { region: 'east' } })).toBe('review_east');
  });

  it('passes in only what its mappings name: a variable renamed, an expression, an unset source not at all', async () => {
    const call = await callOf(
      `<callActivity id="call" calledElement="child"><extensionElements>
        <camunda:in source="amount" target="budget"/>
        <camunda:in sourceExpression="\${amount * 2}" target="doubled"/>
        <camunda:in source="missing" target="absent"/>
      </extensionElements></callActivity>`,
    );
    expect(variablesIn({ call, variables: { amount: 50, secret: 'x' } })).toEqual({
      budget: 50,
      doubled: 100,
    });
  });

  it('variables="all" passes every variable, the mappings over them', async () => {
    const call = await callOf(
      `<callActivity id="call" calledElement="child"><extensionElements>
        <camunda:in variables="all"/><camunda:in source="amount" target="amount2"/>
      </extensionElements></callActivity>`,
    );
    expect(variablesIn({ call, variables: { amount: 50, region: 'east' } })).toEqual({
      amount: 50,
      region: 'east',
      amount2: 50,
    });
  });

  it('takes back what its out mappings name from the called instance (Activiti markup)', async () => {
    const call = await callOf(
      `<callActivity id="call" calledElement="child" xmlns:activiti="http://activiti.org/bpmn"><extensionElements>
        <activiti:out source="verdict" target="childVerdict"/>
      </extensionElements></callActivity>`,
    );
    expect(variablesIn({ call, variables: { amount: 50 } })).toEqual({});
    expect(variablesOut({ call, calledVariables: { verdict: 'ok', scratch: 1 } })).toEqual({
      childVerdict: 'ok',
    });
  });
});
