import { describe, expect, it } from 'vitest';
import {
  placePickers,
  type PanelElement,
  type PanelGroup,
} from '../../src/admin/features/workflow/modeler/panel-provider.js';
import { translator, type ModelerLanguage } from '../../src/admin/features/workflow/modeler/translations.js';

/** Issue 13: the pickers inside the Camunda properties panel, and a modeler that follows the language. */

const element = (type: string, attributes: Record<string, unknown> = {}): PanelElement => ({
  id: 'x',
  businessObject: { $type: type, get: (name: string) => attributes[name] },
});

const ids = (group: PanelGroup | undefined): string[] => (group?.entries ?? []).map((entry) => entry.id);
const HOST = 'host-component';

describe('placePickers', () => {
  it('settings the engine ignores are not offered: 到期日期, 优先级, 历史清理, 异步延续, 输入/输出; 候选发起人, which it holds, is (issue 40.3)', () => {
    const groups: PanelGroup[] = [
      'general',
      'CamundaPlatform__AsynchronousContinuations',
      'CamundaPlatform__HistoryCleanup',
      'CamundaPlatform__Input',
      'CamundaPlatform__Output',
      'CamundaPlatform__JobExecution',
      'CamundaPlatform__CandidateStarter',
      'CamundaPlatform__Tasklist',
    ].map((id) => ({ id, entries: [{ id: `${id}-entry` }] }));
    const kept = placePickers(groups, element('bpmn:Process'), HOST);
    expect(kept.map((group) => group.id)).toEqual(['general', 'CamundaPlatform__CandidateStarter']);
    const [assignment] = placePickers(
      [
        {
          id: 'CamundaPlatform__UserAssignment',
          entries: ['assignee', 'candidateUsers', 'dueDate', 'followUpDate', 'priority'].map((id) => ({
            id,
          })),
        },
      ],
      element('bpmn:UserTask'),
      HOST,
    );
    expect(ids(assignment)).toEqual(['wf-assignee', 'wf-candidateUsers', 'wf-multi']);
  });

  it('user assignment: the tree pickers take the text fields’ places, 会签/或签 after the candidates', () => {
    const groups: PanelGroup[] = [
      {
        id: 'CamundaPlatform__UserAssignment',
        entries: ['assignee', 'candidateGroups', 'candidateUsers', 'dueDate', 'priority'].map((id) => ({
          id,
        })),
      },
    ];
    const user = element('bpmn:UserTask', { 'camunda:assignee': 'admin' });
    const [group] = placePickers(groups, user, HOST);
    expect(ids(group)).toEqual(['wf-assignee', 'wf-candidateGroups', 'wf-candidateUsers', 'wf-multi']);
    expect(group?.shouldOpen).toBe(true);
    const assignee = group?.entries?.[0];
    expect(assignee).toMatchObject({ kind: 'assignee', component: HOST });
    expect((assignee?.isEdited as () => boolean)()).toBe(true);
    expect((group?.entries?.[1]?.isEdited as () => boolean)()).toBe(false);
  });

  it('forms: one form-key picker instead of the type select and the key field', () => {
    const groups: PanelGroup[] = [
      { id: 'CamundaPlatform__Form', entries: ['formType', 'formKey'].map((id) => ({ id })) },
    ];
    expect(ids(placePickers(groups, element('bpmn:StartEvent'), HOST)[0])).toEqual(['wf-formKey']);
  });

  it('conditions: the builder first on a flow, the expression field kept; timers get the duration', () => {
    const flow = placePickers(
      [
        {
          id: 'CamundaPlatform__Condition',
          entries: [{ id: 'conditionType' }, { id: 'conditionExpression' }],
        },
      ],
      element('bpmn:SequenceFlow'),
      HOST,
    );
    expect(ids(flow[0])).toEqual(['wf-condition', 'conditionType', 'conditionExpression']);
    const timer = placePickers(
      [{ id: 'timer', entries: [{ id: 'timerEventDefinitionType' }] }],
      element('bpmn:BoundaryEvent'),
      HOST,
    );
    expect(ids(timer[0])).toEqual(['wf-timer', 'timerEventDefinitionType']);
  });

  it('other groups stay as they are', () => {
    const groups: PanelGroup[] = [{ id: 'general', entries: [{ id: 'name' }, { id: 'id' }] }];
    expect(ids(placePickers(groups, element('bpmn:UserTask'), HOST)[0])).toEqual(['name', 'id']);
  });
});

describe('translator following the language', () => {
  it('answers in the language current at each call', () => {
    let language: ModelerLanguage = 'zh';
    const translate = translator(() => language);
    expect(translate('Create start event')).toBe('创建开始事件');
    language = 'en';
    expect(translate('Create start event')).toBe('Create start event');
    language = 'tw';
    expect(translate('Create gateway')).toBe('建立閘道');
  });
});
