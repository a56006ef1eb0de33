import type { Page } from '../../../engine/api-types.js';
import { useApiGet, type ApiQuery, type ApiRead } from '../../lib/api.js';

/** The workflow engine's API (/api/activiti) as the screens read it. */
export const WF = '/api/activiti';

export type Row = Record<string, unknown> & { id: number };

export interface Definition extends Row {
  key: string;
  name: string | null;
  version: number;
  category: string | null;
  resourceName: string;
  deploymentId: number;
  suspended: boolean;
  deploymentTime: string;
  startFormKey: string | null;
}

export interface Instance extends Row {
  name: string | null;
  processDefinitionId: number;
  processDefinitionKey: string;
  processDefinitionVersion: number;
  businessKey: string | null;
  description: string | null;
  startUserId: string | null;
  startTime: string;
  endTime: string | null;
  suspended: boolean;
  ended: boolean;
  status: string;
  incident: { activityId: string; flowId: string | null; message: string } | null;
}

export interface Task extends Row {
  name: string | null;
  status: string;
  assignee: string | null;
  owner: string | null;
  delegationState: string | null;
  claimTime: string | null;
  startTime: string;
  endTime: string | null;
  endReason: string | null;
  description: string | null;
  processInstanceId: number;
  processDefinitionId: number;
  taskDefinitionKey: string;
  formKey: string | null;
  processInstanceName: string | null;
  startUserId: string | null;
  suspended: boolean;
}

/** A task a start or completion made that the caller can act on (the answer's `nextTasks`). */
export interface NextTask {
  id: number;
  name: string | null;
  taskDefinitionKey: string;
  assignee: string | null;
}

export interface TaskDetail extends Task {
  candidates: { users: string[]; groups: string[] };
  form: { formKey: string; schema: Record<string, unknown> | null } | null;
}

export interface Activity extends Row {
  key: string;
  name: string | null;
  type: string;
  assignee: string | null;
  taskId: number | null;
  startTime: string;
  endTime: string | null;
  endReason: string | null;
}

export interface Comment extends Row {
  taskId: number | null;
  username: string;
  action: string;
  message: string;
  time: string;
}

export interface InstanceDetail extends Instance {
  activities: Activity[];
  variables: Row[];
  tasks: Task[];
  comments: Comment[];
}

export interface DiagramAnswer {
  xml: string;
  completed: string[];
  active: string[];
  flows: string[];
}

export interface RegressNode {
  activityId: string;
  name: string | null;
  assignee: string | null;
}

/** One page of a workflow list. */
export function usePage<T extends Row>(path: string, query: ApiQuery, enabled = true): ApiRead<Page<T>> {
  return useApiGet<Page<T>>(`${WF}/${path}`, query, enabled);
}

/** A number from the page's query string (?id=…), or undefined. */
export function idParam(search: URLSearchParams, name = 'id'): number | undefined {
  const value = Number(search.get(name));
  return Number.isInteger(value) && value > 0 ? value : undefined;
}
