import { createRequire } from 'node:module';
import { IGNORED_ATTRIBUTES, IGNORED_EXTENSIONS } from '../../../../engine/bpmn-ignored.js';
import { BpmnModdle, type ModdleElement, type Moddle } from 'bpmn-moddle';
import { expressionProblem } from './expressions.js';
import { timerProblem } from './elements/timers.js';
import { compensationShape, readCompensationMarkers } from './compensation-shape.js';
import {
  IMPLICIT_END_TYPES,
  type MultiInstance,
  type TimerSpec,
  type NodeType,
  type ProcessFlow,
  type ProcessGraph,
  type ProcessNode,
  type ServiceCall,
  type CallSpec,
  type VariableMapping,
  type Finding,
  eventStartOf,
} from './graph.js';
import { pickCatcher } from './elements/errors.js';

export type { Finding } from './graph.js';

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
export interface ParseOutcome {
  /** The file's first executable process (the one a model stands for). */
  graph?: ProcessGraph;
  /** Every executable process of the file, in its order: each deploys as a definition of its own. */
  graphs?: ProcessGraph[];
  /** The file holds processes but none executable (isExecutable="false"): a diagram, kept as a model. */
  isDiagramOnly?: boolean;
  problems: Finding[];
  warnings: Finding[];
}

/** How a file is read (parseBpmn's second argument). */
export interface ParseOptions {
  /**
   * Deploys Java code (a service or send task's class, delegateExpression or expression) and
   * script tasks as external tasks, for a team that brings its Activiti, Flowable or Camunda models
   * unchanged and moves each delegate or script into a worker: the token waits there for a worker
   * of the topic named after the code (the class, the expression, or `script:<language>`), which
   * fetches, completes or fails it over /api/activiti/externalTask. Nothing runs on the server
   * either way; each such element is named in a warning. Off (the default): refused.
   */
  codeAsExternalTasks?: boolean;
}

/** The longest topic a worker can fetch (externalTask/fetchAndLock's topicName). */
export const EXTERNAL_TOPIC_MAX = 200;

/** ParseOptions.codeAsExternalTasks of the file being read (set for the synchronous walk of parseBpmn). */
let codeAsExternal = false;

/**
 * Whether the file being read is written for Camunda: Camunda's namespace bound, neither
 * Activiti's nor Flowable's (a file binding both is read as theirs; the designer's own files
 * bind Camunda's). Set for the synchronous walk of parseBpmn: its uncaught errors end as
 * Camunda's do.
 */
let isCamundaFile = false;

/** The external task standing in for code, and the warning that says so. */
function codeAsExternalTask(
  element: ModdleElement,
  code: { attribute: string; code: string; topic: string },
  problems: Finding[],
  warnings: Finding[],
): ServiceCall | undefined {
  const id = element.id ?? '';
  // A worker names the topic it fetches in at most EXTERNAL_TOPIC_MAX characters.
  if (code.topic.length > EXTERNAL_TOPIC_MAX) {
    problems.push({ field: id, key: 'codeTopicTooLong', params: { id, limit: EXTERNAL_TOPIC_MAX } });
    return undefined;
  }
  warnings.push({ field: id, key: 'codeAsExternal', params: { id, label: elementLabel(element), ...code } });
  return { kind: 'external', fields: {}, topic: code.topic };
}

/** A script task read with codeAsExternalTasks: an external task of the topic script:<language>. */
function scriptAsExternalTask(element: ModdleElement, problems: Finding[], warnings: Finding[]) {
  const language = str(element.scriptFormat) ?? '?';
  const code = { attribute: 'scriptFormat', code: language, topic: `script:${language}` };
  return codeAsExternalTask(element, code, problems, warnings);
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
    const prefix = boundPrefix(xml, uri);
    if (prefix) return prefix;
  }
  return undefined;
}

/** The prefix the file binds to a namespace (an xmlns: attribute, not the text anywhere). */
function boundPrefix(xml: string, uri: string): string | undefined {
  return new RegExp(`xmlns:([\\w.-]+)\\s*=\\s*["']${uri.replace(/[./]/g, '\\$&')}["']`).exec(xml)?.[1];
}

/** An attribute of the Activiti, Flowable or Camunda namespace that Camunda's model does not know. */
function dialectAttribute(element: ModdleElement, name: string): string | undefined {
  const attributes = (element.$attrs ?? {}) as Record<string, unknown>;
  const found = Object.entries(attributes).find(([key]) => key === name || key.endsWith(`:${name}`));
  return typeof found?.[1] === 'string' ? found[1] : undefined;
}

/** Attributes read from the dialects' namespaces beyond Camunda's model: not "ignored markup". */
const DIALECT_ATTRIBUTES = ['terminateAll', 'inheritVariables'];

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
  'bpmn:Task': 'task',
  'bpmn:ManualTask': 'manualTask',
  'bpmn:SendTask': 'sendTask',
  'bpmn:ReceiveTask': 'receiveTask',
  'bpmn:EventBasedGateway': 'eventBasedGateway',
  'bpmn:ExclusiveGateway': 'exclusiveGateway',
  'bpmn:ParallelGateway': 'parallelGateway',
  'bpmn:InclusiveGateway': 'inclusiveGateway',
  'bpmn:SubProcess': 'subProcess',
  /** A transaction: a sub-process that a cancel end event rolls back (compensation.ts). */
  'bpmn:Transaction': 'subProcess',
  'bpmn:CallActivity': 'callActivity',
  'bpmn:BoundaryEvent': 'boundaryEvent',
  'bpmn:IntermediateThrowEvent': 'intermediateThrowEvent',
  'bpmn:IntermediateCatchEvent': 'intermediateCatchEvent',
};

const BUILT_IN_SERVICES = new Set(['notify', 'setVariables', 'mail']);

/** The elements whose skip expression (Activiti, Flowable) is read: flows and these tasks. */
const SKIPPABLE = new Set([
  'bpmn:SequenceFlow',
  'bpmn:UserTask',
  'bpmn:ServiceTask',
  'bpmn:ScriptTask',
  'bpmn:SendTask',
]);

function ignoredSettings(element: ModdleElement, warnings: Finding[]): void {
  const id = element.id ?? 'process';
  const label = element.$type === 'bpmn:SequenceFlow' ? id : elementLabel(element);
  const warn = (setting: string): void => {
    warnings.push({
      field: id,
      key: 'ignoredSetting',
      params: { id, label, setting, attribute: `camunda:${setting}` },
    });
  };
  for (const name of IGNORED_ATTRIBUTES) {
    const value: unknown = element[name];
    if (value === true || (typeof value === 'string' && value.trim() !== '') || typeof value === 'number')
      warn(name);
  }
  // "not startable in the task list" would hide it from 发起流程 in Camunda: here it is listed.
  if (element.$type === 'bpmn:Process' && element.isStartableInTasklist === false)
    warn('isStartableInTasklist');
  const extensions = element.extensionElements as ModdleElement | undefined;
  for (const value of list(extensions?.values)) {
    const setting = IGNORED_EXTENSIONS[value.$type];
    if (setting) warn(setting);
  }
}

/** Listeners and other extension content that cannot run here, and settings ignored: a warning each. */
function droppedExtensions(element: ModdleElement, warnings: Finding[]): void {
  ignoredSettings(element, warnings);
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

/** Java code a service task calls: which attribute and its text. */
function codeOf(element: ModdleElement): { attribute: string; code: string } | undefined {
  for (const name of ['class', 'delegateExpression', 'expression'] as const) {
    const code = str(element[name]) ?? dialectAttribute(element, name);
    if (code) return { attribute: name, code };
  }
  return undefined;
}

/** How a refusal names an element: its id, and its name in brackets when it has one. */
function elementLabel(element: ModdleElement): string {
  const id = element.id ?? '';
  const name = str(element.name);
  return name && name !== id ? `${id} (${name})` : id;
}

/** The value of a camunda:inputParameter / outputParameter: its text, or a map's entries (headers). */
function parameterValue(parameter: ModdleElement): string | Record<string, string> {
  const definition = parameter.definition as ModdleElement | undefined;
  if (definition?.$type === 'camunda:Map') {
    const entries: Record<string, string> = {};
    for (const entry of list(definition.entries)) {
      const key = str(entry.key);
      if (key) entries[key] = str(entry.value) ?? '';
    }
    return entries;
  }
  return str(parameter.value) ?? str(definition?.value) ?? '';
}

/** The HTTP connector of a service task (camunda:connector with connectorId http-connector). */
function connectorCall(id: string, connector: ModdleElement, problems: Finding[]): ServiceCall | undefined {
  const connectorId = str(connector.connectorId) ?? '';
  if (connectorId !== 'http-connector' && connectorId !== 'mail-send') {
    problems.push({ field: id, key: 'connectorType', params: { id, type: connectorId } });
    return undefined;
  }
  const io = connector.inputOutput as ModdleElement | undefined;
  const inputs: Record<string, string | Record<string, string>> = {};
  const outputs: Record<string, string> = {};
  for (const parameter of list(io?.inputParameters)) {
    const name = str(parameter.name);
    if (name) inputs[name] = parameterValue(parameter);
  }
  for (const parameter of list(io?.outputParameters)) {
    const name = str(parameter.name);
    const value = parameterValue(parameter);
    if (name && typeof value === 'string') outputs[name] = value;
  }
  if (connectorId === 'mail-send') {
    const fields: Record<string, string> = {};
    for (const [name, value] of Object.entries(inputs)) if (typeof value === 'string') fields[name] = value;
    return mailCall(id, fields, problems);
  }
  if (typeof inputs.url !== 'string' || inputs.url === '') {
    problems.push({ field: id, key: 'connectorInput', params: { id, name: 'url' } });
    return undefined;
  }
  const texts = [
    ...Object.values(inputs).flatMap((value) => (typeof value === 'string' ? [value] : Object.values(value))),
    ...Object.values(outputs),
  ];
  for (const text of texts) {
    const problem = text.includes('${') ? expressionProblem(text) : undefined;
    if (problem) problems.push({ field: id, key: 'badExpression', params: { id, reason: problem } });
  }
  return { kind: 'http', fields: {}, inputs, outputs };
}

/**
 * An external task's camunda:errorEventDefinitions (Camunda 7.13+): the error each throws (its
 * errorRef's code) and the expression that decides, on completion, whether it does.
 */
function externalErrorRules(
  id: string,
  extensions: ModdleElement | undefined,
  problems: Finding[],
): { code: string; expression: string }[] {
  const rules: { code: string; expression: string }[] = [];
  for (const value of list(extensions?.values)) {
    if (value.$type !== 'camunda:ErrorEventDefinition') continue;
    const expression = str(value.expression) ?? '';
    const problem = expression.includes('${') ? expressionProblem(expression) : 'no ${…} expression';
    if (problem) {
      problems.push({ field: id, key: 'badExpression', params: { id, reason: problem } });
      continue;
    }
    // The code as error events read it (its errorCode, else the error's id), so a boundary catches it.
    rules.push({ code: errorCodeOf(value), expression });
  }
  return rules;
}

function serviceCall(
  element: ModdleElement,
  problems: Finding[],
  warnings: Finding[],
): ServiceCall | undefined {
  const id = element.id ?? '';
  const extensions = element.extensionElements as ModdleElement | undefined;
  const connector = list(extensions?.values).find((value) => value.$type === 'camunda:Connector');
  if (connector) return connectorCall(id, connector, problems);
  const type = str(element.type);
  const code = codeOf(element);
  if (code) {
    if (codeAsExternal) return codeAsExternalTask(element, { ...code, topic: code.code }, problems, warnings);
    // Java code never runs here (issue 36): the refusal names the element and the external-task
    // or HTTP-connector alternative.
    problems.push({
      field: id,
      key: 'javaServiceTask',
      params: { id, label: elementLabel(element), type: short(element.$type), ...code },
    });
    return undefined;
  }
  if (type === 'external') {
    const topic = str(element.topic);
    if (!topic) {
      problems.push({ field: id, key: 'externalTopic', params: { id } });
      return undefined;
    }
    const errorRules = externalErrorRules(id, extensions, problems);
    return { kind: 'external', fields: {}, topic, ...(errorRules.length > 0 ? { errorRules } : {}) };
  }
  if (!type || !BUILT_IN_SERVICES.has(type)) {
    problems.push({ field: id, key: 'serviceType', params: { id, type: type ?? '' } });
    return undefined;
  }
  const fields: Record<string, string> = {};
  for (const value of list(extensions?.values)) {
    if (value.$type !== 'camunda:Field') continue;
    const name = str(value.name);
    const text = str(value.stringValue) ?? str(value.string) ?? str(value.expression) ?? '';
    if (name) fields[name] = text;
  }
  if (type === 'mail') return mailCall(id, fields, problems);
  return { kind: type as ServiceCall['kind'], fields };
}

/** A mail task (camunda:type="mail" or the mail-send connector): it needs a recipient. */
function mailCall(id: string, fields: Record<string, string>, problems: Finding[]): ServiceCall | undefined {
  if (!fields.to) {
    problems.push({ field: id, key: 'mailTo', params: { id } });
    return undefined;
  }
  for (const text of Object.values(fields)) {
    const problem = text.includes('${') ? expressionProblem(text) : undefined;
    if (problem) problems.push({ field: id, key: 'badExpression', params: { id, reason: problem } });
  }
  return { kind: 'mail', fields };
}

function multiInstanceOf(id: string, loop: ModdleElement, problems: Finding[]): MultiInstance | undefined {
  const multi: MultiInstance = { isSequential: loop.isSequential === true };
  // The BPMN way (Activiti's and Flowable's too): loopDataInputRef names the collection, a
  // variable or an input of the activity by its name; inputDataItem names each item's variable.
  const dataInput = loop.loopDataInputRef as ModdleElement | undefined;
  const item = loop.inputDataItem as ModdleElement | undefined;
  const collection =
    str(loop.collection) ?? str(dataInput?.name) ?? str(dataInput?.id) ?? unresolvedRefs.get(loop);
  const cardinality = str((loop.loopCardinality as ModdleElement | undefined)?.body);
  const elementVariable = str(loop.elementVariable) ?? str(item?.name) ?? str(item?.id);
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

/**
 * Error, message and signal references moddle could not resolve, by element (Activiti: an
 * `errorRef` may name the code itself, a `messageRef` the message's name).
 */
const unresolvedErrorRefs = new WeakMap<ModdleElement, string>();
const unresolvedRefs = new WeakMap<ModdleElement, string>();
const RESOLVED_BY_NAME = new Set([
  'bpmn:messageRef',
  'bpmn:signalRef',
  'bpmn:escalationRef',
  // A compensation throw's activityRef naming no element: refused by compensation-shape.ts.
  'bpmn:activityRef',
  // A multi-instance loop's collection variable (multiInstanceOf).
  'bpmn:loopDataInputRef',
]);

/** The code an error event throws or catches: the error's errorCode, its id, or '' (any error). */
function errorCodeOf(definition: ModdleElement): string {
  const error = definition.errorRef as ModdleElement | undefined;
  return str(error?.errorCode) ?? str(error?.id) ?? unresolvedErrorRefs.get(definition) ?? '';
}

/**
 * The name a message event definition (or receive task) waits for or sends: its message's name,
 * else the message's id, else the unresolved reference as written, else `fallback`.
 */
function messageNameOf(element: ModdleElement, fallback: string): string {
  const message = element.messageRef as ModdleElement | undefined;
  return str(message?.name) ?? str(message?.id) ?? unresolvedRefs.get(element) ?? fallback;
}

/** The name of a signal event definition's signal (its name, else its id, else the reference as written). */
function signalNameOf(definition: ModdleElement, fallback: string): string {
  const signal = definition.signalRef as ModdleElement | undefined;
  return str(signal?.name) ?? str(signal?.id) ?? unresolvedRefs.get(definition) ?? fallback;
}

/** The condition of a conditional event definition (checked like a flow's). */
function conditionOf(id: string, definition: ModdleElement, problems: Finding[]): string | undefined {
  const condition = str((definition.condition as ModdleElement | undefined)?.body);
  const problem = condition ? expressionProblem(condition) : 'no condition';
  if (problem || !condition) {
    problems.push({ field: id, key: 'badExpression', params: { id, reason: problem ?? '' } });
    return undefined;
  }
  return condition;
}

/** The code an escalation event throws or catches: the escalation's code, else its id, else '' (any). */
function escalationCodeOf(definition: ModdleElement): string {
  const escalation = definition.escalationRef as ModdleElement | undefined;
  return str(escalation?.escalationCode) ?? str(escalation?.id) ?? unresolvedRefs.get(definition) ?? '';
}

/** A throw that would call code (Camunda's and Activiti's class, delegateExpression, expression): refused. */
function callsCode(element: ModdleElement): boolean {
  return (
    str(element.class) !== undefined ||
    str(element.delegateExpression) !== undefined ||
    str(element.expression) !== undefined ||
    dialectAttribute(element, 'class') !== undefined ||
    dialectAttribute(element, 'delegateExpression') !== undefined
  );
}

/** A message throw (intermediate or end): passed as a send; one that calls code is refused. */
function messageThrow(node: ProcessNode, definition: ModdleElement, problems: Finding[]): void {
  const code = codeOf(definition);
  if (code)
    problems.push({
      field: node.id,
      // Not made an external task by codeAsExternalTasks: its message names no such option.
      key: 'javaThrowEvent',
      params: {
        id: node.id,
        label: node.name && node.name !== node.id ? `${node.id} (${node.name})` : node.id,
        type: node.type,
        ...code,
      },
    });
  node.messageName = messageNameOf(definition, node.id);
}

function nodeOf(element: ModdleElement, problems: Finding[], warnings: Finding[]): ProcessNode | undefined {
  const id = element.id ?? '';
  const isScript = element.$type === 'bpmn:ScriptTask';
  // With codeAsExternalTasks a script task is read as a service task whose worker runs the script.
  const type = isScript && codeAsExternal ? 'serviceTask' : NODE_TYPES[element.$type];
  if (isScript && !codeAsExternal) {
    // Scripts never run here (issue 36): the refusal names the element and the alternatives.
    problems.push({
      field: id,
      key: 'scriptTask',
      params: { id, label: elementLabel(element), language: str(element.scriptFormat) ?? '?' },
    });
    return undefined;
  }
  if (!type) {
    problems.push({ field: id, key: 'unsupported', params: { id, type: short(element.$type) } });
    return undefined;
  }
  droppedExtensions(element, warnings);
  const definitions = list(element.eventDefinitions);
  const node: ProcessNode = { id, type, incoming: [], outgoing: [] };
  const name = str(element.name);
  if (name) node.name = name;
  // A user task's name may hold expressions (`My Task ${loopCounter}`): read when its task is made.
  const nameProblem =
    name && type === 'userTask' && name.includes('${') ? expressionProblem(name) : undefined;
  if (nameProblem) problems.push({ field: id, key: 'badExpression', params: { id, reason: nameProblem } });
  const documentation = str(list(element.documentation)[0]?.text);
  if (documentation) node.documentation = documentation;
  const formKey = str(element.formKey);
  if (formKey && (type === 'userTask' || type === 'startEvent')) node.formKey = formKey;
  const skipExpression = SKIPPABLE.has(element.$type)
    ? str(dialectAttribute(element, 'skipExpression'))
    : undefined;
  if (skipExpression) {
    const problem = expressionProblem(skipExpression);
    if (problem) problems.push({ field: id, key: 'badExpression', params: { id, reason: problem } });
    else node.skipExpression = skipExpression;
  }
  const loop = element.loopCharacteristics as ModdleElement | undefined;
  const isLooped = LOOPED.has(type);
  if (loop && (!isLooped || loop.$type !== 'bpmn:MultiInstanceLoopCharacteristics')) {
    problems.push({ field: id, key: 'unsupported', params: { id, type: short(loop.$type) } });
  } else if (loop) {
    const multi = multiInstanceOf(id, loop, problems);
    if (multi) node.multi = multi;
  }
  if (readCompensationMarkers(element, node, (definition) => unresolvedRefs.get(definition))) {
    // A compensation or cancel event: read by compensation-shape.ts.
  } else if (type === 'startEvent') {
    const [definition] = definitions;
    if (definition?.$type === 'bpmn:TimerEventDefinition') {
      const timer = timerOf(id, definition, problems);
      if (timer) node.timer = timer;
    } else if (definition?.$type === 'bpmn:MessageEventDefinition' && definitions.length === 1)
      node.messageName = messageNameOf(definition, id);
    else if (definition?.$type === 'bpmn:SignalEventDefinition' && definitions.length === 1)
      node.signalName = signalNameOf(definition, id);
    // Error and escalation starts begin event sub-processes only (readElements checks where they are).
    else if (definition?.$type === 'bpmn:ErrorEventDefinition' && definitions.length === 1)
      node.errorCode = errorCodeOf(definition);
    else if (definition?.$type === 'bpmn:EscalationEventDefinition' && definitions.length === 1)
      node.escalationCode = escalationCodeOf(definition);
    else if (definition)
      problems.push({ field: id, key: 'unsupported', params: { id, type: short(definition.$type) } });
    if (element.isInterrupting === false) node.isNonInterrupting = true;
    // BPMN: an error start event always interrupts its scope.
    if (node.errorCode !== undefined && node.isNonInterrupting)
      problems.push({
        field: id,
        key: 'unsupported',
        params: { id, type: 'non-interrupting error StartEvent' },
      });
    const initiator = str(element.initiator);
    if (initiator) node.initiator = initiator;
  } else if (type === 'endEvent') {
    const [definition] = definitions;
    if (definition?.$type === 'bpmn:TerminateEventDefinition') {
      node.isTerminate = true;
      if (dialectAttribute(definition, 'terminateAll') === 'true') node.isTerminateAll = true;
    } else if (definition?.$type === 'bpmn:ErrorEventDefinition') {
      node.errorCode = errorCodeOf(definition);
      // Camunda: "in case no matching error boundary event is found, the execution semantics
      // defaults to the none end event semantics"; Activiti and Flowable fail the step instead.
      if (isCamundaFile) node.endsWhenUncaught = true;
    } else if (definition?.$type === 'bpmn:MessageEventDefinition' && definitions.length === 1) {
      messageThrow(node, definition, problems);
    } else if (definition?.$type === 'bpmn:SignalEventDefinition' && definitions.length === 1) {
      node.signalName = signalNameOf(definition, id);
    } else if (definition?.$type === 'bpmn:EscalationEventDefinition' && definitions.length === 1) {
      node.escalationCode = escalationCodeOf(definition);
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
    const service = isScript
      ? scriptAsExternalTask(element, problems, warnings)
      : serviceCall(element, problems, warnings);
    if (service) node.service = service;
  } else if (type === 'sendTask') {
    // A send task without an implementation passes (as the peers pass it); one that calls code
    // or names a service type is read as a service task.
    const extensions = element.extensionElements as ModdleElement | undefined;
    const connector = list(extensions?.values).some((value) => value.$type === 'camunda:Connector');
    if (callsCode(element) || str(element.type) || connector) {
      const service = serviceCall(element, problems, warnings);
      if (service) node.service = service;
    }
    const message = str((element.messageRef as ModdleElement | undefined)?.name);
    if (message) node.messageName = message;
  } else if (type === 'receiveTask') {
    // Without a message it waits for a message named by its id (POST …/message).
    node.messageName = messageNameOf(element, id);
  } else if (type === 'boundaryEvent') {
    const [definition] = definitions;
    if (definition?.$type === 'bpmn:TimerEventDefinition' && definitions.length === 1) {
      const timer = timerOf(id, definition, problems);
      if (timer) node.timer = timer;
    } else if (definition?.$type === 'bpmn:SignalEventDefinition' && definitions.length === 1) {
      node.signalName = signalNameOf(definition, id);
    } else if (definition?.$type === 'bpmn:MessageEventDefinition' && definitions.length === 1) {
      node.messageName = messageNameOf(definition, id);
    } else if (definition?.$type === 'bpmn:EscalationEventDefinition' && definitions.length === 1) {
      node.escalationCode = escalationCodeOf(definition);
    } else if (definition?.$type === 'bpmn:ConditionalEventDefinition' && definitions.length === 1) {
      const condition = conditionOf(id, definition, problems);
      if (condition) node.condition = condition;
    } else if (definition?.$type === 'bpmn:ErrorEventDefinition' && definitions.length === 1) {
      node.errorCode = errorCodeOf(definition);
      if (element.cancelActivity === false)
        problems.push({
          field: id,
          key: 'unsupported',
          params: { id, type: 'non-interrupting error BoundaryEvent' },
        });
    } else if (!definition && eventTypes.has(id)) {
      node.messageName = eventTypes.get(id);
    } else {
      problems.push({
        field: id,
        key: 'unsupported',
        // Without a definition it would wait for nothing (Flowable's custom definitions need its Java parse handlers).
        params: {
          id,
          type: definition ? short(definition.$type) : 'BoundaryEvent without an event definition',
        },
      });
    }
    if (element.cancelActivity === false) node.isNonInterrupting = true;
    const attachedTo = ref(element.attachedToRef);
    if (attachedTo) node.attachedTo = attachedTo;
  } else if (type === 'intermediateThrowEvent' || type === 'intermediateCatchEvent') {
    const [definition] = definitions;
    const isCatch = type === 'intermediateCatchEvent';
    if (definitions.length > 1)
      problems.push({ field: id, key: 'unsupported', params: { id, type: 'several event definitions' } });
    else if (definition?.$type === 'bpmn:LinkEventDefinition') node.linkName = str(definition.name) ?? id;
    else if (definition?.$type === 'bpmn:SignalEventDefinition') {
      node.signalName = signalNameOf(definition, id);
    } else if (definition?.$type === 'bpmn:MessageEventDefinition') {
      if (isCatch) node.messageName = messageNameOf(definition, id);
      else messageThrow(node, definition, problems);
    } else if (definition?.$type === 'bpmn:EscalationEventDefinition' && !isCatch) {
      node.escalationCode = escalationCodeOf(definition);
    } else if (definition?.$type === 'bpmn:ConditionalEventDefinition' && isCatch) {
      const condition = conditionOf(id, definition, problems);
      if (condition) node.condition = condition;
    } else if (definition?.$type === 'bpmn:TimerEventDefinition' && isCatch) {
      const timer = timerOf(id, definition, problems);
      if (timer) node.timer = timer;
    } else if (!definition && isCatch && eventTypes.has(id)) node.messageName = eventTypes.get(id);
    else if (definition)
      problems.push({ field: id, key: 'unsupported', params: { id, type: short(definition.$type) } });
  } else if (type === 'subProcess') {
    if (element.triggeredByEvent === true) node.isEventSubProcess = true;
  } else if (type === 'callActivity') {
    const call = callSpecOf(element, problems);
    if (call) node.call = call;
  } else if (type !== 'eventBasedGateway') {
    const defaultFlow = ref(element.default);
    if (defaultFlow) node.defaultFlow = defaultFlow;
  }
  return node;
}

/** A call activity's called process and variable mappings (camunda:in / out, read from activiti: and flowable: too). */
function callSpecOf(element: ModdleElement, problems: Finding[]): CallSpec | undefined {
  const id = element.id ?? '';
  const calledElement = str(element.calledElement);
  if (!calledElement) {
    problems.push({
      field: id,
      key: 'unsupported',
      params: { id, type: 'CallActivity without calledElement' },
    });
    return undefined;
  }
  const check = (text: string | undefined): void => {
    const problem = text && text.includes('${') ? expressionProblem(text) : undefined;
    if (problem) problems.push({ field: id, key: 'badExpression', params: { id, reason: problem } });
  };
  check(calledElement);
  const call: CallSpec = { calledElement, ins: [], outs: [] };
  const extensions = element.extensionElements as ModdleElement | undefined;
  for (const value of list(extensions?.values)) {
    const isIn = value.$type === 'camunda:In';
    if (!isIn && value.$type !== 'camunda:Out') continue;
    const businessKey = str(value.businessKey);
    if (isIn && businessKey) {
      // The caller's own key (Camunda's, Activiti's and Flowable's idiom), else an expression of
      // its variables (Camunda's #{…} read as ${…}).
      if (
        /\b(processBusinessKey|businessKey|getProcessBusinessKey\(\)|getBusinessKey\(\))\s*\}$/.test(
          businessKey,
        )
      )
        call.passBusinessKey = true;
      else {
        call.businessKey = businessKey.replace(/#\{/g, '${');
        check(call.businessKey);
      }
      continue;
    }
    if (str(value.variables) === 'all') {
      if (isIn) call.inAll = true;
      else call.outAll = true;
      continue;
    }
    const target = str(value.target);
    const source = str(value.source);
    const sourceExpression = str(value.sourceExpression);
    if (!target || (!source && !sourceExpression)) continue;
    check(sourceExpression);
    const mapping: VariableMapping = { target };
    if (source) mapping.source = source;
    if (sourceExpression) mapping.sourceExpression = sourceExpression;
    (isIn ? call.ins : call.outs).push(mapping);
  }
  // Flowable: inheritVariables="true" passes every variable in.
  if (dialectAttribute(element, 'inheritVariables') === 'true') call.inAll = true;
  return call;
}

/** The link catch event a link throw jumps to: the catch of the same name in the same scope. */
export function linkCatchOf(graph: ProcessGraph, thrower: ProcessNode): ProcessNode | undefined {
  return Object.values(graph.nodes).find(
    (node) =>
      node.type === 'intermediateCatchEvent' &&
      node.linkName === thrower.linkName &&
      node.scope === thrower.scope,
  );
}

/**
 * An event-based gateway leads to catch events only (message, signal, timer) or receive tasks,
 * each reached from it alone: they note the gateway, where their token waits.
 */
function eventGatewayShape(graph: ProcessGraph, gateway: ProcessNode, problems: Finding[]): void {
  for (const flowId of gateway.outgoing) {
    const target = graph.nodes[graph.flows[flowId]?.target ?? ''];
    if (!target) continue;
    const isCatch =
      (target.type === 'intermediateCatchEvent' &&
        (target.timer !== undefined ||
          target.messageName !== undefined ||
          target.signalName !== undefined)) ||
      target.type === 'receiveTask';
    if (!isCatch || target.incoming.length !== 1)
      problems.push({
        field: target.id,
        key: 'unsupported',
        params: {
          id: target.id,
          type: `${target.type} after EventBasedGateway ${gateway.id}`,
        },
      });
    else target.eventGateway = gateway.id;
  }
}

/**
 * What may be multi-instance: user tasks, sub-processes and call activities, service and send
 * tasks (external ones and connector and mail calls wait per item; a script task read as an
 * external task with codeAsExternalTasks too), and plain and manual tasks.
 */
const LOOPED: ReadonlySet<NodeType> = new Set<NodeType>([
  'userTask',
  'subProcess',
  'callActivity',
  'task',
  'manualTask',
  'serviceTask',
  'sendTask',
]);

/** What a boundary event may be attached to: activities and sub-processes. */
const ATTACHABLE: ReadonlySet<NodeType> = new Set<NodeType>([
  'userTask',
  'serviceTask',
  'task',
  'manualTask',
  'sendTask',
  'receiveTask',
  'subProcess',
  'callActivity',
]);

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
    const isLinkThrow = node.type === 'intermediateThrowEvent' && node.linkName !== undefined;
    const isLinkCatch = node.type === 'intermediateCatchEvent' && node.linkName !== undefined;
    // A join without a flow out ends its merged token (as Camunda's does).
    const isEndingJoin =
      (node.type === 'parallelGateway' || node.type === 'inclusiveGateway') && node.incoming.length > 1;
    if (
      node.type !== 'endEvent' &&
      !isLinkThrow &&
      !isEndingJoin &&
      !IMPLICIT_END_TYPES.has(node.type) &&
      node.outgoing.length === 0
    )
      problems.push({ field: node.id, key: 'noOutgoing', params: { id: node.id } });
    if (
      node.type !== 'startEvent' &&
      node.type !== 'boundaryEvent' &&
      !node.isEventSubProcess &&
      !node.isForCompensation &&
      !isLinkCatch &&
      node.incoming.length === 0
    )
      // Never reached, so never run: Activiti, Flowable and Camunda deploy it (a token can only be
      // moved there by hand), and so does this engine, with a warning naming it.
      warnings.push({ field: node.id, key: 'noIncoming', params: { id: node.id } });
    if (node.type === 'endEvent' && node.errorCode !== undefined && !isErrorCaught(graph, node))
      warnings.push({
        field: node.id,
        key: node.endsWhenUncaught ? 'uncaughtErrorEnds' : 'uncaughtErrorStops',
        params: { id: node.id, code: node.errorCode },
      });
    if (isLinkThrow && !linkCatchOf(graph, node))
      problems.push({
        field: node.id,
        key: 'unsupported',
        params: { id: node.id, type: `LinkEventDefinition without a catch named "${node.linkName ?? ''}"` },
      });
    if (node.defaultFlow && !node.outgoing.includes(node.defaultFlow))
      problems.push({ field: node.id, key: 'badDefault', params: { id: node.id, flow: node.defaultFlow } });
    if (node.type === 'eventBasedGateway') eventGatewayShape(graph, node, problems);
    if (node.type === 'boundaryEvent') {
      const activity = graph.nodes[node.attachedTo ?? ''];
      // On an element already refused (a script task, say), that refusal names the problem.
      const isOnRefused = !activity && refused.has(node.attachedTo ?? '');
      if (!activity || !ATTACHABLE.has(activity.type)) {
        if (!isOnRefused)
          problems.push({ field: node.id, key: 'boundaryOnUserTask', params: { id: node.id } });
      } else if (!node.isCompensationBoundary && !node.isCancel)
        activity.boundaries = [...(activity.boundaries ?? []), node.id];
    }
    if (
      node.type === 'startEvent' &&
      node.scope !== undefined &&
      node.timer &&
      !graph.nodes[node.scope]?.isEventSubProcess
    )
      problems.push({
        field: node.id,
        key: 'unsupported',
        params: { id: node.id, type: 'TimerEventDefinition' },
      });
  }
}

/**
 * The id of a sequence flow without one (BPMN: optional): `#source->target`, the same for the same
 * file whatever else changes around it, `#source->target~2` for a second flow between the same
 * two elements. No XML id can be one ('#' is not a name character), so no two overwrite each
 * other, and a message about the flow names the elements it joins.
 */
function unnamedFlowId(element: ModdleElement, found: { unnamedFlows: Set<string> }): string {
  const base = `#${ref(element.sourceRef) ?? '?'}->${ref(element.targetRef) ?? '?'}`;
  let id = base;
  for (let count = 2; found.unnamedFlows.has(id); count++) id = `${base}~${count}`;
  found.unnamedFlows.add(id);
  return id;
}

/** Reads the flow elements of a process or an embedded sub-process (scope) into the graph. */
function readElements(
  elements: ModdleElement[],
  scope: string | undefined,
  graph: ProcessGraph,
  found: { starts: string[]; eventStarts: string[]; refused: Set<string>; unnamedFlows: Set<string> },
  problems: Finding[],
  warnings: Finding[],
): void {
  const starts: string[] = [];
  const eventStarts: string[] = [];
  for (const element of elements) {
    if (element.$type === 'bpmn:SequenceFlow' && !element.id) element.id = unnamedFlowId(element, found);
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
      const skipExpression = str(dialectAttribute(element, 'skipExpression'));
      if (skipExpression) {
        const problem = expressionProblem(skipExpression);
        if (problem) problems.push({ field: id, key: 'badExpression', params: { id, reason: problem } });
        else flow.skipExpression = skipExpression;
      }
      droppedExtensions(element, warnings);
      graph.flows[id] = flow;
      continue;
    }
    if (element.$type === 'bpmn:TextAnnotation' || element.$type === 'bpmn:Association') continue;
    // A reference to a data object (or a store) only draws it: nothing runs.
    if (element.$type === 'bpmn:DataObjectReference' || element.$type === 'bpmn:DataStoreReference') continue;
    if (element.$type === 'bpmn:DataObject') {
      const value = dataObjects.get(id) ?? null;
      const name = str(element.name) ?? id;
      // The process's own become the instance's variables at its start (Activiti, Flowable); a
      // sub-process's would be variables local to it, which this engine does not keep: named.
      if (scope === undefined) graph.dataObjects = { ...graph.dataObjects, [name]: value };
      else warnings.push({ field: id, key: 'dataObjectInSubProcess', params: { id, name, scope } });
      continue;
    }
    const node = nodeOf(element, problems, warnings);
    if (!node) {
      found.refused.add(id);
      continue;
    }
    if (scope !== undefined) node.scope = scope;
    graph.nodes[id] = node;
    const isCaughtStart =
      node.type === 'startEvent' && (node.errorCode !== undefined || node.escalationCode !== undefined);
    if (isCaughtStart && !graph.nodes[scope ?? '']?.isEventSubProcess)
      problems.push({
        field: id,
        key: 'unsupported',
        params: { id, type: 'error or escalation StartEvent outside an event SubProcess' },
      });
    const isEventStart = node.messageName !== undefined || node.signalName !== undefined;
    if (node.type === 'startEvent') (isEventStart ? eventStarts : starts).push(id);
    if (node.type === 'subProcess')
      readElements(list(element.flowElements), id, graph, found, problems, warnings);
  }
  if (scope === undefined) {
    found.starts.push(...starts);
    found.eventStarts.push(...eventStarts);
    return;
  }
  const subProcess = graph.nodes[scope];
  if (subProcess?.isEventSubProcess) {
    eventSubProcessStart(graph, subProcess, [...starts, ...eventStarts], problems);
    return;
  }
  for (const eventStart of eventStarts)
    problems.push({
      field: eventStart,
      key: 'unsupported',
      params: { id: eventStart, type: 'message or signal StartEvent in a SubProcess' },
    });
  if (starts.length !== 1) problems.push({ field: scope, key: 'oneStart', params: { count: starts.length } });
  else if (subProcess) subProcess.startId = starts[0] ?? '';
}

/**
 * An event sub-process starts at one message, signal, timer, error or escalation start event
 * (interrupting its scope or not); it is noted on its scope (the sub-process it is in, or the
 * process). Error and escalation starts wait for nothing: a throw inside the scope finds them.
 */
function eventSubProcessStart(
  graph: ProcessGraph,
  eventSubProcess: ProcessNode,
  starts: string[],
  problems: Finding[],
): void {
  const id = eventSubProcess.id;
  const [startId] = starts;
  const start = graph.nodes[startId ?? ''];
  const isTriggered =
    start !== undefined &&
    (start.messageName !== undefined ||
      start.signalName !== undefined ||
      start.timer !== undefined ||
      start.errorCode !== undefined ||
      start.escalationCode !== undefined);
  if (starts.length !== 1 || !start || !isTriggered) {
    problems.push({
      field: id,
      key: 'unsupported',
      params: {
        id,
        type: 'event SubProcess without one message, signal, timer, error or escalation start event',
      },
    });
    return;
  }
  eventSubProcess.startId = start.id;
  const scope = eventSubProcess.scope === undefined ? undefined : graph.nodes[eventSubProcess.scope];
  if (scope) scope.eventSubProcesses = [...(scope.eventSubProcesses ?? []), id];
  else graph.eventSubProcesses = [...(graph.eventSubProcesses ?? []), id];
}

/**
 * Flowable's event-registry catches: a boundary or intermediate catch event without an event
 * definition whose extensions name an `eventType`, by element id. They wait as message catches
 * for a message of that name (POST …/processinstance/message), as Flowable's wait for an event of
 * that type. Read from the text: Camunda's model drops the markup it does not know.
 */
function eventTypesOf(xml: string): Map<string, string> {
  const found = new Map<string, string>();
  if (!xml.includes(':eventType>')) return found;
  for (const element of elementsIn(xml, ['boundaryEvent', 'intermediateCatchEvent'])) {
    const id = /\bid\s*=\s*["']([^"']+)["']/.exec(element.attributes)?.[1];
    const type = /<([\w.-]+):eventType>\s*([^<]*?)\s*<\/\1:eventType>/.exec(element.body)?.[2];
    if (id && type && !/eventDefinition/i.test(element.body)) found.set(id, type);
  }
  return found;
}

/**
 * The elements of the given local names (any prefix) in the text, with their attributes and body,
 * in one pass from start to end that steps over comments and CDATA (as scanBpmnSize does), so a
 * crafted file costs its length, not its square, and markup inside a comment is not read.
 * Elements of these names do not nest.
 */
function* elementsIn(
  xml: string,
  names: readonly string[],
): Generator<{ name: string; attributes: string; body: string }> {
  const wanted = new Set(names);
  const tagName = /<(\/?)(?:[\w.-]+:)?([\w.-]+)/y;
  let open: { name: string; attributes: string; bodyFrom: number } | undefined;
  let at = 0;
  while (at < xml.length) {
    const lt = xml.indexOf('<', at);
    if (lt < 0) return;
    const skipped = xml.startsWith('<!--', lt) ? '-->' : xml.startsWith('<![CDATA[', lt) ? ']]>' : undefined;
    if (skipped) {
      const end = xml.indexOf(skipped, lt + 4);
      if (end < 0) return;
      at = end + skipped.length;
      continue;
    }
    at = lt + 1;
    tagName.lastIndex = lt;
    const [, slash, name = ''] = tagName.exec(xml) ?? [];
    if (!wanted.has(name)) continue;
    if (slash) {
      if (open?.name === name)
        yield { name, attributes: open.attributes, body: xml.slice(open.bodyFrom, lt) };
      open = undefined;
      continue;
    }
    // the tag's end: the first '>' outside a quoted attribute value (a value may hold one)
    let gt = tagName.lastIndex;
    for (let quote = ''; gt < xml.length; gt += 1) {
      const char = xml[gt];
      if (quote) quote = char === quote ? '' : quote;
      else if (char === '"' || char === "'") quote = char;
      else if (char === '>') break;
    }
    if (gt >= xml.length) return;
    at = gt + 1;
    const isEmpty = xml[gt - 1] === '/';
    const attributes = xml.slice(tagName.lastIndex, isEmpty ? gt - 1 : gt);
    if (isEmpty) yield { name, attributes, body: '' };
    else open = { name, attributes, bodyFrom: gt + 1 };
  }
}

/** A data object's value as Activiti and Flowable read it: typed by its xsd item, none is null. */
function dataObjectValue(type: string, text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return null;
  const value = text.trim();
  const kind = type.replace(/^[\w.-]+:/, '').toLowerCase();
  if (kind === 'boolean') return value === 'true';
  if (kind === 'int' || kind === 'long' || kind === 'double') {
    const number = Number(value);
    return Number.isFinite(number) ? number : value;
  }
  return value;
}

/**
 * The values of the file's data objects (`<activiti:value>` in its extensions; their type from
 * itemSubjectRef), by element id. Read from the text: Camunda's model drops the markup it does not
 * know, and the xsd: item reference resolves to nothing.
 */
function dataObjectsOf(xml: string): Map<string, unknown> {
  const found = new Map<string, unknown>();
  if (!/<(?:[\w.-]+:)?dataObject\b/.test(xml)) return found;
  for (const element of elementsIn(xml, ['dataObject'])) {
    const id = /\bid\s*=\s*["']([^"']+)["']/.exec(element.attributes)?.[1];
    const type = /\bitemSubjectRef\s*=\s*["']([^"']+)["']/.exec(element.attributes)?.[1] ?? '';
    const text = /<([\w.-]+):value\s*>([^<]*)<\/\1:value\s*>/.exec(element.body)?.[2];
    if (id) found.set(id, dataObjectValue(type, text));
  }
  return found;
}

/**
 * Whether the process catches the error an end event throws where it is thrown: scope by scope
 * outwards, an error event sub-process of the scope or an error boundary event of the
 * sub-process, last the process's own event sub-processes (as elements/errors.ts finds the
 * handler when it runs).
 */
function isErrorCaught(graph: ProcessGraph, node: ProcessNode): boolean {
  const thrown = { kind: 'error' as const, code: node.errorCode ?? '' };
  const catchesAmong = (ids: readonly string[], pick: (id: string) => ProcessNode | undefined): boolean =>
    pickCatcher(ids.map(pick), thrown) !== undefined;
  let scope = node.scope === undefined ? undefined : graph.nodes[node.scope];
  let cameFrom: string | undefined;
  for (;;) {
    const eventSubProcesses = (scope ? scope.eventSubProcesses : graph.eventSubProcesses) ?? [];
    const others = eventSubProcesses.filter((id) => id !== cameFrom);
    if (catchesAmong(others, (id) => eventStartOf(graph, id))) return true;
    if (!scope) return false;
    if (catchesAmong(scope.boundaries ?? [], (id) => graph.nodes[id])) return true;
    cameFrom = scope.id;
    scope = scope.scope === undefined ? undefined : graph.nodes[scope.scope];
  }
}

/** The data objects of the file being read (set for the synchronous walk of parseBpmn). */
let dataObjects = new Map<string, unknown>();

/** The event-registry catches of the file being read (set for the synchronous walk of parseBpmn). */
let eventTypes = new Map<string, string>();

/** Parses a BPMN file: its graph when it has no problems, and what was found. */
export async function parseBpmn(xml: string, options: ParseOptions = {}): Promise<ParseOutcome> {
  const problems: Finding[] = [];
  const warnings: Finding[] = [];
  let root: ModdleElement;
  const prefix = dialectPrefix(xml);
  const hasCamunda = xml.includes(camunda.uri);
  try {
    const parsed = await reader().fromXML(normaliseNamespaces(xml));
    root = parsed.rootElement;
    for (const warning of parsed.warnings) {
      if (warning.property === 'bpmn:errorRef' && warning.element && warning.value) {
        unresolvedErrorRefs.set(warning.element, warning.value);
        continue;
      }
      if (RESOLVED_BY_NAME.has(warning.property ?? '') && warning.element && warning.value) {
        unresolvedRefs.set(warning.element, warning.value);
        continue;
      }
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
      // A data object's value and its xsd: type are read from the text (dataObjectsOf).
      const isDataObjectMarkup =
        warning.property === 'bpmn:itemSubjectRef' ||
        (warning.message.includes('unrecognized element <camunda:value>') && /dataObject\b/.test(xml));
      if (isDataObjectMarkup) continue;
      if (DIALECT_ATTRIBUTES.some((name) => warning.message.includes(`unknown attribute <camunda:${name}>`)))
        continue;
      // A flow's skip expression is read, and a task's (SKIPPABLE); another element's stays named as ignored.
      const isReadSkip =
        warning.message.includes('unknown attribute <camunda:skipExpression>') &&
        SKIPPABLE.has((warning.element as ModdleElement | undefined)?.$type ?? '');
      if (isReadSkip) continue;
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
  if (executable.length === 0) {
    // Every process marked isExecutable="false" (a diagram of how work is done): a model only.
    const isDiagramOnly = processes.length > 0;
    problems.push({ field: 'xml', key: isDiagramOnly ? 'diagramOnly' : 'noProcess' });
    return { problems, warnings, ...(isDiagramOnly ? { isDiagramOnly } : {}) };
  }
  // Each executable process is a definition of its own (as Activiti, Flowable and Camunda deploy
  // them); a call activity may call another process of the same file by its id.
  const isCamunda = boundPrefix(xml, camunda.uri) !== undefined && prefix === undefined;
  const graphs = executable.map((process) =>
    processGraph({ xml, process, options, isCamunda, problems, warnings }),
  );
  // An ignored attribute of an Activiti or Flowable file is named by the file's own prefix.
  if (prefix && !hasCamunda)
    for (const warning of warnings)
      if (warning.key === 'ignoredSetting' && typeof warning.params?.attribute === 'string')
        warning.params.attribute = warning.params.attribute.replace(/^camunda:/, `${prefix}:`);
  return problems.length > 0 ? { problems, warnings } : { graph: graphs[0], graphs, problems, warnings };
}

/** One executable process of a file read into its graph; its problems and warnings are added. */
function processGraph({
  xml,
  process,
  options,
  isCamunda,
  problems,
  warnings,
}: {
  xml: string;
  process: ModdleElement;
  options: ParseOptions;
  isCamunda: boolean;
  problems: Finding[];
  warnings: Finding[];
}): ProcessGraph {
  const key = str(process.id) ?? '';
  if (!/^[A-Za-z_][\w.-]{0,99}$/.test(key))
    problems.push({ field: key || 'process', key: 'badKey', params: { key } });
  droppedExtensions(process, warnings);
  const graph: ProcessGraph = { key, startId: '', nodes: {}, flows: {} };
  const name = str(process.name);
  if (name) graph.name = name;
  // Who may start it: checked at start (403) and in 发起流程's list (issue 40.3).
  const starterUsers = csv(process.candidateStarterUsers);
  if (starterUsers) graph.candidateStarterUsers = starterUsers;
  const starterGroups = csv(process.candidateStarterGroups);
  if (starterGroups) graph.candidateStarterGroups = starterGroups;
  const found = {
    starts: [] as string[],
    eventStarts: [] as string[],
    refused: new Set<string>(),
    unnamedFlows: new Set<string>(),
  };
  eventTypes = eventTypesOf(xml);
  dataObjects = dataObjectsOf(xml);
  codeAsExternal = options.codeAsExternalTasks === true;
  isCamundaFile = isCamunda;
  try {
    readElements(list(process.flowElements), undefined, graph, found, problems, warnings);
  } finally {
    eventTypes = new Map();
    dataObjects = new Map();
    codeAsExternal = false;
    isCamundaFile = false;
  }
  const { starts, eventStarts, refused } = found;
  // A process with message or signal starts only is started by the first of them (as Flowable does).
  const initial = starts.length === 0 && eventStarts.length > 0 ? eventStarts.slice(0, 1) : starts;
  checkShape(graph, initial, refused, problems, warnings);
  compensationShape({ graph, process, refused, problems });
  graph.startId = initial[0] ?? '';
  for (const id of eventStarts) {
    const start = graph.nodes[id];
    if (start?.messageName !== undefined) {
      graph.messageStarts ??= {};
      if (graph.messageStarts[start.messageName] !== undefined)
        problems.push({
          field: id,
          key: 'unsupported',
          params: { id, type: `a second start event for the message "${start.messageName}"` },
        });
      graph.messageStarts[start.messageName] = id;
    } else if (start?.signalName !== undefined) {
      graph.signalStarts ??= {};
      graph.signalStarts[start.signalName] ??= id;
    }
  }
  return graph;
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
