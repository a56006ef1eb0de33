import type {
  Page,
  WfActivity,
  WfComment,
  WfDefinition,
  WfDeploymentResource,
  WfDiagram,
  WfInstance,
  WfInstanceDetail,
  WfNextTask,
  WfRegressNode,
  WfTask,
  WfTaskDetail,
  WfCopy,
} from '../../../engine/api-types.js';
import { useApiGet, type ApiQuery, type ApiRead } from '../../lib/api.js';

/** The workflow engine's API (/api/activiti) as the screens read it. */
export const WF = '/api/activiti';

export type Row = Record<string, unknown> & { id: number };

/** The answers of the workflow calls, as the server declares them (engine/api-types.ts). */
export type Definition = WfDefinition;
export type Instance = WfInstance;
export type Task = WfTask;
export type Copy = WfCopy;
/** A task a start or completion made that the caller can act on (the answer's `nextTasks`). */
export type NextTask = WfNextTask;
export type TaskDetail = WfTaskDetail;
export type Activity = WfActivity;
export type Comment = WfComment;
export type InstanceDetail = WfInstanceDetail;
export type DiagramAnswer = WfDiagram;
export type RegressNode = WfRegressNode;
export type DeploymentResource = WfDeploymentResource;

/** One page of a workflow list. */
export function usePage<T extends Row>(path: string, query: ApiQuery, enabled = true): ApiRead<Page<T>> {
  return useApiGet<Page<T>>(`${WF}/${path}`, query, enabled);
}

/** A number from the page's query string (?id=…), or undefined. */
export function idParam(search: URLSearchParams, name = 'id'): number | undefined {
  const value = Number(search.get(name));
  return Number.isInteger(value) && value > 0 ? value : undefined;
}
