/**
 * What the modeler lints as the user draws: a few bpmnlint rules whose findings matter to this
 * engine, and one rule of our own flagging each element the engine cannot run (the same list as
 * src/server/features/workflow/services/parse.ts, which refuses them on save and deploy).
 */

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

/** The flow elements the engine runs (parse.ts NODE_TYPES, plus flows and annotations). */
export const SUPPORTED_TYPES: ReadonlySet<string> = new Set([
  'bpmn:StartEvent',
  'bpmn:EndEvent',
  'bpmn:UserTask',
  'bpmn:ServiceTask',
  'bpmn:ExclusiveGateway',
  'bpmn:ParallelGateway',
  'bpmn:InclusiveGateway',
  'bpmn:SubProcess',
  'bpmn:BoundaryEvent',
  'bpmn:SequenceFlow',
  'bpmn:TextAnnotation',
  'bpmn:Association',
]);

/** The service task types built into the engine (parse.ts BUILT_IN_SERVICES). */
export const BUILT_IN_SERVICES: readonly string[] = ['notify', 'setVariables'];

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');
const short = (type: string): string => type.replace(/^bpmn:/, '');

/** Why the engine cannot run this flow element (an i18n key and its params), or undefined. */
export function engineProblem(node: LintNode): { key: string; params: Record<string, unknown> } | undefined {
  const type = node.$type;
  const params = { type: short(type) };
  if (!SUPPORTED_TYPES.has(type)) {
    return { key: type === 'bpmn:ScriptTask' ? 'scriptTask' : 'unsupported', params };
  }
  const definitions = Array.isArray(node.eventDefinitions) ? (node.eventDefinitions as LintNode[]) : [];
  const [definition] = definitions;
  if (type === 'bpmn:StartEvent' && definition && definition.$type !== 'bpmn:TimerEventDefinition')
    return { key: 'unsupported', params: { type: short(definition.$type) } };
  if (type === 'bpmn:EndEvent' && definition && definition.$type !== 'bpmn:TerminateEventDefinition')
    return { key: 'unsupported', params: { type: short(definition.$type) } };
  const loop = node.loopCharacteristics as LintNode | undefined;
  if (loop && (type !== 'bpmn:UserTask' || loop.$type !== 'bpmn:MultiInstanceLoopCharacteristics'))
    return { key: 'unsupported', params: { type: short(loop.$type) } };
  if (type === 'bpmn:ServiceTask') {
    if (text(node.class) || text(node.delegateExpression) || text(node.expression))
      return { key: 'javaServiceTask', params };
    if (!BUILT_IN_SERVICES.includes(text(node.type)))
      return { key: 'serviceType', params: { type: text(node.type) } };
  }
  return undefined;
}

/** engineProblem, plus what the engine asks of boundary events and sub-processes (parse.ts). */
function elementProblem(element: LintNode): { key: string; params: Record<string, unknown> } | undefined {
  const unsupported = { key: 'unsupported', params: { type: short(element.$type) } };
  if (element.$type === 'bpmn:BoundaryEvent') {
    const isTimer =
      (element.eventDefinitions as LintNode[] | undefined)?.[0]?.$type === 'bpmn:TimerEventDefinition';
    const host = element.attachedToRef as LintNode | undefined;
    // interrupting timers on user tasks only
    if (!isTimer || element.cancelActivity === false || host?.$type !== 'bpmn:UserTask') return unsupported;
    return undefined;
  }
  // an event sub-process is not run
  if (element.$type === 'bpmn:SubProcess' && element.triggeredByEvent === true) return unsupported;
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

/** bpmnlint rules kept, with their level (the engine runs processes these would break). */
export const LINT_RULES: Readonly<Record<string, 'error' | 'warn'>> = {
  'start-event-required': 'error',
  'end-event-required': 'error',
  'single-blank-start-event': 'error',
  'no-disconnected': 'error',
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
  const rules: Record<string, string> = { [`ecobid/${ENGINE_RULE}`]: 'error' };
  for (const [name, level] of Object.entries(LINT_RULES)) if (factories[name]) rules[name] = level;
  const engine = engineRule(t);
  return {
    config: { rules },
    resolver: {
      resolveRule: (_pkg, name) =>
        name === ENGINE_RULE ? engine : factories[name] ? translatedRule(factories[name], t) : undefined,
      resolveConfig: () => undefined,
    },
  };
}
