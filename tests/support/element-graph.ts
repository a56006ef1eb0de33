import { expect } from 'vitest';
import type { ProcessGraph, ProcessNode } from '../../src/server/features/workflow/services/graph.js';
import { parseBpmn } from '../../src/server/features/workflow/services/parse.js';
import { flow } from './workflow.js';

/** The graphs the element behaviours' unit tests run on: real files read by the real parser. */

/**
 * The graph of an executable process around `body`; `beside` goes into the definitions next to
 * the process (errors, escalations, messages). The file must have no problems.
 */
export async function graphOf(
  body: string,
  { beside = '' }: { beside?: string } = {},
): Promise<ProcessGraph> {
  const outcome = await parseBpmn(`<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="test">
  ${beside}<process id="elements" name="elements" isExecutable="true">${body}</process>
</definitions>`);
  expect(outcome.problems).toEqual([]);
  if (!outcome.graph) throw new Error('no graph');
  return outcome.graph;
}

/** The node `id` of a process that runs start → `element` → end. */
export async function nodeBetween(element: string, id: string): Promise<ProcessNode> {
  const graph = await graphOf(
    `<startEvent id="s"/>${flow('f0', 's', id)}${element}${flow('f1', id, 'e')}<endEvent id="e"/>`,
  );
  const node = graph.nodes[id];
  if (!node) throw new Error(`no node ${id}`);
  return node;
}
