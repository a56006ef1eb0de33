import { describe, expect, it } from 'vitest';
import {
  eventWaitsAt,
  hasEventWaits,
  instanceWaits,
} from '../../src/server/features/workflow/services/graph.js';
import { parseBpmn } from '../../src/server/features/workflow/services/parse.js';
import { holderOfGroup, type GroupHolders } from '../../src/server/features/workflow/services/people.js';
import { bpmn, flow } from '../support/workflow.js';

/**
 * The BPMN reader (features/workflow/services/parse.ts), without a database: what a file of
 * Activiti, Flowable or Camunda becomes, and what it is refused or warned for (issue 36).
 */

const task = (id: string): string => `<userTask id="${id}" name="${id}" camunda:assignee="\${initiator}"/>`;

describe('sequence flows without an id', () => {
  it('each gets its own id naming the elements it joins: the textbook fork and join reads whole', async () => {
    const outcome = await parseBpmn(
      bpmn(
        'noFlowIds',
        `<startEvent id="s"/><sequenceFlow sourceRef="s" targetRef="fork"/>
         <parallelGateway id="fork"/>
         <sequenceFlow sourceRef="fork" targetRef="a"/><sequenceFlow sourceRef="fork" targetRef="b"/>
         ${task('a')}${task('b')}
         <sequenceFlow sourceRef="a" targetRef="join"/><sequenceFlow sourceRef="b" targetRef="join"/>
         <parallelGateway id="join"/><sequenceFlow sourceRef="join" targetRef="e"/><endEvent id="e"/>`,
      ),
    );
    expect(outcome.problems).toEqual([]);
    const graph = outcome.graph;
    expect(Object.keys(graph?.flows ?? {}).sort()).toEqual([
      '#a->join',
      '#b->join',
      '#fork->a',
      '#fork->b',
      '#join->e',
      '#s->fork',
    ]);
    expect(graph?.nodes.fork?.outgoing).toEqual(['#fork->a', '#fork->b']);
    expect(graph?.nodes.join?.incoming).toEqual(['#a->join', '#b->join']);
  });

  it('two id-less flows between the same elements are both kept; ids given are left as they are', async () => {
    const outcome = await parseBpmn(
      bpmn(
        'twice',
        `<startEvent id="s"/>${flow('f0', 's', 'g')}<inclusiveGateway id="g"/>
         <sequenceFlow sourceRef="g" targetRef="t"/><sequenceFlow sourceRef="g" targetRef="t"/>
         ${task('t')}${flow('f1', 't', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(outcome.problems).toEqual([]);
    expect(outcome.graph?.nodes.g?.outgoing).toEqual(['#g->t', '#g->t~2']);
    expect(outcome.graph?.nodes.t?.incoming).toEqual(['#g->t', '#g->t~2']);
    expect(outcome.graph?.nodes.t?.outgoing).toEqual(['f1']);
  });

  it('a condition of an id-less flow is kept with its flow, not with the last one read', async () => {
    const outcome = await parseBpmn(
      bpmn(
        'conditions',
        `<startEvent id="s"/>${flow('f0', 's', 'g')}<exclusiveGateway id="g"/>
         <sequenceFlow sourceRef="g" targetRef="big"><conditionExpression xsi:type="tFormalExpression">\${amount &gt; 100}</conditionExpression></sequenceFlow>
         <sequenceFlow sourceRef="g" targetRef="small"><conditionExpression xsi:type="tFormalExpression">\${amount &lt;= 100}</conditionExpression></sequenceFlow>
         ${task('big')}${task('small')}${flow('f1', 'big', 'e')}${flow('f2', 'small', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(outcome.graph?.flows['#g->big']?.condition).toBe('${amount > 100}');
    expect(outcome.graph?.flows['#g->small']?.condition).toBe('${amount <= 100}');
  });
});

describe('what the reader refuses or reads', () => {
  it('refuses a condition in a script language, naming the flow and the language', async () => {
    const outcome = await parseBpmn(
      bpmn(
        'script',
        `<startEvent id="s"/>${flow('f0', 's', 'g')}<exclusiveGateway id="g" default="fNo"/>
         <sequenceFlow id="fYes" sourceRef="g" targetRef="yes"><conditionExpression xsi:type="tFormalExpression" language="groovy">amount &gt; 100</conditionExpression></sequenceFlow>
         ${flow('fNo', 'g', 'no')}${task('yes')}${task('no')}${flow('f1', 'yes', 'e')}${flow('f2', 'no', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(outcome.graph).toBeUndefined();
    expect(outcome.problems).toEqual([
      { field: 'fYes', key: 'scriptCondition', params: { id: 'fYes', language: 'groovy' } },
    ]);
  });

  it('reads potentialOwner and humanPerformer: users, groups and expressions', async () => {
    const outcome = await parseBpmn(
      bpmn(
        'people',
        `<startEvent id="s"/>${flow('f0', 's', 'approve')}
         <userTask id="approve">
           <potentialOwner><resourceAssignmentExpression><formalExpression>user(kermit), group(management), sales</formalExpression></resourceAssignmentExpression></potentialOwner>
         </userTask>${flow('f1', 'approve', 'archive')}
         <userTask id="archive">
           <humanPerformer><resourceAssignmentExpression><formalExpression>\${initiator}</formalExpression></resourceAssignmentExpression></humanPerformer>
         </userTask>${flow('f2', 'archive', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(outcome.problems).toEqual([]);
    expect(outcome.graph?.nodes.approve).toMatchObject({
      candidateUsers: ['kermit'],
      candidateGroups: ['management', 'sales'],
    });
    expect(outcome.graph?.nodes.archive?.assignee).toBe('${initiator}');
  });

  it('reads terminateAll of a Flowable file without a warning, and names unknown markup with the file’s prefix', async () => {
    const outcome = await parseBpmn(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:flowable="http://flowable.org/bpmn" targetNamespace="t">
  <process id="stopAll" isExecutable="true">
    <startEvent id="s"/>${flow('f0', 's', 'sub')}
    <subProcess id="sub"><startEvent id="s2"/>${flow('f1', 's2', 'stop')}
      <endEvent id="stop"><terminateEventDefinition flowable:terminateAll="true"/></endEvent></subProcess>
    ${flow('f2', 'sub', 'e')}<endEvent id="e" flowable:odd="x"/>
  </process>
</definitions>`);
    expect(outcome.problems).toEqual([]);
    expect(outcome.graph?.nodes.stop).toMatchObject({ isTerminate: true, isTerminateAll: true });
    const warnings = JSON.stringify(outcome.warnings);
    expect(warnings).toContain('flowable:odd');
    expect(warnings).not.toContain('terminateAll');
    expect(warnings).not.toContain('camunda:');
  });
});

describe('implicit ends and pass-through activities', () => {
  it('an activity without an outgoing flow is an implicit end; an event or a gateway without one is still refused', async () => {
    const outcome = await parseBpmn(
      bpmn(
        'implicit',
        `<startEvent id="s"/>${flow('f0', 's', 'fork')}<parallelGateway id="fork"/>
         ${flow('f1', 'fork', 'a')}${flow('f2', 'fork', 'sub')}${flow('f3', 'fork', 'work')}
         ${task('a')}
         <subProcess id="sub"><startEvent id="s2"/>${flow('f4', 's2', 'inner')}${task('inner')}</subProcess>
         <manualTask id="work" name="Sign the paper"/>`,
      ),
    );
    expect(outcome.problems).toEqual([]);
    expect(outcome.graph?.nodes.work).toMatchObject({ type: 'manualTask', outgoing: [] });

    const gateway = await parseBpmn(
      bpmn('deadGateway', `<startEvent id="s"/>${flow('f0', 's', 'g')}<exclusiveGateway id="g"/>`),
    );
    expect(gateway.problems).toEqual([{ field: 'g', key: 'noOutgoing', params: { id: 'g' } }]);
  });

  it('reads task and manualTask as activities a token passes', async () => {
    const outcome = await parseBpmn(
      bpmn(
        'plain',
        `<startEvent id="s"/>${flow('f0', 's', 't')}<task id="t" name="Note it"/>${flow('f1', 't', 'm')}
         <manualTask id="m"/>${flow('f2', 'm', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(outcome.problems).toEqual([]);
    expect(outcome.graph?.nodes.t).toMatchObject({ type: 'task', name: 'Note it' });
    expect(outcome.graph?.nodes.m).toMatchObject({ type: 'manualTask' });
  });
});

describe('group names of other engines (holderOfGroup)', () => {
  const holders: GroupHolders = {
    roles: [
      { code: 'ROLE_ADMIN', name: '超级管理员' },
      { code: 'ROLE_MANAGEMENT', name: 'Management board' },
      { code: 'ROLE_PM', name: 'Purchasing Managers' },
    ],
    posts: [
      { code: 'ceo', name: 'Chief executive' },
      { code: 'ACCT', name: 'accountancy' },
    ],
    orgs: [1, 7],
  };

  it('a bare name is held by the role of that code or ROLE_<NAME>, then the role of that name, then a post, without regard to case', () => {
    expect(holderOfGroup('management', holders)).toBe('role:ROLE_MANAGEMENT');
    expect(holderOfGroup('role_admin', holders)).toBe('role:ROLE_ADMIN');
    expect(holderOfGroup('purchasing managers', holders)).toBe('role:ROLE_PM');
    expect(holderOfGroup('CEO', holders)).toBe('post:ceo');
    expect(holderOfGroup('Accountancy', holders)).toBe('post:ACCT');
    expect(holderOfGroup('sales', holders)).toBeUndefined();
  });

  it('a prefixed group is held when its role, post or organisation exists', () => {
    expect(holderOfGroup('role:ROLE_PM', holders)).toBe('role:ROLE_PM');
    expect(holderOfGroup('role:role_pm', holders)).toBe('role:ROLE_PM');
    expect(holderOfGroup('post:ceo', holders)).toBe('post:ceo');
    expect(holderOfGroup('org:7', holders)).toBe('org:7');
    expect(holderOfGroup('org:8', holders)).toBeUndefined();
    expect(holderOfGroup('role:ROLE_NONE', holders)).toBeUndefined();
  });
});

describe('names with expressions', () => {
  it('a user task name with an expression is read whole; one that cannot be read is refused at deploy', async () => {
    const good = await parseBpmn(
      bpmn(
        'named',
        `<startEvent id="s"/>${flow('f0', 's', 'ask')}<userTask id="ask" name="My Task \${loopCounter}"/>${flow('f1', 'ask', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(good.graph?.nodes.ask?.name).toBe('My Task ${loopCounter}');
    const bad = await parseBpmn(
      bpmn(
        'badName',
        `<startEvent id="s"/>${flow('f0', 's', 'ask')}<userTask id="ask" name="My Task \${count +}"/>${flow('f1', 'ask', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(bad.graph).toBeUndefined();
    expect(bad.problems).toEqual([
      { field: 'ask', key: 'badExpression', params: { id: 'ask', reason: expect.any(String) } },
    ]);
  });
});

describe('boundary, error and intermediate events (issue 36)', () => {
  it('a boundary event may sit on a sub-process or any activity; an error event reads its code', async () => {
    const outcome = await parseBpmn(
      bpmn(
        'boundaries',
        `<startEvent id="s"/>${flow('f1', 's', 'sub')}
         <subProcess id="sub"><startEvent id="ss"/>${flow('c1', 'ss', 'fail')}<endEvent id="fail"><errorEventDefinition errorRef="E_CHECK"/></endEvent></subProcess>
         <boundaryEvent id="caught" attachedToRef="sub"><errorEventDefinition errorRef="E_CHECK"/></boundaryEvent>
         <boundaryEvent id="late" attachedToRef="sub" cancelActivity="false"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
         ${flow('f2', 'sub', 'e')}${flow('f3', 'caught', 'e')}${flow('f4', 'late', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(outcome.problems).toEqual([]);
    expect(outcome.graph?.nodes.sub?.boundaries).toEqual(['caught', 'late']);
    expect(outcome.graph?.nodes.fail?.errorCode).toBe('E_CHECK');
    expect(outcome.graph?.nodes.caught?.errorCode).toBe('E_CHECK');
    expect(outcome.graph?.nodes.late?.isNonInterrupting).toBe(true);
  });

  it('a boundary event without an event definition is refused saying so (issue 36)', async () => {
    const outcome = await parseBpmn(
      bpmn(
        'bareBoundary',
        `<startEvent id="s"/>${flow('f1', 's', 'a')}<userTask id="a"/>${flow('f2', 'a', 'e')}<endEvent id="e"/>
         <boundaryEvent id="bare" attachedToRef="a"/>${flow('f3', 'bare', 'e')}`,
      ),
    );
    expect(outcome.problems).toEqual([
      {
        field: 'bare',
        key: 'unsupported',
        params: { id: 'bare', type: 'BoundaryEvent without an event definition' },
      },
    ]);
  });

  it('a link throw without a catch of its name is refused naming it; an escalation catch is refused naming it', async () => {
    const outcome = await parseBpmn(
      bpmn(
        'links',
        `<startEvent id="s"/>${flow('f1', 's', 'jump')}<intermediateThrowEvent id="jump"><linkEventDefinition name="Nowhere"/></intermediateThrowEvent>
         <intermediateCatchEvent id="cond"><escalationEventDefinition/></intermediateCatchEvent>${flow('f2', 'cond', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(outcome.problems.map((problem) => problem.field).sort()).toEqual(['cond', 'jump']);
    // No flow leads to the catch: a warning (the three engines deploy such an element, never reached).
    expect(outcome.warnings.filter((warning) => warning.key === 'noIncoming')).toEqual([
      { field: 'cond', key: 'noIncoming', params: { id: 'cond' } },
    ]);
    expect(
      outcome.problems.find((problem) => problem.key === 'unsupported' && problem.field === 'cond')?.params,
    ).toEqual({
      id: 'cond',
      type: 'EscalationEventDefinition',
    });
  });
});

/** A file with root elements (messages, signals) beside its process. */
const withRoots = (roots: string, key: string, body: string): string =>
  bpmn(key, body).replace('<process ', `${roots}<process `);

describe('messages, signals and event-based gateways (issue 36)', () => {
  it('reads message catch, receive task, message boundaries and throws by the message name', async () => {
    const outcome = await parseBpmn(
      withRoots(
        '<message id="mOrder" name="order paid"/><message id="mCancel" name="cancel"/>',
        'messages',
        `<startEvent id="s"/>${flow('f1', 's', 'wait')}
         <intermediateCatchEvent id="wait"><messageEventDefinition messageRef="mOrder"/></intermediateCatchEvent>${flow('f2', 'wait', 'receive')}
         <receiveTask id="receive" messageRef="mCancel"/>${flow('f3', 'receive', 'work')}
         ${task('work')}
         <boundaryEvent id="stop" attachedToRef="work"><messageEventDefinition messageRef="mCancel"/></boundaryEvent>
         <boundaryEvent id="remind" attachedToRef="work" cancelActivity="false"><messageEventDefinition messageRef="mOrder"/></boundaryEvent>
         ${flow('f4', 'work', 'tell')}<intermediateThrowEvent id="tell"><messageEventDefinition messageRef="mOrder"/></intermediateThrowEvent>
         ${flow('f5', 'tell', 'e')}<endEvent id="e"><messageEventDefinition messageRef="mCancel"/></endEvent>
         ${flow('f6', 'stop', 'e2')}<endEvent id="e2"/><receiveTask id="bare"/>${flow('f7', 'remind', 'bare')}`,
      ),
    );
    expect(outcome.problems).toEqual([]);
    const graph = outcome.graph;
    expect(graph?.nodes.wait?.messageName).toBe('order paid');
    expect(graph?.nodes.receive).toMatchObject({ type: 'receiveTask', messageName: 'cancel' });
    // A receive task without a message waits for one named by its id.
    expect(graph?.nodes.bare).toMatchObject({ type: 'receiveTask', messageName: 'bare' });
    expect(graph?.nodes.stop).toMatchObject({ messageName: 'cancel', attachedTo: 'work' });
    expect(graph?.nodes.remind).toMatchObject({ messageName: 'order paid', isNonInterrupting: true });
    expect(graph?.nodes.tell?.messageName).toBe('order paid');
    expect(graph?.nodes.e?.messageName).toBe('cancel');
    if (!graph) return;
    expect(eventWaitsAt(graph, 'wait')).toEqual([{ kind: 'message', name: 'order paid', catchId: 'wait' }]);
    expect(eventWaitsAt(graph, 'work')).toEqual([
      { kind: 'message', name: 'cancel', catchId: 'stop' },
      { kind: 'message', name: 'order paid', catchId: 'remind' },
    ]);
    expect(eventWaitsAt(graph, 'tell')).toEqual([]);
    expect(hasEventWaits(graph)).toBe(true);
  });

  it('a message throw or send task that calls code is refused naming the element', async () => {
    const outcome = await parseBpmn(
      bpmn(
        'calls',
        `<startEvent id="s"/>${flow('f1', 's', 'tell')}
         <intermediateThrowEvent id="tell"><messageEventDefinition camunda:class="x.Send"/></intermediateThrowEvent>${flow('f2', 'tell', 'mail')}
         <sendTask id="mail" name="Mail it" camunda:delegateExpression="\${mailer}"/>${flow('f3', 'mail', 'plain')}
         <sendTask id="plain"/>${flow('f4', 'plain', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(outcome.graph).toBeUndefined();
    expect(outcome.problems.map((problem) => [problem.field, problem.key])).toEqual([
      ['tell', 'javaThrowEvent'],
      ['mail', 'javaServiceTask'],
    ]);
    expect(outcome.problems[1]?.params).toEqual(
      expect.objectContaining({
        label: 'mail (Mail it)',
        attribute: 'delegateExpression',
        code: '${mailer}',
      }),
    );
    expect(outcome.warnings).toEqual([]);
  });

  it('message and signal start events: a process with only them starts at the first; each is found by name', async () => {
    const outcome = await parseBpmn(
      withRoots(
        '<message id="m" name="new order"/><signal id="sig" name="alarm"/>',
        'eventStarts',
        `<startEvent id="byMessage"><messageEventDefinition messageRef="m"/></startEvent>${flow('f1', 'byMessage', 't')}
         <startEvent id="bySignal"><signalEventDefinition signalRef="sig"/></startEvent>${flow('f2', 'bySignal', 't')}
         ${task('t')}${flow('f3', 't', 'e')}<endEvent id="e"><signalEventDefinition signalRef="sig"/></endEvent>`,
      ),
    );
    expect(outcome.problems).toEqual([]);
    expect(outcome.graph?.startId).toBe('byMessage');
    expect(outcome.graph?.messageStarts).toEqual({ 'new order': 'byMessage' });
    expect(outcome.graph?.signalStarts).toEqual({ alarm: 'bySignal' });
    expect(outcome.graph?.nodes.e?.signalName).toBe('alarm');
  });

  it('a none start stays the start beside a message start; two starts for one message are refused', async () => {
    const both = await parseBpmn(
      bpmn(
        'both',
        `<startEvent id="none"/>${flow('f1', 'none', 't')}<startEvent id="m"><messageEventDefinition/></startEvent>${flow('f2', 'm', 't')}
         ${task('t')}${flow('f3', 't', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(both.graph?.startId).toBe('none');
    expect(both.graph?.messageStarts).toEqual({ m: 'm' });
    const twice = await parseBpmn(
      withRoots(
        '<message id="msg" name="go"/>',
        'twice',
        `<startEvent id="a"><messageEventDefinition messageRef="msg"/></startEvent>${flow('f1', 'a', 't')}
         <startEvent id="b"><messageEventDefinition messageRef="msg"/></startEvent>${flow('f2', 'b', 't')}
         ${task('t')}${flow('f3', 't', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(twice.problems.map((problem) => problem.field)).toEqual(['b']);
  });

  it('an event-based gateway leads to catch events, which note it; anything else after it is refused naming it', async () => {
    const outcome = await parseBpmn(
      withRoots(
        '<message id="m" name="answer"/><signal id="sig" name="alarm"/>',
        'race',
        `<startEvent id="s"/>${flow('f1', 's', 'g')}<eventBasedGateway id="g"/>
         ${flow('g1', 'g', 'answer')}<intermediateCatchEvent id="answer"><messageEventDefinition messageRef="m"/></intermediateCatchEvent>
         ${flow('g2', 'g', 'alarm')}<intermediateCatchEvent id="alarm"><signalEventDefinition signalRef="sig"/></intermediateCatchEvent>
         ${flow('g3', 'g', 'late')}<intermediateCatchEvent id="late"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>
         ${flow('a1', 'answer', 'e')}${flow('a2', 'alarm', 'e')}${flow('a3', 'late', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(outcome.problems).toEqual([]);
    const graph = outcome.graph;
    expect(graph?.nodes.answer?.eventGateway).toBe('g');
    expect(graph?.nodes.late?.eventGateway).toBe('g');
    if (graph)
      expect(eventWaitsAt(graph, 'g')).toEqual([
        { kind: 'message', name: 'answer', catchId: 'answer' },
        { kind: 'signal', name: 'alarm', catchId: 'alarm' },
      ]);
    const bad = await parseBpmn(
      bpmn(
        'badRace',
        `<startEvent id="s"/>${flow('f1', 's', 'g')}<eventBasedGateway id="g"/>${flow('g1', 'g', 'work')}${task('work')}${flow('f2', 'work', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(bad.graph).toBeUndefined();
    expect(bad.problems.map((problem) => [problem.field, problem.key])).toEqual([['work', 'unsupported']]);
  });
});

describe('call activities (issue 36)', () => {
  it('reads the called process and the variables passed in and out (camunda:, activiti: and flowable: alike)', async () => {
    const camunda = await parseBpmn(
      bpmn(
        'caller',
        `<startEvent id="s"/>${flow('f1', 's', 'call')}
         <callActivity id="call" calledElement="\${childKey}">
           <extensionElements>
             <camunda:in source="amount" target="total"/><camunda:in sourceExpression="\${amount * 2}" target="double"/>
             <camunda:out variables="all"/><camunda:out source="result" target="answer"/>
           </extensionElements>
         </callActivity>
         <boundaryEvent id="late" attachedToRef="call"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
         ${flow('f2', 'call', 'e')}${flow('f3', 'late', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(camunda.problems).toEqual([]);
    expect(camunda.graph?.nodes.call?.call).toEqual({
      calledElement: '${childKey}',
      ins: [
        { source: 'amount', target: 'total' },
        { sourceExpression: '${amount * 2}', target: 'double' },
      ],
      outAll: true,
      outs: [{ source: 'result', target: 'answer' }],
    });
    expect(camunda.graph?.nodes.call?.boundaries).toEqual(['late']);
    const activiti = await parseBpmn(
      bpmn(
        'callerA',
        `<startEvent id="s"/>${flow('f1', 's', 'call')}<callActivity id="call" calledElement="child"/>`,
      ).replace(
        'xmlns:camunda="http://camunda.org/schema/1.0/bpmn"',
        'xmlns:activiti="http://activiti.org/bpmn"',
      ),
    );
    // an activity without outgoing flow ends its token (implicit end)
    expect(activiti.problems).toEqual([]);
    expect(activiti.graph?.nodes.call?.call).toEqual({ calledElement: 'child', ins: [], outs: [] });
  });

  it('a call activity without a called element is refused naming it', async () => {
    const outcome = await parseBpmn(
      bpmn(
        'noCallee',
        `<startEvent id="s"/>${flow('f1', 's', 'call')}<callActivity id="call"/>${flow('f2', 'call', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(outcome.problems.map((problem) => [problem.field, problem.key])).toEqual([
      ['call', 'unsupported'],
    ]);
  });
});

describe('event sub-processes and multi-instance sub-processes (issue 36)', () => {
  it('an event sub-process starts at its message, signal or timer start; it is noted on its scope', async () => {
    const outcome = await parseBpmn(
      withRoots(
        '<message id="m" name="info"/>',
        'events',
        `<startEvent id="s"/>${flow('f1', 's', 'sub')}
         <subProcess id="sub"><startEvent id="ss"/>${flow('i1', 'ss', 'inner')}${task('inner')}
           <subProcess id="late" triggeredByEvent="true"><startEvent id="lateStart"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></startEvent>${flow('l1', 'lateStart', 'lateEnd')}<endEvent id="lateEnd"/></subProcess>
         </subProcess>${flow('f2', 'sub', 'e')}<endEvent id="e"/>
         <subProcess id="onInfo" triggeredByEvent="true"><startEvent id="infoStart" isInterrupting="false"><messageEventDefinition messageRef="m"/></startEvent>${flow('o1', 'infoStart', 'read')}${task('read')}</subProcess>`,
      ),
    );
    expect(outcome.problems).toEqual([]);
    const graph = outcome.graph;
    expect(graph?.eventSubProcesses).toEqual(['onInfo']);
    expect(graph?.nodes.sub?.eventSubProcesses).toEqual(['late']);
    expect(graph?.nodes.onInfo).toMatchObject({ isEventSubProcess: true, startId: 'infoStart' });
    expect(graph?.nodes.infoStart).toMatchObject({ messageName: 'info', isNonInterrupting: true });
    expect(graph?.messageStarts).toBeUndefined();
    if (graph)
      expect(instanceWaits(graph)).toEqual([{ kind: 'message', name: 'info', catchId: 'infoStart' }]);
  });

  it('an event sub-process with a none start is refused naming it; a multi-instance sub-process is read', async () => {
    const outcome = await parseBpmn(
      bpmn(
        'plainEvents',
        `<startEvent id="s"/>${flow('f1', 's', 'loop')}
         <subProcess id="loop"><multiInstanceLoopCharacteristics isSequential="true"><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics>
           <startEvent id="ls"/>${flow('l1', 'ls', 'le')}<endEvent id="le"/></subProcess>${flow('f2', 'loop', 'e')}<endEvent id="e"/>
         <subProcess id="never" triggeredByEvent="true"><startEvent id="ns"/>${flow('n1', 'ns', 'ne')}<endEvent id="ne"/></subProcess>`,
      ),
    );
    expect(outcome.problems.map((problem) => [problem.field, problem.key])).toEqual([
      ['never', 'unsupported'],
    ]);
  });
});

describe('escalations and ending joins (issue 36)', () => {
  it('reads the escalation code a throw sends and a boundary catches; a join may end without a flow out', async () => {
    const outcome = await parseBpmn(
      withRoots(
        '<escalation id="esc" escalationCode="late"/>',
        'escalations',
        `<startEvent id="s"/>${flow('f1', 's', 'fork')}<parallelGateway id="fork"/>${flow('f2', 'fork', 'sub')}${flow('f3', 'fork', 'tell')}
         <subProcess id="sub"><startEvent id="ss"/>${flow('i1', 'ss', 'se')}<endEvent id="se"><escalationEventDefinition escalationRef="esc"/></endEvent></subProcess>
         <boundaryEvent id="caught" attachedToRef="sub"><escalationEventDefinition/></boundaryEvent>
         <intermediateThrowEvent id="tell"><escalationEventDefinition escalationRef="esc"/></intermediateThrowEvent>
         ${flow('f4', 'sub', 'join')}${flow('f5', 'tell', 'join')}${flow('f6', 'caught', 'join')}<parallelGateway id="join"/>`,
      ),
    );
    expect(outcome.problems).toEqual([]);
    expect(outcome.graph?.nodes.se?.escalationCode).toBe('late');
    expect(outcome.graph?.nodes.tell?.escalationCode).toBe('late');
    expect(outcome.graph?.nodes.caught?.escalationCode).toBe('');
    expect(outcome.graph?.nodes.join?.outgoing).toEqual([]);
  });

  it('a split without a flow out is still refused naming it', async () => {
    const outcome = await parseBpmn(
      bpmn('deadSplit', `<startEvent id="s"/>${flow('f1', 's', 'g')}<parallelGateway id="g"/>`),
    );
    expect(outcome.problems.map((problem) => [problem.field, problem.key])).toEqual([['g', 'noOutgoing']]);
  });
});

describe('conditional events (issue 36)', () => {
  it('a conditional catch and boundary read their condition; one without a condition is refused naming it', async () => {
    const outcome = await parseBpmn(
      bpmn(
        'conditions',
        `<startEvent id="s"/>${flow('f1', 's', 'work')}${task('work')}
         <boundaryEvent id="urgent" attachedToRef="work" cancelActivity="false"><conditionalEventDefinition><condition xsi:type="tFormalExpression">\${level &gt; 2}</condition></conditionalEventDefinition></boundaryEvent>
         ${flow('f2', 'work', 'wait')}<intermediateCatchEvent id="wait"><conditionalEventDefinition><condition xsi:type="tFormalExpression">\${approved}</condition></conditionalEventDefinition></intermediateCatchEvent>
         ${flow('f3', 'wait', 'e')}<endEvent id="e"/>${flow('f4', 'urgent', 'e2')}<endEvent id="e2"/>`,
      ),
    );
    expect(outcome.problems).toEqual([]);
    expect(outcome.graph?.nodes.urgent).toMatchObject({ condition: '${level > 2}', isNonInterrupting: true });
    expect(outcome.graph?.nodes.wait?.condition).toBe('${approved}');
    const bare = await parseBpmn(
      bpmn(
        'bare',
        `<startEvent id="s"/>${flow('f1', 's', 'wait')}<intermediateCatchEvent id="wait"><conditionalEventDefinition/></intermediateCatchEvent>${flow('f2', 'wait', 'e')}<endEvent id="e"/>`,
      ),
    );
    expect(bare.problems.map((problem) => [problem.field, problem.key])).toEqual([['wait', 'badExpression']]);
  });
});

describe('markup read from the text (data objects, event-registry catches): bounded by the file', () => {
  it('a comment of 100,000 unclosed openings is read in one pass, and the real elements still are', async () => {
    // one search each from the start of every opening would take half a minute here (quadratic)
    const bait = '<dataObject id="x"><boundaryEvent id="y">'.repeat(100_000);
    const xml = bpmn(
      'crafted',
      `<!-- ${bait} :eventType> -->
       <dataObject id="d1" name="limit" itemSubjectRef="xsd:int"><extensionElements><activiti:value>5</activiti:value></extensionElements></dataObject>
       <startEvent id="s"/>${flow('f1', 's', 'a')}${task('a')}${flow('f2', 'a', 'e')}<endEvent id="e"/>`,
    ).replace('<definitions ', '<definitions xmlns:activiti="http://activiti.org/bpmn" ');
    const started = performance.now();
    const outcome = await parseBpmn(xml);
    const elapsedMs = performance.now() - started;
    expect(outcome.problems).toEqual([]);
    expect(outcome.graph?.dataObjects).toEqual({ limit: 5 });
    expect(elapsedMs, `${Math.round(elapsedMs)} ms for ${xml.length} characters`).toBeLessThan(10_000);
  });
});

describe("an uncaught error end event: Camunda's rule in a Camunda file only", () => {
  const body = `<startEvent id="s"/>${flow('f1', 's', 'fail')}<endEvent id="fail"><errorEventDefinition/></endEvent>`;
  const endsWhenUncaught = async (xml: string): Promise<boolean | undefined> =>
    (await parseBpmn(xml)).graph?.nodes.fail?.endsWhenUncaught;

  it('a file binding Camunda’s namespace (as the designer’s files do) ends the path; any other keeps the incident', async () => {
    const camundaFile = bpmn('uncaught', body);
    expect(await endsWhenUncaught(camundaFile)).toBe(true);
    // Binding Activiti's too makes it Activiti's file.
    expect(
      await endsWhenUncaught(
        camundaFile.replace('<definitions ', '<definitions xmlns:activiti="http://activiti.org/bpmn" '),
      ),
    ).toBeUndefined();
    // Camunda's address in a documentation text binds nothing.
    const plain = camundaFile
      .replace('xmlns:camunda="http://camunda.org/schema/1.0/bpmn"', '')
      .replace(
        '<startEvent id="s"/>',
        '<documentation>see http://camunda.org/schema/1.0/bpmn</documentation><startEvent id="s"/>',
      );
    expect((await parseBpmn(plain)).problems).toEqual([]);
    expect(await endsWhenUncaught(plain)).toBeUndefined();
  });
});
