import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../support/app.js';
import { bearer, bpmn, call, flow, openTasks } from '../support/workflow.js';

/**
 * Issue 36: a model's form (usedForm) is its process's form. model/add and model/update take an
 * entity or a published designed form of the caller's tenant only (400 naming /usedForm); deploying
 * the model makes it the start event's form unless that event names its own; the instance keeps
 * the form's values and its detail (what every task page reads) names the form.
 */
let t: TestApp;
let betaAdmin: { authorization: string };

const FORM = 'ufleave';
const DRAFT = 'ufdraft';

// start → review (the admin) → end; the start event names no form
const PLAIN = (key: string) =>
  bpmn(
    key,
    `<startEvent id="s"/>${flow('f0', 's', 'review')}
     <userTask id="review" name="审核" camunda:assignee="admin"/>${flow('f1', 'review', 'e')}
     <endEvent id="e"/>`,
  );

const fieldsOf = (response: LightMyRequestResponse): string[] =>
  (response.json<{ errors?: { field: string }[] }>().errors ?? []).map((error) => error.field);

async function addForm(code: string): Promise<number> {
  const response = await t.request({
    method: 'POST',
    url: '/api/generator/form/add',
    headers: t.auth,
    payload: {
      formCode: code,
      formName: `Leave ${code}`,
      formContent: {
        title: 'Leave',
        type: 'object',
        required: ['applicant'],
        properties: {
          applicant: { type: 'string', title: 'Applicant', maxLength: 40 },
          days: { type: 'integer', title: 'Days', minimum: 1 },
        },
      },
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: { id: number } }>().data.id;
}

async function addModel(
  who: { authorization: string },
  key: string,
  usedForm?: string,
): Promise<LightMyRequestResponse> {
  return call(t, who, 'POST', 'model/add', {
    name: key,
    key,
    ...(usedForm === undefined ? {} : { usedForm }),
  });
}

/** A model with the diagram `xml` and the form `usedForm`, deployed: its deploy answer. */
async function deployedModel(key: string, xml: string, usedForm: string) {
  const added = await addModel(t.auth, key, usedForm);
  expect(added.statusCode, added.body).toBe(200);
  const id = added.json<{ data: { id: number } }>().data.id;
  const saved = await call(t, t.auth, 'PUT', 'model/saveXml', { id, xml });
  expect(saved.statusCode, saved.body).toBe(200);
  const deployed = await call(t, t.auth, 'POST', `model/deploy?id=${id}`);
  return { id, deployed };
}

const startFormKeyOf = async (key: string): Promise<unknown> => {
  const response = await call(t, t.auth, 'GET', `processdefinition/query?key=${key}&latestOnly=true`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: { records: { startFormKey: unknown }[] } }>().data.records[0]?.startFormKey;
};

/** Publishes a designed form (the administrator's call), asserting it is published. */
async function publishForm(id: number): Promise<void> {
  const published = await t.request({
    method: 'POST',
    url: '/api/generator/form/publish',
    headers: t.auth,
    payload: { id, menuParent: 'formgenerator', roles: [] },
  });
  expect(published.statusCode, published.body).toBe(200);
}

beforeAll(async () => {
  t = await startTestApp();
  const id = await addForm(FORM);
  await publishForm(id);
  await addForm(DRAFT);
  const tenant = await t.request({
    method: 'POST',
    url: '/api/admin/systenant/add',
    headers: t.auth,
    payload: { tenantCode: 'ufbeta', tenantName: 'UF Beta' },
  });
  expect(tenant.statusCode, tenant.body).toBe(200);
  const admin = tenant.json<{ data: { admin: { username: string; initialPassword: string } } }>().data.admin;
  const signedIn = await t.signIn(admin.username, admin.initialPassword, 'ufbeta');
  expect(signedIn.statusCode, signedIn.body).toBe(200);
  betaAdmin = bearer(signedIn.json<{ access_token: string }>().access_token);
}, 300_000);
afterAll(async () => {
  await t?.close();
});

describe('model/add and model/update: usedForm names a form of the tenant', () => {
  it('refuses a code naming no form, a draft and another tenant’s form with 400 naming usedForm', async () => {
    for (const [who, code] of [
      [t.auth, 'uf_no_such_form'],
      [t.auth, DRAFT],
      [betaAdmin, FORM],
    ] as const) {
      const response = await addModel(who, 'uf_refused', code);
      expect(response.statusCode, `${code}: ${response.body}`).toBe(400);
      expect(fieldsOf(response), code).toEqual(['/usedForm']);
    }
    expect(await t.sql("select id from wf_model where model_key = 'uf_refused'")).toEqual([]);
  });

  it('accepts a published designed form and an entity, and an empty one as none; update refuses an unknown one', async () => {
    const added = await addModel(t.auth, 'uf_accepted', FORM);
    expect(added.statusCode, added.body).toBe(200);
    const model = added.json<{ data: { id: number; revision: number; usedForm: unknown } }>().data;
    expect(model.usedForm).toBe(FORM);
    const entity = await addModel(betaAdmin, 'uf_entity', 'sysparam');
    expect(entity.statusCode, entity.body).toBe(200);
    const none = await addModel(t.auth, 'uf_none', '');
    expect(none.statusCode, none.body).toBe(200);
    expect(none.json<{ data: { usedForm: unknown } }>().data.usedForm).toBeNull();
    const update = (usedForm: string, revision: number) =>
      call(t, t.auth, 'PUT', 'model/update', {
        id: model.id,
        revision,
        name: 'uf_accepted',
        key: 'uf_accepted',
        usedForm,
      });
    const refused = await update('uf_no_such_form', model.revision);
    expect(refused.statusCode, refused.body).toBe(400);
    expect(fieldsOf(refused)).toEqual(['/usedForm']);
    const changed = await update('sysparam', model.revision);
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json<{ data: { usedForm: unknown } }>().data.usedForm).toBe('sysparam');
  });

  it('model/import (a copy) refuses an unknown one too', async () => {
    const response = await call(t, t.auth, 'POST', 'model/import', {
      name: 'uf_import',
      key: 'uf_import',
      usedForm: 'uf_no_such_form',
      xml: PLAIN('uf_import'),
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(fieldsOf(response)).toEqual(['/usedForm']);
  });
});

describe('model/deploy: the model’s form is the start form', () => {
  it('a start event naming no form gets usedForm, its own formKey wins, a file deployed directly gets none', async () => {
    const plain = await deployedModel('uf_flow', PLAIN('uf_flow'), FORM);
    expect(plain.deployed.statusCode, plain.deployed.body).toBe(200);
    expect(await startFormKeyOf('uf_flow')).toBe(FORM);
    const own = bpmn(
      'uf_own',
      `<startEvent id="s" camunda:formKey="sysparam"/>${flow('f0', 's', 'e')}<endEvent id="e"/>`,
    );
    const owned = await deployedModel('uf_own', own, FORM);
    expect(owned.deployed.statusCode, owned.deployed.body).toBe(200);
    expect(await startFormKeyOf('uf_own')).toBe('sysparam');
    const direct = await call(t, t.auth, 'POST', 'deployment/deployXml', { xml: PLAIN('uf_direct') });
    expect(direct.statusCode, direct.body).toBe(200);
    expect(await startFormKeyOf('uf_direct')).toBeNull();
  });

  it('the start checks the form’s values, the instance keeps them and names the form for its tasks', async () => {
    const bad = await call(t, t.auth, 'POST', 'processinstance/start', {
      processDefinitionKey: 'uf_flow',
      description: 'leave',
      formData: { days: 0 },
    });
    expect(bad.statusCode, bad.body).toBe(400);
    const started = await call(t, t.auth, 'POST', 'processinstance/start', {
      processDefinitionKey: 'uf_flow',
      description: 'leave',
      formData: { applicant: 'Zhang', days: 3 },
    });
    expect(started.statusCode, started.body).toBe(200);
    const instanceId = started.json<{ data: { id: number } }>().data.id;
    // the approver's task page reads the instance's start form and its values
    const [task] = await openTasks(t, instanceId);
    expect(task?.activity_id).toBe('review');
    const detail = await call(t, t.auth, 'GET', `processinstance/detail?id=${instanceId}`);
    expect(detail.statusCode, detail.body).toBe(200);
    const data = detail.json<{
      data: { startFormKey: unknown; variables: { name: string; value: unknown }[] };
    }>().data;
    expect(data.startFormKey).toBe(FORM);
    expect(
      Object.fromEntries(data.variables.map((variable) => [variable.name, variable.value])),
    ).toMatchObject({ applicant: 'Zhang', days: 3 });
  });

  it('a form unpublished since the model named it refuses the deploy with 400 naming usedForm', async () => {
    const id = await addForm('ufgone');
    await publishForm(id);
    const added = await addModel(t.auth, 'uf_gone', 'ufgone');
    expect(added.statusCode, added.body).toBe(200);
    const modelId = added.json<{ data: { id: number } }>().data.id;
    const saved = await call(t, t.auth, 'PUT', 'model/saveXml', { id: modelId, xml: PLAIN('uf_gone') });
    expect(saved.statusCode, saved.body).toBe(200);
    const unpublished = await t.request({
      method: 'POST',
      url: `/api/generator/form/unpublish?id=${id}`,
      headers: t.auth,
    });
    expect(unpublished.statusCode, unpublished.body).toBe(200);
    const deployed = await call(t, t.auth, 'POST', `model/deploy?id=${modelId}`);
    expect(deployed.statusCode, deployed.body).toBe(400);
    expect(fieldsOf(deployed)).toEqual(['/usedForm']);
    expect(await t.sql("select id from wf_definition where process_key = 'uf_gone'")).toEqual([]);
  });
});
