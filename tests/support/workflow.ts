import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from './app.js';

/** Helpers of the workflow tests: BPMN files, deploying, starting, acting on tasks. */

export const WF = '/api/activiti';

export const fixture = (name: string): string =>
  readFileSync(join(import.meta.dirname, '..', 'fixtures', 'bpmn', name), 'utf8');

/** A small executable process in plain BPMN (camunda: attributes) around the given elements. */
export function bpmn(key: string, body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="test">
  <process id="${key}" name="${key}" isExecutable="true">${body}</process>
</definitions>`;
}

/** The same file written for Activiti or Flowable: that engine's namespace and prefix instead of Camunda's. */
export const inDialect = (xml: string, dialect: 'activiti' | 'flowable'): string =>
  xml
    .replace(
      'xmlns:camunda="http://camunda.org/schema/1.0/bpmn"',
      `xmlns:${dialect}="http://${dialect}.org/bpmn"`,
    )
    .replaceAll('camunda:', `${dialect}:`);

/** A sequence flow, with a condition when given. */
export const flow = (id: string, source: string, target: string, condition?: string): string =>
  condition
    ? `<sequenceFlow id="${id}" sourceRef="${source}" targetRef="${target}"><conditionExpression xsi:type="tFormalExpression"><![CDATA[${condition}]]></conditionExpression></sequenceFlow>`
    : `<sequenceFlow id="${id}" sourceRef="${source}" targetRef="${target}"/>`;

export const bearer = (token: string): { authorization: string } => ({ authorization: `Bearer ${token}` });

export interface Caller {
  headers: { authorization: string };
}

export async function call(
  t: TestApp,
  caller: { authorization: string },
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  payload?: unknown,
): Promise<LightMyRequestResponse> {
  return t.request({
    method,
    url: `${WF}/${path}`,
    headers: caller,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

/** Deploys a file as the admin and answers the deploy answer (fails the test on an error). */
export async function deploy(
  t: TestApp,
  xml: string,
): Promise<{
  processDefinitionId: number;
  key: string;
  version: number;
  deploymentId: number;
  warnings: { field: string; message: string }[];
}> {
  const response = await call(t, t.auth, 'POST', 'deployment/deployXml', { xml });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}

export interface InstanceAnswer {
  id: number;
  status: string;
  ended: boolean;
  suspended: boolean;
  incident: { activityId: string; flowId: string | null; message: string } | null;
}

export async function start(
  t: TestApp,
  caller: { authorization: string },
  key: string,
  variables: Record<string, unknown> = {},
): Promise<InstanceAnswer> {
  const response = await call(t, caller, 'POST', 'processinstance/start', {
    processDefinitionKey: key,
    description: `test of ${key}`,
    variables,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}

export interface TaskRow {
  id: number;
  activity_id: string;
  assignee: string | null;
  status: string;
}

/** The open tasks of an instance, read from the rows. */
export function openTasks(t: TestApp, instanceId: number): Promise<TaskRow[]> {
  return t.sql<TaskRow>(
    'select id, activity_id, assignee, status from wf_task where instance_id = $1 and end_time is null order by activity_id',
    [instanceId],
  );
}

export async function complete(
  t: TestApp,
  caller: { authorization: string },
  taskId: number,
  variables: Record<string, unknown> = {},
): Promise<LightMyRequestResponse> {
  return call(t, caller, 'POST', 'task/completeTask', { id: taskId, variables, comment: 'ok' });
}

export async function instanceRow(
  t: TestApp,
  id: number,
): Promise<{ status: string; end_time: Date | null; incident: unknown }> {
  const [row] = await t.sql<{ status: string; end_time: Date | null; incident: unknown }>(
    'select status, end_time, incident from wf_instance where id = $1',
    [id],
  );
  if (!row) throw new Error(`no instance ${id}`);
  return row;
}

/** A file with root elements (messages, signals, errors) beside its process. */
export const withRoots = (roots: string, key: string, body: string): string =>
  bpmn(key, body).replace('<process ', `${roots}<process `);

/** Starts the latest version of a process with a business key; answers the instance's id. */
export async function startWithKey(t: TestApp, key: string, businessKey: string): Promise<number> {
  const response = await call(t, t.auth, 'POST', 'processinstance/start', {
    processDefinitionKey: key,
    description: `test of ${key}`,
    businessKey,
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: { id: number } }).data.id;
}

/** The activities of an instance's open tasks, in order. */
export const tasksOf = async (t: TestApp, instanceId: number): Promise<string[]> =>
  (await openTasks(t, instanceId)).map((row) => row.activity_id);
