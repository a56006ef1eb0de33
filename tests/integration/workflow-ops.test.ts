import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { syncWorkflowMenus } from '../../src/server/features/workflow/menus.js';
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
 * Chinese BPM's task operations beyond the basic ones (issue 40 point 13): 转办 (transfer) by
 * the assignee or an administrator, with its refusals, history and notice.
 */
let t: TestApp;
let alice: { id: number; headers: { authorization: string } };
let bob: { id: number; headers: { authorization: string } };
let carol: { id: number; headers: { authorization: string } };

async function user(name: string, role: string) {
  const created = await createUserWithRole(t, name, role);
  return { id: created.id, headers: bearer(created.token) };
}

// apply (the initiator) → review (bob) → end
const FLOW = bpmn(
  'ops_flow',
  `<startEvent id="s" camunda:initiator="starter"/>${flow('f0', 's', 'apply')}
   <userTask id="apply" name="申请" camunda:assignee="\${starter}"/>${flow('f1', 'apply', 'review')}
   <userTask id="review" name="审核" camunda:assignee="bob"/>${flow('f2', 'review', 'e')}<endEvent id="e"/>`,
);

beforeAll(async () => {
  t = await startTestApp();
  alice = await user('alice', 'ROLE_SYS_BUYER');
  bob = await user('bob', 'ROLE_SYS_BUYER');
  carol = await user('carol', 'ROLE_SYS_SUPPLIER');
  await deploy(t, FLOW);
}, 300_000);
afterAll(async () => {
  await t?.close();
});

/** An instance started by alice, its apply task completed: review waits for bob. */
async function atReview(): Promise<{ instanceId: number; reviewId: number }> {
  const instance = await start(t, alice.headers, 'ops_flow');
  const [apply] = await openTasks(t, instance.id);
  expect((await complete(t, alice.headers, apply?.id ?? 0)).statusCode).toBe(200);
  const [review] = await openTasks(t, instance.id);
  expect(review).toMatchObject({ activity_id: 'review', assignee: 'bob' });
  return { instanceId: instance.id, reviewId: review?.id ?? 0 };
}

async function inboxTitles(headers: { authorization: string }): Promise<string[]> {
  const inbox = await t.request({
    method: 'GET',
    url: '/api/admin/notification/queryMyNotification?pageSize=100',
    headers,
  });
  expect(inbox.statusCode).toBe(200);
  return inbox.json().data.records.map((row: { title: string }) => row.title);
}

describe('转办 (transferTask)', () => {
  it('hands the task to another user for good: new assignee, notice, history of who to whom', async () => {
    const { instanceId, reviewId } = await atReview();
    const before = (await inboxTitles(carol.headers)).filter((title) => title === '审核').length;
    const transferred = await call(t, bob.headers, 'POST', 'task/transferTask', {
      id: reviewId,
      username: 'carol',
      comment: '请你来审',
    });
    expect(transferred.statusCode, transferred.body).toBe(200);
    expect(transferred.json().data).toMatchObject({ assignee: 'carol', status: 'assigned' });
    expect(transferred.json().data.delegationState).toBeNull();
    // bob no longer has it, carol does, and is told
    const bobs = await call(t, bob.headers, 'GET', `task/queryPersonalTask?processInstanceId=${instanceId}`);
    expect(bobs.json().data.records).toEqual([]);
    const carols = await call(
      t,
      carol.headers,
      'GET',
      `task/queryPersonalTask?processInstanceId=${instanceId}`,
    );
    expect(carols.json().data.records.map((row: { id: number }) => row.id)).toEqual([reviewId]);
    expect((await inboxTitles(carol.headers)).filter((title) => title === '审核').length).toBe(before + 1);
    // the history: bob transferred to carol, with his comment; the step shows carol
    const detail = await call(t, carol.headers, 'GET', `processinstance/detail?id=${instanceId}`);
    expect(detail.statusCode).toBe(200);
    expect(detail.json().data.comments.at(-1)).toMatchObject({
      username: 'bob',
      action: 'transfer',
      target: 'carol',
      message: '请你来审',
    });
    const step = detail.json().data.activities.find((row: { key: string }) => row.key === 'review');
    expect(step.assignee).toBe('carol');
    // bob may no longer act; carol completes, not back to bob (unlike a delegation)
    expect((await complete(t, bob.headers, reviewId)).statusCode).toBe(403);
    expect((await complete(t, carol.headers, reviewId)).statusCode).toBe(200);
  });

  it('refuses others (403), an unknown or the same user (400 naming username), a missing comment', async () => {
    const { instanceId, reviewId } = await atReview();
    const other = await call(t, alice.headers, 'POST', 'task/transferTask', {
      id: reviewId,
      username: 'carol',
      comment: 'c',
    });
    expect(other.statusCode).toBe(403);
    for (const username of ['nobody', 'bob']) {
      const bad = await call(t, bob.headers, 'POST', 'task/transferTask', {
        id: reviewId,
        username,
        comment: 'c',
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors[0].field).toBe('/username');
    }
    const noComment = await call(t, bob.headers, 'POST', 'task/transferTask', {
      id: reviewId,
      username: 'carol',
    });
    expect(noComment.statusCode).toBe(400);
    expect(JSON.stringify(noComment.json().errors)).toContain('comment');
    expect((await openTasks(t, instanceId))[0]?.assignee).toBe('bob');
  });

  it('lets an administrator transfer any open task of the tenant; a delegated task waits (409)', async () => {
    const { reviewId } = await atReview();
    const byAdmin = await call(t, t.auth, 'POST', 'task/transferTask', {
      id: reviewId,
      username: 'carol',
      comment: 'bob 休假',
    });
    expect(byAdmin.statusCode, byAdmin.body).toBe(200);
    expect(byAdmin.json().data.assignee).toBe('carol');
    const delegated = await call(t, carol.headers, 'POST', 'task/delegateTask', {
      id: reviewId,
      username: 'alice',
      comment: '请协助',
    });
    expect(delegated.statusCode).toBe(200);
    const whileDelegated = await call(t, t.auth, 'POST', 'task/transferTask', {
      id: reviewId,
      username: 'bob',
      comment: 'c',
    });
    expect(whileDelegated.statusCode).toBe(409);
  });

  it('gives every back-office user the 转办 button, also on a database seeded before it', async () => {
    // a back-office role (one granted menu): the personal office comes with all its buttons
    const role = await t.request({
      method: 'POST',
      url: '/api/admin/sysrole/add',
      headers: t.auth,
      payload: { roleCode: 'ROLE_OPS_STAFF', roleName: '办公职员' },
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
    const staff = bearer((await createUserWithRole(t, 'ops_staff', 'ROLE_OPS_STAFF')).token);
    const buttons = async (): Promise<string[]> => {
      const response = await t.request({
        method: 'POST',
        url: '/api/account/sysuserdetail/queryCurrentAuthority',
        headers: staff,
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json().data.buttons.assigneetask;
    };
    expect(await buttons()).toContain('transfer');
    // a database seeded before 转办: the menu lacks the button until the next start's sync
    await t.sql(
      `update sys_menu set menu_button = menu_button - 'transfer' where menu_code = 'assigneetask'`,
    );
    expect(await buttons()).not.toContain('transfer');
    await syncWorkflowMenus(t.app.ctx, t.app.i18n);
    await syncWorkflowMenus(t.app.ctx, t.app.i18n);
    expect(await buttons()).toContain('transfer');
    const [row] = await t.sql<{ menu_button: string[] }>(
      `select menu_button from sys_menu where menu_code = 'assigneetask'`,
    );
    expect(row?.menu_button.filter((button) => button === 'transfer')).toEqual(['transfer']);
  });
});

describe('挂起 a definition: with or without its running instances', () => {
  const suspended = async (instanceId: number): Promise<boolean> =>
    (await t.sql<{ suspended: boolean }>('select suspended from wf_instance where id = $1', [instanceId]))[0]
      ?.suspended ?? false;

  it('suspends only the definition unless asked; instances=true suspends its running instances too', async () => {
    const { instanceId, reviewId } = await atReview();
    const [definition] = await t.sql<{ definition_id: number }>(
      'select definition_id from wf_instance where id = $1',
      [instanceId],
    );
    const id = definition?.definition_id ?? 0;
    const bad = await call(t, t.auth, 'POST', `processdefinition/suspend?id=${id}&instances=yes`);
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json().errors)).toContain('instances');

    const only = await call(t, t.auth, 'POST', `processdefinition/suspend?id=${id}`);
    expect(only.statusCode, only.body).toBe(200);
    expect(only.json().data).toEqual({ id, suspended: true, instances: 0 });
    expect(await suspended(instanceId)).toBe(false);
    expect((await call(t, t.auth, 'POST', `processdefinition/activate?id=${id}`)).statusCode).toBe(200);

    const both = await call(t, t.auth, 'POST', `processdefinition/suspend?id=${id}&instances=true`);
    expect(both.statusCode, both.body).toBe(200);
    expect(both.json().data.instances).toBeGreaterThanOrEqual(1);
    expect(await suspended(instanceId)).toBe(true);
    expect((await complete(t, bob.headers, reviewId)).statusCode).toBe(409);
    const detail = await call(t, t.auth, 'GET', `processinstance/detail?id=${instanceId}`);
    expect(detail.json().data.comments.at(-1)).toMatchObject({ username: 'admin', action: 'suspend' });
    // activating with instances=true lets them go on again
    const activated = await call(t, t.auth, 'POST', `processdefinition/activate?id=${id}&instances=true`);
    expect(activated.statusCode).toBe(200);
    expect(await suspended(instanceId)).toBe(false);
    expect((await complete(t, bob.headers, reviewId)).statusCode).toBe(200);
  });

  it('leaves running instances going on when suspended without them', async () => {
    const { instanceId, reviewId } = await atReview();
    const [definition] = await t.sql<{ definition_id: number }>(
      'select definition_id from wf_instance where id = $1',
      [instanceId],
    );
    const id = definition?.definition_id ?? 0;
    expect(
      (await call(t, t.auth, 'POST', `processdefinition/suspend?id=${id}&instances=false`)).statusCode,
    ).toBe(200);
    expect((await complete(t, bob.headers, reviewId)).statusCode).toBe(200);
    // new starts wait until it is activated again
    const refused = await call(t, alice.headers, 'POST', 'processinstance/start', {
      processDefinitionKey: 'ops_flow',
      description: 'x',
      variables: {},
    });
    expect(refused.statusCode).toBe(409);
    expect((await call(t, t.auth, 'POST', `processdefinition/activate?id=${id}`)).statusCode).toBe(200);
  });
});

describe('抄送 (copyUsers on completeTask) and 抄送我的 (queryCopyTask)', () => {
  it('copies the instance to chosen users: notice, list, read-only detail, history; not for others', async () => {
    const { instanceId, reviewId } = await atReview();
    // carol takes no part: she may not read it yet
    const before = await call(t, carol.headers, 'GET', `processinstance/detail?id=${instanceId}`);
    expect(before.statusCode).toBe(403);
    const noticesBefore = (await inboxTitles(carol.headers)).filter((title) => title.includes('抄送')).length;
    const done = await call(t, bob.headers, 'POST', 'task/completeTask', {
      id: reviewId,
      comment: '同意，抄送财务',
      copyUsers: ['carol'],
    });
    expect(done.statusCode, done.body).toBe(200);
    expect((await inboxTitles(carol.headers)).filter((title) => title.includes('抄送')).length).toBe(
      noticesBefore + 1,
    );
    const list = await call(t, carol.headers, 'GET', `task/queryCopyTask?processInstanceId=${instanceId}`);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data.records).toEqual([
      expect.objectContaining({
        processInstanceId: instanceId,
        taskId: reviewId,
        taskName: '审核',
        copiedBy: 'bob',
        message: '同意，抄送财务',
        startUserId: 'alice',
      }),
    ]);
    // she reads the instance and its diagram now; the history says who copied to whom
    const detail = await call(t, carol.headers, 'GET', `processinstance/detail?id=${instanceId}`);
    expect(detail.statusCode, detail.body).toBe(200);
    expect(detail.json().data.comments).toContainEqual(
      expect.objectContaining({
        username: 'bob',
        action: 'copy',
        target: 'carol',
        message: '同意，抄送财务',
      }),
    );
    // alice was not copied: her 抄送我的 does not list it
    const alices = await call(t, alice.headers, 'GET', `task/queryCopyTask?processInstanceId=${instanceId}`);
    expect(alices.json().data.records).toEqual([]);
  });

  it('lets a copied user read but not act on an open task', async () => {
    const instance = await start(t, alice.headers, 'ops_flow');
    const [apply] = await openTasks(t, instance.id);
    const done = await call(t, alice.headers, 'POST', 'task/completeTask', {
      id: apply?.id,
      comment: '提交',
      copyUsers: ['carol'],
    });
    expect(done.statusCode, done.body).toBe(200);
    const [review] = await openTasks(t, instance.id);
    expect((await call(t, carol.headers, 'GET', `task/detail?id=${review?.id}`)).statusCode).toBe(200);
    expect((await complete(t, carol.headers, review?.id ?? 0)).statusCode).toBe(403);
    const transfer = await call(t, carol.headers, 'POST', 'task/transferTask', {
      id: review?.id,
      username: 'carol',
      comment: 'c',
    });
    expect(transfer.statusCode).toBe(403);
  });

  it('refuses an unknown or repeated user (400 naming copyUsers/i); nothing is copied or completed', async () => {
    const { instanceId, reviewId } = await atReview();
    for (const copyUsers of [
      ['carol', 'nobody'],
      ['carol', 'carol'],
    ]) {
      const bad = await call(t, bob.headers, 'POST', 'task/completeTask', {
        id: reviewId,
        comment: 'c',
        copyUsers,
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors[0].field).toBe('/copyUsers/1');
    }
    expect((await openTasks(t, instanceId))[0]?.id).toBe(reviewId);
    const list = await call(t, carol.headers, 'GET', `task/queryCopyTask?processInstanceId=${instanceId}`);
    expect(list.json().data.records).toEqual([]);
  });

  it("is tenant-scoped: another tenant's user cannot be copied, nor read the instance", async () => {
    const tenant = await t.request({
      method: 'POST',
      url: '/api/admin/systenant/add',
      headers: t.auth,
      payload: { tenantCode: 'ccbeta', tenantName: 'CC Beta' },
    });
    expect(tenant.statusCode, tenant.body).toBe(200);
    const admin = tenant.json().data.admin as { username: string; initialPassword: string };
    // a name only the other tenant has
    await t.sql(
      "update sys_user set username = 'cc_beta_admin' where tenant_code = 'ccbeta' and username = $1",
      [admin.username],
    );
    const signedIn = await t.signIn('cc_beta_admin', admin.initialPassword, 'ccbeta');
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    const beta = bearer(signedIn.json().access_token as string);
    const { instanceId, reviewId } = await atReview();
    const cross = await call(t, bob.headers, 'POST', 'task/completeTask', {
      id: reviewId,
      comment: 'c',
      copyUsers: ['cc_beta_admin'],
    });
    expect(cross.statusCode).toBe(400);
    expect(cross.json().errors[0].field).toBe('/copyUsers/0');
    const done = await call(t, bob.headers, 'POST', 'task/completeTask', {
      id: reviewId,
      comment: 'c',
      copyUsers: ['carol'],
    });
    expect(done.statusCode, done.body).toBe(200);
    expect([403, 404]).toContain(
      (await call(t, beta, 'GET', `processinstance/detail?id=${instanceId}`)).statusCode,
    );
    const betaList = await call(t, beta, 'GET', 'task/queryCopyTask');
    expect(betaList.statusCode).toBe(200);
    expect(betaList.json().data.records).toEqual([]);
  });
});

describe('加签 (addSignTask)', () => {
  const sign = (
    who: { authorization: string },
    id: number,
    usernames: unknown,
    type: unknown = 'before',
    comment: unknown = '请先看看',
  ) => call(t, who, 'POST', 'task/addSignTask', { id, usernames, type, comment });
  const signerTasks = async (instanceId: number) =>
    (
      await t.sql<{ id: number; assignee: string; parent_task_id: number | null; status: string }>(
        'select id, assignee, parent_task_id, status from wf_task where instance_id = $1 and end_time is null order by id',
        [instanceId],
      )
    ).map((row) => ({
      ...row,
      id: Number(row.id),
      parent_task_id: row.parent_task_id && Number(row.parent_task_id),
    }));

  it('before: the signers approve first, then the task is back with its assignee; history and notices', async () => {
    const { instanceId, reviewId } = await atReview();
    const noticesBefore = (await inboxTitles(carol.headers)).filter((title) => title === '审核').length;
    const signed = await sign(bob.headers, reviewId, ['carol', 'alice'], 'before', '请两位先审');
    expect(signed.statusCode, signed.body).toBe(200);
    expect(signed.json().data).toMatchObject({
      id: reviewId,
      status: 'waiting',
      signType: 'before',
      assignee: 'bob',
    });
    expect((await inboxTitles(carol.headers)).filter((title) => title === '审核').length).toBe(
      noticesBefore + 1,
    );
    const open = await signerTasks(instanceId);
    expect(open.map(({ assignee, parent_task_id }) => ({ assignee, parent_task_id }))).toEqual([
      { assignee: 'bob', parent_task_id: null },
      { assignee: 'carol', parent_task_id: reviewId },
      { assignee: 'alice', parent_task_id: reviewId },
    ]);
    // bob's task waits: not in his 待办, and he cannot complete it meanwhile (409)
    const bobs = await call(t, bob.headers, 'GET', `task/queryPersonalTask?processInstanceId=${instanceId}`);
    expect(bobs.json().data.records).toEqual([]);
    expect((await complete(t, bob.headers, reviewId)).statusCode).toBe(409);
    const carols = await call(
      t,
      carol.headers,
      'GET',
      `task/queryPersonalTask?processInstanceId=${instanceId}`,
    );
    const carolTask = carols.json().data.records[0];
    expect(carolTask).toMatchObject({ name: '审核', parentTaskId: reviewId, status: 'assigned' });
    // history: 「bob · 向前加签 carol, alice · 请两位先审」
    const detail = await call(t, carol.headers, 'GET', `processinstance/detail?id=${instanceId}`);
    expect(detail.json().data.comments.at(-1)).toMatchObject({
      username: 'bob',
      action: 'addSignBefore',
      target: 'carol, alice',
      message: '请两位先审',
    });
    expect((await complete(t, carol.headers, carolTask.id)).statusCode).toBe(200);
    // one signer left: still waiting
    expect((await signerTasks(instanceId)).find((row) => row.id === reviewId)?.status).toBe('waiting');
    const alicesTask = (await signerTasks(instanceId)).find((row) => row.assignee === 'alice');
    expect((await complete(t, alice.headers, alicesTask?.id ?? 0)).statusCode).toBe(200);
    // all approved: back to bob, who completes; the process ends
    const back = await call(t, bob.headers, 'GET', `task/queryPersonalTask?processInstanceId=${instanceId}`);
    expect(
      back.json().data.records.map((row: { id: number; status: string }) => [row.id, row.status]),
    ).toEqual([[reviewId, 'assigned']]);
    expect((await complete(t, bob.headers, reviewId)).statusCode).toBe(200);
    expect((await instanceRow(t, instanceId)).end_time).not.toBeNull();
  });

  it("after: the assignee's part is done; once the signers approve, the process goes on", async () => {
    const { instanceId, reviewId } = await atReview();
    const signed = await sign(bob.headers, reviewId, ['carol'], 'after', '我同意，请 carol 复核');
    expect(signed.statusCode, signed.body).toBe(200);
    expect(signed.json().data).toMatchObject({ status: 'waiting', signType: 'after' });
    const carolTask = (await signerTasks(instanceId)).find((row) => row.assignee === 'carol');
    expect((await instanceRow(t, instanceId)).end_time).toBeNull();
    const done = await complete(t, carol.headers, carolTask?.id ?? 0);
    expect(done.statusCode, done.body).toBe(200);
    // bob's review is completed by it, and the instance (review → end) is over
    const [review] = await t.sql<{ status: string; end_time: Date | null }>(
      'select status, end_time from wf_task where id = $1',
      [reviewId],
    );
    expect(review?.status).toBe('completed');
    expect(review?.end_time).not.toBeNull();
    expect((await instanceRow(t, instanceId)).end_time).not.toBeNull();
  });

  it("a signer's rejection sends the instance back to the initiator, like the task's", async () => {
    const { instanceId, reviewId } = await atReview();
    expect((await sign(bob.headers, reviewId, ['carol'], 'before')).statusCode).toBe(200);
    const carolTask = (await signerTasks(instanceId)).find((row) => row.assignee === 'carol');
    const rejected = await call(t, carol.headers, 'POST', 'task/rejectTask', {
      id: carolTask?.id,
      comment: '不行',
    });
    expect(rejected.statusCode, rejected.body).toBe(200);
    const open = await openTasks(t, instanceId);
    expect(open.map((row) => [row.activity_id, row.assignee])).toEqual([['apply', 'alice']]);
  });

  it("refuses others (403), bad input (400 naming the field), a delegated, waiting, signer's or done task (409)", async () => {
    const { instanceId, reviewId } = await atReview();
    expect((await sign(alice.headers, reviewId, ['carol'])).statusCode).toBe(403);
    const cases: [unknown, unknown, unknown, string][] = [
      [['nobody'], 'before', 'c', '/usernames/0'],
      [['bob'], 'before', 'c', '/usernames/0'],
      [['carol', 'carol'], 'before', 'c', '/usernames/1'],
      [[], 'before', 'c', 'usernames'],
      [['carol'], 'sideways', 'c', 'type'],
      [['carol'], 'before', '', 'comment'],
    ];
    for (const [usernames, type, comment, field] of cases) {
      const bad = await sign(bob.headers, reviewId, usernames, type, comment);
      expect(bad.statusCode, JSON.stringify(usernames)).toBe(400);
      expect(JSON.stringify(bad.json().errors)).toContain(field);
    }
    expect((await signerTasks(instanceId)).length).toBe(1);
    // waiting for its signers: no second add, no transfer (409); a signer's task takes no signers (409)
    expect((await sign(bob.headers, reviewId, ['carol'])).statusCode).toBe(200);
    expect((await sign(bob.headers, reviewId, ['alice'])).statusCode).toBe(409);
    const carolTask = (await signerTasks(instanceId)).find((row) => row.assignee === 'carol');
    expect((await sign(carol.headers, carolTask?.id ?? 0, ['alice'])).statusCode).toBe(409);
    expect((await complete(t, carol.headers, carolTask?.id ?? 0)).statusCode).toBe(200);
    expect((await sign(carol.headers, carolTask?.id ?? 0, ['alice'])).statusCode).toBe(409);
    // delegated: 409
    expect(
      (
        await call(t, bob.headers, 'POST', 'task/delegateTask', {
          id: reviewId,
          username: 'carol',
          comment: 'd',
        })
      ).statusCode,
    ).toBe(200);
    expect((await sign(carol.headers, reviewId, ['alice'])).statusCode).toBe(409);
  });

  it('lets an administrator add signers; a suspended instance refuses (409)', async () => {
    const { instanceId, reviewId } = await atReview();
    const suspended = await call(t, t.auth, 'POST', `processinstance/suspend?id=${instanceId}`);
    expect(suspended.statusCode, suspended.body).toBe(200);
    expect((await sign(bob.headers, reviewId, ['carol'])).statusCode).toBe(409);
    expect((await call(t, t.auth, 'POST', `processinstance/activate?id=${instanceId}`)).statusCode).toBe(200);
    const byAdmin = await sign(t.auth, reviewId, ['carol'], 'after', 'bob 出差，请 carol 复核');
    expect(byAdmin.statusCode, byAdmin.body).toBe(200);
  });

  it("a message boundary event that takes the token from a waiting task ends its signers' tasks too", async () => {
    // review (bob) with an interrupting message boundary 撤销 → cancelled → end
    await deploy(
      t,
      bpmn(
        'ops_sign_boundary',
        `<startEvent id="s"/>${flow('f0', 's', 'review')}
         <userTask id="review" name="审核" camunda:assignee="bob"/>${flow('f1', 'review', 'e')}<endEvent id="e"/>
         <boundaryEvent id="revoke" attachedToRef="review"><messageEventDefinition messageRef="mRevoke"/></boundaryEvent>
         ${flow('f2', 'revoke', 'cancelled')}<userTask id="cancelled" name="已撤销" camunda:assignee="bob"/>
         ${flow('f3', 'cancelled', 'e2')}<endEvent id="e2"/>`,
      ).replace('<process ', '<message id="mRevoke" name="revoke"/><process '),
    );
    const instance = await start(t, alice.headers, 'ops_sign_boundary');
    const [review] = await openTasks(t, instance.id);
    expect((await sign(bob.headers, review?.id ?? 0, ['carol'])).statusCode).toBe(200);
    expect((await signerTasks(instance.id)).map((row) => row.assignee)).toEqual(['bob', 'carol']);
    const revoked = await call(t, t.auth, 'POST', 'processinstance/message', {
      messageName: 'revoke',
      processInstanceId: instance.id,
    });
    expect(revoked.statusCode, revoked.body).toBe(200);
    // only the boundary's task is open: carol's signer task ended with bob's
    const open = await signerTasks(instance.id);
    expect(open.map(({ assignee, parent_task_id }) => ({ assignee, parent_task_id }))).toEqual([
      { assignee: 'bob', parent_task_id: null },
    ]);
    const [carols] = await t.sql<{ status: string; end_reason: string }>(
      "select status, end_reason from wf_task where instance_id = $1 and assignee = 'carol'",
      [instance.id],
    );
    expect(carols).toMatchObject({ status: 'canceled', end_reason: 'boundaryMessage' });
    expect(
      (await call(t, carol.headers, 'GET', `task/queryPersonalTask?processInstanceId=${instance.id}`)).json()
        .data.records,
    ).toEqual([]);
  });

  it('gives the 加签 button on 待办任务 and the 抄送我的 menu, also on a database seeded before them', async () => {
    await t.sql(`update sys_menu set menu_button = menu_button - 'addSign' where menu_code = 'assigneetask'`);
    await t.sql(`delete from sys_menu where menu_code = 'copytask'`);
    await syncWorkflowMenus(t.app.ctx, t.app.i18n);
    await syncWorkflowMenus(t.app.ctx, t.app.i18n);
    const rows = await t.sql<{
      code: string;
      buttons: string[];
      parent: string;
      name: string;
      meta: Record<string, unknown>;
    }>(
      `select m.menu_code as code, m.menu_button as buttons, p.menu_code as parent, m.menu_name as name, m.menu_meta as meta
         from sys_menu m join sys_menu p on p.id = m.menu_parent where m.menu_code in ('assigneetask', 'copytask') order by m.menu_code`,
    );
    expect(rows.map((row) => row.code)).toEqual(['assigneetask', 'copytask']);
    expect(rows[0]?.buttons.filter((button) => button === 'addSign')).toEqual(['addSign']);
    expect(rows[1]).toMatchObject({
      parent: 'oa',
      name: '抄送我的',
      buttons: ['view'],
      meta: { everyone: true },
    });
    // a back-office user has the menu and the button
    const authority = await t.request({
      method: 'POST',
      url: '/api/account/sysuserdetail/queryCurrentAuthority',
      headers: t.auth,
    });
    expect(authority.statusCode, authority.body).toBe(200);
    expect(authority.json().data.buttons.assigneetask).toContain('addSign');
    expect(authority.json().data.buttons.copytask).toEqual(['view']);
  });
});
