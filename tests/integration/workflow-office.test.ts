import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';
import {
  bearer,
  bpmn,
  call,
  complete,
  deploy,
  flow,
  instanceRow,
  openTasks,
  start,
} from '../support/workflow.js';

/**
 * The calls the workflow screens added: open-task counts for the badges, withdraw,
 * an instance's diagram with its progress, the administrators' assign and executions, the
 * start form key of a definition, and the personal-office menus every role sees.
 */
let t: TestApp;
let alice: { authorization: string };
let bob: { authorization: string };
let carol: { authorization: string };

// apply (the initiator) → review (candidates: role ROLE_SYS_SUPPLIER) → end
const OFFICE = bpmn(
  'office_flow',
  `<startEvent id="s" camunda:initiator="starter" camunda:formKey="sysparam"/>${flow('f0', 's', 'apply')}
   <userTask id="apply" name="申请" camunda:assignee="\${starter}"/>${flow('f1', 'apply', 'review')}
   <userTask id="review" name="审核" camunda:candidateGroups="ROLE_SYS_SUPPLIER"/>${flow('f2', 'review', 'e')}
   <endEvent id="e"/>`,
);

beforeAll(async () => {
  t = await startTestApp();
  alice = bearer((await createUserWithRole(t, 'office_alice', 'ROLE_SYS_BUYER')).token);
  bob = bearer((await createUserWithRole(t, 'office_bob', 'ROLE_SYS_SUPPLIER')).token);
  carol = bearer((await createUserWithRole(t, 'office_carol', 'ROLE_SYS_TOURIST')).token);
  await deploy(t, OFFICE);
}, 300_000);
afterAll(async () => {
  await t?.close();
});

const counts = async (who: { authorization: string }) => {
  const response = await call(t, who, 'GET', 'task/countOpen');
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as { personal: number; candidate: number };
};

describe('badges: task/countOpen', () => {
  it("counts the caller's assigned and claimable open tasks", async () => {
    const [aliceBefore, bobBefore, carolBefore] = [
      await counts(alice),
      await counts(bob),
      await counts(carol),
    ];
    const instance = await start(t, alice, 'office_flow');
    expect((await counts(alice)).personal).toBe(aliceBefore.personal + 1);
    const [apply] = await openTasks(t, instance.id);
    expect((await complete(t, alice, apply?.id ?? 0)).statusCode).toBe(200);
    expect(await counts(alice)).toEqual(aliceBefore);
    expect((await counts(bob)).candidate).toBe(bobBefore.candidate + 1);
    expect(await counts(carol)).toEqual(carolBefore);
    const [review] = await openTasks(t, instance.id);
    expect((await call(t, bob, 'POST', `task/claimTask?id=${review?.id}`)).statusCode).toBe(200);
    expect(await counts(bob)).toEqual({ personal: bobBefore.personal + 1, candidate: bobBefore.candidate });
  });

  it('needs a signed-in caller', async () => {
    expect((await t.request({ method: 'GET', url: '/api/activiti/task/countOpen' })).statusCode).toBe(401);
  });
});

describe('processinstance/withdraw', () => {
  it('the starter withdraws an untouched instance: status withdrawn, its tasks closed', async () => {
    const instance = await start(t, alice, 'office_flow');
    expect((await call(t, bob, 'POST', 'processinstance/withdraw', { id: instance.id })).statusCode).toBe(
      403,
    );
    const withdrawn = await call(t, alice, 'POST', 'processinstance/withdraw', {
      id: instance.id,
      comment: '不需要了',
    });
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    expect(withdrawn.json().data).toMatchObject({ status: 'withdrawn', ended: true });
    expect(await openTasks(t, instance.id)).toEqual([]);
    expect((await instanceRow(t, instance.id)).status).toBe('withdrawn');
    const again = await call(t, alice, 'POST', 'processinstance/withdraw', { id: instance.id });
    expect(again.statusCode).toBe(409);
    const mine = await call(t, alice, 'GET', 'processinstance/queryMyProcess?status=withdrawn&pageSize=100');
    expect(mine.json().data.records.map((row: { id: number }) => row.id)).toContain(instance.id);
  });

  it('409 once a task has been completed; 404 for no such instance; 400 without an id', async () => {
    const instance = await start(t, alice, 'office_flow');
    const [apply] = await openTasks(t, instance.id);
    expect((await complete(t, alice, apply?.id ?? 0)).statusCode).toBe(200);
    const late = await call(t, alice, 'POST', 'processinstance/withdraw', { id: instance.id });
    expect(late.statusCode).toBe(409);
    expect(late.json().message).toContain(String(instance.id));
    expect((await call(t, alice, 'POST', 'processinstance/withdraw', { id: 99_999_999 })).statusCode).toBe(
      404,
    );
    const bad = await call(t, alice, 'POST', 'processinstance/withdraw', {});
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('id');
  });
});

describe('processinstance/diagram', () => {
  it('answers the BPMN file with completed activities, the waiting task and the flows taken', async () => {
    const instance = await start(t, alice, 'office_flow');
    const [apply] = await openTasks(t, instance.id);
    expect((await complete(t, alice, apply?.id ?? 0)).statusCode).toBe(200);
    const response = await call(t, alice, 'GET', `processinstance/diagram?id=${instance.id}`);
    expect(response.statusCode, response.body).toBe(200);
    const diagram = response.json().data;
    expect(diagram.xml).toContain('office_flow');
    expect([...diagram.completed].sort()).toEqual(['apply', 's']);
    expect(diagram.active).toEqual(['review']);
    expect([...diagram.flows].sort()).toEqual(['f0', 'f1']);
    // a candidate takes part; someone unrelated does not
    expect((await call(t, bob, 'GET', `processinstance/diagram?id=${instance.id}`)).statusCode).toBe(200);
    expect((await call(t, carol, 'GET', `processinstance/diagram?id=${instance.id}`)).statusCode).toBe(403);
    expect((await call(t, t.auth, 'GET', 'processinstance/diagram?id=99999999')).statusCode).toBe(404);
  });

  it('an ended instance: everything completed, nothing waiting', async () => {
    const instance = await start(t, alice, 'office_flow');
    const [apply] = await openTasks(t, instance.id);
    expect((await complete(t, alice, apply?.id ?? 0)).statusCode).toBe(200);
    const [review] = await openTasks(t, instance.id);
    expect((await call(t, bob, 'POST', `task/claimTask?id=${review?.id}`)).statusCode).toBe(200);
    expect((await complete(t, bob, review?.id ?? 0)).statusCode).toBe(200);
    const diagram = (await call(t, alice, 'GET', `processinstance/diagram?id=${instance.id}`)).json().data;
    expect([...diagram.completed].sort()).toEqual(['apply', 'e', 'review', 's']);
    expect(diagram.active).toEqual([]);
    expect([...diagram.flows].sort()).toEqual(['f0', 'f1', 'f2']);
  });

  it('a rejected step is rejected, not completed, until it runs again (issue 40: red, not green)', async () => {
    const instance = await start(t, alice, 'office_flow');
    const diagramOf = async () =>
      (await call(t, alice, 'GET', `processinstance/diagram?id=${instance.id}`)).json().data as {
        completed: string[];
        active: string[];
        rejected: string[];
      };
    const [apply] = await openTasks(t, instance.id);
    expect((await complete(t, alice, apply?.id ?? 0)).statusCode).toBe(200);
    const [review] = await openTasks(t, instance.id);
    expect((await call(t, bob, 'POST', `task/claimTask?id=${review?.id}`)).statusCode).toBe(200);
    const rejected = await call(t, bob, 'POST', 'task/rejectTask', { id: review?.id, comment: '请补充' });
    expect(rejected.statusCode, rejected.body).toBe(200);
    const back = await diagramOf();
    expect(back.rejected).toEqual(['review']);
    expect(back.completed).not.toContain('review');
    expect(back.active).toEqual(['apply']);
    // revised and sent again: the step waits (not rejected), then completes (not rejected)
    const [again] = await openTasks(t, instance.id);
    expect((await complete(t, alice, again?.id ?? 0)).statusCode).toBe(200);
    const waiting = await diagramOf();
    expect(waiting.rejected).toEqual([]);
    expect(waiting.active).toEqual(['review']);
    const [second] = await openTasks(t, instance.id);
    expect((await call(t, bob, 'POST', `task/claimTask?id=${second?.id}`)).statusCode).toBe(200);
    expect((await complete(t, bob, second?.id ?? 0)).statusCode).toBe(200);
    const ended = await diagramOf();
    expect(ended.rejected).toEqual([]);
    expect([...ended.completed].sort()).toEqual(['apply', 'e', 'review', 's']);
  });

  it('marks only the flows taken: a gateway flow not taken is not marked though its target was entered later (issue 40.7)', async () => {
    // s → apply → gateway: big → boss → hr; small (skip) → hr; hr → e
    await deploy(
      t,
      bpmn(
        'office_skip',
        `<startEvent id="s" camunda:initiator="starter"/>${flow('f0', 's', 'apply')}
         <userTask id="apply" name="申请" camunda:assignee="\${starter}"/>${flow('f1', 'apply', 'g')}
         <exclusiveGateway id="g"/>
         ${flow('big', 'g', 'boss', '${amount > 1000}')}${flow('small', 'g', 'hr', '${amount <= 1000}')}
         <userTask id="boss" name="总经理" camunda:assignee="\${starter}"/>${flow('f2', 'boss', 'hr')}
         <userTask id="hr" name="人事" camunda:assignee="\${starter}"/>${flow('f3', 'hr', 'e')}
         <endEvent id="e"/>`,
      ),
    );
    const flowsOf = async (id: number): Promise<string[]> =>
      [...(await call(t, alice, 'GET', `processinstance/diagram?id=${id}`)).json().data.flows].sort();
    const big = await start(t, alice, 'office_skip', { amount: 5000 });
    for (const _ of [1, 2]) {
      const [task] = await openTasks(t, big.id);
      expect((await complete(t, alice, task?.id ?? 0)).statusCode).toBe(200);
    }
    expect((await openTasks(t, big.id)).map((task) => task.activity_id)).toEqual(['hr']);
    expect(await flowsOf(big.id)).toEqual(['big', 'f0', 'f1', 'f2']);
    const small = await start(t, alice, 'office_skip', { amount: 10 });
    const [apply] = await openTasks(t, small.id);
    expect((await complete(t, alice, apply?.id ?? 0)).statusCode).toBe(200);
    expect(await flowsOf(small.id)).toEqual(['f0', 'f1', 'small']);
  });
});

describe('administrators: task/assignTask and processinstance/executions', () => {
  it('assigns an open task to a user; refuses non-administrators, unknown users and done tasks', async () => {
    const instance = await start(t, alice, 'office_flow');
    const [apply] = await openTasks(t, instance.id);
    const taskId = apply?.id ?? 0;
    expect(
      (await call(t, alice, 'POST', 'task/assignTask', { id: taskId, username: 'office_bob' })).statusCode,
    ).toBe(403);
    const unknown = await call(t, t.auth, 'POST', 'task/assignTask', { id: taskId, username: 'nobody_here' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors.map((error: { field: string }) => error.field)).toContain('/username');
    const assigned = await call(t, t.auth, 'POST', 'task/assignTask', { id: taskId, username: 'office_bob' });
    expect(assigned.statusCode, assigned.body).toBe(200);
    expect(assigned.json().data).toMatchObject({ assignee: 'office_bob', status: 'assigned' });
    expect((await complete(t, bob, taskId)).statusCode).toBe(200);
    expect(
      (await call(t, t.auth, 'POST', 'task/assignTask', { id: taskId, username: 'office_alice' })).statusCode,
    ).toBe(409);
  });

  it("lists where an instance's tokens stand", async () => {
    const instance = await start(t, alice, 'office_flow');
    const response = await call(t, t.auth, 'GET', `processinstance/executions?id=${instance.id}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toEqual([
      expect.objectContaining({
        activityId: 'apply',
        name: '申请',
        state: 'active',
        processInstanceId: instance.id,
      }),
    ]);
    expect((await call(t, alice, 'GET', `processinstance/executions?id=${instance.id}`)).statusCode).toBe(
      403,
    );
  });
});

describe('the start screen and the personal-office menus', () => {
  it('definitions answer the start form key', async () => {
    const response = await call(t, alice, 'GET', 'processdefinition/query?key=office_flow&latestOnly=true');
    expect(response.statusCode).toBe(200);
    expect(response.json().data.records[0]).toMatchObject({ key: 'office_flow', startFormKey: 'sysparam' });
  });

  const authorityOf = async (who: { authorization: string }) => {
    const response = await t.request({
      method: 'POST',
      url: '/api/account/sysuserdetail/queryCurrentAuthority',
      headers: who,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data as { menu: string[]; buttons: Record<string, string[]> };
  };

  it('every back-office role sees the personal office with its buttons, not the workflow administration', async () => {
    const role = await t.request({
      method: 'POST',
      url: '/api/admin/sysrole/add',
      headers: t.auth,
      payload: { roleCode: 'ROLE_WF_STAFF', roleName: '办公职员' },
    });
    expect(role.statusCode, role.body).toBe(200);
    const [menu] = await t.sql<{ id: number }>("select id from sys_menu where menu_code = 'mynotification'");
    const granted = await t.request({
      method: 'POST',
      url: '/api/admin/sysmenu/authorizeMenuToRole',
      headers: t.auth,
      payload: { roleId: role.json().data.id, menuIds: [menu?.id] },
    });
    expect(granted.statusCode, granted.body).toBe(200);
    const staff = bearer((await createUserWithRole(t, 'office_staff', 'ROLE_WF_STAFF')).token);
    const authority = await authorityOf(staff);
    for (const path of ['/mynotification', '/startprocess', '/myprocess', '/candidatetask', '/assigneetask'])
      expect(authority.menu).toContain(path);
    expect(authority.menu).toContain('/finishedtask');
    expect(authority.menu).not.toContain('/processdefinition');
    expect(authority.buttons.assigneetask).toEqual(expect.arrayContaining(['complete', 'regress', 'reject']));
    expect(authority.buttons.candidatetask).toContain('claim');
  });

  it('a portal-only role (no back-office menu) gets no personal office either', async () => {
    expect((await authorityOf(carol)).menu).toEqual([]);
  });
});
