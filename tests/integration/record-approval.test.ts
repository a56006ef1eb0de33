import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { data, errorFields, type Page, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { fileUpload } from '../support/multipart.js';
import { firstSheetRows } from '../support/workbook.js';
import { createUserWithRole } from '../support/users.js';
import { bearer, call, deploy, instanceRow, openTasks } from '../support/workflow.js';

/**
 * Approval of records (x-entity.workflow, issue 36): a purchase announcement (schemas/purchase,
 * process purchaseApproval, shipped as schemas/processes/purchaseApproval.bpmn and deployed by the seed) is submitted from its list
 * (提交审批), its approvalStatus follows the instance (pending, approved, rejected, draft again),
 * it is read-only while under approval (update, delete, import overwrite, a second submit refused
 * with a 409 naming it) but for the fields the open task may edit from the task screen, and the
 * business-record view of the task screen holds the viewer's row data scope (issue 32: 404 outside).
 */
let t: TestApp;
let auditor: { authorization: string };
const PURCHASES = '/api/notification/purchase';
const AUDIT_ROLE = 'ROLE_PURCHASE_AUDIT';
let auditRoleId = 0;

const admin = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
  t.request({
    method,
    url,
    headers: { ...t.auth, 'accept-language': 'en' },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

async function addPurchase(title: string): Promise<Row> {
  const added = await admin('POST', `${PURCHASES}/add`, { title, buyerName: 'ra buyer', budget: '100.00' });
  expect(added.statusCode, added.body).toBe(200);
  return data(added);
}

async function purchase(id: number): Promise<Row> {
  const page = await admin('GET', `${PURCHASES}/query?id=${id}`);
  expect(page.statusCode, page.body).toBe(200);
  const [row] = data<Page>(page).records;
  expect(row).toBeDefined();
  return row as Row;
}

const submit = (id: number): Promise<LightMyRequestResponse> =>
  admin('POST', `${PURCHASES}/submitApproval?id=${id}`);

async function submitted(id: number): Promise<number> {
  const answer = await submit(id);
  expect(answer.statusCode, answer.body).toBe(200);
  const instance = data<{ instance: { id: number; businessKey: string } }>(answer).instance;
  expect(instance.businessKey).toBe(`purchase:${id}`);
  return instance.id;
}

/** The auditor claims the instance's one open task (a candidate of ROLE_PURCHASE_AUDIT). */
async function claimed(instanceId: number): Promise<number> {
  const [task] = await openTasks(t, instanceId);
  expect(task?.activity_id).toBe('audit');
  const claim = await call(t, auditor, 'POST', `task/claimTask?id=${task?.id}`);
  expect(claim.statusCode, claim.body).toBe(200);
  return task?.id ?? 0;
}

async function importSheet(rows: string[][]): Promise<LightMyRequestResponse> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('data');
  for (const row of rows) sheet.addRow(row);
  const form = fileUpload('purchases.xlsx', Buffer.from(await workbook.xlsx.writeBuffer()));
  return t.request({
    method: 'POST',
    url: `${PURCHASES}/import?updateByKey=true`,
    payload: form.payload,
    headers: { ...form.headers, ...t.auth, 'accept-language': 'en' },
  });
}

beforeAll(async () => {
  t = await startTestApp();
  const role = await admin('POST', '/api/admin/sysrole/add', { roleCode: AUDIT_ROLE, roleName: '采购审核' });
  expect(role.statusCode, role.body).toBe(200);
  auditRoleId = Number(data(role).id);
  auditor = bearer((await createUserWithRole(t, 'ra_auditor', AUDIT_ROLE)).token);
  // No deployment by hand: the seed deployed the product's purchaseApproval (schemas/processes).
}, 300_000);
afterAll(async () => {
  await t?.close();
});

describe('submitting a record for approval (提交审批)', () => {
  it('a new record is a draft; submitting starts the process with the record as business key and its fields as variables', async () => {
    const record = await addPurchase('ra-submit');
    expect(record.approvalStatus).toBe('draft');
    const id = Number(record.id);
    const instanceId = await submitted(id);
    const after = await purchase(id);
    expect(after).toMatchObject({ approvalStatus: 'pending', approvalInstance: instanceId });
    expect(Number(after.version)).toBe(Number(record.version) + 1);
    const variables = await t.sql<{ name: string; value: unknown }>(
      'select name, value from wf_variable where instance_id = $1',
      [instanceId],
    );
    const byName = Object.fromEntries(variables.map((row) => [row.name, row.value]));
    expect(byName).toMatchObject({
      title: 'ra-submit',
      buyerName: 'ra buyer',
      budget: '100.00',
      initiator: 'admin',
    });
    // the list filters on the status
    const pending = await admin('GET', `${PURCHASES}/query?approvalStatus=pending&title=ra-submit`);
    expect(data<Page>(pending).records.map((row) => row.id)).toEqual([id]);
  });

  it('a second submit while under approval is a 409 naming the record; an unknown record a 404', async () => {
    const id = Number((await addPurchase('ra-twice')).id);
    await submitted(id);
    const again = await submit(id);
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toContain('ra-twice');
    expect(again.json().message).toContain('under approval');
    expect((await submit(99_999_999)).statusCode).toBe(404);
  });

  it('is refused to a caller without the grant of the list update', async () => {
    const id = Number((await addPurchase('ra-nogrant')).id);
    const refused = await t.request({
      method: 'POST',
      url: `${PURCHASES}/submitApproval?id=${id}`,
      headers: auditor,
    });
    expect(refused.statusCode).toBe(403);
    expect((await purchase(id)).approvalStatus).toBe('draft');
  });
});

describe('the status follows the instance', () => {
  it('approved when the process reaches its end (the auditor completes 审核), in the same transaction', async () => {
    const id = Number((await addPurchase('ra-approve')).id);
    const instanceId = await submitted(id);
    const taskId = await claimed(instanceId);
    const done = await call(t, auditor, 'POST', 'task/completeTask', { id: taskId, comment: '同意' });
    expect(done.statusCode, done.body).toBe(200);
    expect((await instanceRow(t, instanceId)).status).toBe('over');
    expect((await purchase(id)).approvalStatus).toBe('approved');
    // approved: editable again, but not submitted a second time
    const again = await submit(id);
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toContain('approved');
  });

  it('rejected when the task is rejected (驳回); a rejected record may be submitted again', async () => {
    const id = Number((await addPurchase('ra-reject')).id);
    const instanceId = await submitted(id);
    const taskId = await claimed(instanceId);
    const rejected = await call(t, auditor, 'POST', 'task/rejectTask', { id: taskId, comment: '预算不清' });
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect((await instanceRow(t, instanceId)).status).toBe('rejected');
    expect((await purchase(id)).approvalStatus).toBe('rejected');
    const second = await submitted(id);
    expect(second).not.toBe(instanceId);
    expect(await purchase(id)).toMatchObject({ approvalStatus: 'pending', approvalInstance: second });
  });

  it('draft again when the initiator withdraws or an administrator terminates the instance', async () => {
    const withdrawnId = Number((await addPurchase('ra-withdraw')).id);
    const withdrawn = await submitted(withdrawnId);
    const back = await call(t, t.auth, 'POST', 'processinstance/withdraw', {
      id: withdrawn,
      comment: '撤回',
    });
    expect(back.statusCode, back.body).toBe(200);
    expect((await purchase(withdrawnId)).approvalStatus).toBe('draft');
    const terminatedId = Number((await addPurchase('ra-terminate')).id);
    const terminated = await submitted(terminatedId);
    const ended = await call(t, t.auth, 'POST', 'processinstance/terminate', {
      id: terminated,
      comment: '终止',
    });
    expect(ended.statusCode, ended.body).toBe(200);
    expect((await purchase(terminatedId)).approvalStatus).toBe('draft');
  });

  it('an instance started by hand with the same business key changes nothing', async () => {
    const id = Number((await addPurchase('ra-byhand')).id);
    const started = await call(t, t.auth, 'POST', 'processinstance/start', {
      processDefinitionKey: 'purchaseApproval',
      businessKey: `purchase:${id}`,
      description: 'by hand',
    });
    expect(started.statusCode, started.body).toBe(200);
    expect((await purchase(id)).approvalStatus).toBe('draft');
    const taskId = await claimed(Number(started.json().data.id));
    expect(
      (await call(t, auditor, 'POST', 'task/completeTask', { id: taskId, comment: 'ok' })).statusCode,
    ).toBe(200);
    expect((await purchase(id)).approvalStatus).toBe('draft');
  });
});

describe('read-only while under approval', () => {
  it('update, delete and an import overwriting it are refused naming the record; nothing changes', async () => {
    const record = await addPurchase('ra-locked');
    const id = Number(record.id);
    await submitted(id);
    const pending = await purchase(id);
    const update = await admin('PUT', `${PURCHASES}/update`, {
      id,
      version: pending.version,
      title: 'changed',
    });
    expect(update.statusCode).toBe(409);
    expect(update.json().message).toContain('ra-locked');
    expect(update.json().message).toContain('under approval');
    const remove = await admin('POST', `${PURCHASES}/delete?id=${id}`);
    expect(remove.statusCode).toBe(409);
    expect(remove.json().message).toContain('under approval');
    const imported = await importSheet([
      ['ID', 'Project', 'Buyer'],
      [String(id), 'ra-locked overwritten', 'ra buyer'],
    ]);
    expect(imported.statusCode).toBe(400);
    expect(imported.body).toContain('under approval');
    expect(await purchase(id)).toMatchObject({ title: 'ra-locked', approvalStatus: 'pending' });
  });

  it("the open task's assignee edits the fields the task allows from the task screen, and no other", async () => {
    const id = Number((await addPurchase('ra-edit')).id);
    const instanceId = await submitted(id);
    // before the auditor holds the task: nothing to edit
    const seen = await call(t, auditor, 'GET', `processinstance/record?id=${instanceId}`);
    expect(seen.statusCode, seen.body).toBe(200);
    expect(data(seen)).toMatchObject({ entity: 'purchase', key: id, taskId: null, editable: [] });
    expect(data<{ record: Row }>(seen).record).toMatchObject({ title: 'ra-edit', approvalStatus: 'pending' });
    const taskId = await claimed(instanceId);
    const mine = data<{ record: Row; taskId: number; editable: string[] }>(
      await call(t, auditor, 'GET', `processinstance/record?id=${instanceId}`),
    );
    expect(mine.taskId).toBe(taskId);
    expect([...mine.editable].sort()).toEqual(['budget', 'deadline']);
    const locked = await call(t, auditor, 'POST', 'task/updateRecord', {
      id: taskId,
      record: { version: mine.record.version, title: 'not allowed' },
    });
    expect(locked.statusCode).toBe(403);
    expect(errorFields(locked)).toEqual(['/title']);
    const saved = await call(t, auditor, 'POST', 'task/updateRecord', {
      id: taskId,
      record: { version: mine.record.version, budget: '88.50' },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(await purchase(id)).toMatchObject({
      budget: '88.50',
      title: 'ra-edit',
      approvalStatus: 'pending',
    });
    const [variable] = await t.sql<{ value: unknown }>(
      "select value from wf_variable where instance_id = $1 and name = 'budget'",
      [instanceId],
    );
    expect(variable?.value).toBe('88.50');
    // someone who does not hold the task edits nothing
    const notMine = await call(t, t.auth, 'POST', 'task/updateRecord', {
      id: taskId,
      record: { version: Number(mine.record.version) + 1, budget: '1.00' },
    });
    expect(notMine.statusCode).toBe(403);
    expect((await purchase(id)).budget).toBe('88.50');
  });
});

describe("the business-record view holds the viewer's row data scope (issue 32)", () => {
  it('a viewer whose scope leaves the record out gets a 404 and no data; within it, the record', async () => {
    const id = Number((await addPurchase('ra-scope')).id);
    const instanceId = await submitted(id);
    // The auditor's role sees only its own purchases: the admin's record lies outside.
    const scoped = await admin('POST', '/api/admin/sysrole/authorizeDataScopeToRole', {
      roleId: auditRoleId,
      rows: [{ menuCode: 'purchase', scope: 'self' }],
    });
    expect(scoped.statusCode, scoped.body).toBe(200);
    try {
      const outside = await call(t, auditor, 'GET', `processinstance/record?id=${instanceId}`);
      expect(outside.statusCode).toBe(404);
      expect(outside.body).not.toContain('ra-scope');
      const taskId = await claimed(instanceId);
      const edit = await call(t, auditor, 'POST', 'task/updateRecord', {
        id: taskId,
        record: { version: 1, budget: '1.00' },
      });
      expect(edit.statusCode).toBe(404);
    } finally {
      const all = await admin('POST', '/api/admin/sysrole/authorizeDataScopeToRole', {
        roleId: auditRoleId,
        rows: [],
      });
      expect(all.statusCode, all.body).toBe(200);
    }
    const inside = await call(t, auditor, 'GET', `processinstance/record?id=${instanceId}`);
    expect(inside.statusCode, inside.body).toBe(200);
    expect(data<{ record: Row }>(inside).record.title).toBe('ra-scope');
  });

  it('someone who takes no part in the instance is refused (403); an instance approving no record is a 404', async () => {
    const id = Number((await addPurchase('ra-outsider')).id);
    const instanceId = await submitted(id);
    const outsider = bearer((await createUserWithRole(t, 'ra_outsider', 'ROLE_SYS_TOURIST')).token);
    expect((await call(t, outsider, 'GET', `processinstance/record?id=${instanceId}`)).statusCode).toBe(403);
    const started = await call(t, t.auth, 'POST', 'processinstance/start', {
      processDefinitionKey: 'purchaseApproval',
      description: 'no record',
    });
    const plain = await call(t, t.auth, 'GET', `processinstance/record?id=${started.json().data.id}`);
    expect(plain.statusCode).toBe(404);
  });
});

describe('the export', () => {
  it('writes the status as the list shows it, in the language of the export, not its code', async () => {
    await addPurchase('ra-export-1');
    const pending = Number((await addPurchase('ra-export-2')).id);
    const approved = Number((await addPurchase('ra-export-3')).id);
    const rejected = Number((await addPurchase('ra-export-4')).id);
    await submitted(pending);
    const approvedTask = await claimed(await submitted(approved));
    const completed = await call(t, auditor, 'POST', 'task/completeTask', {
      id: approvedTask,
      comment: 'ok',
    });
    expect(completed.statusCode, completed.body).toBe(200);
    const rejectedTask = await claimed(await submitted(rejected));
    const rejectedAnswer = await call(t, auditor, 'POST', 'task/rejectTask', {
      id: rejectedTask,
      comment: 'no',
    });
    expect(rejectedAnswer.statusCode, rejectedAnswer.body).toBe(200);
    const exported = async (language: string): Promise<Record<string, unknown>> => {
      const answer = await t.request({
        method: 'POST',
        url: `${PURCHASES}/export`,
        headers: { ...t.auth, 'accept-language': language },
        payload: { title: 'ra-export' },
      });
      expect(answer.statusCode, answer.body).toBe(200);
      const [header = [], ...rows] = await firstSheetRows(answer.rawPayload);
      const titleAt = header.findIndex((cell) => /^(project|项目名称)$/i.test(String(cell)));
      expect(titleAt, JSON.stringify(header)).toBeGreaterThanOrEqual(0);
      const statusAt = header.findIndex((cell) => /approval status|审批状态|審批狀態/i.test(String(cell)));
      expect(statusAt, JSON.stringify(header)).toBeGreaterThanOrEqual(0);
      return Object.fromEntries(rows.map((row) => [String(row[titleAt]), row[statusAt]]));
    };
    expect(await exported('zh')).toEqual({
      'ra-export-1': '草稿',
      'ra-export-2': '审批中',
      'ra-export-3': '已通过',
      'ra-export-4': '已驳回',
    });
    expect(await exported('en')).toEqual({
      'ra-export-1': 'Draft',
      'ra-export-2': 'Under approval',
      'ra-export-3': 'Approved',
      'ra-export-4': 'Rejected',
    });
  });
});

describe('candidate starters (issue 40 point 3)', () => {
  it('a process that names its starters lets only them submit a record; anyone may again when it names none', async () => {
    const shipped = readFileSync('schemas/processes/purchaseApproval.bpmn', 'utf8');
    const { id } = await addPurchase('ra-starters');
    await deploy(
      t,
      shipped.replace(
        'isExecutable="true"',
        'isExecutable="true" camunda:candidateStarterUsers="ra_auditor"',
      ),
    );
    const refused = await submit(Number(id));
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json().message).toMatch(/purchaseApproval/);
    // nothing half-written: the record is still a draft, no instance holds it
    expect((await purchase(Number(id))).approvalStatus).toBe('draft');
    await deploy(t, shipped);
    await submitted(Number(id));
  });
});
