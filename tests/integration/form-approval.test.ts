import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';
import { firstSheetRows } from '../support/workbook.js';
import { bearer, bpmn, call, complete, deploy, flow, instanceRow, openTasks } from '../support/workflow.js';

/**
 * Approval of records of a designed form (issue 36): a form's schema names a process the tenant
 * has deployed (x-entity.workflow, chosen in the designer), checked at 校验 and 发布 (an unknown
 * key is a 400 naming /formContent/x-entity/workflow/process); its published list gets the
 * approval status and 提交审批 (POST /api/online/<form>/submitApproval?id=) as a schema's entity
 * does: pending while the instance runs (read-only), approved when it ends, a role the publish
 * grants may submit, a form without a process has no 提交审批.
 */

let t: TestApp;
type Json = Record<string, unknown>;
const FORM = 'expenseclaim';
const ONLINE = `/api/online/${FORM}`;

const request = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, auth = t.auth) =>
  t.request({
    method,
    url,
    headers: { ...auth, 'accept-language': 'en' },
    ...(payload === undefined ? {} : { payload: payload as Json }),
  });
const dataOf = <T = Json>(response: LightMyRequestResponse): T => (response.json() as { data: T }).data;

const claimForm = (workflow?: Json): Json => ({
  title: 'Expense claim',
  type: 'object',
  required: ['claimant'],
  properties: {
    claimant: { type: 'string', title: 'Claimant', maxLength: 40 },
    amount: { type: 'integer', title: 'Amount', minimum: 0 },
    note: { type: 'string', title: 'Note', maxLength: 200 },
  },
  ...(workflow ? { 'x-entity': { workflow } } : {}),
});

const PROCESS = bpmn(
  'expenseApproval',
  `<startEvent id="start"/>${flow('f1', 'start', 'approve')}
  <userTask id="approve" name="Approve" camunda:assignee="admin"/>${flow('f2', 'approve', 'end')}
  <endEvent id="end"/>`,
);

let formId = 0;
let formVersion = 0;

beforeAll(async () => {
  t = await startTestApp();
  await deploy(t, PROCESS);
  const added = await request('POST', '/api/generator/form/add', {
    formCode: FORM,
    formName: 'Expense claim',
    formContent: claimForm({ process: 'noSuchProcess' }),
  });
  expect(added.statusCode, added.body).toBe(200);
  formId = Number(dataOf(added).id);
  formVersion = Number(dataOf(added).version);
}, 300_000);
afterAll(async () => {
  await t?.close();
});

const expectProcessRefused = (answer: LightMyRequestResponse): void => {
  expect(answer.statusCode, answer.body).toBe(400);
  const errors = (answer.json() as { errors: { field: string; message: string }[] }).errors;
  expect(errors).toEqual([
    {
      field: '/formContent/x-entity/workflow/process',
      message: expect.stringContaining('"noSuchProcess" is not deployed'),
    },
  ]);
};

describe('a designed form with an approval process', () => {
  it('an unknown process is refused at check and at publish, naming the field', async () => {
    expectProcessRefused(
      await request('POST', '/api/generator/form/check', {
        id: formId,
        formContent: claimForm({ process: 'noSuchProcess' }),
      }),
    );
    expectProcessRefused(
      await request('POST', '/api/generator/form/publish', { id: formId, menuParent: 'formgenerator' }),
    );
    expect(await t.sql(`select 1 from sys_menu where menu_code = $1`, [`online_${FORM}`])).toEqual([]);
    // a task's edit naming no field of the form is the meta-check's
    const badEdit = await request('POST', '/api/generator/form/check', {
      id: formId,
      formContent: claimForm({ process: 'expenseApproval', edit: { approve: ['nosuchfield'] } }),
    });
    expect(badEdit.json()).toMatchObject({ data: { isValid: false } });
  });

  it('a deployed process checks and publishes; the list has the status, a new record is a draft', async () => {
    const content = claimForm({ process: 'expenseApproval', edit: { approve: ['amount'] } });
    const checked = await request('POST', '/api/generator/form/check', { id: formId, formContent: content });
    expect(checked.statusCode, checked.body).toBe(200);
    expect(dataOf(checked)).toMatchObject({ isValid: true, errors: [] });
    const saved = await request('PUT', '/api/generator/form/update', {
      id: formId,
      version: formVersion,
      formContent: content,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const published = await request('POST', '/api/generator/form/publish', {
      id: formId,
      menuParent: 'formgenerator',
      roles: ['ROLE_SYS_BUYER'],
    });
    expect(published.statusCode, published.body).toBe(200);
    const added = await request('POST', `${ONLINE}/add`, { claimant: 'Li Lei', amount: 120 });
    expect(added.statusCode, added.body).toBe(200);
    expect(dataOf(added).approvalStatus).toBe('draft');
    // the schema the list is drawn from names the process and the status column
    const schemas = await request('GET', '/api/schemas');
    const schema = JSON.stringify(schemas.json());
    expect(schema).toContain('"expenseApproval"');
  });

  it('提交审批 starts the process; the record is read-only while under approval and approved at its end', async () => {
    const added = await request('POST', `${ONLINE}/add`, { claimant: 'Han Meimei', amount: 300 });
    const id = Number(dataOf(added).id);
    const submitted = await request('POST', `${ONLINE}/submitApproval?id=${id}`);
    expect(submitted.statusCode, submitted.body).toBe(200);
    const instance = dataOf<{ instance: { id: number; businessKey: string } }>(submitted).instance;
    expect(instance.businessKey).toBe(`${FORM}:${id}`);
    const read = async (): Promise<Json> => {
      const page = await request('GET', `${ONLINE}/query?id=${id}`);
      return dataOf<{ records: Json[] }>(page).records[0] ?? {};
    };
    expect(await read()).toMatchObject({ approvalStatus: 'pending', approvalInstance: instance.id });
    const current = await read();
    const update = await request('PUT', `${ONLINE}/update`, { id, version: current.version, note: 'x' });
    expect(update.statusCode).toBe(409);
    expect(update.json().message).toContain('Han Meimei');
    expect((await request('POST', `${ONLINE}/submitApproval?id=${id}`)).statusCode).toBe(409);
    // the task screen shows the record of the form
    const record = await call(t, t.auth, 'GET', `processinstance/record?id=${instance.id}`);
    expect(record.statusCode, record.body).toBe(200);
    expect(dataOf<{ entity: string; record: Json; editable: string[] }>(record)).toMatchObject({
      entity: FORM,
      record: { claimant: 'Han Meimei' },
      editable: ['amount'],
    });
    const [task] = await openTasks(t, instance.id);
    expect(task?.activity_id).toBe('approve');
    const done = await complete(t, t.auth, task?.id ?? 0);
    expect(done.statusCode, done.body).toBe(200);
    expect((await instanceRow(t, instance.id)).status).toBe('over');
    expect((await read()).approvalStatus).toBe('approved');
    const approved = await request('GET', `${ONLINE}/query?approvalStatus=approved`);
    expect(dataOf<{ records: Json[] }>(approved).records.map((row) => row.id)).toEqual([id]);
    // the export writes the label
    const exported = await t.request({
      method: 'POST',
      url: `${ONLINE}/export`,
      headers: { ...t.auth, 'accept-language': 'zh' },
      payload: { claimant: 'Han Meimei' },
    });
    expect(exported.statusCode, exported.body).toBe(200);
    const [header = [], row = []] = await firstSheetRows(exported.rawPayload);
    expect(row[header.indexOf('审批状态')]).toBe('已通过');
  });

  it('a role the publish grants submits; a bad key is a 400 naming it; unknown records a 404', async () => {
    const buyer = bearer((await createUserWithRole(t, 'fa_buyer', 'ROLE_SYS_BUYER')).token);
    const added = await request('POST', `${ONLINE}/add`, { claimant: 'Buyer', amount: 5 }, buyer);
    expect(added.statusCode, added.body).toBe(200);
    const submitted = await request(
      'POST',
      `${ONLINE}/submitApproval?id=${dataOf(added).id}`,
      undefined,
      buyer,
    );
    expect(submitted.statusCode, submitted.body).toBe(200);
    const bad = await request('POST', `${ONLINE}/submitApproval?id=abc`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([expect.objectContaining({ field: '/id' })]);
    expect((await request('POST', `${ONLINE}/submitApproval?id=99999999`)).statusCode).toBe(404);
    // someone without the form's grants is refused
    const tourist = bearer((await createUserWithRole(t, 'fa_tourist', 'ROLE_SYS_TOURIST')).token);
    const refused = await request(
      'POST',
      `${ONLINE}/submitApproval?id=${dataOf(added).id}`,
      undefined,
      tourist,
    );
    expect(refused.statusCode).toBe(403);
  });

  it('a published form without a process has no 提交审批', async () => {
    const added = await request('POST', '/api/generator/form/add', {
      formCode: 'plainclaim',
      formName: 'Plain claim',
      formContent: claimForm(),
    });
    expect(added.statusCode, added.body).toBe(200);
    const published = await request('POST', '/api/generator/form/publish', {
      id: dataOf(added).id,
      menuParent: 'formgenerator',
    });
    expect(published.statusCode, published.body).toBe(200);
    const row = await request('POST', '/api/online/plainclaim/add', { claimant: 'x' });
    expect(dataOf(row).approvalStatus).toBeUndefined();
    expect(
      (await request('POST', `/api/online/plainclaim/submitApproval?id=${dataOf(row).id}`)).statusCode,
    ).toBe(404);
  });
});
