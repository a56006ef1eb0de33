import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/server/lib/db/migrate.js';
import { workflowTableSpecs } from '../../src/server/features/workflow/tables.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';
import {
  bearer,
  bpmn,
  call,
  complete,
  deploy,
  fixture,
  flow,
  instanceRow,
  openTasks,
  start,
} from '../support/workflow.js';

/**
 * Workflow models and deployments: BPMN files of the three dialects deploy unchanged,
 * elements that cannot run are refused naming the element, listeners are dropped with a warning,
 * versions count per key, suspended definitions refuse starts, deployments in use stay.
 */
let t: TestApp;
let plain: { authorization: string };
beforeAll(async () => {
  t = await startTestApp();
  plain = bearer((await createUserWithRole(t, 'wfplain', 'ROLE_SYS_BUYER')).token);
}, 300_000);
afterAll(async () => {
  await t?.close();
});

const SIMPLE = bpmn(
  'simple',
  `<startEvent id="s"/>${flow('f1', 's', 'task')}<userTask id="task" name="Do it" camunda:assignee="\${initiator}"/>${flow('f2', 'task', 'e')}<endEvent id="e"/>`,
);

describe('deploying BPMN files of the three dialects', () => {
  it('deploys an Activiti Modeler file, dropping its task listener with a warning', async () => {
    const answer = await deploy(t, fixture('activiti-leave.bpmn20.xml'));
    expect(answer).toMatchObject({ key: 'leave', version: 1 });
    // The people nobody of this tenant is (no post DEPT_HEAD, no user hruser) are warnings too.
    expect(answer.warnings).toEqual([
      expect.objectContaining({ field: 'apply', message: expect.stringContaining('TaskListener') }),
      expect.objectContaining({ field: 'approve', message: expect.stringContaining('post:DEPT_HEAD') }),
      expect.objectContaining({ field: 'hr', message: expect.stringContaining('hruser') }),
    ]);
    const [definition] = await t.sql<{ graph: { nodes: Record<string, Record<string, unknown>> } }>(
      'select graph from wf_definition where id = $1',
      [answer.processDefinitionId],
    );
    expect(definition?.graph.nodes.apply).toMatchObject({ assignee: '${applicant}', type: 'userTask' });
    expect(definition?.graph.nodes.approve).toMatchObject({
      candidateGroups: ['role:ROLE_ADMIN', 'post:DEPT_HEAD'],
    });
    expect(definition?.graph.nodes.start).toMatchObject({ initiator: 'applicant' });
    expect(definition?.graph.nodes.decision).toMatchObject({ defaultFlow: 'flowShort' });
  });

  it('deploys a Flowable file with flowable: attributes and fields of a built-in service task', async () => {
    const answer = await deploy(t, fixture('flowable-purchase.bpmn20.xml'));
    expect(answer).toMatchObject({ key: 'purchase', version: 1, warnings: [] });
    const [definition] = await t.sql<{ graph: { nodes: Record<string, Record<string, unknown>> } }>(
      'select graph from wf_definition where id = $1',
      [answer.processDefinitionId],
    );
    expect(definition?.graph.nodes.mark).toMatchObject({
      service: { kind: 'setVariables', fields: { stage: 'review', requester: '${buyer}' } },
    });
    expect(definition?.graph.nodes.tech).toMatchObject({ formKey: 'sysparam', assignee: '${buyer}' });
  });

  it('deploys a Camunda Modeler file; its process-level listener is a warning', async () => {
    const answer = await deploy(t, fixture('camunda-approval.bpmn'));
    expect(answer).toMatchObject({ key: 'contract_review', version: 1 });
    expect(answer.warnings.map((warning) => warning.field)).toEqual(['contract_review', 'contract_review']);
    // its history time to live (Camunda Modeler writes one) is ignored here: a warning too
    expect(answer.warnings.map((warning) => warning.message)).toEqual([
      expect.stringContaining('camunda:historyTimeToLive'),
      expect.stringContaining('ExecutionListener'),
    ]);
  });

  it("starts every instance with the process's data objects as variables (Activiti and Flowable), the starter's values winning (issue 36)", async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:activiti="http://activiti.org/bpmn"
  xmlns:xsd="http://www.w3.org/2001/XMLSchema" targetNamespace="test">
  <process id="dataObjects" isExecutable="true">
    <dataObject id="dText" name="text" itemSubjectRef="xsd:string"><extensionElements><activiti:value>Testing123</activiti:value></extensionElements></dataObject>
    <dataObject id="dCount" name="count" itemSubjectRef="xsd:int"><extensionElements><activiti:value>42</activiti:value></extensionElements></dataObject>
    <dataObject id="dFlag" name="flag" itemSubjectRef="xsd:boolean"><extensionElements><activiti:value>true</activiti:value></extensionElements></dataObject>
    <dataObject id="dEmpty" name="empty" itemSubjectRef="xsd:datetime"><extensionElements><activiti:value></activiti:value></extensionElements></dataObject>
    <dataObject id="dGiven" name="given" itemSubjectRef="xsd:string"><extensionElements><activiti:value>modelled</activiti:value></extensionElements></dataObject>
    <startEvent id="s"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
    <subProcess id="sub">
      <dataObject id="dInner" name="inner" itemSubjectRef="xsd:string"><extensionElements><activiti:value>local</activiti:value></extensionElements></dataObject>
      <startEvent id="subStart"/>
      <sequenceFlow id="f2" sourceRef="subStart" targetRef="task"/>
      <userTask id="task" name="Task \${text}" activiti:assignee="admin"/>
      <sequenceFlow id="f3" sourceRef="task" targetRef="subEnd"/>
      <endEvent id="subEnd"/>
    </subProcess>
    <sequenceFlow id="f4" sourceRef="sub" targetRef="e"/>
    <endEvent id="e"/>
  </process>
</definitions>`;
    const answer = await deploy(t, xml);
    // The value markup is read (no "unparsable content" warning); the sub-process's is named.
    expect(answer.warnings.map((warning) => warning.field)).toEqual(['dInner']);
    expect(answer.warnings[0]?.message).toContain('inner');
    const instance = await start(t, t.auth, 'dataObjects', { given: 'started' });
    const variables = await t.sql<{ name: string; value: unknown }>(
      'select name, value from wf_variable where instance_id = $1 order by name',
      [instance.id],
    );
    expect(Object.fromEntries(variables.map((row) => [row.name, row.value]))).toEqual({
      count: 42,
      empty: null,
      flag: true,
      given: 'started',
      initiator: 'admin',
      text: 'Testing123',
    });
    const [task] = await t.sql<{ name: string }>('select name from wf_task where instance_id = $1', [
      instance.id,
    ]);
    expect(task?.name).toBe('Task Testing123');
  });

  it('counts versions per key and answers the definitions with latestOnly', async () => {
    const first = await deploy(t, SIMPLE);
    const second = await deploy(t, SIMPLE);
    expect(second.version).toBe(first.version + 1);
    const all = await call(t, t.auth, 'GET', 'processdefinition/query?key=simple');
    expect(all.json().data.records.map((row: { version: number }) => row.version)).toEqual([
      second.version,
      first.version,
    ]);
    const latest = await call(t, t.auth, 'GET', 'processdefinition/query?key=simple&latestOnly=true');
    expect(latest.json().data.records).toEqual([
      expect.objectContaining({
        id: second.processDefinitionId,
        key: 'simple',
        version: second.version,
        suspended: false,
        resourceName: 'simple.bpmn20.xml',
      }),
    ]);
    const xml = await call(t, t.auth, 'GET', `processdefinition/xml?id=${first.processDefinitionId}`);
    expect(xml.json().data.xml).toBe(SIMPLE);
  });
});

describe('refusing what cannot run', () => {
  it('refuses a script task and a Java service task with 400 naming each element and its type', async () => {
    const response = await call(t, t.auth, 'POST', 'deployment/deployXml', {
      xml: fixture('refused-script-and-java.bpmn20.xml'),
    });
    expect(response.statusCode).toBe(400);
    const errors = response.json().errors as { field: string; message: string }[];
    expect(errors).toEqual([
      { field: 'calc', message: expect.stringContaining('calc (计算)') },
      { field: 'callErp', message: expect.stringContaining('callErp (调用ERP)') },
    ]);
    // Each refusal offers the alternative: an external task a worker completes, or the HTTP connector.
    for (const error of errors) {
      expect(error.message).toContain('camunda:type="external"');
      expect(error.message).toContain('/api/activiti/externalTask');
      expect(error.message).toContain('http-connector');
    }
    expect(errors[1]?.message).toContain('com.example.ErpDelegate');
    expect(await t.sql("select 1 from wf_definition where process_key = 'refused'")).toEqual([]);
    expect(await t.sql("select 1 from wf_deployment where resource_name like 'refused%'")).toEqual([]);
  });

  it('names unreadable XML, a bad condition and a missing start (a task without a flow out is an implicit end, one without a flow in is never reached)', async () => {
    const broken = await call(t, t.auth, 'POST', 'deployment/deployXml', { xml: '<definitions' });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().errors[0].field).toBe('xml');
    const shape = await call(t, t.auth, 'POST', 'deployment/deployXml', {
      xml: bpmn(
        'shape',
        `<userTask id="a"/>${flow('f1', 'a', 'g')}<exclusiveGateway id="g"/>${flow('f2', 'g', 'e', '${x >}')}<endEvent id="e"/><userTask id="lonely"/>`,
      ),
    });
    expect(shape.statusCode).toBe(400);
    const fields = (shape.json().errors as { field: string }[]).map((error) => error.field).sort();
    expect(fields).toEqual(['f2', 'shape']);
  });

  it('deploys an element no flow leads to with a warning naming it; the instance runs past it (issue 36)', async () => {
    // As Camunda's ProcessInstanceModificationTest.testNoCompensationCreatedOnCancellation: the
    // three engines deploy it, and no token ever reaches it.
    const answer = await deploy(
      t,
      bpmn(
        'unreached',
        `<startEvent id="s"/>${flow('f1', 's', 'task')}<userTask id="task" camunda:assignee="admin"/>${flow('f2', 'task', 'e')}<endEvent id="e"/>` +
          `<userTask id="never" camunda:assignee="admin"/>${flow('f3', 'never', 'e')}` +
          `<subProcess id="sub"><startEvent id="subStart"/>${flow('f4', 'subStart', 'subEnd')}<endEvent id="subEnd"/></subProcess>${flow('f5', 'sub', 'e')}`,
      ),
    );
    expect(answer.warnings).toEqual([
      { field: 'never', message: 'never 没有入口顺序流：流程不会到达它，它永远不会执行' },
      { field: 'sub', message: 'sub 没有入口顺序流：流程不会到达它，它永远不会执行' },
    ]);
    const instance = await start(t, t.auth, 'unreached');
    const [task, ...others] = await openTasks(t, instance.id);
    expect(others).toEqual([]);
    expect(task?.activity_id).toBe('task');
    expect((await complete(t, t.auth, task?.id ?? 0)).statusCode).toBe(200);
    expect((await instanceRow(t, instance.id)).end_time).not.toBeNull();
    const reached = await t.sql<{ activity_id: string }>(
      'select distinct activity_id from wf_hist_activity where instance_id = $1 order by activity_id',
      [instance.id],
    );
    expect(reached.map((row) => row.activity_id)).toEqual(['e', 's', 'task']);
  });

  it('refuses a file where an element is lost to a duplicate id', async () => {
    const response = await call(t, t.auth, 'POST', 'deployment/deployXml', {
      xml: bpmn(
        'dup',
        `<startEvent id="s"/>${flow('f1', 's', 'dup')}<userTask id="dup"/>${flow('f2', 'dup', 'e')}<endEvent id="e"/>`,
      ),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual(
      expect.arrayContaining([{ field: 'xml', message: expect.stringContaining('duplicate ID') }]),
    );
  });

  it('refuses what is not run (a compensation boundary, a send task calling Java) naming them', async () => {
    const response = await call(t, t.auth, 'POST', 'deployment/deployXml', {
      xml: bpmn(
        'later',
        `<startEvent id="s"/>${flow('f1', 's', 'u')}<userTask id="u"/>${flow('f2', 'u', 'e')}<endEvent id="e"/>
         <boundaryEvent id="timer" attachedToRef="u"><compensateEventDefinition/></boundaryEvent>
         <sendTask id="send" camunda:class="org.example.Mailer"/>`,
      ),
    });
    expect(response.statusCode).toBe(400);
    expect((response.json().errors as { field: string }[]).map((error) => error.field)).toEqual(
      expect.arrayContaining(['timer', 'send']),
    );
  });

  it('refuses a multi-instance task without a collection', async () => {
    const response = await call(t, t.auth, 'POST', 'deployment/deployXml', {
      xml: bpmn(
        'loopless',
        `<startEvent id="s"/>${flow('f1', 's', 'u')}<userTask id="u"><multiInstanceLoopCharacteristics isSequential="false"/></userTask>${flow('f2', 'u', 'e')}<endEvent id="e"/>`,
      ),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([{ field: 'u', message: expect.stringContaining('u') }]);
  });
});

describe('models', () => {
  it('adds, lists, saves a diagram (problems per element), deploys and deletes a model', async () => {
    const added = await call(t, t.auth, 'POST', 'model/add', {
      name: '简单流程',
      key: 'simple_model',
      category: 'oa',
    });
    expect(added.statusCode, added.body).toBe(200);
    const model = added.json().data as { id: number; revision: number };
    const clash = await call(t, t.auth, 'POST', 'model/add', { name: 'again', key: 'simple_model' });
    expect(clash.statusCode).toBe(409);

    const notYet = await call(t, t.auth, 'POST', `model/deploy?id=${model.id}`);
    expect(notYet.statusCode).toBe(400);

    const bad = await call(t, t.auth, 'PUT', 'model/saveXml', {
      id: model.id,
      xml: fixture('refused-script-and-java.bpmn20.xml'),
    });
    expect(bad.statusCode).toBe(400);
    expect((bad.json().errors as { field: string }[]).map((error) => error.field)).toEqual([
      'calc',
      'callErp',
    ]);

    const xml = SIMPLE.replace('id="simple" name="simple"', 'id="simple_model" name="简单流程"');
    const saved = await call(t, t.auth, 'PUT', 'model/saveXml', { id: model.id, xml });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().data).toMatchObject({ hasXml: true, revision: model.revision + 1 });

    const stale = await call(t, t.auth, 'PUT', 'model/update', {
      id: model.id,
      name: 'x',
      key: 'simple_model',
      revision: model.revision,
    });
    expect(stale.statusCode).toBe(409);

    const deployed = await call(t, t.auth, 'POST', `model/deploy?id=${model.id}`);
    expect(deployed.statusCode, deployed.body).toBe(200);
    expect(deployed.json().data).toMatchObject({ key: 'simple_model', version: 1 });
    const listed = await call(t, t.auth, 'GET', 'model/query?key=simple_model');
    expect(listed.json().data.records[0]).toMatchObject({
      id: model.id,
      version: 1,
      deploymentId: deployed.json().data.deploymentId,
    });
    expect(listed.json().data.records[0].deploymentTime).toBeTruthy();

    const deleted = await call(t, t.auth, 'POST', `model/delete?id=${model.id}`);
    expect(deleted.json().data).toEqual({ deleted: 1 });
    expect((await call(t, t.auth, 'GET', 'model/query?key=simple_model')).json().data.records).toEqual([]);
  });
});

describe('definitions and deployments in use', () => {
  it('a suspended definition refuses starts with 409 until activated', async () => {
    const answer = await deploy(t, SIMPLE.replaceAll('simple', 'suspendable'));
    expect(
      (await call(t, t.auth, 'POST', `processdefinition/suspend?id=${answer.processDefinitionId}`))
        .statusCode,
    ).toBe(200);
    const refused = await call(t, t.auth, 'POST', 'processinstance/start', {
      processDefinitionKey: 'suspendable',
      description: 'd',
    });
    expect(refused.statusCode).toBe(409);
    expect(
      (await call(t, t.auth, 'POST', `processdefinition/activate?id=${answer.processDefinitionId}`))
        .statusCode,
    ).toBe(200);
    await start(t, t.auth, 'suspendable');
  });

  it('refuses to delete a deployment while an instance runs (409), deletes it once ended', async () => {
    const answer = await deploy(t, SIMPLE.replaceAll('simple', 'deletable'));
    const instance = await start(t, t.auth, 'deletable');
    const refused = await call(t, t.auth, 'POST', `deployment/delete?id=${answer.deploymentId}`);
    expect(refused.statusCode).toBe(409);
    await call(t, t.auth, 'POST', 'processinstance/terminate', { id: instance.id, comment: 'done with it' });
    const deleted = await call(t, t.auth, 'POST', `deployment/delete?id=${answer.deploymentId}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(
      await t.sql('select 1 from wf_definition where deployment_id = $1', [answer.deploymentId]),
    ).toEqual([]);
    expect((await call(t, t.auth, 'POST', `deployment/delete?id=${answer.deploymentId}`)).statusCode).toBe(
      404,
    );
    const listed = await call(t, t.auth, 'GET', 'deployment/query?pageSize=100');
    expect(listed.json().data.records.map((row: { id: number }) => row.id)).not.toContain(
      answer.deploymentId,
    );
  });

  it("keeps the administrators' calls from users without a grant (403), lets them list definitions to start", async () => {
    expect((await call(t, plain, 'POST', 'deployment/deployXml', { xml: SIMPLE })).statusCode).toBe(403);
    expect((await call(t, plain, 'GET', 'model/query')).statusCode).toBe(403);
    expect((await call(t, plain, 'GET', 'deployment/query')).statusCode).toBe(403);
    const definitions = await call(t, plain, 'GET', 'processdefinition/query?latestOnly=true');
    expect(definitions.statusCode).toBe(200);
    expect(definitions.json().data.total).toBeGreaterThan(0);
  });
});

describe('tables updated in place', () => {
  const fillfactors = async (): Promise<Record<string, string | null>> =>
    Object.fromEntries(
      (
        await t.sql<{ relname: string; fillfactor: string | null }>(
          `select relname, (select split_part(o, '=', 2) from unnest(reloptions) o where o like 'fillfactor=%') as fillfactor
           from pg_class where relname in ('wf_instance', 'wf_execution', 'wf_task', 'wf_hist_activity', 'wf_comment')`,
        )
      ).map((row) => [row.relname, row.fillfactor]),
    );

  it('leaves room on each page for the updates of instances, tokens, tasks and history rows', async () => {
    expect(await fillfactors()).toEqual({
      wf_instance: '70',
      wf_execution: '70',
      wf_task: '70',
      wf_hist_activity: '70',
      wf_comment: null,
    });
  });

  it('sets it on an existing database once, and nothing at the next start', async () => {
    await t.sql('alter table wf_task reset (fillfactor)');
    const first = await migrate(t.app.ctx.db, workflowTableSpecs());
    expect(first.applied).toEqual(['alter table "wf_task" set (fillfactor = 70)']);
    expect((await fillfactors()).wf_task).toBe('70');
    expect((await migrate(t.app.ctx.db, workflowTableSpecs())).applied).toEqual([]);
  });
});

/** A file of several processes: the order process calls the shipping process of the same file. */
const SEVERAL = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="test">
  <process id="several_order" name="Order" isExecutable="true">
    <startEvent id="s"/>${flow('o1', 's', 'ship')}
    <callActivity id="ship" calledElement="several_shipping"/>${flow('o2', 'ship', 'confirm')}
    <userTask id="confirm" name="Confirm" camunda:assignee="\${initiator}"/>${flow('o3', 'confirm', 'e')}
    <endEvent id="e"/>
  </process>
  <process id="several_shipping" name="Shipping" isExecutable="true">
    <startEvent id="ss"/>${flow('p1', 'ss', 'pack')}
    <userTask id="pack" name="Pack" camunda:assignee="admin"/>${flow('p2', 'pack', 'se')}
    <endEvent id="se"/>
  </process>
  <process id="several_sketch" name="Sketch" isExecutable="false">
    <startEvent id="ks"/>
  </process>
</definitions>`;

describe('files of several processes (issue 36)', () => {
  it('deploys each executable process as a definition of its own, and one calls the other', async () => {
    const answer = await deploy(t, SEVERAL);
    expect(answer).toMatchObject({
      key: 'several_order',
      version: 1,
      definitions: [
        { key: 'several_order', version: 1, processDefinitionId: answer.processDefinitionId },
        { key: 'several_shipping', version: 1 },
      ],
    });
    const definitions = await t.sql<{ process_key: string; deployment_id: number }>(
      "select process_key, deployment_id from wf_definition where process_key like 'several%' order by id",
    );
    expect(definitions).toEqual([
      { process_key: 'several_order', deployment_id: answer.deploymentId },
      { process_key: 'several_shipping', deployment_id: answer.deploymentId },
    ]);
    const order = await start(t, t.auth, 'several_order');
    const [child] = await t.sql<{ id: number }>('select id from wf_instance where super_instance_id = $1', [
      order.id,
    ]);
    const [pack] = await openTasks(t, child?.id ?? 0);
    expect(pack?.activity_id).toBe('pack');
    expect((await complete(t, t.auth, pack?.id ?? 0)).statusCode).toBe(200);
    const [confirm] = await openTasks(t, order.id);
    expect(confirm?.activity_id).toBe('confirm');
    expect((await complete(t, t.auth, confirm?.id ?? 0)).statusCode).toBe(200);
    expect((await instanceRow(t, order.id)).status).toBe('over');
    // The second process starts on its own too; the diagram-only one is no definition.
    expect((await start(t, t.auth, 'several_shipping')).status).toBe('running');
    const sketch = await call(t, t.auth, 'POST', 'processinstance/start', {
      processDefinitionKey: 'several_sketch',
      description: 'a diagram',
    });
    expect(sketch.statusCode).toBe(404);
  });

  it('keeps a diagram of non-executable processes as a model, and refuses to deploy it saying why', async () => {
    const diagram = SEVERAL.replaceAll('isExecutable="true"', 'isExecutable="false"');
    const refused = await call(t, t.auth, 'POST', 'deployment/deployXml', { xml: diagram });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual([
      { field: 'xml', message: expect.stringContaining('isExecutable="false"') },
    ]);
    const added = await call(t, t.auth, 'POST', 'model/add', { name: 'Sketch', key: 'several_order' });
    expect(added.statusCode, added.body).toBe(200);
    const model = added.json().data as { id: number };
    const saved = await call(t, t.auth, 'PUT', 'model/saveXml', { id: model.id, xml: diagram });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().data.warnings).toEqual([
      { field: 'xml', message: expect.stringContaining('只能保存为模型') },
    ]);
    const deployed = await call(t, t.auth, 'POST', `model/deploy?id=${model.id}`);
    expect(deployed.statusCode).toBe(400);
    expect(deployed.json().errors).toEqual([
      { field: 'xml', message: expect.stringContaining('isExecutable="false"') },
    ]);
  });
});
