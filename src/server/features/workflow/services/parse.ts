import { createRequire } from 'node:module';
import { BpmnModdle, type ModdleElement, type Moddle } from 'bpmn-moddle';
import { expressionProblem } from './expressions.js';
import { timerProblem } from './timers.js';
import type {
  MultiInstance,
  TimerSpec,
  NodeType,
  ProcessFlow,
  ProcessGraph,
  ProcessNode,
  ServiceCall,
} from './graph.js';

/**
 * BPMN 2.0 XML → ProcessGraph. Activiti, Flowable and Camunda Modeler files all read the same:
 * the activiti: and flowable: namespaces are read as camunda:, whose descriptor knows assignee,
 * candidateUsers, candidateGroups, formKey, initiator, class, type, fields and listeners.
 * What this engine cannot run is a problem (the deployment is refused, naming the element);
 * what it only ignores (listeners, unknown markup) is a warning.
 */

const require = createRequire(import.meta.url);
const camunda = require('camunda-bpmn-moddle/resources/camunda.json') as { uri: string };

const DIALECT_URIS = ['http://activiti.org/bpmn', 'http://flowable.org/bpmn'];

/** One finding about one element: its id (or "xml"), an i18n key under workflow.problems, params. */
export interface Finding {
  field: string;
  key: string;
  params?: Record<string, unknown>;
}

export interface ParseOutcome {
  graph?: ProcessGraph;
  problems: Finding[];
  warnings: Finding[];
}

let moddle: Moddle | undefined;
const reader = (): Moddle => (moddle ??= BpmnModdle({ camunda }));

/** The XML with the Activiti and Flowable extension namespaces bound to Camunda's URI. */
export function normaliseNamespaces(xml: string): string {
  let out = xml;
  for (const uri of DIALECT_URIS) {
    out = out.replace(
      new RegExp(`(xmlns:[\\w.-]+\\s*=\\s*)(["'])${uri.replace(/[./]/g, '\\$&')}\\2`, 'g'),
      `$1$2${camunda.uri}$2`,
    );
  }
  return out;
}

/** The prefix the file binds to an Activiti or Flowable namespace (its warnings name that, not camunda). */
function dialectPrefix(xml: string): string | undefined {
  for (const uri of DIALECT_URIS) {
    const match = new RegExp(`xmlns:([\\w.-]+)\\s*=\\s*["']${uri.replace(/[./]/g, '\\$&')}["']`).exec(xml);
    if (match?.[1]) return match[1];
  }
  return undefined;
}

/** An attribute of the Activiti, Flowable or Camunda namespace that Camunda's model does not know. */
function dialectAttribute(element: ModdleElement, name: string): string | undefined {
  const attributes = (element.$attrs ?? {}) as Record<string, unknown>;
  const found = Object.entries(attributes).find(([key]) => key === name || key.endsWith(`:${name}`));
  return typeof found?.[1] === 'string' ? found[1] : undefined;
}

/** Attributes read from the dialects' namespaces beyond Camunda's model: not "ignored markup". */
const DIALECT_ATTRIBUTES = ['terminateAll'];

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
const list = (value: unknown): ModdleElement[] => (Array.isArray(value) ? (value as ModdleElement[]) : []);
const ref = (value: unknown): string | undefined =>
  value && typeof value === 'object' ? str((value as ModdleElement).id) : undefined;
const short = (type: string): string => type.replace(/^bpmn:/, '');
const csv = (value: unknown): string[] | undefined => {
  const text = str(value);
  return text
    ? text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '')
    : undefined;
};

const NODE_TYPES: Record<string, NodeType> = {
  'bpmn:StartEvent': 'startEvent',
  'bpmn:EndEvent': 'endEvent',
  'bpmn:UserTask': 'userTask',
  'bpmn:ServiceTask': 'serviceTask',
  'bpmn:ExclusiveGateway': 'exclusiveGateway',
  'bpmn:ParallelGateway': 'parallelGateway',
  'bpmn:InclusiveGateway': 'inclusiveGateway',
  'bpmn:SubProcess': 'subProcess',
  'bpmn:BoundaryEvent': 'boundaryEvent',
};

const BUILT_IN_SERVICES = new Set(['notify', 'setVariables']);

/** Listeners and other extension content that cannot run here: a warning each. */
function droppedExtensions(element: ModdleElement, warnings: Finding[]): void {
  const extensions = element.extensionElements as ModdleElement | undefined;
  for (const value of list(extensions?.values)) {
    if (value.$type === 'camunda:ExecutionListener' || value.$type === 'camunda:TaskListener') {
      warnings.push({
        field: element.id ?? 'process',
        key: 'listenerDropped',
        params: { type: value.$type.replace('camunda:', ''), event: str(value.event) ?? '' },
      });
    }
  }
}

const mergedList = (first: string[] | undefined, second: string[]): string[] | undefined => {
  const all = [...new Set([...(first ?? []), ...second])];
  return all.length > 0 ? all : undefined;
};

/** The items of a formal expression's list ("user(kermit), group(management)"), commas inside ${…} kept. */
function expressionItems(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '{') depth += 1;
    if (char === '}') depth = Math.max(0, depth - 1);
    if (char === ',' && depth === 0) {
      items.push(current.trim());
      current = '';
    } else current += char;
  }
  items.push(current.trim());
  return items.filter((item) => item !== '');
}

/**
 * The people of BPMN's own resource roles, as Activiti, Flowable and Camunda read them:
 * `humanPerformer` names the assignee; `potentialOwner` lists candidates, `user(x)` a user and
 * `group(x)` or a bare name a group.
 */
function standardPeople(element: ModdleElement): { assignee?: string; users: string[]; groups: string[] } {
  const people: { assignee?: string; users: string[]; groups: string[] } = { users: [], groups: [] };
  for (const role of list(element.resources)) {
    const assignment = role.resourceAssignmentExpression as ModdleElement | undefined;
    const body = str((assignment?.expression as ModdleElement | undefined)?.body);
    if (!body) continue;
    for (const item of expressionItems(body)) {
      const match = /^(user|group)\((.*)\)$/.exec(item);
      const kind = match?.[1];
      const name = (match?.[2] ?? item).trim();
      if (role.$type === 'bpmn:HumanPerformer' || role.$type === 'bpmn:Performer') {
        people.assignee ??= name;
      } else if (kind === 'user') people.users.push(name);
      else people.groups.push(name);
    }
  }
  return people;
}

function serviceCall(element: ModdleElement, problems: Finding[]): ServiceCall | undefined {
  const id = element.id ?? '';
  if (str(element.class) || str(element.delegateExpression) || str(element.expression)) {
    problems.push({ field: id, key: 'javaServiceTask', params: { id, type: 'serviceTask' } });
    return undefined;
  }
  const type = str(element.type);
  if (!type || !BUILT_IN_SERVICES.has(type)) {
    problems.push({ field: id, key: 'serviceType', params: { id, type: type ?? '' } });
    return undefined;
  }
  const fields: Record<string, string> = {};
  const extensions = element.extensionElements as ModdleElement | undefined;
  for (const value of list(extensions?.values)) {
    if (value.$type !== 'camunda:Field') continue;
    const name = str(value.name);
    const text = str(value.stringValue) ?? str(value.string) ?? str(value.expression) ?? '';
    if (name) fields[name] = text;
  }
  return { kind: type as ServiceCall['kind'], fields };
}

function multiInstanceOf(id: string, loop: ModdleElement, problems: Finding[]): MultiInstance | undefined {
  const multi: MultiInstance = { isSequential: loop.isSequential === true };
  const collection = str(loop.collection);
  const cardinality = str((loop.loopCardinality as ModdleElement | undefined)?.body);
  const elementVariable = str(loop.elementVariable);
  const completion = str((loop.completionCondition as ModdleElement | undefined)?.body);
  if (collection) multi.collection = collection;
  if (cardinality) multi.cardinality = cardinality;
  if (elementVariable) multi.elementVariable = elementVariable;
  if (completion) multi.completionCondition = completion;
  if (!collection && !cardinality) {
    problems.push({ field: id, key: 'noCollection', params: { id } });
    return undefined;
  }
  for (const text of [collection, cardinality, completion]) {
    const problem = text && text.includes('${') ? expressionProblem(text) : undefined;
    if (problem) problems.push({ field: id, key: 'badExpression', params: { id, reason: problem } });
  }
  return multi;
}

/** The timer of a TimerEventDefinition, checked (a problem when it cannot run). */
function timerOf(id: string, definition: ModdleElement, problems: Finding[]): TimerSpec | undefined {
  const body = (name: string): string | undefined =>
    str((definition[name] as ModdleElement | undefined)?.body);
  const duration = body('timeDuration');
  const date = body('timeDate');
  const cycle = body('timeCycle');
  const timer: TimerSpec = duration ? { duration } : date ? { date } : cycle ? { cycle } : {};
  const problem = timerProblem(timer);
  if (problem) {
    problems.push({ field: id, key: 'badTimer', params: { id, reason: problem } });
    return undefined;
  }
  return timer;
}

function nodeOf(element: ModdleElement, problems: Finding[], warnings: Finding[]): ProcessNode | undefined {
  const id = element.id ?? '';
  const type = NODE_TYPES[element.$type];
  if (!type) {
    problems.push({
      field: id,
      key: element.$type === 'bpmn:ScriptTask' ? 'scriptTask' : 'unsupported',
      params: { id, type: short(element.$type) },
    });
    return undefined;
  }
  droppedExtensions(element, warnings);
  const definitions = list(element.eventDefinitions);
  const node: ProcessNode = { id, type, incoming: [], outgoing: [] };
  const name = str(element.name);
  if (name) node.name = name;
  const documentation = str(list(element.documentation)[0]?.text);
  if (documentation) node.documentation = documentation;
  const formKey = str(element.formKey);
  if (formKey && (type === 'userTask' || type === 'startEvent')) node.formKey = formKey;
  const loop = element.loopCharacteristics as ModdleElement | undefined;
  if (loop && (type !== 'userTask' || loop.$type !== 'bpmn:MultiInstanceLoopCharacteristics')) {
    problems.push({ field: id, key: 'unsupported', params: { id, type: short(loop.$type) } });
  } else if (loop) {
    const multi = multiInstanceOf(id, loop, problems);
    if (multi) node.multi = multi;
  }
  if (type === 'startEvent') {
    const [definition] = definitions;
    if (definition?.$type === 'bpmn:TimerEventDefinition') {
      const timer = timerOf(id, definition, problems);
      if (timer) node.timer = timer;
    } else if (definition)
      problems.push({ field: id, key: 'unsupported', params: { id, type: short(definition.$type) } });
    const initiator = str(element.initiator);
    if (initiator) node.initiator = initiator;
  } else if (type === 'endEvent') {
    const [definition] = definitions;
    if (definition?.$type === 'bpmn:TerminateEventDefinition') {
      node.isTerminate = true;
      if (dialectAttribute(definition, 'terminateAll') === 'true') node.isTerminateAll = true;
    } else if (definition)
      problems.push({ field: id, key: 'unsupported', params: { id, type: short(definition.$type) } });
  } else if (type === 'userTask') {
    const standard = standardPeople(element);
    const assignee = str(element.assignee) ?? standard.assignee;
    if (assignee) node.assignee = assignee;
    const users = mergedList(csv(element.candidateUsers), standard.users);
    if (users) node.candidateUsers = users;
    const groups = mergedList(csv(element.candidateGroups), standard.groups);
    if (groups) node.candidateGroups = groups;
    for (const text of [assignee, ...(users ?? []), ...(groups ?? [])]) {
      const problem = text ? expressionProblem(text) : undefined;
      if (problem) problems.push({ field: id, key: 'badExpression', params: { id, reason: problem } });
    }
  } else if (type === 'serviceTask') {
    const service = serviceCall(element, problems);
    if (service) node.service = service;
  } else if (type === 'boundaryEvent') {
    const [definition] = definitions;
    if (definition?.$type !== 'bpmn:TimerEventDefinition' || definitions.length > 1) {
      problems.push({
        field: id,
        key: 'unsupported',
        params: { id, type: definition ? short(definition.$type) : 'BoundaryEvent' },
      });
    } else if (element.cancelActivity === false) {
      problems.push({
        field: id,
        key: 'unsupported',
        params: { id, type: 'non-interrupting BoundaryEvent' },
      });
    } else {
      const timer = timerOf(id, definition, problems);
      if (timer?.duration === undefined && timer)
        problems.push({
          field: id,
          key: 'badTimer',
          params: { id, reason: 'a boundary timer takes a duration' },
        });
      else if (timer) node.timer = timer;
    }
    const attachedTo = ref(element.attachedToRef);
    if (attachedTo) node.attachedTo = attachedTo;
  } else if (type === 'subProcess') {
    if (element.triggeredByEvent === true)
      problems.push({ field: id, key: 'unsupported', params: { id, type: 'event SubProcess' } });
  } else {
    const defaultFlow = ref(element.default);
    if (defaultFlow) node.defaultFlow = defaultFlow;
  }
  return node;
}

/** Checks the graph's shape: one none or timer start, flows between known nodes, no dead ends. */
function checkShape(
  graph: ProcessGraph,
  starts: string[],
  refused: Set<string>,
  problems: Finding[],
  warnings: Finding[],
): void {
  if (starts.length !== 1)
    problems.push({ field: graph.key, key: 'oneStart', params: { count: starts.length } });
  for (const flow of Object.values(graph.flows)) {
    const source = graph.nodes[flow.source];
    const target = graph.nodes[flow.target];
    if (!source || !target) {
      // An element already refused: its neighbours are not dead ends on its account.
      if (source && refused.has(flow.target)) source.outgoing.push(flow.id);
      if (target && refused.has(flow.source)) target.incoming.push(flow.id);
      continue;
    }
    source.outgoing.push(flow.id);
    target.incoming.push(flow.id);
    if (source.scope !== target.scope)
      problems.push({ field: flow.id, key: 'crossesScope', params: { id: flow.id } });
    if (flow.condition) {
      const problem = expressionProblem(flow.condition);
      if (problem)
        problems.push({ field: flow.id, key: 'badExpression', params: { id: flow.id, reason: problem } });
      if (source.type === 'parallelGateway')
        warnings.push({ field: flow.id, key: 'conditionIgnored', params: { id: flow.id } });
    }
  }
  for (const node of Object.values(graph.nodes)) {
    if (node.type !== 'endEvent' && node.outgoing.length === 0)
      problems.push({ field: node.id, key: 'noOutgoing', params: { id: node.id } });
    if (node.type !== 'startEvent' && node.type !== 'boundaryEvent' && node.incoming.length === 0)
      problems.push({ field: node.id, key: 'noIncoming', params: { id: node.id } });
    if (node.defaultFlow && !node.outgoing.includes(node.defaultFlow))
      problems.push({ field: node.id, key: 'badDefault', params: { id: node.id, flow: node.defaultFlow } });
    if (node.type === 'boundaryEvent') {
      const task = graph.nodes[node.attachedTo ?? ''];
      if (!task || task.type !== 'userTask')
        problems.push({ field: node.id, key: 'boundaryOnUserTask', params: { id: node.id } });
      else task.boundaries = [...(task.boundaries ?? []), node.id];
    }
    if (node.type === 'startEvent' && node.scope !== undefined && node.timer)
      problems.push({
        field: node.id,
        key: 'unsupported',
        params: { id: node.id, type: 'TimerEventDefinition' },
      });
  }
}

/** Reads the flow elements of a process or an embedded sub-process (scope) into the graph. */
function readElements(
  elements: ModdleElement[],
  scope: string | undefined,
  graph: ProcessGraph,
  found: { starts: string[]; refused: Set<string>; unnamedFlows: number },
  problems: Finding[],
  warnings: Finding[],
): void {
  const starts: string[] = [];
  for (const element of elements) {
    if (element.$type === 'bpmn:SequenceFlow' && !element.id) {
      // A flow need not have an id (BPMN: optional): each gets one no XML id can be ('#' is not
      // a name character), so no two overwrite each other.
      found.unnamedFlows += 1;
      element.id = `#flow${found.unnamedFlows}`;
    }
    const id = element.id ?? '';
    if (element.$type === 'bpmn:SequenceFlow') {
      const flow: ProcessFlow = {
        id,
        source: ref(element.sourceRef) ?? '',
        target: ref(element.targetRef) ?? '',
      };
      const flowName = str(element.name);
      if (flowName) flow.name = flowName;
      const expression = element.conditionExpression as ModdleElement | undefined;
      const condition = str(expression?.body);
      const language = str(expression?.language);
      // A condition in a script language (javascript, groovy …) would never run: refused at deploy.
      if (condition && language && !/^(juel|uel|expression|el)$/i.test(language))
        problems.push({ field: id, key: 'scriptCondition', params: { id, language } });
      else if (condition) flow.condition = condition;
      droppedExtensions(element, warnings);
      graph.flows[id] = flow;
      continue;
    }
    if (element.$type === 'bpmn:TextAnnotation' || element.$type === 'bpmn:Association') continue;
    const node = nodeOf(element, problems, warnings);
    if (!node) {
      found.refused.add(id);
      continue;
    }
    if (scope !== undefined) node.scope = scope;
    graph.nodes[id] = node;
    if (node.type === 'startEvent') starts.push(id);
    if (node.type === 'subProcess')
      readElements(list(element.flowElements), id, graph, found, problems, warnings);
  }
  if (scope === undefined) {
    found.starts.push(...starts);
    return;
  }
  const subProcess = graph.nodes[scope];
  if (starts.length !== 1) problems.push({ field: scope, key: 'oneStart', params: { count: starts.length } });
  else if (subProcess) subProcess.startId = starts[0] ?? '';
}

/** Parses a BPMN file: its graph when it has no problems, and what was found. */
export async function parseBpmn(xml: string): Promise<ParseOutcome> {
  const problems: Finding[] = [];
  const warnings: Finding[] = [];
  let root: ModdleElement;
  try {
    const prefix = dialectPrefix(xml);
    const hasCamunda = xml.includes(camunda.uri);
    const parsed = await reader().fromXML(normaliseNamespaces(xml));
    root = parsed.rootElement;
    for (const warning of parsed.warnings) {
      // "unparsable content <x> detected … nested error: why": both lines say what happened.
      const lines = warning.message.split('\n').map((line) => line.trim());
      const joined = [lines[0], lines.find((line) => line.startsWith('nested error'))]
        .filter(Boolean)
        .join('; ');
      // Read through Camunda's model, markup of an Activiti or Flowable file is named by its own prefix.
      const reason = prefix && !hasCamunda ? joined.replace(/<camunda:/g, `<${prefix}:`) : joined;
      // A BPMN element lost to a duplicate id or an unknown type would change the process: refused.
      // Unknown extension markup (another tool's listeners, properties) is only ignored.
      const isLoss = /duplicate ID|unknown type <bpmn:/.test(warning.message);
      if (DIALECT_ATTRIBUTES.some((name) => warning.message.includes(`unknown attribute <camunda:${name}>`)))
        continue;
      (isLoss ? problems : warnings).push({
        field: 'xml',
        key: isLoss ? 'unparsable' : 'ignoredMarkup',
        params: { reason },
      });
    }
  } catch (error) {
    problems.push({
      field: 'xml',
      key: 'unreadable',
      params: { reason: (error as Error).message.split('\n')[0] ?? '' },
    });
    return { problems, warnings };
  }
  const processes = list(root.rootElements).filter((element) => element.$type === 'bpmn:Process');
  const executable = processes.filter((element) => element.isExecutable !== false);
  if (executable.length !== 1) {
    problems.push({ field: 'xml', key: 'oneProcess', params: { count: executable.length } });
    return { problems, warnings };
  }
  const [process] = executable as [ModdleElement];
  const key = str(process.id) ?? '';
  if (!/^[A-Za-z_][\w.-]{0,99}$/.test(key))
    problems.push({ field: key || 'process', key: 'badKey', params: { key } });
  droppedExtensions(process, warnings);
  const graph: ProcessGraph = { key, startId: '', nodes: {}, flows: {} };
  const name = str(process.name);
  if (name) graph.name = name;
  const found = { starts: [] as string[], refused: new Set<string>(), unnamedFlows: 0 };
  readElements(list(process.flowElements), undefined, graph, found, problems, warnings);
  const { starts, refused } = found;
  checkShape(graph, starts, refused, problems, warnings);
  graph.startId = starts[0] ?? '';
  return problems.length > 0 ? { problems, warnings } : { graph, problems, warnings };
}

/** How large a BPMN file is, as far as its pre-scan read before stopping. */
export interface BpmnSize {
  /** Deepest nesting of sub-processes (embedded, ad-hoc, transactions). */
  depth: number;
  /** Deepest nesting of XML elements. */
  xmlDepth: number;
  /** Elements outside the diagram (BPMNDiagram: shapes, edges and their points are not counted). */
  elements: number;
}

const SUB_PROCESSES = new Set(['subProcess', 'adHocSubProcess', 'transaction']);
const isNameEnd = (code: number): boolean =>
  code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || code === 0x2f || code === 0x3e;

/**
 * A cheap pre-scan of a BPMN file before the parse (which builds a tree of every element and
 * walks it): one pass over the text, reading tag names and skipping comments, CDATA, processing
 * instructions and quoted attribute values. It stops as soon as a figure passes its limit, so
 * its cost is bounded by the limits, not by the file. Malformed XML is left to the parser.
 */
export function scanBpmnSize(
  xml: string,
  limits: { depth: number; xmlDepth: number; elements: number },
): BpmnSize {
  const size: BpmnSize = { depth: 0, xmlDepth: 0, elements: 0 };
  /** Per open element: 1 a sub-process, 2 the diagram, 0 anything else. */
  const open: number[] = [];
  let subProcesses = 0;
  let diagrams = 0;
  let at = 0;
  const skipTo = (end: string, from: number): number => {
    const found = xml.indexOf(end, from);
    return found < 0 ? xml.length : found + end.length;
  };
  while (at < xml.length) {
    const lt = xml.indexOf('<', at);
    if (lt < 0) break;
    if (xml.startsWith('<!--', lt)) {
      at = skipTo('-->', lt + 4);
      continue;
    }
    if (xml.startsWith('<![CDATA[', lt)) {
      at = skipTo(']]>', lt + 9);
      continue;
    }
    if (xml.startsWith('<?', lt) || xml.startsWith('<!', lt)) {
      at = skipTo('>', lt + 2);
      continue;
    }
    const isClosing = xml.charCodeAt(lt + 1) === 0x2f;
    let end = lt + (isClosing ? 2 : 1);
    const nameStart = end;
    while (end < xml.length && !isNameEnd(xml.charCodeAt(end))) end++;
    const name = xml.slice(nameStart, end);
    // The rest of the tag: a `>` inside a quoted attribute value does not end it.
    let quote = 0;
    while (end < xml.length) {
      const code = xml.charCodeAt(end);
      if (quote !== 0) {
        if (code === quote) quote = 0;
      } else if (code === 0x22 || code === 0x27) quote = code;
      else if (code === 0x3e) break;
      end++;
    }
    at = end + 1;
    if (isClosing) {
      const kind = open.pop();
      if (kind === 1) subProcesses--;
      if (kind === 2) diagrams--;
      continue;
    }
    const local = name.slice(name.indexOf(':') + 1);
    const kind = SUB_PROCESSES.has(local) ? 1 : local === 'BPMNDiagram' ? 2 : 0;
    if (diagrams === 0 && kind !== 2) size.elements++;
    if (xml.charCodeAt(end - 1) !== 0x2f) {
      open.push(kind);
      if (kind === 1) subProcesses++;
      if (kind === 2) diagrams++;
      size.xmlDepth = Math.max(size.xmlDepth, open.length);
      size.depth = Math.max(size.depth, subProcesses);
    }
    if (size.depth > limits.depth || size.xmlDepth > limits.xmlDepth || size.elements > limits.elements)
      break;
  }
  return size;
}
