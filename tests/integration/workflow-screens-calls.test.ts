import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';
import { bearer, bpmn, call, complete, deploy, flow, openTasks, start } from '../support/workflow.js';

/**
 * More calls of the screens: model/get (the designer's one read) and model/xml,
 * model/import (a model with its diagram in one transaction, 409 on a taken key unless replace),
 * the people tree of the office pickers, and the delete buttons of the definition, instance and
 * history lists (administrators only; running instances and open tasks are kept).
 */
let t: TestApp;
let alice: { authorization: string };

const ONE_TASK = (key: string): string =>
  bpmn(
    key,
    `<startEvent id="s" camunda:initiator="starter"/>${flow('f0', 's', 'apply')}
     <userTask id="apply" name="申请" camunda:assignee="\${starter}"/>${flow('f1', 'apply', 'e')}
     <endEvent id="e"/>`,
  );

beforeAll(async () => {
  t = await startTestApp();
  alice = bearer((await createUserWithRole(t, 'screens_alice', 'ROLE_SYS_BUYER')).token);
}, 300_000);
afterAll(async () => {
  await t?.close();
});

describe('model/import and model/get', () => {
  it('creates the model with its diagram in one call; get answers both, xml the diagram', async () => {
    const imported = await call(t, t.auth, 'POST', 'model/import', {
      name: '导入',
      key: 'screens_import',
      xml: ONE_TASK('screens_import'),
    });
    expect(imported.statusCode, imported.body).toBe(200);
    const model = imported.json().data as { id: number; hasXml: boolean; replaced: boolean };
    expect(model).toMatchObject({ hasXml: true, replaced: false });
    const got = await call(t, t.auth, 'GET', `model/get?id=${model.id}`);
    expect(got.statusCode, got.body).toBe(200);
    expect(got.json().data).toMatchObject({ id: model.id, key: 'screens_import', name: '导入' });
    expect(got.json().data.xml).toContain('screens_import');
    const xml = await call(t, t.auth, 'GET', `model/xml?id=${model.id}`);
    expect(xml.statusCode, xml.body).toBe(200);
    expect(xml.json().data).toEqual({ id: model.id, xml: got.json().data.xml });
    expect((await call(t, t.auth, 'GET', 'model/get?id=99999999')).statusCode).toBe(404);
  });

  it('an import warns of people nobody of the tenant is, as the deploy would (issue 36)', async () => {
    const imported = await call(t, t.auth, 'POST', 'model/import', {
      name: '无人',
      key: 'screens_people',
      xml: bpmn(
        'screens_people',
        `<startEvent id="s"/>${flow('f0', 's', 'ask')}<userTask id="ask" name="ask" camunda:candidateGroups="nobody-here" camunda:candidateUsers="admin"/>${flow('f1', 'ask', 'e')}<endEvent id="e"/>`,
      ),
    });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json().data.warnings).toEqual([
      { field: 'ask', message: expect.stringContaining('nobody-here') },
    ]);
  });

  it('a refused file leaves no model behind', async () => {
    const bad = await call(t, t.auth, 'POST', 'model/import', {
      name: '坏文件',
      key: 'screens_bad',
      xml: bpmn('screens_bad', '<userTask id="lonely"/>'),
    });
    expect(bad.statusCode).toBe(400);
    const models = await call(t, t.auth, 'GET', 'model/query?key=screens_bad');
    expect(models.json().data.records).toEqual([]);
  });

  it('a taken key is 409 naming it; with replace the model gets the new diagram', async () => {
    const first = await call(t, t.auth, 'POST', 'model/import', {
      name: '一',
      key: 'screens_twice',
      xml: ONE_TASK('screens_twice'),
    });
    const id = (first.json().data as { id: number }).id;
    const second = bpmn('screens_twice', `<startEvent id="s2"/>${flow('g0', 's2', 'e2')}<endEvent id="e2"/>`);
    const clash = await call(t, t.auth, 'POST', 'model/import', {
      name: '二',
      key: 'screens_twice',
      xml: second,
    });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().message).toContain('screens_twice');
    expect((await call(t, t.auth, 'GET', `model/get?id=${id}`)).json().data.xml).toContain('apply');
    const replaced = await call(t, t.auth, 'POST', 'model/import', {
      name: '二',
      key: 'screens_twice',
      xml: second,
      replace: true,
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json().data).toMatchObject({ id, name: '二', replaced: true });
    const xml = (await call(t, t.auth, 'GET', `model/get?id=${id}`)).json().data.xml as string;
    expect(xml).toContain('s2');
    expect(xml).not.toContain('apply');
  });

  it('400 names a missing field; a user without the grant gets 403', async () => {
    const missing = await call(t, t.auth, 'POST', 'model/import', { name: 'x', key: 'screens_x' });
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('xml');
    const denied = await call(t, alice, 'POST', 'model/import', {
      name: 'x',
      key: 'screens_x',
      xml: ONE_TASK('screens_x'),
    });
    expect(denied.statusCode).toBe(403);
    expect((await call(t, alice, 'GET', 'model/get?id=1')).statusCode).toBe(403);
  });
});

describe('people/tree', () => {
  it('every signed-in user reads the org-user tree (the office pickers)', async () => {
    const response = await call(t, alice, 'GET', 'people/tree');
    expect(response.statusCode, response.body).toBe(200);
    const text = JSON.stringify(response.json().data);
    expect(text).toContain('"username":"screens_alice"');
    expect((await t.request({ method: 'GET', url: '/api/activiti/people/tree' })).statusCode).toBe(401);
  });
});

describe('delete buttons: definitions, instances, history', () => {
  it('processdefinition/delete: 409 while an instance runs, then deletes it with its ended instances', async () => {
    const deployed = await deploy(t, ONE_TASK('screens_def'));
    const instance = await start(t, alice, 'screens_def');
    const id = deployed.processDefinitionId;
    expect((await call(t, alice, 'POST', `processdefinition/delete?id=${id}`)).statusCode).toBe(403);
    const busy = await call(t, t.auth, 'POST', `processdefinition/delete?id=${id}`);
    expect(busy.statusCode).toBe(409);
    const [task] = await openTasks(t, instance.id);
    expect((await complete(t, alice, task?.id ?? 0)).statusCode).toBe(200);
    const done = await call(t, t.auth, 'POST', `processdefinition/delete?id=${id}`);
    expect(done.statusCode, done.body).toBe(200);
    const left = await call(t, t.auth, 'GET', 'processdefinition/query?key=screens_def');
    expect(left.json().data.records).toEqual([]);
    const history = await call(
      t,
      t.auth,
      'GET',
      `history/processinstance/query?processInstanceId=${instance.id}`,
    );
    expect(history.json().data.records).toEqual([]);
    expect((await call(t, t.auth, 'POST', `processdefinition/delete?id=${id}`)).statusCode).toBe(404);
  });

  it('processinstance/delete removes a running instance with its tasks', async () => {
    await deploy(t, ONE_TASK('screens_inst'));
    const instance = await start(t, alice, 'screens_inst');
    expect((await call(t, alice, 'POST', `processinstance/delete?id=${instance.id}`)).statusCode).toBe(403);
    const done = await call(t, t.auth, 'POST', `processinstance/delete?id=${instance.id}`);
    expect(done.statusCode, done.body).toBe(200);
    expect(await openTasks(t, instance.id)).toEqual([]);
    const rows = await call(t, t.auth, 'GET', `processinstance/query?processInstanceId=${instance.id}`);
    expect(rows.json().data.records).toEqual([]);
    expect((await call(t, t.auth, 'POST', 'processinstance/delete')).statusCode).toBe(400);
  });

  it('history deletes: ended instances and finished tasks only (409 otherwise)', async () => {
    await deploy(t, ONE_TASK('screens_hist'));
    const running = await start(t, alice, 'screens_hist');
    const [open] = await openTasks(t, running.id);
    const openTask = await call(t, t.auth, 'POST', `history/taskinstance/delete?id=${open?.id}`);
    expect(openTask.statusCode).toBe(409);
    const stillRunning = await call(t, t.auth, 'POST', `history/processinstance/delete?id=${running.id}`);
    expect(stillRunning.statusCode).toBe(409);
    expect(stillRunning.json().message).toContain(String(running.id));

    expect((await complete(t, alice, open?.id ?? 0)).statusCode).toBe(200);
    expect((await call(t, alice, 'POST', `history/taskinstance/delete?id=${open?.id}`)).statusCode).toBe(403);
    const task = await call(t, t.auth, 'POST', `history/taskinstance/delete?id=${open?.id}`);
    expect(task.statusCode, task.body).toBe(200);
    const tasks = await call(t, t.auth, 'GET', `history/taskinstance/query?processInstanceId=${running.id}`);
    expect(tasks.json().data.records).toEqual([]);

    expect((await call(t, alice, 'POST', `history/processinstance/delete?id=${running.id}`)).statusCode).toBe(
      403,
    );
    const ended = await call(t, t.auth, 'POST', `history/processinstance/delete?id=${running.id}`);
    expect(ended.statusCode, ended.body).toBe(200);
    const history = await call(
      t,
      t.auth,
      'GET',
      `history/processinstance/query?processInstanceId=${running.id}`,
    );
    expect(history.json().data.records).toEqual([]);
  });
});
