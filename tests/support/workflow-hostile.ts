import { bpmn, flow } from './workflow.js';

/**
 * The hostile processes of issue 31 (findings 1 and 5), shared by the stall test and the
 * workflow budget tests.
 */

/**
 * Finding 1: a built-in service task that sets a variable and loops back to itself through an
 * exclusive gateway's default flow (the way out, when `n` is "stop", is never taken): it never
 * reaches a wait state. Options: another start event (a timer start), a user task `wait` before
 * the loop, the field the service task sets (`+${v}${v}` doubles v at every turn).
 */
export function loopingProcess(
  key: string,
  {
    start = '<startEvent id="s"/>',
    wait = false,
    field = { name: 'n', value: 'again' },
  }: { start?: string; wait?: boolean; field?: { name: string; value: string } } = {},
): string {
  const before = wait
    ? `${flow('f0', 's', 'wait')}<userTask id="wait" name="wait" camunda:assignee="admin"/>${flow('fw', 'wait', 'loop')}`
    : flow('f0', 's', 'loop');
  return bpmn(
    key,
    `${start}${before}
     <serviceTask id="loop" name="loop" camunda:type="setVariables"><extensionElements>
       <camunda:field name="${field.name}"><camunda:expression><![CDATA[${field.value}]]></camunda:expression></camunda:field></extensionElements></serviceTask>
     ${flow('f1', 'loop', 'g')}<exclusiveGateway id="g" default="back"/>
     ${flow('back', 'g', 'loop')}${flow('out', 'g', 'e', '${n == "stop"}')}<endEvent id="e"/>`,
  );
}

/**
 * Finding 5: `depth` embedded sub-processes nested in each other, each a start, its inner
 * sub-process (or, innermost, nothing) and an end.
 */
export function nestedProcess(key: string, depth: number): string {
  const open: string[] = [];
  const close: string[] = [];
  for (let level = 0; level < depth; level++) {
    const inner = level + 1 < depth ? `p${level + 1}` : `e${level}`;
    open.push(
      `<subProcess id="p${level}"><startEvent id="s${level}"/>${flow(`a${level}`, `s${level}`, inner)}`,
    );
    close.unshift(
      `${level + 1 < depth ? flow(`b${level}`, inner, `e${level}`) : ''}<endEvent id="e${level}"/></subProcess>`,
    );
  }
  return bpmn(
    key,
    `<startEvent id="s"/>${flow('f0', 's', 'p0')}${open.join('')}${close.join('')}${flow('f1', 'p0', 'e')}<endEvent id="e"/>`,
  );
}
