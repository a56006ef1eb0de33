/**
 * What the modeler lints as the user draws: a few bpmnlint rules whose findings matter to this
 * engine, and one rule of our own flagging each element the engine cannot run (the same list as
 * src/server/features/workflow/services/parse.ts, which refuses them on save and deploy).
 */

import { IGNORED_ATTRIBUTES, IGNORED_EXTENSIONS } from '../../../../engine/bpmn-ignored.js';

/** A moddle element as bpmnlint hands it to a rule. */
export interface LintNode {
  $type: string;
  id?: string;
  [property: string]: unknown;
}

export interface LintReporter {
  report(id: string | undefined, message: string, path?: unknown): void;
}

export type CheckFunction = (node: LintNode, reporter: LintReporter) => void;

export interface LintRule {
  check: CheckFunction | { enter?: CheckFunction; leave?: CheckFunction };
}

export type RuleFactory = (config?: unknown) => LintRule;

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** What is no flow node: nothing leads to it (parse.ts reads them before the graph's nodes). */
const NOT_FLOW_NODES: ReadonlySet<string> = new Set([
  'bpmn:SequenceFlow',
  'bpmn:TextAnnotation',
  'bpmn:Association',
  'bpmn:DataObject',
  'bpmn:DataObjectReference',
  'bpmn:DataStoreReference',
]);

/** The flow elements the engine runs (parse.ts NODE_TYPES, plus flows, annotations and data). */
export const SUPPORTED_TYPES: ReadonlySet<string> = new Set([
  'bpmn:StartEvent',
  'bpmn:EndEvent',
  'bpmn:UserTask',
  'bpmn:ServiceTask',
  'bpmn:Task',
  'bpmn:ManualTask',
  'bpmn:SendTask',
  'bpmn:ReceiveTask',
  'bpmn:EventBasedGateway',
  'bpmn:CallActivity',
  'bpmn:IntermediateThrowEvent',
  'bpmn:IntermediateCatchEvent',
  'bpmn:ExclusiveGateway',
  'bpmn:ParallelGateway',
  'bpmn:InclusiveGateway',
  'bpmn:SubProcess',
  'bpmn:Transaction',
  'bpmn:BoundaryEvent',
  // and what is no flow node (data objects start the instances' variables, references draw them)
  ...NOT_FLOW_NODES,
]);

/**
 * The intermediate events the engine runs (parse.ts): link, signal and message, escalations and
 * compensation (compensation-shape.ts) when throwing and timers when catching.
 */
const INTERMEDIATE_THROW: ReadonlySet<string> = new Set([
  'bpmn:LinkEventDefinition',
  'bpmn:SignalEventDefinition',
  'bpmn:MessageEventDefinition',
  'bpmn:EscalationEventDefinition',
  'bpmn:CompensateEventDefinition',
]);
/** The start events the engine runs besides the none start (parse.ts). */
const START_EVENTS: ReadonlySet<string> = new Set([
  'bpmn:TimerEventDefinition',
  'bpmn:MessageEventDefinition',
  'bpmn:SignalEventDefinition',
]);
/** The start events an event sub-process may have (parse.ts eventSubProcessStart). */
const EVENT_SUB_PROCESS_STARTS: ReadonlySet<string> = new Set([
  'bpmn:TimerEventDefinition',
  'bpmn:MessageEventDefinition',
  'bpmn:SignalEventDefinition',
  'bpmn:ErrorEventDefinition',
  'bpmn:EscalationEventDefinition',
]);
/**
 * The end events the engine runs besides the none end (parse.ts; compensation and a transaction's
 * cancel: compensation-shape.ts).
 */
const END_EVENTS: ReadonlySet<string> = new Set([
  'bpmn:TerminateEventDefinition',
  'bpmn:ErrorEventDefinition',
  'bpmn:MessageEventDefinition',
  'bpmn:SignalEventDefinition',
  'bpmn:EscalationEventDefinition',
  'bpmn:CompensateEventDefinition',
  'bpmn:CancelEventDefinition',
]);
/** Code a message throw would call: not run (parse.ts callsCode). */
const callsCode = (node: LintNode | undefined): boolean =>
  node !== undefined &&
  (text(node.class) !== '' || text(node.delegateExpression) !== '' || text(node.expression) !== '');
const INTERMEDIATE_CATCH: ReadonlySet<string> = new Set([
  'bpmn:LinkEventDefinition',
  'bpmn:SignalEventDefinition',
  'bpmn:MessageEventDefinition',
  'bpmn:TimerEventDefinition',
  'bpmn:ConditionalEventDefinition',
]);

/** What a boundary event may be attached to (parse.ts ATTACHABLE). */
const ATTACHABLE: ReadonlySet<string> = new Set([
  'bpmn:UserTask',
  'bpmn:ServiceTask',
  'bpmn:Task',
  'bpmn:ManualTask',
  'bpmn:SendTask',
  'bpmn:ReceiveTask',
  'bpmn:SubProcess',
  'bpmn:Transaction',
  'bpmn:CallActivity',
]);

/** What may be multi-instance (parse.ts LOOPED). */
const LOOPED: ReadonlySet<string> = new Set([
  'bpmn:UserTask',
  'bpmn:SubProcess',
  'bpmn:CallActivity',
  'bpmn:Task',
  'bpmn:ManualTask',
  'bpmn:ServiceTask',
  'bpmn:SendTask',
]);

/** The service task types built into the engine (parse.ts BUILT_IN_SERVICES). */
export const BUILT_IN_SERVICES: readonly string[] = ['notify', 'setVariables', 'mail'];

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');
const short = (type: string): string => type.replace(/^bpmn:/, '');

/** Why the engine cannot run this flow element (an i18n key and its params), or undefined. */
export function engineProblem(node: LintNode): { key: string; params: Record<string, unknown> } | undefined {
  const type = node.$type;
  const params = { type: short(type) };
  // Scripts and Java code are refused (issue 36); the message offers an external task or the HTTP
  // connector instead: README "External tasks and the HTTP connector".
  if (!SUPPORTED_TYPES.has(type)) {
    return { key: type === 'bpmn:ScriptTask' ? 'scriptTask' : 'unsupported', params };
  }
  const definitions = Array.isArray(node.eventDefinitions) ? (node.eventDefinitions as LintNode[]) : [];
  const [definition] = definitions;
  // error and escalation starts begin event sub-processes only
  const isInEventSubProcess = (node.$parent as LintNode | undefined)?.triggeredByEvent === true;
  const starts = isInEventSubProcess ? EVENT_SUB_PROCESS_STARTS : START_EVENTS;
  if (type === 'bpmn:StartEvent' && definition && (definitions.length > 1 || !starts.has(definition.$type)))
    return { key: 'unsupported', params: { type: short(definition.$type) } };
  if (type === 'bpmn:EndEvent' && definition && (definitions.length > 1 || !END_EVENTS.has(definition.$type)))
    return { key: 'unsupported', params: { type: short(definition.$type) } };
  if (
    (type === 'bpmn:EndEvent' || type === 'bpmn:IntermediateThrowEvent') &&
    definition?.$type === 'bpmn:MessageEventDefinition' &&
    callsCode(definition)
  )
    return { key: 'javaServiceTask', params };
  const intermediate =
    type === 'bpmn:IntermediateCatchEvent'
      ? INTERMEDIATE_CATCH
      : type === 'bpmn:IntermediateThrowEvent'
        ? INTERMEDIATE_THROW
        : undefined;
  if (intermediate && definition && (definitions.length > 1 || !intermediate.has(definition.$type)))
    return { key: 'unsupported', params: { type: short(definition.$type) } };
  const loop = node.loopCharacteristics as LintNode | undefined;
  const isLooped = LOOPED.has(type);
  if (loop && (!isLooped || loop.$type !== 'bpmn:MultiInstanceLoopCharacteristics'))
    return { key: 'unsupported', params: { type: short(loop.$type) } };
  if (type === 'bpmn:SendTask' && callsCode(node)) return { key: 'javaServiceTask', params };
  if (type === 'bpmn:SendTask' && text(node.type) !== '' && !BUILT_IN_SERVICES.includes(text(node.type)))
    return { key: 'serviceType', params: { type: text(node.type) } };
  if (type === 'bpmn:ServiceTask') {
    if (text(node.class) || text(node.delegateExpression) || text(node.expression))
      return { key: 'javaServiceTask', params };
    const extensions = node.extensionElements as LintNode | undefined;
    const values = Array.isArray(extensions?.values) ? (extensions.values as LintNode[]) : [];
    if (text(node.type) === 'external' || values.some((value) => value.$type === 'camunda:Connector'))
      return undefined;
    if (!BUILT_IN_SERVICES.includes(text(node.type)))
      return { key: 'serviceType', params: { type: text(node.type) } };
  }
  return undefined;
}

/** engineProblem, plus what the engine asks of boundary events and sub-processes (parse.ts). */
function elementProblem(element: LintNode): { key: string; params: Record<string, unknown> } | undefined {
  const unsupported = { key: 'unsupported', params: { type: short(element.$type) } };
  if (element.$type === 'bpmn:BoundaryEvent') {
    const definitions = (element.eventDefinitions as LintNode[] | undefined) ?? [];
    const kind = definitions.length === 1 ? definitions[0]?.$type : undefined;
    const host = element.attachedToRef as LintNode | undefined;
    // Without a definition the engine runs it when its extensions name Flowable's eventType (a
    // message catch), markup this model drops: the deploy decides.
    if (definitions.length === 0) return ATTACHABLE.has(host?.$type ?? '') ? undefined : unsupported;
    // timers (interrupting or not) and interrupting errors, on activities and sub-processes
    const isRun =
      kind === 'bpmn:TimerEventDefinition' ||
      kind === 'bpmn:SignalEventDefinition' ||
      kind === 'bpmn:MessageEventDefinition' ||
      kind === 'bpmn:EscalationEventDefinition' ||
      kind === 'bpmn:ConditionalEventDefinition' ||
      (kind === 'bpmn:ErrorEventDefinition' && element.cancelActivity !== false) ||
      kind === 'bpmn:CompensateEventDefinition' ||
      (kind === 'bpmn:CancelEventDefinition' && host?.$type === 'bpmn:Transaction');
    if (!isRun || !ATTACHABLE.has(host?.$type ?? '')) return unsupported;
    return undefined;
  }
  // an event sub-process runs when it starts at one message, signal, timer, error or escalation start event
  if (element.$type === 'bpmn:SubProcess' && element.triggeredByEvent === true) {
    const elements = Array.isArray(element.flowElements) ? (element.flowElements as LintNode[]) : [];
    const starts = elements.filter((inner) => inner.$type === 'bpmn:StartEvent');
    const definitions = (starts[0]?.eventDefinitions as LintNode[] | undefined) ?? [];
    const isTriggered =
      starts.length === 1 &&
      definitions.length === 1 &&
      EVENT_SUB_PROCESS_STARTS.has(definitions[0]?.$type ?? '');
    return isTriggered ? undefined : unsupported;
  }
  return engineProblem(element);
}

/**
 * The rule of our own: every flow element of the process the engine cannot run, reported on the
 * element (as parse.ts walks process.flowElements; artifacts such as annotations are ignored).
 */
export function engineRule(t: Translate): RuleFactory {
  return () => ({
    check(node, reporter) {
      if (node.$type !== 'bpmn:Process') return;
      // the process's elements and, as the engine flattens them, those of its sub-processes
      const walk = (container: LintNode): void => {
        const elements = Array.isArray(container.flowElements) ? (container.flowElements as LintNode[]) : [];
        for (const element of elements) {
          if (element.$type === 'bpmn:SequenceFlow') continue;
          const problem = elementProblem(element);
          if (problem) reporter.report(element.id, t(`workflow.modeler.lint.${problem.key}`, problem.params));
          if (element.$type === 'bpmn:SubProcess' && !problem) walk(element);
        }
      };
      walk(node);
    },
  });
}

/**
 * The flow elements no sequence flow leads to, where the engine looks for one (parse.ts
 * checkShape): neither starts, boundary events, event sub-processes, compensation handlers nor
 * link catches. They deploy (as in Activiti, Flowable and Camunda) with a warning: never reached.
 */
export function unreachedElements(process: LintNode): string[] {
  const found: string[] = [];
  const walk = (container: LintNode): void => {
    const elements = Array.isArray(container.flowElements) ? (container.flowElements as LintNode[]) : [];
    // The targets of the scope's flows (a file read without <incoming> markup has no refs on its nodes).
    const targets = new Set(
      elements
        .filter((element) => element.$type === 'bpmn:SequenceFlow')
        .map((flow) => (flow.targetRef as LintNode | undefined)?.id),
    );
    for (const element of elements) {
      const type = element.$type;
      if (NOT_FLOW_NODES.has(type) || !SUPPORTED_TYPES.has(type)) continue;
      const definitions = (element.eventDefinitions as LintNode[] | undefined) ?? [];
      const isLinkCatch =
        type === 'bpmn:IntermediateCatchEvent' &&
        definitions.some((definition) => definition.$type === 'bpmn:LinkEventDefinition');
      const isEventSubProcess = type === 'bpmn:SubProcess' && element.triggeredByEvent === true;
      const isExempt =
        type === 'bpmn:StartEvent' ||
        type === 'bpmn:BoundaryEvent' ||
        isEventSubProcess ||
        element.isForCompensation === true ||
        isLinkCatch;
      if (!isExempt && !targets.has(element.id)) found.push(element.id ?? '');
      if (type === 'bpmn:SubProcess' || type === 'bpmn:Transaction') walk(element);
    }
  };
  walk(process);
  return found;
}

export const UNREACHED_RULE = 'unreached';

/** A warning on each element no flow leads to (the deploy's warning, as the user draws). */
export function unreachedRule(t: Translate): RuleFactory {
  return () => ({
    check(node, reporter) {
      if (node.$type !== 'bpmn:Process') return;
      for (const id of unreachedElements(node)) reporter.report(id, t('workflow.modeler.lint.unreached'));
    },
  });
}

/** The settings of one element the engine ignores (their names, as workflow.settings keys). */
export function ignoredSettings(node: LintNode): string[] {
  const found = IGNORED_ATTRIBUTES.filter((name) => {
    const value = node[name];
    return value === true || typeof value === 'number' || (typeof value === 'string' && value.trim() !== '');
  });
  if (node.$type === 'bpmn:Process' && node.isStartableInTasklist === false)
    found.push('isStartableInTasklist');
  const extensions = node.extensionElements as LintNode | undefined;
  const values = Array.isArray(extensions?.values) ? (extensions.values as LintNode[]) : [];
  for (const value of values) {
    const setting = IGNORED_EXTENSIONS[value.$type];
    if (setting) found.push(setting);
  }
  return found;
}

/** A warning on each element (and the process) per setting the engine ignores. */
export function ignoredRule(t: Translate): RuleFactory {
  return () => ({
    check(node, reporter) {
      if (
        node.$type === 'bpmn:Definitions' ||
        node.$type.startsWith('bpmndi:') ||
        node.$type.startsWith('dc:')
      )
        return;
      for (const setting of ignoredSettings(node))
        reporter.report(
          node.id,
          t('workflow.modeler.lint.ignoredSetting', {
            setting: t(`workflow.settings.${setting}`),
            attribute: `camunda:${setting}`,
          }),
        );
    },
  });
}

export const IGNORED_RULE = 'ignored-settings';

/** bpmnlint rules kept, with their level (the engine runs processes these would break). */
export const LINT_RULES: Readonly<Record<string, 'error' | 'warn'>> = {
  'start-event-required': 'error',
  'end-event-required': 'error',
  'single-blank-start-event': 'error',
  // An element with no flow in is never reached and deploys with a warning (unreachedRule); one
  // with no flow out either is an implicit end: a warning as well, so the lint agrees with deploy.
  'no-disconnected': 'warn',
  'no-duplicate-sequence-flows': 'error',
  'conditional-flows': 'warn',
  'superfluous-gateway': 'warn',
  'no-overlapping-elements': 'warn',
};

/** bpmnlint's English messages → our i18n keys (messages starting with the element type first). */
const MESSAGE_KEYS: readonly (readonly [RegExp, string])[] = [
  [/is missing start event$/, 'startEventRequired'],
  [/is missing end event$/, 'endEventRequired'],
  [/has multiple blank start events$/, 'singleBlankStart'],
  [/^Element is not connected$/, 'disconnected'],
  [/^SequenceFlow is a duplicate$/, 'duplicateFlow'],
  [/^Duplicate outgoing sequence flows$/, 'duplicateOutgoing'],
  [/^Duplicate incoming sequence flows$/, 'duplicateIncoming'],
  [/^Sequence flow is missing condition$/, 'missingCondition'],
  [/^Gateway is superfluous/, 'superfluousGateway'],
  [/^Element overlaps with other element$/, 'overlap'],
  [/^Element is outside of parent boundary$/, 'outsideParent'],
];

/** A bpmnlint message in the user's language (unknown ones as they are). */
export function lintMessage(t: Translate, message: string): string {
  const found = MESSAGE_KEYS.find(([pattern]) => pattern.test(message));
  return found ? t(`workflow.modeler.lint.${found[1]}`) : message;
}

/** A rule whose reports go through lintMessage. */
export function translatedRule(factory: RuleFactory, t: Translate): RuleFactory {
  return (config) => {
    const rule = factory(config);
    const wrap = (check: CheckFunction | undefined): CheckFunction | undefined =>
      check &&
      ((node, reporter) =>
        check(node, {
          report: (id, message, path) => reporter.report(id, lintMessage(t, message), path),
        }));
    if (typeof rule.check === 'function') return { check: wrap(rule.check) as CheckFunction };
    const enter = wrap(rule.check.enter);
    const leave = wrap(rule.check.leave);
    return { check: { ...(enter ? { enter } : {}), ...(leave ? { leave } : {}) } };
  };
}

export const ENGINE_RULE = 'engine-support';

/** The { config, resolver } bpmn-js-bpmnlint takes, from the rule factories by name. */
export function lintConfig(
  factories: Readonly<Record<string, RuleFactory>>,
  t: Translate,
): {
  config: { rules: Record<string, string> };
  resolver: {
    resolveRule: (pkg: string, name: string) => RuleFactory | undefined;
    resolveConfig: () => undefined;
  };
} {
  const rules: Record<string, string> = {
    [`ecobid/${ENGINE_RULE}`]: 'error',
    [`ecobid/${IGNORED_RULE}`]: 'warn',
    [`ecobid/${UNREACHED_RULE}`]: 'warn',
  };
  for (const [name, level] of Object.entries(LINT_RULES)) if (factories[name]) rules[name] = level;
  const engine = engineRule(t);
  const ignored = ignoredRule(t);
  const unreached = unreachedRule(t);
  return {
    config: { rules },
    resolver: {
      resolveRule: (_pkg, name) =>
        name === ENGINE_RULE
          ? engine
          : name === IGNORED_RULE
            ? ignored
            : name === UNREACHED_RULE
              ? unreached
              : factories[name]
                ? translatedRule(factories[name], t)
                : undefined,
      resolveConfig: () => undefined,
    },
  };
}
