import { Button, Input, InputNumber, Radio, Select, Space, Switch, Typography } from 'antd';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { useT } from '../../../i18n.js';
import { useApiGet } from '../../../lib/api.js';
import { API } from '../../../lib/screen-parts.js';
import { orgOptions, usePeopleTree, UserTreeSelect } from '../UserTreeSelect.js';
import type { BpmnModeler } from './modeler.js';
import { useFormOptions, withCurrent } from './useFormOptions.js';
import { HOSTS_CHANGED, processOf, type PickerHost, type PickerProvider } from './panel-provider.js';
import {
  ANY_ONE_CONDITION,
  elementAssignee,
  formatCondition,
  formatDuration,
  formatGroups,
  groupValue,
  joinList,
  OPERATORS,
  parseCondition,
  parseDuration,
  parseGroups,
  readMulti,
  splitList,
  type Comparison,
  type Duration,
  type MultiInstanceValue,
  type SignMode,
} from './pickers.js';

/** A moddle element as the pickers read it. */
interface BusinessObject {
  $type: string;
  id: string;
  get(name: string): unknown;
  eventDefinitions?: BusinessObject[];
  loopCharacteristics?: BusinessObject;
  conditionExpression?: BusinessObject;
  completionCondition?: BusinessObject;
  timeDuration?: BusinessObject;
  sourceRef?: BusinessObject;
  body?: string;
  isSequential?: boolean;
}

interface DiagramElement {
  id: string;
  businessObject: BusinessObject;
}

interface Modeling {
  updateProperties(element: DiagramElement, properties: Record<string, unknown>): void;
  updateModdleProperties(
    element: DiagramElement,
    target: BusinessObject,
    properties: Record<string, unknown>,
  ): void;
}

interface Factory {
  create(type: string, properties?: Record<string, unknown>): BusinessObject;
}

interface Bus {
  on(event: string, callback: () => void): void;
  off(event: string, callback: () => void): void;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The hosts the properties panel has mounted for our entries, kept as it re-renders. */
function useHosts(modeler: BpmnModeler): PickerHost[] {
  const provider: PickerProvider = modeler.get('wfPickerProvider');
  const [hosts, setHosts] = useState<PickerHost[]>(() => [...provider.hosts.values()]);
  useEffect(() => {
    const bus: Bus = modeler.get('eventBus');
    const onChange = (): void => setHosts([...provider.hosts.values()]);
    onChange();
    bus.on(HOSTS_CHANGED, onChange);
    return () => bus.off(HOSTS_CHANGED, onChange);
  }, [modeler, provider]);
  return hosts;
}

/** Counts the diagram's changes, so that the pickers read their element again. */
function useVersion(modeler: BpmnModeler): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const bus: Bus = modeler.get('eventBus');
    const onChange = (): void => setVersion((value) => value + 1);
    bus.on('elements.changed', onChange);
    return () => bus.off('elements.changed', onChange);
  }, [modeler]);
  return version;
}

/**
 * Pickers inside the Camunda properties panel: the people of a user task from the
 * org-user tree, roles, posts and organisations; the form from the forms list; 会签/或签; a
 * condition builder for flows leaving a gateway; a timer's duration. They write the attributes
 * the engine reads (camunda:assignee, candidateGroups "role:X,post:Y,org:N", …); the panel's
 * provider (panel-provider.ts) places their hosts where its own text fields were.
 */
export function PanelPickers({ modeler }: { modeler: BpmnModeler }) {
  const hosts = useHosts(modeler);
  const version = useVersion(modeler);
  // the pickers' lists read here too: a picker remounted mid-read (the panel re-renders its
  // entries when an element is replaced) then does not cancel the read
  usePeopleTree();
  useGroupSources();
  useFormOptions();
  return (
    <>
      {hosts.map((host) =>
        createPortal(
          <PanelPicker key={`${host.element.id}:${version}`} host={host} modeler={modeler} />,
          host.node,
          host.id,
        ),
      )}
    </>
  );
}

function PanelPicker({ host, modeler }: { host: PickerHost; modeler: BpmnModeler }) {
  const modeling: Modeling = modeler.get('modeling');
  const factory: Factory = modeler.get('bpmnFactory');
  const element = host.element as unknown as DiagramElement;
  const business = element.businessObject;
  const update = (properties: Record<string, unknown>): void =>
    modeling.updateProperties(element, properties);
  switch (host.kind) {
    case 'assignee':
      return <AssigneePicker business={business} update={update} />;
    case 'candidateUsers':
      return <CandidateUsersPicker business={business} update={update} attribute="camunda:candidateUsers" />;
    case 'candidateGroups':
      return (
        <CandidateGroupsPicker business={business} update={update} attribute="camunda:candidateGroups" />
      );
    case 'starterUsers':
    case 'starterGroups': {
      // 候选发起人 are the process's (a participant's process in a collaboration)
      const process = processOf(business) as BusinessObject;
      const updateProcess = (properties: Record<string, unknown>): void =>
        modeling.updateModdleProperties(element, process, properties);
      return host.kind === 'starterUsers' ? (
        <CandidateUsersPicker
          business={process}
          update={updateProcess}
          attribute="camunda:candidateStarterUsers"
        />
      ) : (
        <CandidateGroupsPicker
          business={process}
          update={updateProcess}
          attribute="camunda:candidateStarterGroups"
        />
      );
    }
    case 'multi':
      return <MultiPicker business={business} element={element} modeling={modeling} factory={factory} />;
    case 'formKey':
      return <FormKeyPicker business={business} update={update} />;
    case 'condition':
      return <ConditionPicker business={business} update={update} factory={factory} />;
    case 'timer': {
      const timer = business.eventDefinitions?.find(
        (definition) => definition.$type === 'bpmn:TimerEventDefinition',
      );
      return timer ? (
        <TimerPicker element={element} timer={timer} modeling={modeling} factory={factory} />
      ) : null;
    }
    default:
      return null;
  }
}

/** A panel entry's label over our control, in the panel's own look. */
function Entry({ label, htmlFor, children }: { label: string; htmlFor?: string; children: ReactNode }) {
  return (
    <div className="wf-panel-picker">
      {htmlFor ? (
        <label className="bio-properties-panel-label" htmlFor={htmlFor}>
          {label}
        </label>
      ) : (
        <div className="bio-properties-panel-label">{label}</div>
      )}
      {children}
    </div>
  );
}

type Update = (properties: Record<string, unknown>) => void;

/** Roles and posts, the candidate groups besides organisations. */
function useGroupSources() {
  const roles = useApiGet<{ records: { roleCode: string; roleName: string }[] }>(`${API.role}/query`, {
    pageSize: 1000,
  });
  const posts = useApiGet<{ records: { postCode: string; postName: string }[] }>(`${API.post}/query`, {
    pageSize: 1000,
  });
  return { roles, posts };
}

function FormKeyPicker({ business, update }: { business: BusinessObject; update: Update }) {
  const t = useT();
  const options = useFormOptions();
  const value = text(business.get('camunda:formKey')) || undefined;
  return (
    <Entry label={t('workflow.modeler.pick.formKey')} htmlFor="wf-pick-form">
      <Select
        id="wf-pick-form"
        allowClear
        showSearch
        optionFilterProp="label"
        value={value}
        options={withCurrent(options, value)}
        onChange={(next?: string) => update({ 'camunda:formKey': next || undefined })}
        placeholder={t('workflow.modeler.pick.formKeyHint')}
        data-testid="pick-form"
        popupClassName="wf-pick-form-popup"
      />
    </Entry>
  );
}

const INITIATOR = '${initiator}';

function AssigneePicker({ business, update }: { business: BusinessObject; update: Update }) {
  const t = useT();
  const assignee = text(business.get('camunda:assignee'));
  const extra = useMemo(
    () => [
      { value: INITIATOR, title: t('workflow.modeler.pick.initiatorUser') },
      ...(assignee && assignee.startsWith('${') && assignee !== INITIATOR
        ? [{ value: assignee, title: assignee }]
        : []),
    ],
    [assignee, t],
  );
  return (
    <Entry label={t('workflow.modeler.pick.assignee')} htmlFor="wf-pick-assignee">
      <UserTreeSelect
        id="wf-pick-assignee"
        value={assignee || undefined}
        extra={extra}
        onChange={(next) => update({ 'camunda:assignee': next || undefined })}
        placeholder={t('workflow.modeler.pick.assigneeHint')}
        data-testid="pick-assignee"
        popupClassName="wf-pick-assignee-popup"
      />
    </Entry>
  );
}

type PeopleAttribute =
  | 'camunda:candidateUsers'
  | 'camunda:candidateGroups'
  | 'camunda:candidateStarterUsers'
  | 'camunda:candidateStarterGroups';

/** A task's candidates or a process's candidate starters: the same pickers, other attributes. */
const isStarter = (attribute: PeopleAttribute): boolean => attribute.startsWith('camunda:candidateStarter');

function CandidateUsersPicker({
  business,
  update,
  attribute,
}: {
  business: BusinessObject;
  update: Update;
  attribute: 'camunda:candidateUsers' | 'camunda:candidateStarterUsers';
}) {
  const t = useT();
  const starter = isStarter(attribute);
  const id = starter ? 'wf-pick-starter-users' : 'wf-pick-users';
  return (
    <Entry label={t(`workflow.modeler.pick.${starter ? 'starterUsers' : 'candidateUsers'}`)} htmlFor={id}>
      <UserTreeSelect
        id={id}
        multiple
        value={splitList(text(business.get(attribute)))}
        onChange={(next) => update({ [attribute]: joinList(next) || undefined })}
        placeholder={t(`workflow.modeler.pick.${starter ? 'starterUsersHint' : 'candidateUsersHint'}`)}
        data-testid={starter ? 'pick-starter-users' : 'pick-candidate-users'}
        popupClassName={starter ? 'wf-pick-starter-users-popup' : 'wf-pick-users-popup'}
      />
    </Entry>
  );
}

function CandidateGroupsPicker({
  business,
  update,
  attribute,
}: {
  business: BusinessObject;
  update: Update;
  attribute: 'camunda:candidateGroups' | 'camunda:candidateStarterGroups';
}) {
  const t = useT();
  const starter = isStarter(attribute);
  const id = starter ? 'wf-pick-starter-groups' : 'wf-pick-groups';
  const tree = usePeopleTree();
  const { roles, posts } = useGroupSources();
  const groupOptions = useMemo(
    () => [
      {
        label: t('workflow.modeler.pick.roles'),
        options: (roles.data?.records ?? []).map((role) => ({
          value: `role:${role.roleCode}`,
          label: `${role.roleName}（${role.roleCode}）`,
        })),
      },
      {
        label: t('workflow.modeler.pick.posts'),
        options: (posts.data?.records ?? []).map((post) => ({
          value: `post:${post.postCode}`,
          label: `${post.postName}（${post.postCode}）`,
        })),
      },
      { label: t('workflow.modeler.pick.orgs'), options: orgOptions(tree ?? []) },
    ],
    [roles.data, posts.data, tree, t],
  );
  const groups = parseGroups(text(business.get(attribute))).map(groupValue);
  return (
    <Entry label={t(`workflow.modeler.pick.${starter ? 'starterGroups' : 'candidateGroups'}`)} htmlFor={id}>
      <Select
        id={id}
        mode="multiple"
        allowClear
        optionFilterProp="label"
        value={groups}
        options={groupOptions}
        onChange={(next: string[]) =>
          update({ [attribute]: formatGroups(parseGroups(joinList(next))) || undefined })
        }
        placeholder={t(`workflow.modeler.pick.${starter ? 'starterGroupsHint' : 'candidateGroupsHint'}`)}
        data-testid={starter ? 'pick-starter-groups' : 'pick-candidate-groups'}
        popupClassName={starter ? 'wf-pick-starter-groups-popup' : 'wf-pick-groups-popup'}
      />
    </Entry>
  );
}

function MultiPicker({
  business,
  element,
  modeling,
  factory,
}: {
  business: BusinessObject;
  element: DiagramElement;
  modeling: Modeling;
  factory: Factory;
}) {
  const t = useT();
  const loop = business.loopCharacteristics;
  const multi = readMulti(
    loop?.$type === 'bpmn:MultiInstanceLoopCharacteristics'
      ? {
          isSequential: loop.isSequential === true,
          collection: text(loop.get('camunda:collection')),
          elementVariable: text(loop.get('camunda:elementVariable')),
          completion: text(loop.completionCondition?.body),
        }
      : undefined,
  );
  const setMulti = (next: MultiInstanceValue): void => {
    if (next.mode === 'none') {
      modeling.updateProperties(element, { loopCharacteristics: undefined });
      return;
    }
    const completion =
      next.mode === 'anyone'
        ? factory.create('bpmn:FormalExpression', { body: ANY_ONE_CONDITION })
        : undefined;
    const characteristics = factory.create('bpmn:MultiInstanceLoopCharacteristics', {
      isSequential: next.isSequential,
      'camunda:collection': `\${${next.collection}}`,
      'camunda:elementVariable': next.elementVariable,
      ...(completion ? { completionCondition: completion } : {}),
    });
    modeling.updateProperties(element, {
      loopCharacteristics: characteristics,
      'camunda:assignee': elementAssignee(next.elementVariable),
    });
  };
  return (
    <Entry label={t('workflow.modeler.pick.multi')}>
      <Radio.Group
        value={multi.mode}
        onChange={(event) => setMulti({ ...multi, mode: event.target.value as SignMode })}
        data-testid="pick-multi"
        aria-label={t('workflow.modeler.pick.multi')}
        options={(['none', 'countersign', 'anyone'] as const).map((mode) => ({
          value: mode,
          label: t(`workflow.modeler.pick.sign.${mode}`),
        }))}
      />
      {multi.mode !== 'none' ? (
        <Space direction="vertical" className="wf-picker-multi">
          <label className="bio-properties-panel-label" htmlFor="wf-pick-collection">
            {t('workflow.modeler.pick.collection')}
          </label>
          <Input
            id="wf-pick-collection"
            defaultValue={multi.collection}
            data-testid="pick-collection"
            onBlur={(event) =>
              setMulti({ ...multi, collection: event.target.value.trim() || multi.collection })
            }
          />
          <Space>
            <Switch
              checked={multi.isSequential}
              aria-label={t('workflow.modeler.pick.sequential')}
              onChange={(checked) => setMulti({ ...multi, isSequential: checked })}
            />
            {t('workflow.modeler.pick.sequential')}
          </Space>
        </Space>
      ) : null}
    </Entry>
  );
}

function ConditionPicker({
  business,
  update,
  factory,
}: {
  business: BusinessObject;
  update: Update;
  factory: Factory;
}) {
  const t = useT();
  const current = text(business.conditionExpression?.body);
  const parsed = parseCondition(current);
  const [draft, setDraft] = useState<Comparison>(parsed ?? { variable: '', operator: '==', value: '' });
  const apply = (): void => {
    if (!draft.variable.trim()) {
      update({ conditionExpression: undefined });
      return;
    }
    update({
      conditionExpression: factory.create('bpmn:FormalExpression', { body: formatCondition(draft) }),
    });
  };
  return (
    <>
      <Entry label={t('workflow.modeler.pick.condition')}>
        <Space.Compact block>
          <Input
            aria-label={t('workflow.modeler.pick.variable')}
            placeholder={t('workflow.modeler.pick.variable')}
            value={draft.variable}
            onChange={(event) => setDraft({ ...draft, variable: event.target.value })}
            data-testid="pick-condition-variable"
          />
          <Select
            aria-label={t('workflow.modeler.pick.operator')}
            value={draft.operator}
            options={OPERATORS.map((operator) => ({ value: operator, label: operator }))}
            onChange={(operator) => setDraft({ ...draft, operator })}
            style={{ width: 80 }}
            data-testid="pick-condition-operator"
          />
          <Input
            aria-label={t('workflow.modeler.pick.value')}
            placeholder={t('workflow.modeler.pick.value')}
            value={draft.value}
            onChange={(event) => setDraft({ ...draft, value: event.target.value })}
            data-testid="pick-condition-value"
          />
        </Space.Compact>
      </Entry>
      <Space>
        <Button type="primary" onClick={apply} data-testid="pick-condition-apply">
          {t('workflow.modeler.pick.apply')}
        </Button>
        <Typography.Text code data-testid="pick-condition-current">
          {current || t('workflow.modeler.pick.noCondition')}
        </Typography.Text>
      </Space>
    </>
  );
}

function TimerPicker({
  element,
  timer,
  modeling,
  factory,
}: {
  element: DiagramElement;
  timer: BusinessObject;
  modeling: Modeling;
  factory: Factory;
}) {
  const t = useT();
  const duration = parseDuration(text(timer.timeDuration?.body)) ?? { days: 0, hours: 0, minutes: 0 };
  const set = (next: Duration): void =>
    modeling.updateModdleProperties(element, timer, {
      timeDuration: factory.create('bpmn:FormalExpression', { body: formatDuration(next) }),
    });
  return (
    <Entry label={t('workflow.modeler.pick.duration')}>
      <Space>
        {(['days', 'hours', 'minutes'] as const).map((unit) => (
          <InputNumber
            key={unit}
            min={0}
            max={unit === 'days' ? 3650 : unit === 'hours' ? 23 : 59}
            value={duration[unit]}
            aria-label={t(`workflow.modeler.pick.${unit}`)}
            addonAfter={t(`workflow.modeler.pick.${unit}`)}
            onChange={(value) => set({ ...duration, [unit]: Number(value ?? 0) })}
            style={{ width: 100 }}
          />
        ))}
      </Space>
    </Entry>
  );
}
