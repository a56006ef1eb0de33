import { describe, expect, it } from 'vitest';
import { hasCompensation } from '../../src/server/features/workflow/services/graph.js';
import { parseBpmn } from '../../src/server/features/workflow/services/parse.js';
import { bpmn, fixture, flow } from '../support/workflow.js';

/**
 * What the BPMN reader makes of compensation and transactions (compensation-shape.ts), without a
 * database: the peers' own test files read whole, handlers linked to their activities.
 */

describe('compensation and transactions in the peers’ files', () => {
  it('links each compensation boundary event’s activity to its associated handler (Camunda cancelEnd)', async () => {
    const outcome = await parseBpmn(
      fixture(
        'camunda/org/camunda/bpm/engine/test/api/runtime/ProcessInstanceModificationTest.cancelEnd.bpmn20.xml',
      ),
    );
    expect(outcome.problems).toEqual([]);
    const nodes = outcome.graph?.nodes ?? {};
    expect(nodes.tx).toMatchObject({
      type: 'subProcess',
      isTransaction: true,
      cancelBoundary: 'catchCancelTx',
    });
    expect(nodes.txTask?.compensationHandler).toBe('undoTxTask');
    expect(nodes.undoTxTask?.isForCompensation).toBe(true);
    expect(nodes.cancelEnd?.isCancel).toBe(true);
    // The compensation and cancel boundary events are no waits of their activities.
    expect(nodes.txTask?.boundaries).toBeUndefined();
    expect(nodes.tx?.boundaries).toBeUndefined();
    expect(hasCompensation(outcome.graph ?? { key: '', startId: '', nodes: {}, flows: {} })).toBe(true);
  });

  it('reads a throw’s activityRef, and an association inside a sub-process (Camunda, Activiti)', async () => {
    const camunda = await parseBpmn(
      fixture(
        'camunda/org/camunda/bpm/engine/test/bpmn/event/compensate/CompensateEventTest.testCompensateSubprocessWithBoundaryEvent.bpmn20.xml',
      ),
    );
    expect(camunda.problems).toEqual([]);
    expect(camunda.graph?.nodes.throwCompensate?.compensation).toEqual({ activityRef: 'subprocess' });
    expect(camunda.graph?.nodes.subprocess?.compensationHandler).toBe('undoSubprocess');
    const activiti = await parseBpmn(
      fixture(
        'activiti/org/activiti/engine/test/api/event/ActivityEventsTest.testActivityCompensationEvents.bpmn20.xml',
      ),
    );
    expect(activiti.problems).toEqual([]);
    expect(activiti.graph?.nodes.throwCompensation?.compensation).toEqual({});
    expect(activiti.graph?.nodes.usertask?.compensationHandler).toBe('compensate');
  });

  it('a handler that calls Java code is refused once, naming it (no second refusal of its boundary event)', async () => {
    const outcome = await parseBpmn(
      fixture(
        'activiti/org/activiti/engine/test/bpmn/subprocess/transaction/TransactionSubProcessTest.testSimpleCase.bpmn20.xml',
      ),
    );
    expect(outcome.problems.map((problem) => `${problem.field}:${problem.key}`).sort()).toEqual([
      'bookFlight:javaServiceTask',
      'bookHotel:javaServiceTask',
      'chargeCard:javaServiceTask',
      'undoBookFlight:javaServiceTask',
      'undoBookHotel:javaServiceTask',
      'undoChargeCard:javaServiceTask',
    ]);
  });
});

describe('what compensation cannot run is refused, naming the element', () => {
  it('a throw whose activityRef names no activity of its scope', async () => {
    const outcome = await parseBpmn(
      bpmn(
        'badRef',
        `<startEvent id="s"/><userTask id="A"/>
         <boundaryEvent id="onA" attachedToRef="A"><compensateEventDefinition/></boundaryEvent>
         <manualTask id="undoA" isForCompensation="true"/>
         <association id="as" sourceRef="onA" targetRef="undoA"/>
         <intermediateThrowEvent id="t1"><compensateEventDefinition activityRef="nowhere"/></intermediateThrowEvent>
         <endEvent id="e"/>
         ${flow('f1', 's', 'A')}${flow('f2', 'A', 't1')}${flow('f3', 't1', 'e')}`,
      ),
    );
    expect(outcome.problems).toEqual([
      {
        field: 't1',
        key: 'unsupported',
        params: { id: 't1', type: 'compensation of nowhere, which is not an activity of its scope' },
      },
    ]);
  });

  it('a compensation boundary event on a multi-instance activity', async () => {
    const outcome = await parseBpmn(
      bpmn(
        'loopComp',
        `<startEvent id="s"/>
         <userTask id="A"><multiInstanceLoopCharacteristics camunda:collection="\${items}" camunda:elementVariable="item"/></userTask>
         <boundaryEvent id="onA" attachedToRef="A"><compensateEventDefinition/></boundaryEvent>
         <manualTask id="undoA" isForCompensation="true"/>
         <association id="as" sourceRef="onA" targetRef="undoA"/>
         <endEvent id="e"/>${flow('f1', 's', 'A')}${flow('f2', 'A', 'e')}`,
      ),
    );
    expect(outcome.problems.map((problem) => problem.field)).toEqual(['onA']);
  });
});
