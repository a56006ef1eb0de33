import { h } from '@bpmn-io/properties-panel/preact';
import { useEffect, useRef } from '@bpmn-io/properties-panel/preact/hooks';

/**
 * Our pickers inside the Camunda properties panel: a properties provider, run after
 * the Camunda one, puts entries of its own in the groups the user expects them in (用户分配:
 * assignee, candidate users and groups, 会签/或签; 表单: form key; 条件: a condition builder;
 * 定时器: a duration). The panel is Preact; each of our entries renders an empty host that the
 * React side (PanelPickers) fills through a portal, so the pickers keep the back-office's antd
 * controls, data and i18n.
 */

export type PickerKind =
  | 'assignee'
  | 'candidateUsers'
  | 'candidateGroups'
  | 'multi'
  | 'formKey'
  | 'condition'
  | 'timer'
  | 'starterUsers'
  | 'starterGroups';

/** A diagram element as the panel and the pickers see it. */
export interface PanelElement {
  id: string;
  type?: string;
  businessObject: { $type: string; get(name: string): unknown };
}

export interface PickerHost {
  /** The entry id (wf-<kind>), unique in the panel. */
  id: string;
  kind: PickerKind;
  node: HTMLElement;
  element: PanelElement;
}

export interface PanelEntry {
  id: string;
  component?: unknown;
  isEdited?: unknown;
  kind?: PickerKind;
}

export interface PanelGroup {
  id: string;
  entries?: PanelEntry[];
  shouldOpen?: boolean;
}

/** Fired on the modeler's event bus when the hosts change. */
export const HOSTS_CHANGED = 'wfPickers.changed';

interface Bus {
  fire(event: string, data?: unknown): void;
}

/** The Camunda entries our pickers take the place of, per group. */
const REPLACED: Record<string, Partial<Record<string, PickerKind>>> = {
  CamundaPlatform__UserAssignment: {
    assignee: 'assignee',
    candidateGroups: 'candidateGroups',
    candidateUsers: 'candidateUsers',
  },
  // 候选发起人: only they start the process and see it in 发起流程 (the server enforces it)
  CamundaPlatform__CandidateStarter: {
    candidateStarterGroups: 'starterGroups',
    candidateStarterUsers: 'starterUsers',
  },
};

/**
 * Settings the engine does not honour (issue 40.3): offered, they would be set and silently
 * ignored. Their groups and entries are not shown; lint and deploy warn about them in a file
 * that has them (the server's parse names each ignored attribute).
 */
const IGNORED_GROUPS = new Set([
  'CamundaPlatform__AsynchronousContinuations',
  'CamundaPlatform__HistoryCleanup',
  'CamundaPlatform__Input',
  'CamundaPlatform__Output',
  'CamundaPlatform__JobExecution',
  'CamundaPlatform__Tasklist',
]);
const IGNORED_ENTRIES = new Set(['dueDate', 'followUpDate', 'priority']);

/** Form entries the engine has no use for besides the key (formRef is Camunda 7.19's). */
const FORM_ENTRIES = new Set(['formType', 'formKey', 'formRef', 'formRefBinding', 'formRefVersion']);

/** The process an element stands for (a participant's process), whose candidate starters are set. */
export function processOf(business: PanelElement['businessObject']): PanelElement['businessObject'] {
  const ref = business.$type === 'bpmn:Participant' ? business.get('processRef') : undefined;
  return (ref as PanelElement['businessObject'] | undefined) ?? business;
}

const isEditedBy = (element: PanelElement, kind: PickerKind) => (): boolean => {
  const business = element.businessObject;
  switch (kind) {
    case 'starterUsers':
      return Boolean(processOf(business).get('camunda:candidateStarterUsers'));
    case 'starterGroups':
      return Boolean(processOf(business).get('camunda:candidateStarterGroups'));
    case 'assignee':
      return Boolean(business.get('camunda:assignee'));
    case 'candidateUsers':
      return Boolean(business.get('camunda:candidateUsers'));
    case 'candidateGroups':
      return Boolean(business.get('camunda:candidateGroups'));
    case 'formKey':
      return Boolean(business.get('camunda:formKey'));
    case 'multi':
      return Boolean(business.get('loopCharacteristics'));
    default:
      return false;
  }
};

/**
 * The groups with our entries in place (pure: the panel's groups in, changed in place and out).
 * `host` is the Preact component of an entry.
 */
export function placePickers(groups: PanelGroup[], element: PanelElement, host: unknown): PanelGroup[] {
  const entry = (kind: PickerKind): PanelEntry => ({
    id: `wf-${kind}`,
    kind,
    component: host,
    isEdited: isEditedBy(element, kind),
  });
  const kept = groups.filter((group) => !IGNORED_GROUPS.has(group.id));
  for (const group of kept) {
    if (group.entries) group.entries = group.entries.filter((item) => !IGNORED_ENTRIES.has(item.id));
    const entries = group.entries;
    if (!entries) continue;
    const replaced = REPLACED[group.id];
    if (replaced) {
      group.entries = entries.map((item) => {
        const kind = replaced[item.id];
        return kind ? entry(kind) : item;
      });
      if (element.businessObject.$type === 'bpmn:UserTask') {
        const at = group.entries.findIndex((item) => item.id === 'wf-candidateUsers');
        group.entries.splice(at + 1, 0, entry('multi'));
      }
      group.shouldOpen = true;
    } else if (group.id === 'CamundaPlatform__Form') {
      group.entries = [entry('formKey'), ...entries.filter((item) => !FORM_ENTRIES.has(item.id))];
      group.shouldOpen = true;
    } else if (group.id === 'CamundaPlatform__Condition') {
      const isFlow = element.businessObject.$type === 'bpmn:SequenceFlow';
      group.entries = isFlow ? [entry('condition'), ...entries] : entries;
      group.shouldOpen = true;
    } else if (group.id === 'timer') {
      group.entries = [entry('timer'), ...entries];
      group.shouldOpen = true;
    }
  }
  return kept;
}

/** The Preact entry: an empty host, announced while it is mounted. */
function hostComponent(hosts: Map<string, PickerHost>, bus: Bus) {
  return function PickerHostEntry(props: { id: string; kind: PickerKind; element: PanelElement }) {
    const ref = useRef<HTMLDivElement>(null);
    const { id, kind, element } = props;
    useEffect(() => {
      const node = ref.current;
      if (!node) return undefined;
      hosts.set(id, { id, kind, node, element });
      bus.fire(HOSTS_CHANGED);
      return () => {
        if (hosts.get(id)?.node === node) hosts.delete(id);
        bus.fire(HOSTS_CHANGED);
      };
    }, [id, kind, element]);
    return h('div', {
      ref,
      class: 'bio-properties-panel-entry wf-panel-entry',
      'data-entry-id': id,
      'data-testid': `panel-${kind}`,
    });
  };
}

interface PropertiesPanel {
  registerProvider(priority: number, provider: PickerProvider): void;
}

/** Runs after the Camunda provider (priority 500): a lower priority is asked later. */
const PRIORITY = 400;

export class PickerProvider {
  static $inject = ['propertiesPanel', 'eventBus'];
  readonly hosts = new Map<string, PickerHost>();
  private readonly host: unknown;

  constructor(panel: PropertiesPanel, bus: Bus) {
    this.host = hostComponent(this.hosts, bus);
    panel.registerProvider(PRIORITY, this);
  }

  getGroups(element: PanelElement): (groups: PanelGroup[]) => PanelGroup[] {
    return (groups) => placePickers(groups, element, this.host);
  }
}

export const pickerProviderModule = {
  __init__: ['wfPickerProvider'],
  wfPickerProvider: ['type', PickerProvider] as const,
};
