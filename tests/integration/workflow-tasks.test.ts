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
 * Task actions of the personal office: candidates by user, role, post and
 * organisation; claim, unclaim, complete, delegate and resolve, regress, reject, terminate with
 * their refusals (403, 404, 409); two completes at once; the lists; tenant isolation.
 */
let t: TestApp;
let alice: { id: number; headers: { authorization: string } };
let bob: { id: number; headers: { authorization: string } };
let carol: { id: number; headers: { authorization: string } };
let outsider: { authorization: string };

async function user(name: string, role: string) {
  const created = await createUserWithRole(t, name, role);
  return { id: created.id, headers: bearer(created.token) };
}

// apply (the initiator) → review (candidates: user bob, role ROLE_SYS_SUPPLIER, post QA) → sign (alice) → end
const REVIEW = bpmn(
  'review_flow',
  `<startEvent id="s" camunda:initiator="starter"/>${flow('f0', 's', 'apply')}
   <userTask id="apply" name="申请" camunda:assignee="\${starter}" camunda:formKey="sysparam"/>${flow('f1', 'apply', 'review')}
   <userTask id="review" name="审核" camunda:candidateUsers="bob" camunda:candidateGroups="ROLE_SYS_SUPPLIER,post:QA"/>${flow('f2', 'review', 'sign')}
   <userTask id="sign" name="签发" camunda:assignee="alice"/>${flow('f3', 'sign', 'e')}<endEvent id="e"/>`,
);

beforeAll(async () => {
  t = await startTestApp();
  alice = await user('alice', 'ROLE_SYS_BUYER');
  bob = await user('bob', 'ROLE_SYS_BUYER');
  carol = await user('carol', 'ROLE_SYS_SUPPLIER');
  outsider = (await user('outsider', 'ROLE_SYS_TOURIST')).headers;
  await deploy(t, REVIEW);
}, 300_000);
afterAll(async () => {
  await t?.close();
});

/** An instance started by alice, its apply task completed: review waits for a candidate. */
async function atReview(): Promise<{ instanceId: number; reviewId: number }> {
  const instance = await start(t, alice.headers, 'review_flow');
  const [apply] = await openTasks(t, instance.id);
  expect(apply).toMatchObject({ activity_id: 'apply', assignee: 'alice' });
  expect((await complete(t, alice.headers, apply?.id ?? 0)).statusCode).toBe(200);
  const [review] = await openTasks(t, instance.id);
  expect(review).toMatchObject({ activity_id: 'review', assignee: null, status: 'created' });
  return { instanceId: instance.id, reviewId: review?.id ?? 0 };
}

const ids = (response: { json(): { data: { records: { id: number }[] } } }): number[] =>
  response.json().data.records.map((row) => row.id);

describe('candidates and claiming', () => {
  it('lists the task for its candidates (user, role) only, and tells them through the inbox', async () => {
    const { reviewId } = await atReview();
    for (const who of [bob, carol]) {
      const candidate = await call(t, who.headers, 'GET', 'task/queryCandidateTask?pageSize=100');
      expect(candidate.statusCode).toBe(200);
      expect(ids(candidate)).toContain(reviewId);
      const inbox = await t.request({
        method: 'GET',
        url: '/api/admin/notification/queryMyNotification?pageSize=50',
        headers: who.headers,
      });
      expect(inbox.json().data.records.map((row: { title: string }) => row.title)).toContain('审核');
    }
    expect(ids(await call(t, alice.headers, 'GET', 'task/queryCandidateTask'))).not.toContain(reviewId);
    expect(ids(await call(t, outsider, 'GET', 'task/queryCandidateTask'))).not.toContain(reviewId);
  });

  it('a user holding the post is a candidate too', async () => {
    const post = await t.request({
      method: 'POST',
      url: '/api/admin/syspost/add',
      headers: t.auth,
      payload: { postCode: 'QA', postName: '质检', postParent: 0 },
    });
    expect(post.statusCode, post.body).toBe(200);
    const dave = await user('dave', 'ROLE_SYS_TOURIST');
    const held = await t.request({
      method: 'POST',
      url: '/api/admin/sysuserpost/add',
      headers: t.auth,
      payload: { userId: dave.id, postId: post.json().data.id, postType: 'main' },
    });
    expect(held.statusCode, held.body).toBe(200);
    const { reviewId } = await atReview();
    expect(ids(await call(t, dave.headers, 'GET', 'task/queryCandidateTask?pageSize=100'))).toContain(
      reviewId,
    );
    expect((await call(t, dave.headers, 'POST', `task/claimTask?id=${reviewId}`)).statusCode).toBe(200);
  });

  it('claim: 403 for a non-candidate, 409 once claimed, 404 for no such task; unclaim gives it back', async () => {
    const { reviewId } = await atReview();
    expect((await call(t, alice.headers, 'POST', `task/claimTask?id=${reviewId}`)).statusCode).toBe(403);
    const claimed = await call(t, bob.headers, 'POST', `task/claimTask?id=${reviewId}`);
    expect(claimed.statusCode).toBe(200);
    expect(claimed.json().data).toMatchObject({
      assignee: 'bob',
      status: 'assigned',
      claimTime: expect.any(String),
    });
    expect((await call(t, carol.headers, 'POST', `task/claimTask?id=${reviewId}`)).statusCode).toBe(409);
    expect((await call(t, bob.headers, 'POST', `task/claimTask?id=${reviewId}`)).statusCode).toBe(409);
    expect((await call(t, bob.headers, 'POST', 'task/claimTask?id=999999')).statusCode).toBe(404);
    expect(ids(await call(t, bob.headers, 'GET', 'task/queryPersonalTask'))).toContain(reviewId);
    expect(ids(await call(t, carol.headers, 'GET', 'task/queryCandidateTask'))).not.toContain(reviewId);
    expect((await call(t, carol.headers, 'POST', `task/unclaimTask?id=${reviewId}`)).statusCode).toBe(403);
    expect((await call(t, bob.headers, 'POST', `task/unclaimTask?id=${reviewId}`)).json().data).toMatchObject(
      { assignee: null, status: 'created' },
    );
    expect(ids(await call(t, carol.headers, 'GET', 'task/queryCandidateTask'))).toContain(reviewId);
  });
});

describe('completing', () => {
  it('only the assignee completes (403); a comment is required (400); a done task is 409', async () => {
    const { instanceId, reviewId } = await atReview();
    await call(t, bob.headers, 'POST', `task/claimTask?id=${reviewId}`);
    expect((await complete(t, carol.headers, reviewId)).statusCode).toBe(403);
    const noComment = await call(t, bob.headers, 'POST', 'task/completeTask', { id: reviewId });
    expect(noComment.statusCode).toBe(400);
    expect(noComment.json().errors[0].field).toBe('/comment');
    const done = await complete(t, bob.headers, reviewId, { verdict: 'good' });
    expect(done.statusCode).toBe(200);
    expect(done.json().data).toMatchObject({ status: 'completed', endTime: expect.any(String) });
    expect((await complete(t, bob.headers, reviewId)).statusCode).toBe(409);
    const [sign] = await openTasks(t, instanceId);
    expect(sign).toMatchObject({ activity_id: 'sign', assignee: 'alice' });
    expect(ids(await call(t, bob.headers, 'GET', 'task/queryFinishedTask'))).toContain(reviewId);
    expect(ids(await call(t, alice.headers, 'GET', 'task/queryPersonalTask'))).toContain(sign?.id);
    await complete(t, alice.headers, sign?.id ?? 0);
    expect((await instanceRow(t, instanceId)).status).toBe('over');
  });

  it('two completes of one task at once: one 200, one 409, the next task made once', async () => {
    const { instanceId, reviewId } = await atReview();
    await call(t, bob.headers, 'POST', `task/claimTask?id=${reviewId}`);
    const answers = await Promise.all([
      complete(t, bob.headers, reviewId),
      complete(t, bob.headers, reviewId),
    ]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
    expect((await openTasks(t, instanceId)).map((row) => row.activity_id)).toEqual(['sign']);
    expect(
      await t.sql("select 1 from wf_comment where task_id = $1 and action = 'complete'", [reviewId]),
    ).toHaveLength(1);
  });

  it('start and complete answer the new tasks the caller can act on (nextTasks), and only those', async () => {
    const started = await call(t, alice.headers, 'POST', 'processinstance/start', {
      processDefinitionKey: 'review_flow',
      description: 'next tasks',
    });
    expect(started.statusCode).toBe(200);
    const instanceId = started.json().data.id as number;
    const [apply] = await openTasks(t, instanceId);
    // alice is the initiator: the apply task is hers, and the answer names it.
    expect(started.json().data.nextTasks).toEqual([
      { id: apply?.id, name: '申请', taskDefinitionKey: 'apply', assignee: 'alice' },
    ]);
    // The review that follows waits for candidates alice is not one of: nothing for her.
    const applied = await complete(t, alice.headers, apply?.id ?? 0);
    expect(applied.json().data).toMatchObject({ id: apply?.id, status: 'completed', nextTasks: [] });
    const [review] = await openTasks(t, instanceId);
    expect(review).toMatchObject({ activity_id: 'review', assignee: null });
    await call(t, bob.headers, 'POST', `task/claimTask?id=${review?.id}`);
    // bob's completion makes alice's sign task: not bob's to act on.
    const reviewed = await complete(t, bob.headers, review?.id ?? 0);
    expect(reviewed.json().data.nextTasks).toEqual([]);
    const [sign] = await openTasks(t, instanceId);
    expect(sign).toMatchObject({ activity_id: 'sign', assignee: 'alice' });
    // The last task ends the instance: nothing comes next.
    const signed = await complete(t, alice.headers, sign?.id ?? 0);
    expect(signed.json().data).toMatchObject({ status: 'completed', nextTasks: [] });
    expect(await instanceRow(t, instanceId)).toMatchObject({ status: 'over' });
    // The answers are what the task list says.
    const personal = await call(
      t,
      alice.headers,
      'GET',
      `task/queryPersonalTask?processInstanceId=${instanceId}`,
    );
    expect(personal.json().data.records).toEqual([]);
  });

  it("validates the task form with the entity's validators", async () => {
    const instance = await start(t, alice.headers, 'review_flow');
    const [apply] = await openTasks(t, instance.id);
    const bad = await call(t, alice.headers, 'POST', 'task/completeTask', {
      id: apply?.id,
      comment: 'c',
      formData: { paramKey: 'k' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((error: { field: string }) => error.field)).toContain('/paramName');
    expect((await openTasks(t, instance.id))[0]?.activity_id).toBe('apply');
    const detail = await call(t, alice.headers, 'GET', `task/detail?id=${apply?.id}`);
    expect(detail.json().data.form).toMatchObject({ formKey: 'sysparam', schema: { type: 'object' } });
    expect(detail.json().data.form.schema.properties).toHaveProperty('paramName');
  });
});

describe('delegate, resolve, regress, reject, terminate', () => {
  it('delegates to another user, who resolves it back to the owner', async () => {
    const { reviewId } = await atReview();
    await call(t, bob.headers, 'POST', `task/claimTask?id=${reviewId}`);
    const nobody = await call(t, bob.headers, 'POST', 'task/delegateTask', {
      id: reviewId,
      username: 'nobody',
      comment: 'c',
    });
    expect(nobody.statusCode).toBe(400);
    expect(nobody.json().errors[0].field).toBe('/username');
    const delegated = await call(t, bob.headers, 'POST', 'task/delegateTask', {
      id: reviewId,
      username: 'carol',
      comment: '请协助',
    });
    expect(delegated.json().data).toMatchObject({
      assignee: 'carol',
      owner: 'bob',
      delegationState: 'pending',
      status: 'delegated',
    });
    expect((await complete(t, carol.headers, reviewId)).statusCode).toBe(409);
    expect(
      (await call(t, bob.headers, 'POST', 'task/resolveTask', { id: reviewId, comment: 'c' })).statusCode,
    ).toBe(403);
    const resolved = await call(t, carol.headers, 'POST', 'task/resolveTask', {
      id: reviewId,
      comment: '已处理',
      variables: { note: 'fine' },
    });
    expect(resolved.json().data).toMatchObject({
      assignee: 'bob',
      delegationState: 'resolved',
      status: 'assigned',
    });
    expect((await complete(t, bob.headers, reviewId)).statusCode).toBe(200);
  });

  it('regresses to an earlier completed task, given again to its last assignee', async () => {
    const { instanceId, reviewId } = await atReview();
    await call(t, bob.headers, 'POST', `task/claimTask?id=${reviewId}`);
    await complete(t, bob.headers, reviewId);
    const [sign] = await openTasks(t, instanceId);
    const nodes = await call(t, alice.headers, 'GET', `task/queryRegressNodes?id=${sign?.id}`);
    expect(nodes.json().data).toEqual([
      { activityId: 'review', name: '审核', assignee: 'bob' },
      { activityId: 'apply', name: '申请', assignee: 'alice' },
    ]);
    const wrong = await call(t, alice.headers, 'POST', 'task/regressTask', {
      id: sign?.id,
      activityId: 'sign',
      comment: 'c',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().errors[0].field).toBe('/activityId');
    const back = await call(t, alice.headers, 'POST', 'task/regressTask', {
      id: sign?.id,
      activityId: 'review',
      comment: '退回重审',
    });
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().data).toMatchObject({ status: 'regressed' });
    expect(await openTasks(t, instanceId)).toEqual([
      expect.objectContaining({ activity_id: 'review', assignee: 'bob', status: 'assigned' }),
    ]);
  });

  it('reject and terminate end the instance with their status; only the assignee may', async () => {
    for (const [action, status] of [
      ['rejectTask', 'rejected'],
      ['terminateTask', 'terminated'],
    ] as const) {
      const instance = await start(t, alice.headers, 'review_flow');
      const [apply] = await openTasks(t, instance.id);
      expect(
        (await call(t, bob.headers, 'POST', `task/${action}`, { id: apply?.id, comment: 'no' })).statusCode,
      ).toBe(403);
      const ended = await call(t, alice.headers, 'POST', `task/${action}`, {
        id: apply?.id,
        comment: '不同意',
      });
      expect(ended.json().data).toMatchObject({ status });
      expect(await instanceRow(t, instance.id)).toMatchObject({ status });
      const mine = await call(t, alice.headers, 'GET', `processinstance/queryMyProcess?status=${status}`);
      expect(ids(mine)).toContain(instance.id);
    }
  });
});

describe('reject back to the initiator (issue 40.13)', () => {
  it('驳回 after the initiator filled the request returns it to them to revise; their 驳回 then ends it', async () => {
    const instance = await start(t, alice.headers, 'review_flow');
    const [apply] = await openTasks(t, instance.id);
    expect((await complete(t, alice.headers, apply?.id ?? 0)).statusCode).toBe(200);
    const [review] = await openTasks(t, instance.id);
    expect((await call(t, bob.headers, 'POST', `task/claimTask?id=${review?.id}`)).statusCode).toBe(200);
    const rejected = await call(t, bob.headers, 'POST', 'task/rejectTask', {
      id: review?.id,
      comment: '金额不对',
    });
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(rejected.json().data).toMatchObject({ status: 'rejected' });
    // the instance runs on: the initiator's first task is theirs again
    expect(await instanceRow(t, instance.id)).toMatchObject({ status: 'running' });
    const [again] = await openTasks(t, instance.id);
    expect(again).toMatchObject({ activity_id: 'apply', assignee: 'alice', status: 'assigned' });
    // revised and sent on: the reviewers have it again
    expect((await complete(t, alice.headers, again?.id ?? 0)).statusCode).toBe(200);
    expect((await openTasks(t, instance.id)).map((task) => task.activity_id)).toEqual(['review']);
    // the initiator's own 驳回 (nothing of theirs before) ends the instance as rejected
    const other = await start(t, alice.headers, 'review_flow');
    const [own] = await openTasks(t, other.id);
    expect(
      (await call(t, alice.headers, 'POST', 'task/rejectTask', { id: own?.id, comment: '不办了' }))
        .statusCode,
    ).toBe(200);
    expect(await instanceRow(t, other.id)).toMatchObject({ status: 'rejected' });
  });
});

describe('multi-instance user tasks', () => {
  const loop = (key: string, attributes: string, completion = ''): string =>
    bpmn(
      key,
      `<startEvent id="s"/>${flow('f0', 's', 'vote')}
       <userTask id="vote" name="会签" camunda:assignee="\${voter}">
         <multiInstanceLoopCharacteristics ${attributes} camunda:collection="\${voters}" camunda:elementVariable="voter">${
           completion ? `<completionCondition>${completion}</completionCondition>` : ''
         }</multiInstanceLoopCharacteristics>
       </userTask>${flow('f1', 'vote', 'after')}<userTask id="after" camunda:assignee="alice"/>${flow('f2', 'after', 'e')}<endEvent id="e"/>`,
    );
  const voters = { voters: ['alice', 'bob', 'carol'] };
  const headersOf = (name: string) => ({ alice, bob, carol })[name as 'alice']?.headers ?? t.auth;

  it('countersign (会签): one task per voter at once; the process goes on when all are done', async () => {
    await deploy(t, loop('countersign', 'isSequential="false"'));
    const instance = await start(t, alice.headers, 'countersign', voters);
    const tasks = await openTasks(t, instance.id);
    expect(tasks.map((row) => row.assignee).sort()).toEqual(['alice', 'bob', 'carol']);
    for (const [index, task] of tasks.entries()) {
      expect((await complete(t, headersOf(task.assignee ?? ''), task.id)).statusCode).toBe(200);
      const open = await openTasks(t, instance.id);
      if (index < 2) expect(open.every((row) => row.activity_id === 'vote')).toBe(true);
      else expect(open.map((row) => row.activity_id)).toEqual(['after']);
    }
    const history = await t.sql(
      "select count(*)::int as n from wf_hist_activity where instance_id = $1 and activity_id = 'vote' and end_reason = 'completed'",
      [instance.id],
    );
    expect(history).toEqual([{ n: 3 }]);
  });

  it('any-one (或签): the first completion ends the loop and cancels the other tasks', async () => {
    await deploy(t, loop('anyone', 'isSequential="false"', '${nrOfCompletedInstances >= 1}'));
    const instance = await start(t, alice.headers, 'anyone', voters);
    const tasks = await openTasks(t, instance.id);
    const bobs = tasks.find((row) => row.assignee === 'bob');
    expect((await complete(t, bob.headers, bobs?.id ?? 0)).statusCode).toBe(200);
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['after']);
    const others = await t.sql<{ status: string; end_reason: string }>(
      "select status, end_reason from wf_task where instance_id = $1 and activity_id = 'vote' and id <> $2",
      [instance.id, bobs?.id],
    );
    expect(others).toEqual([
      { status: 'canceled', end_reason: 'completionCondition' },
      { status: 'canceled', end_reason: 'completionCondition' },
    ]);
    const carols = tasks.find((row) => row.assignee === 'carol');
    expect((await complete(t, carol.headers, carols?.id ?? 0)).statusCode).toBe(409);
  });

  it('sequential: one voter after the other, in the order of the collection', async () => {
    await deploy(t, loop('sequential', 'isSequential="true"'));
    const instance = await start(t, alice.headers, 'sequential', voters);
    for (const name of ['alice', 'bob', 'carol']) {
      const open = await openTasks(t, instance.id);
      expect(open.map((row) => row.assignee)).toEqual([name]);
      expect((await complete(t, headersOf(name), open[0]?.id ?? 0)).statusCode).toBe(200);
    }
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['after']);
  });

  it('a collection that is not a list is an incident, not an error', async () => {
    const instance = await start(t, alice.headers, 'countersign', { voters: 'alice' });
    expect(instance.incident).toMatchObject({
      activityId: 'vote',
      message: expect.stringContaining('not a list'),
    });
  });

  it('an unset collection named plainly (Flowable\'s collection="elements") is an incident naming its variable; a retry that gives it goes on (issue 36)', async () => {
    await deploy(t, loop('plainCollection', 'isSequential="false"').replace('"${voters}"', '"voters"'));
    const instance = await start(t, alice.headers, 'plainCollection');
    expect(instance.incident).toMatchObject({
      activityId: 'vote',
      variable: 'voters',
      message: 'the collection variable voters is not set',
    });
    const retried = await call(t, t.auth, 'POST', 'processinstance/retry', {
      id: instance.id,
      variables: { voters: ['alice'] },
    });
    expect(retried.statusCode, retried.body).toBe(200);
    expect((await openTasks(t, instance.id)).map((row) => row.assignee)).toEqual(['alice']);
  });
});

describe('who sees what', () => {
  it("a non-participant gets 403 on a task and an instance; the administrators' list is theirs only", async () => {
    const { instanceId, reviewId } = await atReview();
    expect((await call(t, outsider, 'GET', `task/detail?id=${reviewId}`)).statusCode).toBe(403);
    expect((await call(t, outsider, 'GET', `processinstance/detail?id=${instanceId}`)).statusCode).toBe(403);
    expect((await call(t, carol.headers, 'GET', `task/detail?id=${reviewId}`)).statusCode).toBe(200);
    expect((await call(t, alice.headers, 'GET', `processinstance/detail?id=${instanceId}`)).statusCode).toBe(
      200,
    );
    expect((await call(t, alice.headers, 'GET', 'task/query')).statusCode).toBe(403);
    expect((await call(t, alice.headers, 'GET', 'processinstance/query')).statusCode).toBe(403);
    expect(
      (await call(t, alice.headers, 'POST', `processinstance/suspend?id=${instanceId}`)).statusCode,
    ).toBe(403);
    expect(
      ids(await call(t, t.auth, 'GET', `task/query?processInstanceId=${instanceId}&finished=false`)),
    ).toEqual([reviewId]);
    expect(ids(await call(t, t.auth, 'GET', `task/query?processInstanceId=${instanceId}`))).toHaveLength(2);
  });

  it('another tenant sees none of it: 404 on the task, the instance and the definition', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/api/admin/systenant/add',
      headers: t.auth,
      payload: {
        tenantCode: 'wfother',
        tenantName: '其他',
        tenantEmail: 'a@wfother.example',
        tenantTel: '010-1',
      },
    });
    expect(created.statusCode, created.body).toBe(200);
    const admin = created.json().data.admin as { username: string; initialPassword: string };
    const signedIn = await t.signIn(admin.username, admin.initialPassword, 'wfother');
    const other = bearer(signedIn.json().access_token);
    const { instanceId, reviewId } = await atReview();
    expect((await call(t, other, 'GET', `task/detail?id=${reviewId}`)).statusCode).toBe(404);
    expect((await call(t, other, 'POST', `task/claimTask?id=${reviewId}`)).statusCode).toBe(404);
    expect((await call(t, other, 'GET', `processinstance/detail?id=${instanceId}`)).statusCode).toBe(404);
    expect(
      (await call(t, other, 'POST', 'processinstance/terminate', { id: instanceId, comment: 'x' }))
        .statusCode,
    ).toBe(404);
    expect(
      (
        await call(t, other, 'POST', 'processinstance/start', {
          processDefinitionKey: 'review_flow',
          description: 'x',
        })
      ).statusCode,
    ).toBe(404);
    expect((await call(t, other, 'GET', 'processdefinition/query')).json().data.total).toBe(0);
    expect((await call(t, other, 'GET', 'task/query')).json().data.total).toBe(0);
    // the same key deploys as version 1 in the other tenant
    const deployed = await call(t, other, 'POST', 'deployment/deployXml', { xml: REVIEW });
    expect(deployed.json().data).toMatchObject({ key: 'review_flow', version: 1 });
  });
});
