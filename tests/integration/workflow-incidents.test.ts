import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { bpmn, complete, deploy, flow, instanceRow, openTasks, start, WF } from '../support/workflow.js';

/**
 * A modelling slip (a condition or an assignee naming a variable nobody set) as Flowable and
 * Camunda treat it (issue 40, point 2): a person's completion is refused and the task stays
 * open; an incident left by other work can be retried from the instance, in the user's language.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 300_000);
afterAll(async () => {
  await t?.close();
});

const zh = (): Record<string, string> => ({ ...t.auth, 'accept-language': 'zh-CN' });

const post = (path: string, payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: `${WF}/${path}`, headers: zh(), payload });

describe('a condition on an unset variable', () => {
  it('refuses the completion in Chinese, naming the variable and the gateway by name; the task stays open and nothing is written', async () => {
    const xml = bpmn(
      'unsetAmount',
      `<startEvent id="s"/>${flow('f0', 's', 'fill')}
       <userTask id="fill" name="填写申请" camunda:assignee="\${initiator}"/>${flow('f1', 'fill', 'Gateway_0x1')}
       <exclusiveGateway id="Gateway_0x1" name="金额判断"/>
       ${flow('big', 'Gateway_0x1', 'boss', '${amount > 1000}')}${flow('small', 'Gateway_0x1', 'e', '${amount <= 1000}')}
       <userTask id="boss" name="总经理审批" camunda:assignee="\${initiator}"/>${flow('f2', 'boss', 'e')}<endEvent id="e"/>`,
    );
    await deploy(t, xml);
    const instance = await start(t, t.auth, 'unsetAmount');
    const [fill] = await openTasks(t, instance.id);
    const before = await t.sql('select count(*)::int as n from wf_comment where instance_id = $1', [
      instance.id,
    ]);

    const refused = await post('task/completeTask', {
      id: fill?.id,
      comment: '同意',
      variables: { note: 'x' },
    });
    expect(refused.statusCode, refused.body).toBe(400);
    const message: string = refused.json().message;
    expect(message).toContain('amount');
    expect(message).toContain('金额判断');
    expect(message).not.toContain('Gateway_0x1');
    expect(message).toContain('仍在待办中');

    // The task is open as it was, the instance has no incident, nothing of the completion was kept.
    expect(await openTasks(t, instance.id)).toEqual([
      expect.objectContaining({ id: fill?.id, activity_id: 'fill', assignee: 'admin' }),
    ]);
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'running', incident: null });
    expect(
      await t.sql('select count(*)::int as n from wf_comment where instance_id = $1', [instance.id]),
    ).toEqual(before);
    expect(
      await t.sql("select count(*)::int as n from wf_variable where instance_id = $1 and name = 'note'", [
        instance.id,
      ]),
    ).toEqual([{ n: 0 }]);

    // Given the variable, the same completion goes through.
    const done = await complete(t, t.auth, fill?.id ?? 0, { amount: 5000 });
    expect(done.statusCode, done.body).toBe(200);
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['boss']);
  });
});

describe('retrying an incident', () => {
  it('runs the stopped token again once the variable is given; a retry that stops again is refused in Chinese', async () => {
    const xml = bpmn(
      'unsetChecker',
      `<startEvent id="s"/>${flow('f0', 's', 'fill')}
       <userTask id="fill" name="填写申请" camunda:assignee="\${initiator}"/>${flow('f1', 'fill', 'check')}
       <userTask id="check" name="复核" camunda:assignee="\${checker}"/>${flow('f2', 'check', 'e')}<endEvent id="e"/>`,
    );
    await deploy(t, xml);
    const instance = await start(t, t.auth, 'unsetChecker');
    const [fill] = await openTasks(t, instance.id);
    expect((await complete(t, t.auth, fill?.id ?? 0)).statusCode).toBe(200);
    const detail = await t.request({
      method: 'GET',
      url: `${WF}/processinstance/detail?id=${instance.id}`,
      headers: zh(),
    });
    expect(detail.json().data.incident).toMatchObject({
      activityId: 'check',
      activityName: '复核',
      variable: 'checker',
    });

    const again = await post('processinstance/retry', { id: instance.id });
    expect(again.statusCode, again.body).toBe(400);
    expect(again.json().message).toContain('checker');
    expect(again.json().message).toContain('复核');
    expect(again.json().message).toContain('重试未成功');
    expect(await instanceRow(t, instance.id)).toMatchObject({ incident: { activityId: 'check' } });

    const retried = await post('processinstance/retry', { id: instance.id, variables: { checker: 'admin' } });
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json().data).toMatchObject({ status: 'running', incident: null });
    expect(await openTasks(t, instance.id)).toEqual([
      expect.objectContaining({ activity_id: 'check', assignee: 'admin' }),
    ]);
    expect(await t.sql('select state from wf_execution where instance_id = $1', [instance.id])).toEqual([
      { state: 'active' },
    ]);

    const nothing = await post('processinstance/retry', { id: instance.id });
    expect(nothing.statusCode).toBe(409);
    expect(nothing.json().message).toContain('没有异常');
  });
});
