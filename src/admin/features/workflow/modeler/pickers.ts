/**
 * The values the properties pickers write into the BPMN attributes, and back: what the engine
 * reads (src/server/features/workflow/services/people.ts, expressions.ts, multi-instance.ts).
 */

export type GroupKind = 'role' | 'post' | 'org';

export interface GroupRef {
  kind: GroupKind;
  code: string;
}

const KINDS: readonly GroupKind[] = ['role', 'post', 'org'];

/** A comma-separated attribute as its items (blanks dropped). */
export function splitList(value: string | undefined | null): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

export const joinList = (items: readonly string[]): string => items.join(',');

/** camunda:candidateGroups → groups: "role:X", "post:X", "org:N"; a bare name is a role code. */
export function parseGroups(value: string | undefined | null): GroupRef[] {
  return splitList(value).map((item) => {
    const colon = item.indexOf(':');
    const prefix = colon > 0 ? item.slice(0, colon) : '';
    return (KINDS as readonly string[]).includes(prefix)
      ? { kind: prefix as GroupKind, code: item.slice(colon + 1) }
      : { kind: 'role', code: item };
  });
}

export const groupValue = (group: GroupRef): string => `${group.kind}:${group.code}`;

/** groups → camunda:candidateGroups, always prefixed so that posts and organisations read back. */
export function formatGroups(groups: readonly GroupRef[]): string {
  return joinList([...new Set(groups.map(groupValue))]);
}

/** Multi-instance presets: 会签 (everyone completes) and 或签 (the first one completes it). */
export type SignMode = 'none' | 'countersign' | 'anyone';

export const ANY_ONE_CONDITION = '${nrOfCompletedInstances >= 1}';

export interface MultiInstanceValue {
  mode: SignMode;
  isSequential: boolean;
  /** The process variable holding the list of user names. */
  collection: string;
  elementVariable: string;
}

export const DEFAULT_MULTI: MultiInstanceValue = {
  mode: 'none',
  isSequential: false,
  collection: 'assigneeList',
  elementVariable: 'assignee',
};

/** What a multi-instance user task's loop characteristics say, as a preset. */
export function readMulti(
  loop:
    | {
        isSequential?: boolean;
        collection?: string;
        elementVariable?: string;
        completion?: string;
      }
    | undefined,
): MultiInstanceValue {
  if (!loop) return DEFAULT_MULTI;
  const completion = (loop.completion ?? '').replace(/\s+/g, '');
  return {
    mode: completion === ANY_ONE_CONDITION.replace(/\s+/g, '') ? 'anyone' : 'countersign',
    isSequential: loop.isSequential === true,
    collection: stripExpression(loop.collection ?? '') || DEFAULT_MULTI.collection,
    elementVariable: loop.elementVariable || DEFAULT_MULTI.elementVariable,
  };
}

/** ${name} → name (a collection may be written either way). */
export function stripExpression(value: string): string {
  const match = /^\$\{\s*([A-Za-z_][\w.]*)\s*\}$/.exec(value.trim());
  return match?.[1] ?? value.trim();
}

/** The assignee a multi-instance task gives each instance: its element variable. */
export const elementAssignee = (elementVariable: string): string => `\${${elementVariable}}`;

export type Operator = '==' | '!=' | '>' | '>=' | '<' | '<=';

export const OPERATORS: readonly Operator[] = ['==', '!=', '>', '>=', '<', '<='];

export interface Comparison {
  variable: string;
  operator: Operator;
  value: string;
}

const VARIABLE = /^[A-Za-z_][\w.]*$/;
const NUMBER = /^-?\d+(\.\d+)?$/;

/** One comparison as a condition expression: numbers and true/false bare, text quoted. */
export function formatCondition(comparison: Comparison): string {
  const raw = comparison.value.trim();
  const value =
    NUMBER.test(raw) || raw === 'true' || raw === 'false'
      ? raw
      : `'${raw.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return `\${${comparison.variable.trim()} ${comparison.operator} ${value}}`;
}

/** A condition expression the builder can show again, or undefined (then it is edited as text). */
export function parseCondition(expression: string | undefined | null): Comparison | undefined {
  const match = /^\$\{\s*([A-Za-z_][\w.]*)\s*(==|!=|>=|<=|>|<)\s*(.+?)\s*\}$/.exec((expression ?? '').trim());
  if (!match) return undefined;
  const [, variable = '', operator = '==', rawValue = ''] = match;
  let value = rawValue;
  const quoted = /^(['"])(.*)\1$/.exec(rawValue);
  if (quoted) value = (quoted[2] ?? '').replace(/\\(['"\\])/g, '$1');
  else if (!NUMBER.test(rawValue) && rawValue !== 'true' && rawValue !== 'false') return undefined;
  return VARIABLE.test(variable) ? { variable, operator: operator as Operator, value } : undefined;
}

export interface Duration {
  days: number;
  hours: number;
  minutes: number;
}

/** days/hours/minutes → an ISO-8601 duration (P1DT2H30M); zero is PT0M. */
export function formatDuration({ days, hours, minutes }: Duration): string {
  const time = `${hours ? `${hours}H` : ''}${minutes ? `${minutes}M` : ''}`;
  const text = `P${days ? `${days}D` : ''}${time ? `T${time}` : ''}`;
  return text === 'P' ? 'PT0M' : text;
}

/** An ISO-8601 duration of days, hours and minutes (weeks read as 7 days), or undefined. */
export function parseDuration(value: string | undefined | null): Duration | undefined {
  const match = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/.exec((value ?? '').trim());
  if (!match || value?.trim() === 'P' || value?.trim().endsWith('T')) return undefined;
  const [, weeks, days, hours, minutes] = match;
  return {
    days: Number(weeks ?? 0) * 7 + Number(days ?? 0),
    hours: Number(hours ?? 0),
    minutes: Number(minutes ?? 0),
  };
}

/** Extension namespaces of the other dialects, read as Camunda's (as the server does). */
const DIALECT_URIS = ['http://activiti.org/bpmn', 'http://flowable.org/bpmn'];
export const CAMUNDA_URI = 'http://camunda.org/schema/1.0/bpmn';

export function normaliseNamespaces(xml: string): string {
  let out = xml;
  for (const uri of DIALECT_URIS) {
    out = out.replace(
      new RegExp(`(xmlns:[\\w.-]+\\s*=\\s*)(["'])${uri.replace(/[./]/g, '\\$&')}\\2`, 'g'),
      `$1$2${CAMUNDA_URI}$2`,
    );
  }
  return out;
}

const escapeXml = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The diagram a new model starts from: one start event, drawn. */
export function blankDiagram(key: string, name: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" xmlns:camunda="${CAMUNDA_URI}" id="Definitions_1" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="${escapeXml(key)}" name="${escapeXml(name)}" isExecutable="true">
    <bpmn:startEvent id="StartEvent_1" />
  </bpmn:process>
  <bpmndi:BPMNDiagram id="BPMNDiagram_1">
    <bpmndi:BPMNPlane id="BPMNPlane_1" bpmnElement="${escapeXml(key)}">
      <bpmndi:BPMNShape id="StartEvent_1_di" bpmnElement="StartEvent_1">
        <dc:Bounds x="180" y="160" width="36" height="36" />
      </bpmndi:BPMNShape>
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
</bpmn:definitions>`;
}
