/**
 * Field rights per role and entity (issue 32 point 1; features/rbac/permissions/field-rights.ts):
 * a field hidden from a role or read-only to it cannot be written through the API, the import or
 * a published form's API: 403 naming the field. A read-only field sent unchanged on an update is
 * accepted (clients send whole records). A user with several roles gets the union of what the
 * roles that grant the entity allow.
 */
import ExcelJS from 'exceljs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { data, type Page, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { USER_PASSWORD, createUserWithRole } from '../support/users.js';
import { bpmn, call, deploy, flow, openTasks } from '../support/workflow.js';

const A = 'ROLE_FR_A';
const B = 'ROLE_FR_B';
/** A role granted nothing of sysparam's API: it must not widen A's rights. */
const C = 'ROLE_FR_C';

let t: TestApp;
const roleIds = new Map<string, number>();
let tokenA = '';

type Method = 'GET' | 'POST' | 'PUT';
const asAdmin = (method: Method, url: string, payload?: unknown) =>
  t.request({ method, url, headers: t.auth, ...(payload === undefined ? {} : { payload: payload as Row }) });
const as = (token: string, method: Method, url: string, payload?: unknown) =>
  t.request({
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as Row }),
  });

async function grantUrl(url: string, roles: string[]): Promise<void> {
  const added = await asAdmin('POST', '/api/admin/sysurl/add', { url });
  expect(added.statusCode, added.body).toBe(200);
  const granted = await asAdmin('POST', '/api/admin/sysurl/authorizeRoleToUrl', {
    urlId: data(added).id,
    roleIds: roles.map((role) => roleIds.get(role)),
  });
  expect(granted.statusCode, granted.body).toBe(200);
}

async function setRights(
  menuCode: string,
  rows: { roleCode: string; dataFields: string[]; readOnlyFields?: string[] }[],
): Promise<void> {
  const saved = await asAdmin('POST', '/api/admin/sysmenu/authorizeMenuDataToRole', { menuCode, rows });
  expect(saved.statusCode, saved.body).toBe(200);
}

/** The 403 of the field rights: the envelope names exactly these fields. */
function expectRefused(response: LightMyRequestResponse, fields: string[], what: string): void {
  expect(response.statusCode, `${what}: ${response.body}`).toBe(403);
  const answer = response.json() as {
    code: number;
    message: string;
    errors: { field: string; message: string }[];
  };
  expect(answer.code).toBe(403);
  expect(answer.message.length).toBeGreaterThan(0);
  expect(answer.errors.map((error) => error.field).sort(), what).toEqual(fields);
  for (const error of answer.errors) expect(error.message.length).toBeGreaterThan(0);
}

async function storedParam(key: string): Promise<Row | undefined> {
  const [row] = await t.sql<Row>(
    'select id, param_name, param_value, version from sys_param where param_key = $1',
    [key],
  );
  return row;
}

/** A parameter added by the administrator, as the role reads it back (whole record). */
async function paramAsRead(token: string, key: string, value: string): Promise<Row> {
  const added = await asAdmin('POST', '/api/admin/sysparam/add', {
    paramName: key,
    paramKey: key,
    paramValue: value,
  });
  expect(added.statusCode, added.body).toBe(200);
  const listed = await as(token, 'GET', `/api/admin/sysparam/query?id=${String(data(added).id)}`);
  expect(listed.statusCode, listed.body).toBe(200);
  const [row] = data<Page>(listed).records;
  expect(row).toBeDefined();
  return row as Row;
}

function multipart(fileName: string, bytes: Buffer): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----fieldrights${Math.random().toString(16).slice(2)}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function importSheet(token: string, url: string, rows: string[][]): Promise<LightMyRequestResponse> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('data');
  for (const row of rows) sheet.addRow(row);
  const form = multipart('params.xlsx', Buffer.from(await workbook.xlsx.writeBuffer()));
  return t.request({
    method: 'POST',
    url,
    payload: form.payload,
    headers: { ...form.headers, authorization: `Bearer ${token}` },
  });
}

beforeAll(async () => {
  t = await startTestApp();
  for (const roleCode of [A, B, C]) {
    const added = await asAdmin('POST', '/api/admin/sysrole/add', { roleCode, roleName: roleCode });
    expect(added.statusCode, added.body).toBe(200);
    roleIds.set(roleCode, data(added).id as number);
  }
  await grantUrl('/api/admin/sysparam/**', [A, B]);
  tokenA = (await createUserWithRole(t, 'fieldrightsa', A)).token;
});
afterAll(async () => {
  await t?.close();
});

describe('a hidden field (the finding of issue 32)', () => {
  beforeAll(async () => {
    await setRights('sysparam', [{ roleCode: A, dataFields: ['paramValue'] }]);
  });

  it('is refused on update with 403 naming it, the stored value unchanged', async () => {
    const row = await paramAsRead(tokenA, 'fr.hidden.update', 'before');
    expect(row).not.toHaveProperty('paramValue');
    const updated = await as(tokenA, 'PUT', '/api/admin/sysparam/update', {
      ...row,
      paramValue: 'changed by a role that cannot see it',
    });
    expectRefused(updated, ['/paramValue'], 'update');
    expect((await storedParam('fr.hidden.update'))?.param_value).toBe('before');
    // the record as read (without the field) still saves
    const renamed = await as(tokenA, 'PUT', '/api/admin/sysparam/update', { ...row, paramName: 'renamed' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(data(renamed)).not.toHaveProperty('paramValue');
    expect(await storedParam('fr.hidden.update')).toMatchObject({
      param_name: 'renamed',
      param_value: 'before',
    });
  });

  it('is refused on add with 403 naming it, nothing stored', async () => {
    const added = await as(tokenA, 'POST', '/api/admin/sysparam/add', {
      paramName: 'x',
      paramKey: 'fr.hidden.add',
      paramValue: 'smuggled',
    });
    expectRefused(added, ['/paramValue'], 'add');
    expect(await storedParam('fr.hidden.add')).toBeUndefined();
    const without = await as(tokenA, 'POST', '/api/admin/sysparam/add', {
      paramName: 'x',
      paramKey: 'fr.hidden.add',
    });
    expect(without.statusCode, without.body).toBe(200);
  });

  it('is refused in an import with 403 naming it, nothing stored', async () => {
    const refused = await importSheet(tokenA, '/api/admin/sysparam/import', [
      ['paramName', 'paramKey', 'paramValue'],
      ['Imported', 'fr.hidden.import', 'smuggled'],
    ]);
    expectRefused(refused, ['/paramValue'], 'import');
    expect(await storedParam('fr.hidden.import')).toBeUndefined();
    const template = await as(tokenA, 'GET', '/api/admin/sysparam/importTemplate');
    expect(template.statusCode).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(template.rawPayload as unknown as ArrayBuffer);
    expect(JSON.stringify(workbook.worksheets[0]?.getRow(1).values)).not.toMatch(
      /paramValue|Parameter value|参数值/,
    );
  });

  it('stays out of query, get and export', async () => {
    await paramAsRead(tokenA, 'fr.hidden.read', 'secret-value');
    const listed = await as(tokenA, 'GET', '/api/admin/sysparam/query?paramKey=fr.hidden.read');
    expect(listed.body).not.toContain('secret-value');
    const exported = await as(tokenA, 'POST', '/api/admin/sysparam/export', {});
    expect(exported.statusCode).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(exported.rawPayload as unknown as ArrayBuffer);
    expect(JSON.stringify(workbook.worksheets[0]?.getSheetValues())).not.toContain('secret-value');
  });
});

describe('a read-only field', () => {
  beforeAll(async () => {
    await setRights('sysparam', [{ roleCode: A, dataFields: [], readOnlyFields: ['paramValue'] }]);
  });

  it('is shown, and accepted on update when sent unchanged (the whole record as read)', async () => {
    const row = await paramAsRead(tokenA, 'fr.ro.same', 'fixed');
    expect(row).toHaveProperty('paramValue', 'fixed');
    const updated = await as(tokenA, 'PUT', '/api/admin/sysparam/update', { ...row, paramName: 'renamed' });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(await storedParam('fr.ro.same')).toMatchObject({ param_name: 'renamed', param_value: 'fixed' });
  });

  it('is refused on update when changed or cleared, with 403 naming it', async () => {
    const row = await paramAsRead(tokenA, 'fr.ro.changed', 'fixed');
    const changed = await as(tokenA, 'PUT', '/api/admin/sysparam/update', { ...row, paramValue: 'other' });
    expectRefused(changed, ['/paramValue'], 'changed');
    const cleared = await as(tokenA, 'PUT', '/api/admin/sysparam/update', { ...row, paramValue: null });
    expectRefused(cleared, ['/paramValue'], 'cleared');
    expect((await storedParam('fr.ro.changed'))?.param_value).toBe('fixed');
  });

  it('is refused on add unless left empty', async () => {
    const added = await as(tokenA, 'POST', '/api/admin/sysparam/add', {
      paramName: 'x',
      paramKey: 'fr.ro.add',
      paramValue: 'given',
    });
    expectRefused(added, ['/paramValue'], 'add');
    expect(await storedParam('fr.ro.add')).toBeUndefined();
    const empty = await as(tokenA, 'POST', '/api/admin/sysparam/add', {
      paramName: 'x',
      paramKey: 'fr.ro.add',
      paramValue: '',
    });
    expect(empty.statusCode, empty.body).toBe(200);
  });

  it('is refused as an import column', async () => {
    const refused = await importSheet(tokenA, '/api/admin/sysparam/import', [
      ['paramName', 'paramKey', 'paramValue'],
      ['Imported', 'fr.ro.import', 'given'],
    ]);
    expectRefused(refused, ['/paramValue'], 'import');
    const allowed = await importSheet(tokenA, '/api/admin/sysparam/import', [
      ['paramName', 'paramKey'],
      ['Imported', 'fr.ro.import'],
    ]);
    expect(allowed.statusCode, allowed.body).toBe(200);
    expect(await storedParam('fr.ro.import')).toMatchObject({ param_name: 'Imported' });
  });

  it('is answered to the back-office with the caller’s authority', async () => {
    const authority = await as(tokenA, 'POST', '/api/account/sysuserdetail/queryCurrentAuthority');
    expect(authority.statusCode, authority.body).toBe(200);
    expect(data<{ fieldRights: unknown }>(authority).fieldRights).toEqual({
      sysparam: { hidden: [], readOnly: ['paramValue'] },
    });
    const admin = await asAdmin('POST', '/api/account/sysuserdetail/queryCurrentAuthority');
    expect(data<{ fieldRights: unknown }>(admin).fieldRights).toEqual({});
  });

  it('is listed with its role on the 数据权限 page', async () => {
    const rows = await asAdmin('GET', '/api/admin/sysmenu/queryDataFieldByMenuCode?menuCode=sysparam');
    expect(data<Row[]>(rows)).toEqual([
      expect.objectContaining({ roleCode: A, dataFields: [], readOnlyFields: ['paramValue'] }),
    ]);
  });
});

describe('several roles', () => {
  let token = '';
  beforeAll(async () => {
    const { id } = await createUserWithRole(t, 'fieldrightsmany', A);
    const granted = await asAdmin('POST', '/api/admin/sysrole/authorizeRoleToUser', {
      userId: id,
      roleIds: [roleIds.get(B), roleIds.get(C)],
    });
    expect(granted.statusCode, granted.body).toBe(200);
    const signed = await t.signIn('fieldrightsmany', USER_PASSWORD);
    token = signed.json().access_token as string;
  });

  it('a field is hidden only when every role that grants the entity hides it', async () => {
    await setRights('sysparam', [
      { roleCode: A, dataFields: ['paramValue'] },
      { roleCode: B, dataFields: [], readOnlyFields: ['paramValue'] },
    ]);
    const row = await paramAsRead(token, 'fr.union.readonly', 'v1');
    // B shows it (read-only), so the user sees it, and may not change it (no role may)
    expect(row).toHaveProperty('paramValue', 'v1');
    const changed = await as(token, 'PUT', '/api/admin/sysparam/update', { ...row, paramValue: 'v2' });
    expectRefused(changed, ['/paramValue'], 'read-only in the union');
  });

  it('a field is writable when one role that grants the entity may write it', async () => {
    await setRights('sysparam', [{ roleCode: A, dataFields: ['paramValue'] }]);
    const row = await paramAsRead(token, 'fr.union.open', 'v1');
    const changed = await as(token, 'PUT', '/api/admin/sysparam/update', { ...row, paramValue: 'v2' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await storedParam('fr.union.open'))?.param_value).toBe('v2');
  });

  it('a role granted nothing of the entity does not widen the others', async () => {
    // A and B both hide the field; C has no row for sysparam but no URL of it either
    await setRights('sysparam', [
      { roleCode: A, dataFields: ['paramValue'] },
      { roleCode: B, dataFields: ['paramValue'] },
    ]);
    const row = await paramAsRead(token, 'fr.union.unrelated', 'v1');
    expect(row).not.toHaveProperty('paramValue');
    const changed = await as(token, 'PUT', '/api/admin/sysparam/update', { ...row, paramValue: 'v2' });
    expectRefused(changed, ['/paramValue'], 'unrelated role');
  });
});

describe("a designer's published form (/api/online/<code>)", () => {
  beforeAll(async () => {
    const form = await asAdmin('POST', '/api/generator/form/add', {
      formCode: 'frleave',
      formName: 'Leave',
      formContent: {
        title: 'Leave',
        type: 'object',
        required: ['applicant'],
        properties: {
          applicant: { type: 'string', title: 'Applicant', maxLength: 40 },
          days: { type: 'integer', title: 'Days', minimum: 1 },
          reason: { type: 'string', title: 'Reason', maxLength: 200 },
        },
      },
    });
    expect(form.statusCode, form.body).toBe(200);
    const published = await asAdmin('POST', '/api/generator/form/publish', {
      id: data(form).id,
      menuParent: 'formgenerator',
      roles: [A],
    });
    expect(published.statusCode, published.body).toBe(200);
    await setRights('frleave', [{ roleCode: A, dataFields: ['reason'], readOnlyFields: ['days'] }]);
  });

  it('refuses hidden and read-only fields with 403 naming them; accepts an unchanged read-only one', async () => {
    const added = await as(tokenA, 'POST', '/api/online/frleave/add', {
      applicant: 'Zhang',
      days: 3,
      reason: 'x',
    });
    expectRefused(added, ['/days', '/reason'], 'online add');
    const plain = await as(tokenA, 'POST', '/api/online/frleave/add', { applicant: 'Zhang' });
    expect(plain.statusCode, plain.body).toBe(200);
    const stored = await asAdmin('PUT', '/api/online/frleave/update', { ...data<Row>(plain), days: 2 });
    expect(stored.statusCode, stored.body).toBe(200);
    const listed = await as(tokenA, 'GET', `/api/online/frleave/query?id=${String(data(plain).id)}`);
    const [row] = data<Page>(listed).records;
    expect(row).toMatchObject({ applicant: 'Zhang', days: 2 });
    expect(row).not.toHaveProperty('reason');
    const same = await as(tokenA, 'PUT', '/api/online/frleave/update', { ...row, applicant: 'Li' });
    expect(same.statusCode, same.body).toBe(200);
    const changed = await as(tokenA, 'PUT', '/api/online/frleave/update', { ...data<Row>(same), days: 5 });
    expectRefused(changed, ['/days'], 'online update');
    const imported = await importSheet(tokenA, '/api/online/frleave/import', [
      ['applicant', 'reason'],
      ['Wang', 'smuggled'],
    ]);
    expectRefused(imported, ['/reason'], 'online import');
  });
});

describe('a workflow form (formKey naming the entity)', () => {
  const FLOW = bpmn(
    'fr_param_flow',
    `<startEvent id="s" camunda:initiator="starter" camunda:formKey="sysparam"/>${flow('f0', 's', 'fill')}
     <userTask id="fill" name="填写" camunda:assignee="\${starter}" camunda:formKey="sysparam"/>${flow('f1', 'fill', 'e')}
     <endEvent id="e"/>`,
  );
  const headers = () => ({ authorization: `Bearer ${tokenA}` });

  beforeAll(async () => {
    await grantUrl('/api/activiti/**', [A]);
    await deploy(t, FLOW);
    await setRights('sysparam', [{ roleCode: A, dataFields: ['paramValue'], readOnlyFields: ['paramName'] }]);
  });

  it('refuses hidden and read-only fields in the start and task forms with 403 naming them', async () => {
    const startWith = (formData: Row) =>
      call(t, headers(), 'POST', 'processinstance/start', {
        processDefinitionKey: 'fr_param_flow',
        description: 'field rights',
        formData,
      });
    expectRefused(
      await startWith({ paramKey: 'fr.wf', paramName: 'name', paramValue: 'secret' }),
      ['/paramName', '/paramValue'],
      'start form',
    );
    expect(await t.sql("select id from wf_instance where process_key = 'fr_param_flow'")).toEqual([]);
    const started = await startWith({ paramKey: 'fr.wf' });
    // paramName is required by the entity: the form stays checked by its validators too
    expect(started.statusCode).toBe(400);

    // the rights lifted for paramName: a start without the hidden field goes through
    await setRights('sysparam', [{ roleCode: A, dataFields: ['paramValue'] }]);
    const ok = await startWith({ paramKey: 'fr.wf', paramName: 'name' });
    expect(ok.statusCode, ok.body).toBe(200);
    const [task] = await openTasks(t, Number(data(ok).id));
    expect(task).toMatchObject({ activity_id: 'fill', assignee: 'fieldrightsa' });
    const refused = await call(t, headers(), 'POST', 'task/completeTask', {
      id: task?.id,
      comment: 'done',
      formData: { paramKey: 'fr.wf', paramName: 'name', paramValue: 'secret' },
    });
    expectRefused(refused, ['/paramValue'], 'task form');
    const done = await call(t, headers(), 'POST', 'task/completeTask', {
      id: task?.id,
      comment: 'done',
      formData: { paramKey: 'fr.wf', paramName: 'name' },
    });
    expect(done.statusCode, done.body).toBe(200);
  });
});
