import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BpmnModdle } from 'bpmn-moddle';
import { describe, expect, it } from 'vitest';
import {
  drawProcesses,
  layOut,
  linkFlows,
  processDiagrams,
  type Moddled,
} from '../../src/admin/features/workflow/modeler/layout.js';
import {
  engineProblem,
  engineRule,
  ignoredRule,
  lintConfig,
  lintMessage,
  type LintNode,
  type RuleFactory,
  unreachedRule,
} from '../../src/admin/features/workflow/modeler/lint.js';
import { copyKey, freeCopyKey, withProcessKey } from '../../src/admin/features/workflow/modeler/model-api.js';
import {
  ANY_ONE_CONDITION,
  formatCondition,
  formatDuration,
  formatGroups,
  normaliseNamespaces,
  parseCondition,
  parseDuration,
  parseGroups,
  readMulti,
} from '../../src/admin/features/workflow/modeler/pickers.js';
import { dictionaryOf, translator } from '../../src/admin/features/workflow/modeler/translations.js';
import { parseBpmn } from '../../src/server/features/workflow/services/parse.js';

/** Each file of the BPMN corpus (tests/fixtures/bpmn/corpus.json) with its text and what deploy makes of it. */
async function* corpusFiles(): AsyncGenerator<{
  file: string;
  xml: string;
  server: Awaited<ReturnType<typeof parseBpmn>>;
}> {
  const corpus = JSON.parse(readFileSync('tests/fixtures/bpmn/corpus.json', 'utf8')) as {
    files: { file: string }[];
  };
  for (const { file } of corpus.files) {
    const xml = readFileSync(`tests/fixtures/bpmn/${file}`, 'utf8');
    yield { file, xml, server: await parseBpmn(xml) };
  }
}

const require = createRequire(import.meta.url);
const camunda = require('camunda-bpmn-moddle/resources/camunda.json') as Record<string, unknown>;
const t = (key: string, options: Record<string, unknown> = {}): string => `${key}${JSON.stringify(options)}`;

describe('modeler translations', () => {
  it('translates the palette and fills in replacements', () => {
    expect(translator('zh')('Create start event')).toBe('创建开始事件');
    expect(translator('tw')('Create gateway')).toBe('建立閘道');
    expect(translator('zh')('Open {element}', { element: '子流程' })).toBe('打开 子流程');
    expect(translator('en')('Open {element}', { element: 'x' })).toBe('Open x');
    expect(translator('zh')('Unknown text {a}', { a: 1 })).toBe('Unknown text 1');
  });
  it('has every row in both Chinese variants, none left in English', () => {
    const zh = dictionaryOf('zh');
    const tw = dictionaryOf('tw');
    expect(zh.size).toBeGreaterThan(150);
    expect([...zh.keys()]).toEqual([...tw.keys()]);
    for (const [english, text] of zh) {
      expect(text, english).not.toBe('');
      expect(tw.get(english), english).not.toBe('');
    }
  });
});

describe('picker values', () => {
  it('reads candidate groups with and without prefixes and writes them prefixed', () => {
    expect(parseGroups('ROLE_A, post:mgr,org:3,,')).toEqual([
      { kind: 'role', code: 'ROLE_A' },
      { kind: 'post', code: 'mgr' },
      { kind: 'org', code: '3' },
    ]);
    expect(formatGroups(parseGroups('ROLE_A,role:ROLE_A,post:mgr'))).toBe('role:ROLE_A,post:mgr');
    expect(parseGroups('')).toEqual([]);
  });
  it('builds conditions the engine reads and reads them back', () => {
    expect(formatCondition({ variable: 'amount', operator: '>', value: '50000' })).toBe('${amount > 50000}');
    expect(formatCondition({ variable: 'kind', operator: '==', value: "it's" })).toBe("${kind == 'it\\'s'}");
    expect(parseCondition("${kind == 'it\\'s'}")).toEqual({
      variable: 'kind',
      operator: '==',
      value: "it's",
    });
    expect(parseCondition('${amount >= 10000}')).toEqual({
      variable: 'amount',
      operator: '>=',
      value: '10000',
    });
    expect(parseCondition('${a && b}')).toBeUndefined();
    expect(parseCondition('${x == y}')).toBeUndefined();
  });
  it('maps countersign and any-one to completion conditions', () => {
    expect(readMulti(undefined).mode).toBe('none');
    expect(readMulti({ collection: '${users}', completion: ANY_ONE_CONDITION }).mode).toBe('anyone');
    expect(readMulti({ collection: '${users}' })).toMatchObject({ mode: 'countersign', collection: 'users' });
  });
  it('writes and reads ISO-8601 durations', () => {
    expect(formatDuration({ days: 1, hours: 2, minutes: 30 })).toBe('P1DT2H30M');
    expect(formatDuration({ days: 0, hours: 0, minutes: 0 })).toBe('PT0M');
    expect(formatDuration({ days: 3, hours: 0, minutes: 0 })).toBe('P3D');
    expect(parseDuration('PT45M')).toEqual({ days: 0, hours: 0, minutes: 45 });
    expect(parseDuration('P1W')).toEqual({ days: 7, hours: 0, minutes: 0 });
    expect(parseDuration('P1Y')).toBeUndefined();
    expect(parseDuration('PT')).toBeUndefined();
  });
  it('renames a copied process and finds a free key', () => {
    const xml = readFileSync('tests/fixtures/bpmn/camunda-approval.bpmn', 'utf8');
    const copied = withProcessKey(xml, 'contract_review', 'contract_review_copy');
    expect(copied).toContain('<bpmn:process id="contract_review_copy"');
    expect(copied).toContain('bpmnElement="contract_review_copy"');
    expect(copyKey('a', new Set(['a', 'a_copy']))).toBe('a_copy2');
  });
  it('asks the server for a free copy key, past keys on other pages of the list', async () => {
    const onServer = new Set(['a', 'a_copy', 'a_copy2']);
    const asked: string[] = [];
    const key = await freeCopyKey('a', async (candidate) => {
      asked.push(candidate);
      return onServer.has(candidate);
    });
    expect(key).toBe('a_copy3');
    expect(asked).toEqual(['a_copy', 'a_copy2', 'a_copy3']);
  });
});

async function lintFindings(xml: string): Promise<Map<string, string>> {
  const { rootElement } = await BpmnModdle({ camunda }).fromXML(normaliseNamespaces(xml));
  const found = new Map<string, string>();
  const rule = engineRule(t)();
  const visit = (node: LintNode): void => {
    if (typeof rule.check === 'function')
      rule.check(node, { report: (id, message) => void found.set(id ?? '', message) });
    for (const child of (node.rootElements as LintNode[] | undefined) ?? []) visit(child);
  };
  visit(rootElement as unknown as LintNode);
  return found;
}

describe('engine lint rule', () => {
  it('flags what the engine refuses, on the same elements', async () => {
    for (const file of [
      'refused-script-and-java.bpmn20.xml',
      'camunda-approval.bpmn',
      'activiti-leave.bpmn20.xml',
    ]) {
      const xml = readFileSync(`tests/fixtures/bpmn/${file}`, 'utf8');
      const lint = await lintFindings(xml);
      const server = await parseBpmn(xml);
      const refused = new Set(
        server.problems
          .filter((problem) =>
            ['scriptTask', 'javaServiceTask', 'javaThrowEvent', 'serviceType', 'unsupported'].includes(
              problem.key,
            ),
          )
          .map((problem) => problem.field),
      );
      expect([...lint.keys()].sort(), file).toEqual([...refused].sort());
    }
  });
  it('looks inside sub-processes, and accepts timer boundaries on activities (interrupting or not)', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <bpmn:process id="nested" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:subProcess id="sub">
      <bpmn:startEvent id="subStart"/>
      <bpmn:userTask id="inner"/>
      <bpmn:boundaryEvent id="innerTimer" attachedToRef="inner">
        <bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition>
      </bpmn:boundaryEvent>
      <bpmn:scriptTask id="innerScript"/>
      <bpmn:serviceTask id="innerService" camunda:type="notify" xmlns:camunda="http://camunda.org/schema/1.0/bpmn"/>
      <bpmn:boundaryEvent id="onService" attachedToRef="innerService">
        <bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition>
      </bpmn:boundaryEvent>
      <bpmn:boundaryEvent id="nonInterrupting" attachedToRef="inner" cancelActivity="false">
        <bpmn:timerEventDefinition><bpmn:timeDuration>PT2H</bpmn:timeDuration></bpmn:timerEventDefinition>
      </bpmn:boundaryEvent>
      <bpmn:endEvent id="subEnd"/>
    </bpmn:subProcess>
    <bpmn:subProcess id="events" triggeredByEvent="true"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`;
    const lint = await lintFindings(xml);
    expect([...lint.keys()].sort()).toEqual(['events', 'innerScript']);
  });
  it('names the reason', () => {
    // Scripts and Java code are refused (the message offers an external task); an external task
    // and an HTTP connector deploy.
    expect(engineProblem({ $type: 'bpmn:ScriptTask' })?.key).toBe('scriptTask');
    expect(engineProblem({ $type: 'bpmn:ServiceTask', class: 'x.Y' })?.key).toBe('javaServiceTask');
    expect(engineProblem({ $type: 'bpmn:ServiceTask', delegateExpression: '${x}' })?.key).toBe(
      'javaServiceTask',
    );
    expect(engineProblem({ $type: 'bpmn:SendTask', expression: '${x.y()}' })?.key).toBe('javaServiceTask');
    expect(engineProblem({ $type: 'bpmn:ServiceTask', type: 'external', topic: 'pay' })).toBeUndefined();
    expect(engineProblem({ $type: 'bpmn:ServiceTask', type: 'mail' })).toBeUndefined();
    expect(engineProblem({ $type: 'bpmn:ServiceTask', type: 'soap' })?.key).toBe('serviceType');
    expect(engineProblem({ $type: 'bpmn:ServiceTask', type: 'notify' })).toBeUndefined();
    expect(engineProblem({ $type: 'bpmn:UserTask' })).toBeUndefined();
    expect(
      engineProblem({
        $type: 'bpmn:StartEvent',
        eventDefinitions: [{ $type: 'bpmn:ConditionalEventDefinition' }],
      }),
    ).toEqual({ key: 'unsupported', params: { type: 'ConditionalEventDefinition' } });
    expect(
      engineProblem({
        $type: 'bpmn:StartEvent',
        eventDefinitions: [{ $type: 'bpmn:MessageEventDefinition' }],
      }),
    ).toBeUndefined();
    expect(engineProblem({ $type: 'bpmn:ReceiveTask' })).toBeUndefined();
    expect(engineProblem({ $type: 'bpmn:EventBasedGateway' })).toBeUndefined();
    expect(
      engineProblem({
        $type: 'bpmn:IntermediateThrowEvent',
        eventDefinitions: [{ $type: 'bpmn:MessageEventDefinition', class: 'x.Y' }],
      })?.key,
    ).toBe('javaServiceTask');
  });
  it('accepts every file of the corpus the engine deploys (issue 36)', async () => {
    let deployable = 0;
    for await (const { file, xml, server } of corpusFiles()) {
      if (!server.graph) continue;
      deployable += 1;
      expect(Object.fromEntries(await lintFindings(xml)), file).toEqual({});
    }
    expect(deployable).toBeGreaterThan(100);
  });
  it('configures bpmnlint with the kept rules and translates their messages', () => {
    const factory: RuleFactory = () => ({
      check: (node, reporter) => reporter.report(node.id, 'Element is not connected'),
    });
    const config = lintConfig({ 'no-disconnected': factory }, t);
    expect(config.config.rules).toEqual({
      'ecobid/engine-support': 'error',
      'ecobid/ignored-settings': 'warn',
      'ecobid/unreached': 'warn',
      'no-disconnected': 'warn',
    });
    const rule = config.resolver.resolveRule('bpmnlint', 'no-disconnected')?.();
    const reports: string[] = [];
    if (rule && typeof rule.check === 'function')
      rule.check({ $type: 'bpmn:Task', id: 'T' }, { report: (_id, message) => void reports.push(message) });
    expect(reports).toEqual(['workflow.modeler.lint.disconnected{}']);
    expect(lintMessage(t, 'Process is missing end event')).toBe('workflow.modeler.lint.endEventRequired{}');
    expect(config.resolver.resolveRule('bpmnlint', 'nope')).toBeUndefined();
  });
});

/** The ignored-settings rule over every element of a file, as bpmnlint walks it: "id setting" each. */
async function ignoredFindings(xml: string): Promise<string[]> {
  const { rootElement } = await BpmnModdle({ camunda }).fromXML(normaliseNamespaces(xml));
  const found: string[] = [];
  const rule = ignoredRule((key, options) =>
    key === 'workflow.modeler.lint.ignoredSetting' ? String(options?.attribute) : key,
  )();
  const seen = new Set<unknown>();
  const visit = (node: LintNode): void => {
    if (seen.has(node)) return;
    seen.add(node);
    if (typeof rule.check === 'function')
      rule.check(node, { report: (id, message) => void found.push(`${id ?? ''} ${message}`) });
    for (const key of ['rootElements', 'flowElements', 'extensionElements', 'values']) {
      const value = node[key];
      for (const child of Array.isArray(value) ? value : value ? [value] : []) visit(child as LintNode);
    }
  };
  visit(rootElement as unknown as LintNode);
  return found.filter((line) => !line.startsWith(' '));
}

describe('ignored settings lint rule (issue 40.3)', () => {
  it('warns about the attributes deploy warns about, on the same elements', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <bpmn:process id="p" isExecutable="true" camunda:historyTimeToLive="30" camunda:candidateStarterUsers="admin">
    <bpmn:startEvent id="s" camunda:asyncAfter="true"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="u"/>
    <bpmn:userTask id="u" camunda:dueDate="P1D" camunda:priority="50" camunda:assignee="admin">
      <bpmn:extensionElements><camunda:inputOutput><camunda:inputParameter name="a">1</camunda:inputParameter></camunda:inputOutput></bpmn:extensionElements>
    </bpmn:userTask>
    <bpmn:sequenceFlow id="f2" sourceRef="u" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`;
    const lint = await ignoredFindings(xml);
    expect(lint.sort()).toEqual([
      'p camunda:historyTimeToLive',
      's camunda:asyncAfter',
      'u camunda:dueDate',
      'u camunda:inputOutput',
      'u camunda:priority',
    ]);
    const server = await parseBpmn(xml);
    expect(
      server.warnings
        .filter((warning) => warning.key === 'ignoredSetting')
        .map((warning) => `${warning.field} ${String(warning.params?.attribute)}`)
        .sort(),
    ).toEqual(lint);
  });
  it('agrees with deploy on every deployable Camunda file of the corpus', async () => {
    let warned = 0;
    for await (const { file, xml, server } of corpusFiles()) {
      if (!server.graph || !xml.includes('http://camunda.org/schema/1.0/bpmn')) continue;
      const expected = server.warnings
        .filter((warning) => warning.key === 'ignoredSetting')
        .map((warning) => `${warning.field} ${String(warning.params?.attribute)}`)
        .sort();
      const lint = (await ignoredFindings(xml)).sort();
      expect(lint, file).toEqual(expected);
      if (lint.length > 0) warned += 1;
    }
    expect(warned).toBeGreaterThan(0);
  });
});

/** The unreached rule over the processes of a file: the ids it warns about, sorted. */
async function unreachedFindings(xml: string): Promise<string[]> {
  const { rootElement } = await BpmnModdle({ camunda }).fromXML(normaliseNamespaces(xml));
  const found: string[] = [];
  const rule = unreachedRule((key) => key)();
  for (const node of ((rootElement as unknown as LintNode).rootElements as LintNode[] | undefined) ?? [])
    if (typeof rule.check === 'function')
      rule.check(node, { report: (id, message) => void found.push(`${id ?? ''} ${message}`) });
  return found.sort();
}

const noIncomingOf = (warnings: { key: string; field: string }[]): string[] =>
  warnings
    .filter((warning) => warning.key === 'noIncoming')
    .map((warning) => `${warning.field} workflow.modeler.lint.unreached`)
    .sort();

describe('unreached elements lint rule (issue 36)', () => {
  it('warns where deploy warns: an element no flow leads to, not starts, boundaries, handlers or link catches', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="u"/>
    <bpmn:userTask id="u"/>
    <bpmn:boundaryEvent id="b" attachedToRef="u"><bpmn:compensateEventDefinition/></bpmn:boundaryEvent>
    <bpmn:userTask id="handler" isForCompensation="true"/>
    <bpmn:association associationDirection="One" sourceRef="b" targetRef="handler"/>
    <bpmn:sequenceFlow id="f2" sourceRef="u" targetRef="e"/>
    <bpmn:userTask id="lost"/>
    <bpmn:sequenceFlow id="f3" sourceRef="lost" targetRef="e"/>
    <bpmn:subProcess id="sub">
      <bpmn:startEvent id="subStart"/>
      <bpmn:sequenceFlow id="f4" sourceRef="subStart" targetRef="subEnd"/>
      <bpmn:endEvent id="subEnd"/>
      <bpmn:endEvent id="innerLost"/>
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f5" sourceRef="sub" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`;
    const lint = await unreachedFindings(xml);
    expect(lint).toEqual([
      'innerLost workflow.modeler.lint.unreached',
      'lost workflow.modeler.lint.unreached',
      'sub workflow.modeler.lint.unreached',
    ]);
    const server = await parseBpmn(xml);
    expect(server.graph?.key).toBe('p');
    expect(noIncomingOf(server.warnings)).toEqual(lint);
  });
  it('agrees with deploy on every deployable file of the corpus', async () => {
    let warned = 0;
    for await (const { file, xml, server } of corpusFiles()) {
      if (!server.graph) continue;
      const lint = await unreachedFindings(xml);
      expect(lint, file).toEqual(noIncomingOf(server.warnings));
      if (lint.length > 0) warned += 1;
    }
    expect(warned).toBeGreaterThan(0);
  });
});

describe('layout of a file without a diagram', () => {
  it('puts each node in the layer after its sources, boundary events on their host', () => {
    const { shapes, edges } = layOut(
      [
        { id: 'start', type: 'StartEvent' },
        { id: 'split', type: 'ExclusiveGateway' },
        { id: 'a', type: 'UserTask' },
        { id: 'b', type: 'UserTask' },
        { id: 'end', type: 'EndEvent' },
        { id: 'timer', type: 'BoundaryEvent', attachedTo: 'a' },
      ],
      [
        { id: 'f1', source: 'start', target: 'split' },
        { id: 'f2', source: 'split', target: 'a' },
        { id: 'f3', source: 'split', target: 'b' },
        { id: 'f4', source: 'a', target: 'end' },
        { id: 'f5', source: 'b', target: 'end' },
        { id: 'back', source: 'b', target: 'split' },
      ],
    );
    const x = (id: string): number => shapes.get(id)?.x ?? -1;
    expect(x('start')).toBeLessThan(x('split'));
    expect(x('split')).toBeLessThan(x('a'));
    expect(x('a')).toBe(x('b'));
    expect(shapes.get('a')?.y).not.toBe(shapes.get('b')?.y);
    expect(x('b')).toBeLessThan(x('end'));
    expect(shapes.get('timer')).toMatchObject({ width: 36, height: 36 });
    expect(edges.get('f1')).toHaveLength(2);
    expect(edges.get('back')).toHaveLength(4);
  });
  it('gives flows their ends when a file leaves out incoming and outgoing', async () => {
    const xml = readFileSync('tests/fixtures/bpmn/camunda-approval.bpmn', 'utf8');
    const { rootElement } = await BpmnModdle({ camunda }).fromXML(xml);
    const definitions = rootElement as unknown as Moddled;
    linkFlows(definitions);
    linkFlows(definitions);
    const process = definitions.rootElements?.find((element) => element.$type === 'bpmn:Process');
    const task = process?.flowElements?.find((element) => (element.get('id') as string) === 'Task_legal');
    expect((task?.get('incoming') as unknown[]).length).toBe(1);
    expect((task?.get('outgoing') as unknown[]).length).toBe(1);
  });
});

/** A process of its own, without a diagram: a call activity may call it from the file's other one. */
const SHIPPING = `
  <bpmn:process id="shipping" name="发货" isExecutable="true">
    <bpmn:startEvent id="ship_start" />
    <bpmn:sequenceFlow id="ship_f1" sourceRef="ship_start" targetRef="ship_split" />
    <bpmn:exclusiveGateway id="ship_split" />
    <bpmn:sequenceFlow id="ship_f2" sourceRef="ship_split" targetRef="ship_pack" />
    <bpmn:sequenceFlow id="ship_f3" sourceRef="ship_split" targetRef="ship_post" />
    <bpmn:userTask id="ship_pack" name="打包" />
    <bpmn:boundaryEvent id="ship_late" attachedToRef="ship_pack">
      <bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition>
    </bpmn:boundaryEvent>
    <bpmn:userTask id="ship_post" name="寄出" />
    <bpmn:sequenceFlow id="ship_f4" sourceRef="ship_pack" targetRef="ship_end" />
    <bpmn:sequenceFlow id="ship_f5" sourceRef="ship_post" targetRef="ship_end" />
    <bpmn:sequenceFlow id="ship_f6" sourceRef="ship_late" targetRef="ship_end" />
    <bpmn:endEvent id="ship_end" />
  </bpmn:process>`;

interface ModdleIo {
  fromXML(xml: string): Promise<{ rootElement: unknown; warnings: unknown[] }>;
  toXML(element: unknown, options?: { format?: boolean }): Promise<{ xml: string }>;
}

async function definitionsOf(xml: string): Promise<{ definitions: Moddled; moddle: ModdleIo }> {
  const moddle = BpmnModdle({ camunda }) as unknown as ModdleIo;
  const { rootElement, warnings } = await moddle.fromXML(xml);
  expect(warnings).toEqual([]);
  return { definitions: rootElement as Moddled, moddle };
}

const diagramsOf = (definitions: Moddled): Moddled[] => definitions.get('diagrams') as Moddled[];
const idsOf = (elements: readonly Moddled[]): string[] => elements.map((element) => element.id ?? '').sort();

/** The flow nodes and the sequence flows of the process, by id, and what its diagram draws. */
function drawingOf(process: Moddled | undefined, diagram: Moddled | undefined) {
  const elements = process?.flowElements ?? [];
  const drawn = diagram?.plane?.planeElement ?? [];
  return {
    nodes: idsOf(elements.filter((element) => element.$instanceOf('bpmn:FlowNode'))),
    flows: idsOf(elements.filter((element) => element.$type === 'bpmn:SequenceFlow')),
    shapes: idsOf(
      drawn.filter((di) => di.$type === 'bpmndi:BPMNShape').flatMap((di) => di.bpmnElement ?? []),
    ),
    edges: idsOf(drawn.filter((di) => di.$type === 'bpmndi:BPMNEdge').flatMap((di) => di.bpmnElement ?? [])),
  };
}

/** The text of each <bpmndi:BPMNDiagram> of a file. */
const diagramTexts = (xml: string): string[] =>
  xml.match(/<bpmndi:BPMNDiagram\b[\s\S]*?<\/bpmndi:BPMNDiagram>/g) ?? [];

describe('a diagram for each process of a file', () => {
  const twoWithout = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="two" targetNamespace="test">
  <bpmn:process id="order" name="订单" isExecutable="true">
    <bpmn:startEvent id="order_start" />
    <bpmn:sequenceFlow id="order_f1" sourceRef="order_start" targetRef="order_check" />
    <bpmn:userTask id="order_check" name="审核" />
    <bpmn:sequenceFlow id="order_f2" sourceRef="order_check" targetRef="order_ship" />
    <bpmn:callActivity id="order_ship" calledElement="shipping" />
    <bpmn:sequenceFlow id="order_f3" sourceRef="order_ship" targetRef="order_end" />
    <bpmn:endEvent id="order_end" />
  </bpmn:process>${SHIPPING}
</bpmn:definitions>`;

  it('lays out each process of a file without a diagram on a diagram of its own', async () => {
    const { definitions, moddle } = await definitionsOf(twoWithout);
    drawProcesses(definitions);
    const processes = definitions.rootElements ?? [];
    const diagrams = diagramsOf(definitions);
    expect(diagrams.map((diagram) => diagram.plane?.bpmnElement)).toEqual(processes);
    for (const [index, process] of processes.entries()) {
      const drawing = drawingOf(process, diagrams[index]);
      expect(drawing.shapes, process.id).toEqual(drawing.nodes);
      expect(drawing.edges, process.id).toEqual(drawing.flows);
      // bpmn-js moves and deletes shapes through $parent, as on a diagram it has read
      const diagram = diagrams[index];
      expect(diagram?.$parent).toBe(definitions);
      expect(diagram?.plane?.$parent).toBe(diagram);
      for (const di of diagram?.plane?.planeElement ?? []) expect(di.$parent).toBe(diagram?.plane);
    }
    expect(processDiagrams(definitions).map(({ label }) => label)).toEqual(['订单', '发货']);
    // and bpmn-js reads the file written back the same way
    const { xml } = await moddle.toXML(definitions, { format: true });
    const again = await definitionsOf(xml);
    const read = diagramsOf(again.definitions);
    expect(read.map((diagram) => diagram.plane?.bpmnElement?.id)).toEqual(['order', 'shipping']);
    const shipping = drawingOf(again.definitions.rootElements?.[1], read[1]);
    expect(shipping.shapes).toEqual(shipping.nodes);
    expect(shipping.edges).toEqual(shipping.flows);
  });

  it('keeps the whole diagram of one process and adds one for the process without', async () => {
    const office = readFileSync('tests/fixtures/bpmn/office-review.bpmn', 'utf8').replace(
      '</bpmn:process>',
      `</bpmn:process>${SHIPPING}`,
    );
    const { definitions, moddle } = await definitionsOf(office);
    const before = (await moddle.toXML(definitions, { format: true })).xml;
    const first = diagramsOf(definitions)[0];
    drawProcesses(definitions);
    const after = (await moddle.toXML(definitions, { format: true })).xml;
    expect(diagramsOf(definitions)[0]).toBe(first);
    const [kept, added, ...more] = diagramTexts(after);
    expect(kept).toBe(diagramTexts(before)[0]);
    expect(more).toEqual([]);
    expect(added).toMatch(/<bpmndi:BPMNPlane id="BPMNPlane_shipping" bpmnElement="shipping">/);
    const shipping = drawingOf(definitions.rootElements?.[1], diagramsOf(definitions)[1]);
    expect(shipping.shapes).toEqual(shipping.nodes);
    expect(shipping.edges).toEqual(shipping.flows);
    // a file drawn whole is left as it is
    drawProcesses(definitions);
    expect((await moddle.toXML(definitions, { format: true })).xml).toBe(after);
  });

  it('replaces a diagram that leaves out part of its process, and only that one', async () => {
    const { definitions } = await definitionsOf(
      readFileSync('tests/fixtures/bpmn/camunda-approval.bpmn', 'utf8'),
    );
    const claimed: string[] = [];
    // as bpmn-js's modeler keeps the ids in use
    Object.assign(definitions.$model ?? {}, { ids: { claim: (id: string) => void claimed.push(id) } });
    drawProcesses(definitions);
    const [diagram, ...more] = diagramsOf(definitions);
    expect(more).toEqual([]);
    const drawing = drawingOf(definitions.rootElements?.[0], diagram);
    expect(drawing.shapes).toEqual(drawing.nodes);
    expect(drawing.edges).toEqual(drawing.flows);
    expect(claimed).toContain('BPMNDiagram_contract_review');
    expect(claimed).toContain('Task_legal_di');
  });
});
