import { describe, expect, it } from 'vitest';
import {
  taskRecipients,
  userTaskOf,
} from '../../src/server/features/workflow/services/elements/user-task.js';
import type { ProcessNode } from '../../src/server/features/workflow/services/graph.js';
import { nodeBetween } from '../support/element-graph.js';

/** User-task semantics without a database: the node of a real file, its name and its people. */

const taskNode = (task: string): Promise<ProcessNode> => nodeBetween(task, 't');

describe('the people of a user task', () => {
  it('an assignee expression names the first user it gives', async () => {
    const node = await taskNode('<userTask id="t" name="审核" camunda:assignee="${approvers}"/>');
    const task = userTaskOf({ node, variables: { approvers: 'li, wang' } });
    expect(task).toEqual({ name: '审核', assignee: 'li', candidateUsers: [], candidateGroups: [] });
    expect(taskRecipients(task)).toEqual({ usernames: ['li'], groups: [] });
  });

  it('candidates from lists and expressions, each once; plain group names held by the role of that name', async () => {
    const node = await taskNode(
      '<userTask id="t" camunda:candidateUsers="li,${extra},li" camunda:candidateGroups="management, post:QA, ${team}"/>',
    );
    const task = userTaskOf({ node, variables: { extra: ['wang', 'li'], team: 'org:7' } });
    expect(task.assignee).toBeNull();
    expect(task.candidateUsers).toEqual(['li', 'wang']);
    expect(task.candidateGroups).toEqual(['role:ROLE_MANAGEMENT', 'post:QA', 'org:7']);
    expect(taskRecipients(task)).toEqual({
      usernames: ['li', 'wang'],
      groups: ['role:ROLE_MANAGEMENT', 'post:QA', 'org:7'],
    });
  });

  it('BPMN potentialOwner and humanPerformer (no vendor markup) name the candidates and the assignee', async () => {
    const node = await taskNode(
      `<userTask id="t" name="t"><humanPerformer><resourceAssignmentExpression><formalExpression>\${boss}</formalExpression></resourceAssignmentExpression></humanPerformer>
      <potentialOwner><resourceAssignmentExpression><formalExpression>user(kermit), group(management)</formalExpression></resourceAssignmentExpression></potentialOwner></userTask>`,
    );
    const task = userTaskOf({ node, variables: { boss: 'gonzo' } });
    expect(task.assignee).toBe('gonzo');
    expect(task.candidateUsers).toEqual(['kermit']);
    expect(task.candidateGroups).toEqual(['role:ROLE_MANAGEMENT']);
    // With an assignee, only they hear of it.
    expect(taskRecipients(task)).toEqual({ usernames: ['gonzo'], groups: [] });
  });

  it('a name with expressions is evaluated with the token’s own variables over the instance’s', async () => {
    const node = await taskNode('<userTask id="t" name="My Task ${loopCounter} of ${order}"/>');
    expect(userTaskOf({ node, variables: { order: 'PO-1', loopCounter: 2 } }).name).toBe('My Task 2 of PO-1');
  });

  it('an unset variable in a people expression is an error naming it (the incident, never a 500)', async () => {
    const node = await taskNode('<userTask id="t" camunda:assignee="${manager}"/>');
    expect(() => userTaskOf({ node, variables: {} })).toThrow(
      expect.objectContaining({ variable: 'manager' }),
    );
  });

  it('an unnamed task has no name of its own (its id stands for it where one is shown)', async () => {
    const node = await taskNode('<userTask id="t"/>');
    expect(userTaskOf({ node, variables: {} }).name).toBeUndefined();
  });
});
