import { interpolate } from '../expressions.js';
import type { ProcessNode } from '../graph.js';
import { groupKey } from '../people.js';

/**
 * User-task semantics: what a task made at a node is called and who may act on it, from the node
 * and the variables (the instance's, and a multi-instance child's own). Writing it (wf_task, its
 * candidates, history and notice) is the TaskStore's (task-store.ts).
 */

/** A list of names as an expression or a variable may give them: an array, or text with commas. */
export const asList = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value])
    .flatMap((item) =>
      typeof item === 'string' ? item.split(',') : item === null || item === undefined ? [] : [String(item)],
    )
    .map((item) => item.trim())
    .filter((item) => item !== '');

/** A task as the node and the variables make it. */
export interface TaskPeople {
  /** The node's name with its expressions evaluated (`Review ${item}`); undefined when unnamed. */
  name: string | undefined;
  /** The first user the assignee names, or null (the task waits for a candidate to claim it). */
  assignee: string | null;
  /** Candidate users, each once. */
  candidateUsers: string[];
  /** Candidate groups as group keys (`role:ROLE_…`, `post:…`, `org:…`), each once. */
  candidateGroups: string[];
}

/**
 * The name and people of a task made at a user task. An ExpressionError (the incident's reason,
 * naming the variable) when an expression cannot be evaluated: an unset `${manager}`.
 */
export function userTaskOf({
  node,
  variables,
}: {
  node: ProcessNode;
  /** The instance's variables with the token's own over them. */
  variables: Record<string, unknown>;
}): TaskPeople {
  const value = (text: string): unknown => interpolate(text, variables);
  return {
    name: node.name?.includes('${') ? String(value(node.name)) : node.name,
    assignee: node.assignee ? (asList(value(node.assignee))[0] ?? null) : null,
    candidateUsers: [...new Set((node.candidateUsers ?? []).flatMap((text) => asList(value(text))))],
    candidateGroups: [
      ...new Set((node.candidateGroups ?? []).flatMap((text) => asList(value(text))).map(groupKey)),
    ],
  };
}

/**
 * Who hears of a new task: its assignee alone, else its candidate users and the holders of its
 * candidate groups.
 */
export function taskRecipients(task: TaskPeople): { usernames: string[]; groups: string[] } {
  return task.assignee
    ? { usernames: [task.assignee], groups: [] }
    : { usernames: task.candidateUsers, groups: task.candidateGroups };
}
