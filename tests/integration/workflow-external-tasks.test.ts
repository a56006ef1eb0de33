import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUDGETS } from '../../src/server/lib/budgets.js';
import { setWorkflowClock } from '../../src/server/features/workflow/services/clock.js';
import { runDueCalls } from '../../src/server/features/workflow/services/jobs.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { outboxEnv, readJsonLines } from '../support/identity.js';
import { createUserWithRole } from '../support/users.js';
import { bearer, bpmn, call, deploy, flow, instanceRow, openTasks, start } from '../support/workflow.js';

/**
 * Issue 36's external tasks over the HTTP API (Camunda's external-task pattern): a service task of
 * camunda:type="external" waits for a worker, which fetches and locks it by topic, completes it
 * with variables (the process goes on), reports failures with retries (0 left: an incident an
 * administrator retries), extends its lock or gives it back. Java code and scripts stay refused,
 * each refusal naming the element and offering the external task. The HTTP connector calls a
 * local server started here (127.0.0.1 let through by WEBHOOK_ALLOWED_ADDRESSES as for webhooks;
 * other private addresses refused). Run on PGlite and (TEST_DATABASE_URL) on PostgreSQL.
 */
let t: TestApp;
const outbox = outboxEnv();
let plain: { authorization: string };
let server: Server;
let base = '';
/** Answers of /hold the local server keeps back until the test sends them. */
const held: (() => void)[] = [];
/** What the local server received, last first. */
const received: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOWED_ADDRESSES: '127.0.0.1', ...outbox.env } });
  plain = bearer((await createUserWithRole(t, 'extplain', 'ROLE_SYS_BUYER')).token);
  server = createServer((request, answer) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.unshift({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
      });
      if (request.url === '/hold') {
        // answered only when the test lets it (release)
        held.push(() => answer.writeHead(201, { 'content-type': 'text/plain' }).end('held'));
        return;
      }
      if (request.url === '/fail') {
        answer.writeHead(500, { 'content-type': 'text/plain' }).end('inventory down');
        return;
      }
      answer
        .writeHead(201, { 'content-type': 'application/json', 'x-order': 'A-7' })
        .end(JSON.stringify({ ok: true, got: body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 300_000);
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});
afterEach(() => {
  setWorkflowClock(t.app.ctx, undefined);
});

interface Locked {
  id: number;
  topicName: string;
  workerId: string | null;
  lockExpirationTime: string | null;
  processInstanceId: number;
  activityId: string;
  retries: number | null;
  errorMessage: string | null;
  variables: Record<string, unknown>;
}

/** Makes the due connector and mail calls, as a server process's poller does after a start: how many. */
const runCalls = (): Promise<number> => runDueCalls(t.app.ctx);

const post = (path: string, payload: unknown) => call(t, t.auth, 'POST', `externalTask/${path}`, payload);

async function fetchTasks(workerId: string, topicName: string, maxTasks = 10): Promise<Locked[]> {
  const response = await post('fetchAndLock', {
    workerId,
    maxTasks,
    topics: [{ topicName, lockDuration: 60_000 }],
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { data: Locked[] }).data;
}

/** start → external "charge" (topic payments) → exclusive gateway on ${paid} → user task "ship" | end. */
const PAYMENT = bpmn(
  'extPayment',
  `<startEvent id="s"/>${flow('f1', 's', 'charge')}
  <serviceTask id="charge" name="Charge" camunda:type="external" camunda:topic="payments"/>
  ${flow('f2', 'charge', 'gw')}<exclusiveGateway id="gw" default="f4"/>
  ${flow('f3', 'gw', 'ship', '${paid == true}')}${flow('f4', 'gw', 'e')}
  <userTask id="ship" name="Ship" camunda:assignee="admin"/>${flow('f5', 'ship', 'e')}<endEvent id="e"/>`,
);

/**
 * start → external "check" (topic refunds) → end; its error boundary event (code REJECTED) leads to
 * the user task "review". Its camunda:errorEventDefinition throws REJECTED when the worker
 * completes it with an approvedAmount over 100.
 */
const REFUND = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="test">
  <error id="rejected" errorCode="REJECTED"/>
  <process id="extRefund" name="extRefund" isExecutable="true">
    <startEvent id="s"/>${flow('f1', 's', 'check')}
    <serviceTask id="check" name="Check refund" camunda:type="external" camunda:topic="refunds">
      <extensionElements>
        <camunda:errorEventDefinition id="tooLarge" errorRef="rejected" expression="\${approvedAmount > 100}"/>
      </extensionElements>
    </serviceTask>
    ${flow('f2', 'check', 'e')}<endEvent id="e"/>
    <boundaryEvent id="onRejected" attachedToRef="check"><errorEventDefinition errorRef="rejected"/></boundaryEvent>
    ${flow('f3', 'onRejected', 'review')}<userTask id="review" camunda:assignee="admin"/>${flow('f4', 'review', 'e2')}
    <endEvent id="e2"/>
  </process>
</definitions>`;

describe('external tasks', () => {
  it('waits for a worker, which fetches, locks and completes the task with variables', async () => {
    await deploy(t, PAYMENT);
    const instance = await start(t, t.auth, 'extPayment', { amount: 42 });
    expect(instance.ended).toBe(false);
    expect(await openTasks(t, instance.id)).toEqual([]);
    const [task, ...more] = await fetchTasks('worker-1', 'payments');
    expect(more).toEqual([]);
    expect(task).toMatchObject({
      topicName: 'payments',
      workerId: 'worker-1',
      processInstanceId: instance.id,
      activityId: 'charge',
      retries: null,
      variables: { amount: 42 },
    });
    // Locked: another worker gets nothing, and may not complete it.
    expect(await fetchTasks('worker-2', 'payments')).toEqual([]);
    const stolen = await post('complete', { id: task?.id, workerId: 'worker-2' });
    expect(stolen.statusCode).toBe(409);
    expect(stolen.body).toContain('worker-2');
    const done = await post('complete', { id: task?.id, workerId: 'worker-1', variables: { paid: true } });
    expect(done.statusCode, done.body).toBe(200);
    const [ship] = await openTasks(t, instance.id);
    expect(ship?.activity_id).toBe('ship');
    const [paid] = await t.sql<{ value: unknown }>(
      "select value from wf_variable where instance_id = $1 and name = 'paid'",
      [instance.id],
    );
    expect(paid?.value).toBe(true);
    // Done: it is gone.
    expect((await post('complete', { id: task?.id, workerId: 'worker-1' })).statusCode).toBe(404);
  });

  it('offers a task again when its lock expires or it is unlocked; extendLock keeps it', async () => {
    const instance = await start(t, t.auth, 'extPayment');
    const [task] = (await fetchTasks('worker-1', 'payments')).filter(
      (row) => row.processInstanceId === instance.id,
    );
    expect(task).toBeDefined();
    const extended = await post('extendLock', { id: task?.id, workerId: 'worker-1', newDuration: 600_000 });
    expect(extended.statusCode, extended.body).toBe(200);
    // 5 minutes on: the first lock (60 s) would have expired, the extended one (10 min) holds.
    setWorkflowClock(t.app.ctx, () => new Date(Date.now() + 5 * 60_000));
    expect((await fetchTasks('worker-2', 'payments')).map((row) => row.id)).not.toContain(task?.id);
    // 11 minutes on: it is offered again, and the old holder may no longer complete it.
    setWorkflowClock(t.app.ctx, () => new Date(Date.now() + 11 * 60_000));
    const again = await fetchTasks('worker-2', 'payments');
    expect(again.map((row) => row.id)).toContain(task?.id);
    expect((await post('complete', { id: task?.id, workerId: 'worker-1' })).statusCode).toBe(409);
    const unlocked = await post('unlock', { id: task?.id });
    expect(unlocked.statusCode, unlocked.body).toBe(200);
    expect((await fetchTasks('worker-3', 'payments')).map((row) => row.id)).toContain(task?.id);
    const done = await post('complete', { id: task?.id, workerId: 'worker-3', variables: { paid: false } });
    expect(done.statusCode, done.body).toBe(200);
    // Not paid: the default flow ends the instance.
    expect((await instanceRow(t, instance.id)).end_time).not.toBeNull();
  });

  it('keeps a failure with retries, and stops in an incident when none are left; a retry offers it anew', async () => {
    const instance = await start(t, t.auth, 'extPayment');
    const mine = async (worker: string) =>
      (await fetchTasks(worker, 'payments')).find((row) => row.processInstanceId === instance.id);
    const first = await mine('worker-1');
    const failed = await post('failure', {
      id: first?.id,
      workerId: 'worker-1',
      errorMessage: 'card declined',
      retries: 1,
      retryTimeout: 30_000,
    });
    expect(failed.statusCode, failed.body).toBe(200);
    expect(failed.json().data).toMatchObject({ retries: 1, errorMessage: 'card declined', workerId: null });
    // Not before the retry timeout.
    expect(await mine('worker-1')).toBeUndefined();
    setWorkflowClock(t.app.ctx, () => new Date(Date.now() + 60_000));
    const second = await mine('worker-1');
    expect(second).toMatchObject({ id: first?.id, retries: 1, errorMessage: 'card declined' });
    const last = await post('failure', {
      id: second?.id,
      workerId: 'worker-1',
      errorMessage: 'card declined again',
      retries: 0,
    });
    expect(last.statusCode, last.body).toBe(200);
    const row = await instanceRow(t, instance.id);
    expect(row.incident).toMatchObject({ activityId: 'charge', message: 'card declined again' });
    expect(await mine('worker-1')).toBeUndefined();
    // The administrator retries the incident: the task is offered again with its retries anew.
    const retried = await call(t, t.auth, 'POST', 'processinstance/retry', { id: instance.id });
    expect(retried.statusCode, retried.body).toBe(200);
    const anew = await mine('worker-1');
    expect(anew).toMatchObject({ activityId: 'charge', retries: null });
    const done = await post('complete', { id: anew?.id, workerId: 'worker-1', variables: { paid: false } });
    expect(done.statusCode, done.body).toBe(200);
    expect((await instanceRow(t, instance.id)).end_time).not.toBeNull();
  });

  it("throws a worker's BPMN error at the task: its error boundary event catches it; an uncaught one is an incident", async () => {
    await deploy(t, REFUND);
    const caught = await start(t, t.auth, 'extRefund', { amount: 5 });
    const [task] = (await fetchTasks('worker-1', 'refunds')).filter(
      (row) => row.processInstanceId === caught.id,
    );
    const missing = await post('bpmnError', { id: task?.id, workerId: 'worker-1' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors).toEqual([expect.objectContaining({ field: '/errorCode' })]);
    const stolen = await post('bpmnError', { id: task?.id, workerId: 'worker-2', errorCode: 'REJECTED' });
    expect(stolen.statusCode).toBe(409);
    const thrown = await post('bpmnError', {
      id: task?.id,
      workerId: 'worker-1',
      errorCode: 'REJECTED',
      errorMessage: 'card reported stolen',
      variables: { reason: 'fraud' },
    });
    expect(thrown.statusCode, thrown.body).toBe(200);
    expect((await openTasks(t, caught.id)).map((open) => open.activity_id)).toEqual(['review']);
    expect(await variablesOf(caught.id)).toMatchObject({ amount: 5, reason: 'fraud' });
    const listed = await call(t, t.auth, 'GET', `externalTask/query?processInstanceId=${caught.id}`);
    expect(listed.json().data.total).toBe(0);
    const [history] = await t.sql<{ end_reason: string }>(
      "select end_reason from wf_hist_activity where instance_id = $1 and activity_id = 'check'",
      [caught.id],
    );
    expect(history?.end_reason).toBe('boundaryError');

    // A code no boundary event catches: the token stops in an incident naming it; nothing goes on.
    const uncaught = await start(t, t.auth, 'extRefund', { amount: 5 });
    const [other] = (await fetchTasks('worker-1', 'refunds')).filter(
      (row) => row.processInstanceId === uncaught.id,
    );
    const unknown = await post('bpmnError', { id: other?.id, workerId: 'worker-1', errorCode: 'TIMEOUT' });
    expect(unknown.statusCode, unknown.body).toBe(200);
    const row = await instanceRow(t, uncaught.id);
    expect(row.end_time).toBeNull();
    expect(row.incident).toMatchObject({ activityId: 'check', message: expect.stringContaining('TIMEOUT') });
    expect(await openTasks(t, uncaught.id)).toEqual([]);
    expect(await fetchTasks('worker-1', 'refunds')).toEqual([]);
  });

  it('throws the error of a camunda:errorEventDefinition whose expression holds when the task is completed', async () => {
    await deploy(t, REFUND);
    const large = await start(t, t.auth, 'extRefund', { amount: 500 });
    const small = await start(t, t.auth, 'extRefund', { amount: 5 });
    const locked = await fetchTasks('worker-1', 'refunds');
    const taskOf = (id: number) => locked.find((row) => row.processInstanceId === id)?.id;
    // The rule reads the variables the worker completes with: a refund over 100 is rejected.
    for (const [instance, variables] of [
      [large, { approvedAmount: 500 }],
      [small, { approvedAmount: 5 }],
    ] as const) {
      const done = await post('complete', { id: taskOf(instance.id), workerId: 'worker-1', variables });
      expect(done.statusCode, done.body).toBe(200);
    }
    expect((await openTasks(t, large.id)).map((open) => open.activity_id)).toEqual(['review']);
    expect((await instanceRow(t, small.id)).end_time).not.toBeNull();
    // A rule that cannot be evaluated refuses the completion, naming the task; nothing changes.
    const unset = await start(t, t.auth, 'extRefund', { amount: 5 });
    const [task] = (await fetchTasks('worker-1', 'refunds')).filter(
      (row) => row.processInstanceId === unset.id,
    );
    const refused = await post('complete', { id: task?.id, workerId: 'worker-1', variables: { other: 1 } });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('Check refund');
    expect(await variablesOf(unset.id)).not.toHaveProperty('other');
    expect((await instanceRow(t, unset.id)).end_time).toBeNull();
  });

  it("reads an error rule's code as the boundary event does: the error's id when it has no errorCode", async () => {
    const byId = REFUND.replace('extRefund', 'extRefundById').replace(
      '<error id="rejected" errorCode="REJECTED"/>',
      '<error id="rejected"/>',
    );
    await deploy(t, byId);
    const instance = await start(t, t.auth, 'extRefundById', { amount: 500 });
    const [task] = (await fetchTasks('worker-1', 'refunds')).filter(
      (row) => row.processInstanceId === instance.id,
    );
    const done = await post('complete', {
      id: task?.id,
      workerId: 'worker-1',
      variables: { approvedAmount: 500 },
    });
    expect(done.statusCode, done.body).toBe(200);
    expect((await openTasks(t, instance.id)).map((open) => open.activity_id)).toEqual(['review']);
  });

  it('refuses a camunda:errorEventDefinition without an expression, naming the task', async () => {
    const response = await call(t, t.auth, 'POST', 'deployment/deployXml', {
      xml: REFUND.replace(' expression="${approvedAmount > 100}"', ''),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([expect.objectContaining({ field: 'check' })]);
  });

  it('refuses Java service tasks and script tasks, naming each element and offering the external task (en, zh, tw)', async () => {
    const xml = bpmn(
      'extJava',
      `<startEvent id="s"/>${flow('f1', 's', 'java')}
      <serviceTask id="java" name="Charge card" camunda:class="org.example.ChargeCard"/>${flow('f2', 'java', 'delegate')}
      <serviceTask id="delegate" camunda:delegateExpression="\${charger}"/>${flow('f3', 'delegate', 'expr')}
      <serviceTask id="expr" camunda:expression="\${bean.charge(execution)}"/>${flow('f4', 'expr', 'calc')}
      <scriptTask id="calc" name="Compute" scriptFormat="groovy"><script>x = 1</script></scriptTask>${flow('f5', 'calc', 'e')}
      <endEvent id="e"/>`,
    );
    const expected: Record<string, string[]> = {
      en: ['is refused', 'Model it as an external task'],
      zh: ['被拒绝', '外部任务'],
      tw: ['被拒絕', '外部任務'],
    };
    for (const [language, words] of Object.entries(expected)) {
      const response = await t.request({
        method: 'POST',
        url: '/api/activiti/deployment/deployXml',
        headers: { ...t.auth, 'accept-language': language },
        payload: { xml },
      });
      expect(response.statusCode, response.body).toBe(400);
      const errors = response.json().errors as { field: string; message: string }[];
      expect(errors.map((error) => error.field)).toEqual(['java', 'delegate', 'expr', 'calc']);
      for (const error of errors) {
        for (const word of words) expect(error.message).toContain(word);
        expect(error.message).toContain('camunda:type="external"');
        expect(error.message).toContain('/api/activiti/externalTask');
        expect(error.message).toContain('http-connector');
      }
      expect(errors[0]?.message).toContain('java (Charge card)');
      expect(errors[0]?.message).toContain('org.example.ChargeCard');
      expect(errors[1]?.message).toContain('${charger}');
      expect(errors[2]?.message).toContain('${bean.charge(execution)}');
      expect(errors[3]?.message).toContain('calc (Compute)');
      expect(errors[3]?.message).toContain('groovy');
    }
    expect(await t.sql("select 1 from wf_definition where process_key = 'extJava'")).toEqual([]);
    // The alternative the refusal names deploys and runs: an external task a worker completes.
    const external = bpmn(
      'extJava',
      `<startEvent id="s"/>${flow('f1', 's', 'java')}
      <serviceTask id="java" name="Charge card" camunda:type="external" camunda:topic="charge-card"/>${flow('f2', 'java', 'e')}<endEvent id="e"/>`,
    );
    const deployed = await deploy(t, external);
    expect(deployed.warnings).toEqual([]);
    const instance = await start(t, t.auth, 'extJava');
    const [task] = await fetchTasks('java-worker', 'charge-card');
    expect(task).toMatchObject({ processInstanceId: instance.id, activityId: 'java' });
    expect((await post('complete', { id: task?.id, workerId: 'java-worker' })).statusCode).toBe(200);
    expect((await instanceRow(t, instance.id)).end_time).not.toBeNull();
  });

  it('deploys Java code and scripts as external tasks with codeAsExternalTasks: one topic per code, each named in a warning', async () => {
    const xml = bpmn(
      'extCode',
      `<startEvent id="s"/>${flow('f1', 's', 'java')}
      <serviceTask id="java" name="Charge card" camunda:class="org.example.ChargeCard"/>${flow('f2', 'java', 'delegate')}
      <serviceTask id="delegate" camunda:delegateExpression="\${charger}"/>${flow('f3', 'delegate', 'calc')}
      <scriptTask id="calc" name="Compute" scriptFormat="groovy"><script>x = 1</script></scriptTask>${flow('f4', 'calc', 'gw')}
      <exclusiveGateway id="gw" default="f6"/>${flow('f5', 'gw', 'review', '${x == 1}')}${flow('f6', 'gw', 'e')}
      <userTask id="review" camunda:assignee="admin"/>${flow('f7', 'review', 'e')}<endEvent id="e"/>`,
    );
    // Refused as it is; the refusal names the option.
    const refused = await call(t, t.auth, 'POST', 'deployment/deployXml', { xml });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('codeAsExternalTasks');
    const deployed = await call(t, t.auth, 'POST', 'deployment/deployXml', {
      xml,
      codeAsExternalTasks: true,
    });
    expect(deployed.statusCode, deployed.body).toBe(200);
    const warnings = deployed.json().data.warnings as { field: string; message: string }[];
    expect(warnings.map((warning) => warning.field)).toEqual(['java', 'delegate', 'calc']);
    expect(warnings[0]?.message).toContain('org.example.ChargeCard');
    expect(warnings[1]?.message).toContain('${charger}');
    expect(warnings[2]?.message).toContain('script:groovy');
    const instance = await start(t, t.auth, 'extCode');
    // Each element waits for a worker of its topic, in the order of the process; nothing runs here.
    for (const [topic, activityId, variables] of [
      ['org.example.ChargeCard', 'java', {}],
      ['${charger}', 'delegate', {}],
      ['script:groovy', 'calc', { x: 1 }],
    ] as const) {
      expect(await fetchTasks('other', 'payments')).toEqual([]);
      const [task] = await fetchTasks('code-worker', topic);
      expect(task, topic).toMatchObject({ processInstanceId: instance.id, activityId });
      const completed = await post('complete', { id: task?.id, workerId: 'code-worker', variables });
      expect(completed.statusCode, completed.body).toBe(200);
    }
    // The script's worker set x, so the gateway leads to the review.
    expect((await openTasks(t, instance.id)).map((open) => open.activity_id)).toEqual(['review']);
    // A multi-instance one is a multi-instance external task: a task per item for the workers.
    const looped = xml
      .replace('id="extCode"', 'id="extCodeLooped"')
      .replace(
        'scriptFormat="groovy">',
        'scriptFormat="groovy"><multiInstanceLoopCharacteristics><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics>',
      );
    const multi = await call(t, t.auth, 'POST', 'deployment/deployXml', {
      xml: looped,
      codeAsExternalTasks: true,
    });
    expect(multi.statusCode, multi.body).toBe(200);
    const loopedInstance = await start(t, t.auth, 'extCodeLooped');
    for (const topic of ['org.example.ChargeCard', '${charger}']) {
      const [task] = await fetchTasks('code-worker', topic);
      expect((await post('complete', { id: task?.id, workerId: 'code-worker' })).statusCode).toBe(200);
    }
    const scripts = await fetchTasks('code-worker', 'script:groovy');
    expect(scripts.map((task) => [task.processInstanceId, task.variables.loopCounter])).toEqual([
      [loopedInstance.id, 0],
      [loopedInstance.id, 1],
    ]);
    // Without the option it is refused as a script, looped or not.
    const loopedRefused = await call(t, t.auth, 'POST', 'deployment/deployXml', { xml: looped });
    expect(loopedRefused.statusCode).toBe(400);
    expect((loopedRefused.json().errors as { field: string }[]).map((error) => error.field)).toContain(
      'calc',
    );
    // Code too long to name a topic a worker can fetch by, and a message throw calling code: still
    // refused with the option, and neither refusal offers it.
    const refusedAnyway = await call(t, t.auth, 'POST', 'deployment/deployXml', {
      xml: bpmn(
        'extCodeRefused',
        `<startEvent id="s"/>${flow('f1', 's', 'long')}
        <serviceTask id="long" camunda:expression="\${${'x'.repeat(250)}}"/>${flow('f2', 'long', 'send')}
        <intermediateThrowEvent id="send"><messageEventDefinition camunda:class="org.example.Send"/></intermediateThrowEvent>
        ${flow('f3', 'send', 'e')}<endEvent id="e"/>`,
      ),
      codeAsExternalTasks: true,
    });
    expect(refusedAnyway.statusCode).toBe(400);
    const errors = refusedAnyway.json().errors as { field: string; message: string }[];
    expect(errors.map((error) => error.field)).toEqual(['long', 'send']);
    expect(errors[0]?.message).toContain('200');
    expect(errors[1]?.message).toContain('org.example.Send');
    for (const error of errors) expect(error.message).not.toContain('codeAsExternalTasks');
  });

  it('refuses an external task without a topic, naming the element', async () => {
    const xml = bpmn(
      'extNoTopic',
      `<startEvent id="s"/>${flow('f1', 's', 'x')}<serviceTask id="x" camunda:type="external"/>${flow('f2', 'x', 'e')}<endEvent id="e"/>`,
    );
    const response = await call(t, t.auth, 'POST', 'deployment/deployXml', { xml });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([expect.objectContaining({ field: 'x' })]);
  });

  it('answers bad input with 400 naming the field, and callers without the grant with 403', async () => {
    const missing = await post('fetchAndLock', {
      maxTasks: 1,
      topics: [{ topicName: 'a', lockDuration: 1 }],
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('workerId');
    const tooMany = await post('fetchAndLock', {
      workerId: 'w',
      maxTasks: 1000,
      topics: [{ topicName: 'a', lockDuration: 1000 }],
    });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.body).toContain('maxTasks');
    const longLock = await post('fetchAndLock', {
      workerId: 'w',
      maxTasks: 1,
      topics: [{ topicName: 'a', lockDuration: 10 * 3_600_000 }],
    });
    expect(longLock.statusCode).toBe(400);
    expect(longLock.body).toContain('lockDuration');
    const badRetries = await post('failure', { id: 1, workerId: 'w', errorMessage: 'x', retries: -1 });
    expect(badRetries.statusCode).toBe(400);
    expect(badRetries.body).toContain('retries');
    expect((await post('unlock', { id: 999_999_999 })).statusCode).toBe(404);
    const forbidden = await call(t, plain, 'POST', 'externalTask/fetchAndLock', {
      workerId: 'w',
      maxTasks: 1,
      topics: [{ topicName: 'payments', lockDuration: 1000 }],
    });
    expect(forbidden.statusCode).toBe(403);
    expect((await call(t, plain, 'GET', 'externalTask/query')).statusCode).toBe(403);
  });
});

describe('multi-instance external tasks (issue 36)', () => {
  it('offers a task per item, each with its item, and goes on when every one is done', async () => {
    await deploy(
      t,
      bpmn(
        'extLoop',
        `<startEvent id="s"/>${flow('f1', 's', 'ship')}
        <serviceTask id="ship" name="Ship order" camunda:type="external" camunda:topic="shipping">
          <multiInstanceLoopCharacteristics isSequential="false" camunda:collection="\${orders}" camunda:elementVariable="order"/>
        </serviceTask>${flow('f2', 'ship', 'check')}<userTask id="check" camunda:assignee="admin"/>${flow('f3', 'check', 'e')}<endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'extLoop', { orders: ['A-1', 'A-2', 'A-3'] });
    const tasks = await fetchTasks('shipper', 'shipping');
    expect(tasks.map((task) => [task.activityId, task.variables.order, task.variables.loopCounter])).toEqual([
      ['ship', 'A-1', 0],
      ['ship', 'A-2', 1],
      ['ship', 'A-3', 2],
    ]);
    for (const task of tasks.slice(0, 2)) {
      expect((await post('complete', { id: task.id, workerId: 'shipper' })).statusCode).toBe(200);
      // The loop waits for the last item.
      expect(await openTasks(t, instance.id)).toEqual([]);
    }
    expect((await post('complete', { id: tasks[2]?.id, workerId: 'shipper' })).statusCode).toBe(200);
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['check']);
    const rows = await t.sql<{ ended: boolean }>(
      "select end_time is not null as ended from wf_hist_activity where instance_id = $1 and activity_id = 'ship'",
      [instance.id],
    );
    expect(rows).toEqual([{ ended: true }, { ended: true }, { ended: true }]);
  });

  it('offers one item after another when sequential, until its completion condition holds', async () => {
    await deploy(
      t,
      bpmn(
        'extLoopSeq',
        `<startEvent id="s"/>${flow('f1', 's', 'quote')}
        <serviceTask id="quote" camunda:type="external" camunda:topic="quotes">
          <multiInstanceLoopCharacteristics isSequential="true" camunda:collection="\${suppliers}" camunda:elementVariable="supplier">
            <completionCondition>\${nrOfCompletedInstances >= 2}</completionCondition>
          </multiInstanceLoopCharacteristics>
        </serviceTask>${flow('f2', 'quote', 'check')}<userTask id="check" camunda:assignee="admin"/>${flow('f3', 'check', 'e')}<endEvent id="e"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'extLoopSeq', { suppliers: ['north', 'south', 'east'] });
    for (const supplier of ['north', 'south']) {
      const offered = await fetchTasks('quoter', 'quotes');
      expect(offered.map((task) => task.variables.supplier)).toEqual([supplier]);
      expect((await post('complete', { id: offered[0]?.id, workerId: 'quoter' })).statusCode).toBe(200);
    }
    // Two quotes were enough: the third supplier is never asked.
    expect(await fetchTasks('quoter', 'quotes')).toEqual([]);
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['check']);
  });

  /** A loop over ${orders} at "ship" (topic shipping), then "check"; `extra` inside the loop's element, `after` beside it. */
  const shippingLoop = (key: string, loop: string, after = ''): string =>
    bpmn(
      key,
      `<startEvent id="s"/>${flow('f1', 's', 'ship')}
      <serviceTask id="ship" camunda:type="external" camunda:topic="shipping">${loop}</serviceTask>
      ${flow('f2', 'ship', 'check')}<userTask id="check" camunda:assignee="admin"/>${flow('f3', 'check', 'e')}<endEvent id="e"/>${after}`,
    );
  const offersOf = async (instanceId: number): Promise<number> =>
    (
      await t.sql<{ count: number }>(
        'select count(*)::int as count from wf_external_task where instance_id = $1',
        [instanceId],
      )
    )[0]?.count ?? -1;
  const openShipRows = async (instanceId: number): Promise<number> =>
    (
      await t.sql<{ count: number }>(
        "select count(*)::int as count from wf_hist_activity where instance_id = $1 and activity_id = 'ship' and end_time is null",
        [instanceId],
      )
    )[0]?.count ?? -1;

  it('withdraws the other items when its completion condition holds: no offer or open history row left', async () => {
    await deploy(
      t,
      shippingLoop(
        'extLoopAny',
        `<multiInstanceLoopCharacteristics isSequential="false" camunda:collection="\${orders}" camunda:elementVariable="order">
           <completionCondition>\${nrOfCompletedInstances >= 1}</completionCondition></multiInstanceLoopCharacteristics>`,
      ),
    );
    const instance = await start(t, t.auth, 'extLoopAny', { orders: ['B-1', 'B-2', 'B-3'] });
    const tasks = (await fetchTasks('shipper', 'shipping')).filter(
      (task) => task.processInstanceId === instance.id,
    );
    expect(tasks).toHaveLength(3);
    expect((await post('complete', { id: tasks[0]?.id, workerId: 'shipper' })).statusCode).toBe(200);
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['check']);
    expect(await offersOf(instance.id)).toBe(0);
    expect(await openShipRows(instance.id)).toBe(0);
    // The others' workers find their tasks gone.
    expect((await post('complete', { id: tasks[1]?.id, workerId: 'shipper' })).statusCode).toBe(404);
  });

  it("a worker's error on one item fires the error boundary of the loop, which ends every item", async () => {
    await deploy(
      t,
      shippingLoop(
        'extLoopError',
        `<multiInstanceLoopCharacteristics isSequential="false" camunda:collection="\${orders}" camunda:elementVariable="order"/>`,
        `<boundaryEvent id="failed" attachedToRef="ship"><errorEventDefinition/></boundaryEvent>
         ${flow('f4', 'failed', 'fix')}<userTask id="fix" camunda:assignee="admin"/>${flow('f5', 'fix', 'e2')}<endEvent id="e2"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'extLoopError', { orders: ['C-1', 'C-2', 'C-3'] });
    const tasks = (await fetchTasks('shipper', 'shipping')).filter(
      (task) => task.processInstanceId === instance.id,
    );
    const thrown = await post('bpmnError', { id: tasks[1]?.id, workerId: 'shipper', errorCode: 'NO_STOCK' });
    expect(thrown.statusCode, thrown.body).toBe(200);
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['fix']);
    expect(await offersOf(instance.id)).toBe(0);
    expect(await openShipRows(instance.id)).toBe(0);
    const tokens = await t.sql<{ activity_id: string }>(
      'select activity_id from wf_execution where instance_id = $1 order by id',
      [instance.id],
    );
    expect(tokens.map((row) => row.activity_id)).toEqual(['fix']);
  });

  it('a retried incident of one item offers that item again, not a loop inside the loop', async () => {
    await deploy(
      t,
      shippingLoop(
        'extLoopRetry',
        `<multiInstanceLoopCharacteristics isSequential="true" camunda:collection="\${orders}" camunda:elementVariable="order"/>`,
      ),
    );
    const instance = await start(t, t.auth, 'extLoopRetry', { orders: ['D-1', 'D-2'] });
    const [first] = (await fetchTasks('shipper', 'shipping')).filter(
      (task) => task.processInstanceId === instance.id,
    );
    expect(first?.variables.order).toBe('D-1');
    const failed = await post('failure', {
      id: first?.id,
      workerId: 'shipper',
      errorMessage: 'truck broke',
      retries: 0,
    });
    expect(failed.statusCode, failed.body).toBe(200);
    expect((await instanceRow(t, instance.id)).incident).toMatchObject({ activityId: 'ship' });
    const retried = await call(t, t.auth, 'POST', 'processinstance/retry', { id: instance.id });
    expect(retried.statusCode, retried.body).toBe(200);
    for (const order of ['D-1', 'D-2']) {
      const offered = (await fetchTasks('shipper', 'shipping')).filter(
        (task) => task.processInstanceId === instance.id,
      );
      expect(offered.map((task) => task.variables.order)).toEqual([order]);
      expect((await post('complete', { id: offered[0]?.id, workerId: 'shipper' })).statusCode).toBe(200);
    }
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['check']);
    expect(await offersOf(instance.id)).toBe(0);
  });
});

/** start → HTTP connector "reserve" → user task "check" → end. */
function connectorProcess(key: string, url: string, outputs: string): string {
  return bpmn(
    key,
    `<startEvent id="s"/>${flow('f1', 's', 'reserve')}
    <serviceTask id="reserve" name="Reserve stock">
      <extensionElements><camunda:connector>
        <camunda:connectorId>http-connector</camunda:connectorId>
        <camunda:inputOutput>
          <camunda:inputParameter name="url">${url}</camunda:inputParameter>
          <camunda:inputParameter name="method">POST</camunda:inputParameter>
          <camunda:inputParameter name="headers"><camunda:map>
            <camunda:entry key="content-type">application/json</camunda:entry>
            <camunda:entry key="x-order">\${orderNo}</camunda:entry>
          </camunda:map></camunda:inputParameter>
          <camunda:inputParameter name="payload">{"qty": \${qty}}</camunda:inputParameter>
          ${outputs}
        </camunda:inputOutput>
      </camunda:connector></extensionElements>
    </serviceTask>
    ${flow('f2', 'reserve', 'check')}<userTask id="check" camunda:assignee="admin"/>${flow('f3', 'check', 'e')}<endEvent id="e"/>`,
  );
}

const variablesOf = async (instanceId: number): Promise<Record<string, unknown>> =>
  Object.fromEntries(
    (
      await t.sql<{ name: string; value: unknown }>(
        'select name, value from wf_variable where instance_id = $1',
        [instanceId],
      )
    ).map((row) => [row.name, row.value]),
  );

describe('the HTTP connector', () => {
  it('calls the URL with the method, headers and payload, and maps the answer to variables', async () => {
    await deploy(
      t,
      connectorProcess(
        'extHttp',
        `${base}/reserve`,
        `<camunda:outputParameter name="reserveStatus">\${statusCode}</camunda:outputParameter>
         <camunda:outputParameter name="reserveAnswer">\${response}</camunda:outputParameter>`,
      ),
    );
    const before = received.length;
    const instance = await start(t, t.auth, 'extHttp', { orderNo: 'A-7', qty: 3 });
    // The start answers before the call: the token waits at the connector, nobody was called yet.
    expect(instance.incident).toBeNull();
    expect(received.length).toBe(before);
    expect(await runCalls()).toBe(1);
    const [request] = received;
    expect(request).toMatchObject({ method: 'POST', url: '/reserve', body: '{"qty": 3}' });
    expect(request?.headers['x-order']).toBe('A-7');
    expect(request?.headers['content-type']).toBe('application/json');
    const variables = await variablesOf(instance.id);
    expect(variables.reserveStatus).toBe(201);
    expect(JSON.parse(String(variables.reserveAnswer))).toEqual({ ok: true, got: '{"qty": 3}' });
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['check']);
  });

  it('calls with no transaction open: other requests are answered while the endpoint keeps its answer', async () => {
    await deploy(
      t,
      connectorProcess(
        'extHttpHeld',
        `${base}/hold`,
        '<camunda:outputParameter name="heldStatus">${statusCode}</camunda:outputParameter>',
      ),
    );
    const instance = await start(t, t.auth, 'extHttpHeld', { orderNo: 'H-1', qty: 1 });
    const calls = runCalls();
    for (let waited = 0; held.length === 0 && waited < 200; waited += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received[0]?.url).toBe('/hold');
    // The endpoint has not answered: the database still serves others (on PGlite one connection
    // serves every request, so a call made inside the step's transaction would stop this one).
    const meanwhile = await call(t, t.auth, 'GET', `externalTask/query?processInstanceId=${instance.id}`);
    expect(meanwhile.statusCode).toBe(200);
    expect((await instanceRow(t, instance.id)).incident).toBeNull();
    expect(await openTasks(t, instance.id)).toEqual([]);
    held.shift()?.();
    expect(await calls).toBe(1);
    expect((await variablesOf(instance.id)).heldStatus).toBe(201);
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['check']);
  });

  it('drops an answer its instance no longer waits for: terminated, or suspended (called again once active)', async () => {
    await deploy(
      t,
      connectorProcess(
        'extHttpGone',
        `${base}/hold`,
        '<camunda:outputParameter name="heldStatus">${statusCode}</camunda:outputParameter>',
      ),
    );
    const whileOut = async (instanceId: number, meanwhile: () => Promise<void>): Promise<void> => {
      const before = received.length;
      const calls = runCalls();
      for (let waited = 0; held.length === 0 && waited < 200; waited += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(received.length).toBe(before + 1);
      expect(received[0]?.url).toBe('/hold');
      await meanwhile();
      held.shift()?.();
      expect(await calls).toBe(1);
      expect(await variablesOf(instanceId)).not.toHaveProperty('heldStatus');
    };
    const callJobs = async (instanceId: number): Promise<number> =>
      (
        await t.sql<{ count: number }>(
          "select count(*)::int as count from wf_job where instance_id = $1 and kind = 'serviceCall'",
          [instanceId],
        )
      )[0]?.count ?? -1;

    const ended = await start(t, t.auth, 'extHttpGone', { orderNo: 'G-1', qty: 1 });
    await whileOut(ended.id, async () => {
      const terminated = await call(t, t.auth, 'POST', 'processinstance/terminate', {
        id: ended.id,
        comment: 'no longer needed',
      });
      expect(terminated.statusCode, terminated.body).toBe(200);
    });
    expect(await callJobs(ended.id)).toBe(0);

    const paused = await start(t, t.auth, 'extHttpGone', { orderNo: 'G-2', qty: 1 });
    await whileOut(paused.id, async () => {
      const suspended = await call(t, t.auth, 'POST', `processinstance/suspend?id=${paused.id}`);
      expect(suspended.statusCode, suspended.body).toBe(200);
    });
    expect(await callJobs(paused.id)).toBe(1);
    expect(await runCalls()).toBe(0);
    const activated = await call(t, t.auth, 'POST', `processinstance/activate?id=${paused.id}`);
    expect(activated.statusCode, activated.body).toBe(200);
    const again = runCalls();
    for (let waited = 0; held.length === 0 && waited < 200; waited += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    held.shift()?.();
    expect(await again).toBe(1);
    expect((await variablesOf(paused.id)).heldStatus).toBe(201);
    expect(await callJobs(paused.id)).toBe(0);
  });

  it('stops in an incident on an error answer nobody reads, naming the status', async () => {
    await deploy(
      t,
      connectorProcess(
        'extHttpFail',
        `${base}/fail`,
        '<camunda:outputParameter name="answer">${response}</camunda:outputParameter>',
      ),
    );
    const instance = await start(t, t.auth, 'extHttpFail', { orderNo: 'A-8', qty: 1 });
    await runCalls();
    const { incident } = (await instanceRow(t, instance.id)) as {
      incident: { activityId: string; message: string };
    };
    expect(incident).toMatchObject({ activityId: 'reserve' });
    expect(incident.message).toContain('500');
    expect(await openTasks(t, instance.id)).toEqual([]);
  });

  it('calls once per item when multi-instance, each call with its item, and goes on after the last answer', async () => {
    await deploy(
      t,
      bpmn(
        'extHttpLoop',
        `<startEvent id="s"/>${flow('f1', 's', 'reserve')}
        <serviceTask id="reserve" name="Reserve stock">
          <extensionElements><camunda:connector>
            <camunda:connectorId>http-connector</camunda:connectorId>
            <camunda:inputOutput>
              <camunda:inputParameter name="url">${base}/reserve?sku=\${sku}&amp;n=\${loopCounter}</camunda:inputParameter>
              <camunda:inputParameter name="method">POST</camunda:inputParameter>
              <camunda:outputParameter name="lastStatus">\${statusCode}</camunda:outputParameter>
            </camunda:inputOutput>
          </camunda:connector></extensionElements>
          <multiInstanceLoopCharacteristics isSequential="false" camunda:collection="\${skus}" camunda:elementVariable="sku"/>
        </serviceTask>
        ${flow('f2', 'reserve', 'check')}<userTask id="check" camunda:assignee="admin"/>${flow('f3', 'check', 'e')}<endEvent id="e"/>`,
      ),
    );
    const before = received.length;
    const instance = await start(t, t.auth, 'extHttpLoop', { skus: ['P-1', 'P-2', 'P-3'] });
    expect(await runCalls()).toBe(3);
    expect(
      received
        .slice(0, received.length - before)
        .map((request) => request.url)
        .sort(),
    ).toEqual(['/reserve?sku=P-1&n=0', '/reserve?sku=P-2&n=1', '/reserve?sku=P-3&n=2']);
    expect((await variablesOf(instance.id)).lastStatus).toBe(201);
    expect((await openTasks(t, instance.id)).map((row) => row.activity_id)).toEqual(['check']);
  });

  it('stops in an incident when its request-config socket-timeout passes without an answer; a bad one is named', async () => {
    const timeout = (value: string) =>
      `<camunda:inputParameter name="request-config"><camunda:map>
         <camunda:entry key="socket-timeout">${value}</camunda:entry>
       </camunda:map></camunda:inputParameter>`;
    await deploy(t, connectorProcess('extHttpTimeout', `${base}/hold`, timeout('${patience}')));
    const instance = await start(t, t.auth, 'extHttpTimeout', { orderNo: 'T-1', qty: 1, patience: 300 });
    const began = Date.now();
    expect(await runCalls()).toBe(1);
    // The endpoint never answered: the call gave up after 300 ms, not the budget's 10 s.
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(received[0]?.url).toBe('/hold');
    expect((await instanceRow(t, instance.id)).incident).toMatchObject({
      activityId: 'reserve',
      message: expect.stringContaining('nothing received for 300 ms'),
    });
    held.shift()?.();
    const wrong = await start(t, t.auth, 'extHttpTimeout', { orderNo: 'T-2', qty: 1, patience: 'soon' });
    const before = received.length;
    await runCalls();
    expect((await instanceRow(t, wrong.id)).incident).toMatchObject({
      message: expect.stringContaining('request-config socket-timeout'),
    });
    expect(received.length).toBe(before);
  });

  it('refuses private addresses the guard does not let through: an incident, no request', async () => {
    await deploy(t, connectorProcess('extHttpPrivate', 'http://169.254.169.254/latest/meta-data', ''));
    const before = received.length;
    const instance = await start(t, t.auth, 'extHttpPrivate', { orderNo: 'A-9', qty: 1 });
    await runCalls();
    expect((await instanceRow(t, instance.id)).incident).toMatchObject({
      message: expect.stringContaining('not allowed'),
    });
    expect(received.length).toBe(before);
  });

  it('refuses a connector without a url, and another connector, naming the element', async () => {
    const noUrl = bpmn(
      'extHttpNoUrl',
      `<startEvent id="s"/>${flow('f1', 's', 'x')}<serviceTask id="x"><extensionElements><camunda:connector>
        <camunda:connectorId>http-connector</camunda:connectorId></camunda:connector></extensionElements></serviceTask>
        ${flow('f2', 'x', 'e')}<endEvent id="e"/>`,
    );
    const response = await call(t, t.auth, 'POST', 'deployment/deployXml', { xml: noUrl });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([
      expect.objectContaining({ field: 'x', message: expect.stringContaining('url') }),
    ]);
    const soap = noUrl.replace('http-connector', 'soap-http-connector');
    const refused = await call(t, t.auth, 'POST', 'deployment/deployXml', { xml: soap });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('soap-http-connector');
  });
});

describe('mail tasks through the mail outbox (issue 36)', () => {
  const mails = (): { tenantCode: string; to: string; subject: string; text: string }[] =>
    readJsonLines(outbox.mailOutbox);

  it('sends a camunda:type="mail" task and a send task with the mail-send connector, one mail per recipient', async () => {
    await deploy(
      t,
      bpmn(
        'extMail',
        `<startEvent id="s"/>${flow('f1', 's', 'mail')}
        <serviceTask id="mail" name="Tell the buyer" camunda:type="mail"><extensionElements>
          <camunda:field name="to" expression="\${buyer}, audit@example.com"/>
          <camunda:field name="subject" stringValue="Order confirmed"/>
          <camunda:field name="text"><camunda:expression>Order \${orderNo} is confirmed</camunda:expression></camunda:field>
        </extensionElements></serviceTask>${flow('f2', 'mail', 'send')}
        <sendTask id="send"><extensionElements><camunda:connector><camunda:connectorId>mail-send</camunda:connectorId>
          <camunda:inputOutput><camunda:inputParameter name="to">\${buyer}</camunda:inputParameter>
          <camunda:inputParameter name="subject">Invoice \${orderNo}</camunda:inputParameter>
          <camunda:inputParameter name="text">Your invoice follows.</camunda:inputParameter></camunda:inputOutput>
        </camunda:connector></extensionElements></sendTask>${flow('f3', 'send', 'e')}<endEvent id="e"/>`,
      ),
    );
    const before = mails().length;
    const instance = await start(t, t.auth, 'extMail', { buyer: 'buyer@example.com', orderNo: 'M-1' });
    expect(instance.incident ?? null).toBeNull();
    // Each mail goes out after the step that reached it committed: the mail task's, then the send task's.
    expect(mails().length).toBe(before);
    expect(await runCalls()).toBe(2);
    expect((await instanceRow(t, instance.id)).end_time).not.toBeNull();
    expect(mails().slice(before)).toEqual([
      expect.objectContaining({
        to: 'buyer@example.com',
        subject: 'Order confirmed',
        text: 'Order M-1 is confirmed',
      }),
      expect.objectContaining({ to: 'audit@example.com', subject: 'Order confirmed' }),
      expect.objectContaining({
        to: 'buyer@example.com',
        subject: 'Invoice M-1',
        text: 'Your invoice follows.',
      }),
    ]);
  });

  it('a sequential multi-instance mail task sends one mail per item after its step, one after another', async () => {
    await deploy(
      t,
      bpmn(
        'extMailEach',
        `<startEvent id="s"/>${flow('f1', 's', 'tell')}
        <serviceTask id="tell" camunda:type="mail"><extensionElements>
          <camunda:field name="to" expression="\${buyer}"/>
          <camunda:field name="subject"><camunda:expression>Bid \${loopCounter + 1} of \${nrOfInstances}</camunda:expression></camunda:field>
        </extensionElements>
          <multiInstanceLoopCharacteristics isSequential="true" camunda:collection="\${buyers}" camunda:elementVariable="buyer"/>
        </serviceTask>${flow('f2', 'tell', 'e')}<endEvent id="e"/>`,
      ),
    );
    const before = mails().length;
    const instance = await start(t, t.auth, 'extMailEach', {
      buyers: ['ann@example.com', 'bob@example.com'],
    });
    // Nothing is sent within the start's step.
    expect(mails().length).toBe(before);
    let calls = 0;
    for (let round = 0; round < 5; round += 1) calls += await runCalls();
    expect(calls).toBe(2);
    expect(
      mails()
        .slice(before)
        .map((mail) => [mail.to, mail.subject]),
    ).toEqual([
      ['ann@example.com', 'Bid 1 of 2'],
      ['bob@example.com', 'Bid 2 of 2'],
    ]);
    expect((await instanceRow(t, instance.id)).end_time).not.toBeNull();
  });

  it('a mail task in a multi-instance sub-process writes to each body’s item', async () => {
    await deploy(
      t,
      bpmn(
        'extMailLoop',
        `<startEvent id="s"/>${flow('f1', 's', 'each')}
        <subProcess id="each">
          <multiInstanceLoopCharacteristics isSequential="false" camunda:collection="\${buyers}" camunda:elementVariable="buyer"/>
          <startEvent id="ss"/>${flow('g1', 'ss', 'tell')}
          <serviceTask id="tell" name="Tell each buyer" camunda:type="mail"><extensionElements>
            <camunda:field name="to" expression="\${buyer}"/>
            <camunda:field name="subject" stringValue="Tender opened"/>
          </extensionElements></serviceTask>${flow('g2', 'tell', 'se')}<endEvent id="se"/>
        </subProcess>${flow('f2', 'each', 'e')}<endEvent id="e"/>`,
      ),
    );
    const before = mails().length;
    const instance = await start(t, t.auth, 'extMailLoop', {
      buyers: ['ann@example.com', 'bob@example.com'],
    });
    expect(await runCalls()).toBe(2);
    expect((await instanceRow(t, instance.id)).end_time).not.toBeNull();
    expect(
      mails()
        .slice(before)
        .map((mail) => mail.to)
        .sort(),
    ).toEqual(['ann@example.com', 'bob@example.com']);
  });

  it('stops in an incident naming the cause past the recipient budget or on a bad address, sending nothing', async () => {
    await deploy(
      t,
      bpmn(
        'extMailMany',
        `<startEvent id="s"/>${flow('f1', 's', 'mail')}
        <serviceTask id="mail" camunda:type="mail"><extensionElements>
          <camunda:field name="to" expression="\${to}"/><camunda:field name="subject" stringValue="Hi"/>
        </extensionElements></serviceTask>${flow('f2', 'mail', 'e')}<endEvent id="e"/>`,
      ),
    );
    const before = mails().length;
    const many = Array.from({ length: 21 }, (_, index) => `p${index}@example.com`).join(',');
    const tooMany = await start(t, t.auth, 'extMailMany', { to: many });
    const bad = await start(t, t.auth, 'extMailMany', { to: 'not-an-address' });
    expect(await runCalls()).toBe(2);
    expect((await instanceRow(t, tooMany.id)).incident).toMatchObject({
      activityId: 'mail',
      message: expect.stringContaining('21 recipients'),
    });
    expect((await instanceRow(t, bad.id)).incident).toMatchObject({
      message: expect.stringContaining('not-an-address'),
    });
    expect(mails().length).toBe(before);
  });

  it('stops a loop through a mail task at the calls budget of an instance, in an incident naming it', async () => {
    await deploy(
      t,
      bpmn(
        'extMailLoop',
        `<startEvent id="s"/>${flow('f1', 's', 'mail')}
        <serviceTask id="mail" name="Remind" camunda:type="mail"><extensionElements>
          <camunda:field name="to" stringValue="loop@example.com"/><camunda:field name="subject" stringValue="Again"/>
        </extensionElements></serviceTask>${flow('f2', 'mail', 'mail')}`,
      ),
    );
    const before = mails().length;
    const instance = await start(t, t.auth, 'extMailLoop');
    let made = 0;
    for (let ran = await runCalls(); ran > 0; ran = await runCalls()) made += ran;
    const { callsPerInstance } = BUDGETS.workflow;
    expect(made).toBe(callsPerInstance);
    expect(mails().length - before).toBe(callsPerInstance);
    expect((await instanceRow(t, instance.id)).incident).toMatchObject({
      activityId: 'mail',
      message: expect.stringContaining('workflow.callsPerInstance'),
    });
  });

  it('tries a call that fails for a reason of the server again, and stops in an incident at the fifth failure', async () => {
    await deploy(
      t,
      bpmn(
        'extMailBroken',
        `<startEvent id="s"/>${flow('f1', 's', 'mail')}
        <serviceTask id="mail" camunda:type="mail"><extensionElements>
          <camunda:field name="to" stringValue="ops@example.com"/><camunda:field name="subject" stringValue="Hi"/>
        </extensionElements></serviceTask>${flow('f2', 'mail', 'e')}<endEvent id="e"/>`,
      ),
    );
    // The outbox cannot be written: a directory stands where its file goes.
    const kept = `${outbox.mailOutbox}.kept`;
    if (existsSync(outbox.mailOutbox)) renameSync(outbox.mailOutbox, kept);
    mkdirSync(outbox.mailOutbox, { recursive: true });
    try {
      const instance = await start(t, t.auth, 'extMailBroken');
      for (let failure = 1; failure <= 5; failure += 1) {
        // each failure waits longer (1, 2, … minutes) before the call is tried again
        setWorkflowClock(t.app.ctx, () => new Date(Date.now() + failure * failure * 60_000));
        expect(await runCalls()).toBe(1);
        const row = await instanceRow(t, instance.id);
        if (failure < 5) expect(row.incident).toBeNull();
        else
          expect(row.incident).toMatchObject({
            activityId: 'mail',
            message: expect.stringContaining('the call failed 5 times'),
          });
      }
      const [left] = await t.sql<{ count: number }>(
        "select count(*)::int as count from wf_job where instance_id = $1 and kind = 'serviceCall'",
        [instance.id],
      );
      expect(left?.count).toBe(0);
    } finally {
      rmSync(outbox.mailOutbox, { recursive: true, force: true });
      if (existsSync(kept)) renameSync(kept, outbox.mailOutbox);
    }
  });

  it('refuses a mail task without a recipient, naming the element', async () => {
    const xml = bpmn(
      'extMailNoTo',
      `<startEvent id="s"/>${flow('f1', 's', 'x')}<serviceTask id="x" camunda:type="mail"/>${flow('f2', 'x', 'e')}<endEvent id="e"/>`,
    );
    const response = await call(t, t.auth, 'POST', 'deployment/deployXml', { xml });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([expect.objectContaining({ field: 'x' })]);
  });
});

// Last in this file: once the app listens, its own poller makes the calls (the tests above make
// them themselves, runCalls, so that they know when).
describe('the job poller of a listening server', () => {
  it('makes a connector call as the start commits, with no one running jobs', async () => {
    await deploy(
      t,
      connectorProcess(
        'extHttpPolled',
        `${base}/reserve`,
        '<camunda:outputParameter name="reserveStatus">${statusCode}</camunda:outputParameter>',
      ),
    );
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const instance = await start(t, t.auth, 'extHttpPolled', { orderNo: 'P-1', qty: 2 });
    const answered = Date.now();
    let open: string[] = [];
    for (let waited = 0; open.length === 0 && waited < 400; waited += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      open = (await openTasks(t, instance.id)).map((row) => row.activity_id);
    }
    const tookMs = Date.now() - answered;
    console.log(`job poller: the connector's task went on ${tookMs} ms after the start answered`);
    expect(open).toEqual(['check']);
    // Woken by the start's commit, not found by the next poll (every 5 s, the first at listen).
    expect(tookMs).toBeLessThan(3_000);
    expect((await variablesOf(instance.id)).reserveStatus).toBe(201);
  });
});
