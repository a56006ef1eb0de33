import ExcelJS from 'exceljs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportJob, ImportResult } from '../../src/engine/api-types.js';
import type { EntityDef } from '../../src/engine/index.js';
import { IMPORT_CHUNK_ROWS } from '../../src/server/features/crud/import/import.js';
import { Api, body, data, type Row } from '../support/api.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { fileUpload } from '../support/multipart.js';

/**
 * Import at scale (issue 39, point 4): background jobs with their progress, the partial mode,
 * updating by key (an export imported back), and problems worded with the field's title and the
 * dictionary's labels.
 */

let t: TestApp;
let api: Api;
let user: EntityDef;
let post: EntityDef;
let role: Row;
let org: Row;
beforeAll(async () => {
  t = await startTestApp();
  api = new Api(t);
  user = t.app.ctx.registry.require('sysuser');
  post = t.app.ctx.registry.require('syspost');
  const roles = await api.records(t.app.ctx.registry.require('sysrole'));
  role = roles.find((item) => item.roleCode === 'ROLE_ADMIN') as Row;
  org = (await api.records(t.app.ctx.registry.require('sysorg')))[0] as Row;
});
afterAll(async () => {
  await t?.close();
});

const ZH = { 'accept-language': 'zh-CN' };

function upload(
  entity: EntityDef,
  fileName: string,
  bytes: Buffer,
  query: string,
): Promise<LightMyRequestResponse> {
  const form = fileUpload(fileName, bytes);
  return api.call({
    method: 'POST',
    url: `/api/${entity.api}/import${query}`,
    payload: form.payload,
    headers: { ...form.headers, ...ZH },
  });
}

const csv = (rows: (string | number)[][]): Buffer =>
  Buffer.from(
    rows.map((row) => row.map((cell) => `"${String(cell).replace(/"/g, '""')}"`).join(',')).join('\n'),
  );

const USER_HEADER = [
  '用户名',
  '昵称',
  '密码',
  '邮箱',
  '国家区号',
  '手机号',
  '电话',
  '状态',
  '角色',
  '所属组织',
];
const userRow = (name: string, mobile: number, extra: Partial<Record<string, string>> = {}): string[] => [
  name,
  extra.nickname ?? `N ${name}`,
  extra.password ?? 'pass-12345',
  extra.email ?? `${name}@example.com`,
  '+86',
  String(mobile),
  '010-1',
  extra.status ?? '正常',
  String(role.roleName),
  String(org.orgName),
];

async function waitForJob(id: number, seen: ImportJob[] = []): Promise<ImportJob> {
  for (let attempt = 0; attempt < 3000; attempt += 1) {
    const response = await api.call({ method: 'GET', url: `/api/import/job?id=${id}`, headers: ZH });
    expect(response.statusCode, response.body).toBe(200);
    const job = data<ImportJob>(response);
    seen.push(job);
    if (job.status !== 'running') return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`job ${id} did not end`);
}

describe('import jobs (issue 39, point 4)', () => {
  it('a background import answers a job at once; its progress counts the rows up to the total; the job lists', async () => {
    const rows = IMPORT_CHUNK_ROWS * 2 + 10;
    const file = csv([
      ['postCode', 'postName', 'postSequence'],
      ...Array.from({ length: rows }, (_, i) => [`JOB${i}`, `Job post ${i}`, i]),
    ]);
    const started = performance.now();
    const response = await upload(post, 'posts.csv', file, '?background=true');
    const answeredMs = performance.now() - started;
    expect(response.statusCode, response.body).toBe(200);
    const job = data<ImportJob>(response);
    expect(job).toMatchObject({
      status: 'running',
      entity: 'syspost',
      fileName: 'posts.csv',
      mode: 'all',
      done: 0,
    });
    const seen: ImportJob[] = [];
    const ended = await waitForJob(job.id, seen);
    console.log(
      `background job of ${rows} rows: answered in ${Math.round(answeredMs)} ms; ${seen.length} polls; progress ${seen.map((item) => item.done).join(',')}`,
    );
    expect(ended.status, JSON.stringify(ended.error)).toBe('done');
    expect(ended).toMatchObject({ total: rows, done: rows });
    expect(ended.result).toMatchObject({ imported: rows, total: rows, problemCount: 0 });
    // progress never goes back and never passes the total
    const dones = seen.map((item) => item.done);
    expect(dones).toEqual([...dones].sort((a, b) => a - b));
    expect(Math.max(...seen.map((item) => item.total))).toBe(rows);
    const stored = await t.sql<{ n: number }>(
      `select count(*)::int as n from "${post.table}" where post_code like 'JOB%'`,
    );
    expect(stored[0]?.n).toBe(rows);
    const list = data<ImportJob[]>(await api.call({ method: 'GET', url: '/api/import/jobs' }));
    expect(list[0]).toMatchObject({ id: job.id, status: 'done', total: rows });
    // the row carries the end for every process
    const [row] = await t.sql<{ status: string; done: number; total: number }>(
      'select status, done, total from sys_import_job where id = $1',
      [job.id],
    );
    expect(row).toEqual({ status: 'done', done: rows, total: rows });
  });

  it('a failed background import keeps all-or-nothing: the job fails naming the rows, nothing written', async () => {
    const file = csv([
      ['postCode', 'postName', 'postSequence'],
      ['BAD1', 'Bad 1', 1],
      ['BAD2', '', 2],
    ]);
    const job = data<ImportJob>(await upload(post, 'bad.csv', file, '?background=true'));
    const ended = await waitForJob(job.id);
    expect(ended.status).toBe('failed');
    expect(ended.error?.errors).toEqual([
      { field: '/3/postName', message: expect.stringMatching(/^\S+：不能为空$/) },
    ]);
    expect(ended.error?.message).toContain('1');
    const stored = await t.sql<{ n: number }>(
      `select count(*)::int as n from "${post.table}" where post_code like 'BAD%'`,
    );
    expect(stored[0]?.n).toBe(0);
  });

  it("another user's or another tenant's job is a 404", async () => {
    const [other] = await t.sql<{ id: number }>(
      `insert into sys_import_job (tenant_code, user_id, entity, file_name, status, mode) values ('default', 987654, 'syspost', 'x.csv', 'done', 'all') returning id`,
    );
    const [foreign] = await t.sql<{ id: number }>(
      `insert into sys_import_job (tenant_code, user_id, entity, file_name, status, mode)
       select 'elsewhere', user_id, 'syspost', 'y.csv', 'done', 'all' from sys_import_job where tenant_code = 'default' and user_id <> 987654 limit 1 returning id`,
    );
    for (const id of [other?.id, foreign?.id]) {
      const response = await api.call({ method: 'GET', url: `/api/import/job?id=${id}` });
      expect(response.statusCode, response.body).toBe(404);
    }
    const list = data<ImportJob[]>(await api.call({ method: 'GET', url: '/api/import/jobs' }));
    expect(list.map((job) => job.fileName)).not.toContain('x.csv');
    expect(list.map((job) => job.fileName)).not.toContain('y.csv');
  });

  it('partial: the good rows are imported, the bad ones reported by row and field title', async () => {
    const file = csv([
      USER_HEADER,
      userRow('part1', 13911100001),
      userRow('part2', 13911100002, { password: '' }),
      userRow('part3', 13911100003, { email: 'not-mail' }),
      userRow('part4', 13911100004, { status: '休眠' }),
      userRow('part5', 13911100005),
    ]);
    const refused = await upload(user, 'users.csv', file, '');
    expect(refused.statusCode).toBe(400);
    const answer = data<ImportResult>(await upload(user, 'users.csv', file, '?mode=partial'));
    expect(answer).toMatchObject({ total: 5, imported: 2, skipped: 3, problemCount: 3 });
    expect(answer.problems).toEqual([
      { row: 3, field: 'password', message: '密码：不能为空' },
      { row: 4, field: 'email', message: '请输入正确的邮箱地址' },
      {
        row: 5,
        field: 'status',
        message: expect.stringMatching(/^状态：“休眠”不是可选的值（可选：(正常、停用|停用、正常)）$/),
      },
    ]);
    const names = (await api.records(user, {})).map((row) => row.username);
    expect(names).toEqual(expect.arrayContaining(['part1', 'part5']));
    expect(names).not.toContain('part2');
  });

  it('messages in English name the field title and the allowed labels', async () => {
    const header = [
      'User name',
      'Nickname',
      'Password',
      'Email',
      'Country code',
      'Mobile',
      'Phone',
      'Status',
      'Role',
      'Organisation',
    ];
    const file = csv([header, userRow('en1', 13911100011, { status: 'Asleep', password: '' })]);
    const form = fileUpload('users.csv', file);
    const response = await api.call({
      method: 'POST',
      url: `/api/${user.api}/import?dryRun=true`,
      payload: form.payload,
      headers: { ...form.headers, 'accept-language': 'en' },
    });
    const answer = data<ImportResult>(response);
    expect(answer.problems.map((problem) => problem.message)).toEqual([
      'Status: “Asleep” is not one of the allowed values (Active, Disabled)',
      'Password: is required',
    ]);
  });

  it('update by key: an export imported back updates its records; without the option it clashes', async () => {
    const file = csv([USER_HEADER, userRow('round1', 13911100021), userRow('round2', 13911100022)]);
    expect(data<ImportResult>(await upload(user, 'users.csv', file, '')).imported).toBe(2);
    const exported = await api.call({
      method: 'POST',
      url: `/api/${user.api}/export`,
      payload: { username: 'round' },
      headers: ZH,
    });
    expect(exported.statusCode, exported.body.slice(0, 300)).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(exported.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0];
    if (!sheet) throw new Error('no sheet');
    const header = (sheet.getRow(1).values as unknown[]).map((value) => String(value ?? ''));
    const nickColumn = header.indexOf('昵称');
    expect(nickColumn).toBeGreaterThan(0);
    let rows = 0;
    sheet.eachRow((row, number) => {
      if (number === 1) return;
      rows += 1;
      row.getCell(nickColumn).value = `Renamed ${String(row.getCell(header.indexOf('用户名')).value)}`;
    });
    expect(rows).toBeGreaterThanOrEqual(2);
    const edited = Buffer.from(await workbook.xlsx.writeBuffer());
    const clash = await upload(user, 'export.xlsx', edited, '');
    expect(clash.statusCode).toBe(400);
    const job = data<ImportJob>(
      await upload(user, 'export.xlsx', edited, '?updateByKey=true&background=true'),
    );
    const ended = await waitForJob(job.id);
    expect(ended.status, JSON.stringify(ended.error)).toBe('done');
    expect(ended.result).toMatchObject({ imported: rows, updated: rows, problemCount: 0 });
    const stored = await api.records(user, { username: 'round1' });
    expect(stored[0]?.nickname).toBe('Renamed round1');
    const audit = await t.sql<{ n: number }>(
      `select count(*)::int as n from sys_audit_log where entity = 'sysuser' and action = 'update' and record_key = $1`,
      [String(stored[0]?.id)],
    );
    expect(audit[0]?.n).toBe(1);
  });

  it('update by key with a new row in the file adds it, and a bad update is reported on its row (partial)', async () => {
    const file = csv([
      USER_HEADER,
      userRow('round1', 13911100021, { nickname: 'Again' }),
      userRow('round3', 13911100023),
      userRow('round2', 13911100022, { email: 'broken' }),
    ]);
    const answer = data<ImportResult>(
      await upload(user, 'users.csv', file, '?updateByKey=true&mode=partial'),
    );
    expect(answer).toMatchObject({ total: 3, imported: 2, updated: 1, skipped: 1 });
    expect(answer.problems).toEqual([{ row: 4, field: 'email', message: '请输入正确的邮箱地址' }]);
    expect((await api.records(user, { username: 'round1' }))[0]?.nickname).toBe('Again');
    expect(await api.records(user, { username: 'round3' })).toHaveLength(1);
    void body;
  });
});
