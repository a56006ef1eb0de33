/**
 * The other application's insert cost before and after adoption (issue 33), side by side on
 * PostgreSQL: the `adopt` suite of `npm run bench -- adopt`.
 *
 * Two databases hold ruoyi-vue-pro's schema and data (tests/fixtures/adopt, loaded unchanged):
 * A as the other application left it, B with EcoBid running on it and every table adopted
 * through the API with the preview's defaults (and published). The other application's busiest
 * write, 50,000 rows into infra_api_access_log (ids from its own sequence, multi-row INSERTs of
 * 1,000 rows as its batch writer does), is timed on A and B in turns (A B, B A, A B …), so both see
 * the same machine load; the figure is median(B) / median(A), goal ≤ 1.1.
 * BENCH_ADOPT_ROUNDS (default 9), BENCH_ADOPT_ROWS (default 50000); the server is
 * BENCH_DATABASE_URL's (default postgres://postgres@127.0.0.1:5432/test).
 */
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startTestApp } from '../tests/support/app.js';
import { figure, type SuiteResult } from './lib/report.js';
import { PG_SERVER_URL } from './lib/util.js';

const SERVER = PG_SERVER_URL;
const ROUNDS = Number(process.env.BENCH_ADOPT_ROUNDS ?? 9);
const ROWS = Number(process.env.BENCH_ADOPT_ROWS ?? 50_000);
const FIXTURE = readFileSync(new URL('../tests/fixtures/adopt/ruoyi-vue-pro.sql', import.meta.url), 'utf8');

const urlOf = (database: string): string => {
  const url = new URL(SERVER);
  url.pathname = `/${database}`;
  return url.toString();
};

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** Access-log rows as ruoyi writes them, timed (ms). */
async function insertLog(client: pg.Client): Promise<number> {
  const started = performance.now();
  for (let done = 0; done < ROWS; done += 1000) {
    const count = Math.min(1000, ROWS - done);
    await client.query(
      `insert into infra_api_access_log (id, trace_id, user_id, user_type, application_name, request_method,
         request_url, request_params, response_body, user_ip, user_agent, operate_module, operate_name, operate_type,
         begin_time, end_time, duration, result_code, result_msg, creator, create_time, updater, update_time, deleted, tenant_id)
       select nextval('infra_api_access_log_seq'), md5(g::text), 1, 2, 'yudao-server', 'GET',
         '/admin-api/system/user/page', '{"query":{"pageNo":"1","pageSize":"10"}}', '{"code":0}', '127.0.0.1',
         'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36', '用户管理', '获得用户分页列表', 1,
         localtimestamp, localtimestamp, 12, 0, '', '1', localtimestamp, '1', localtimestamp, 0, 1
       from generate_series(1, $1) g`,
      [count],
    );
  }
  return performance.now() - started;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

export async function runAdoptInsert(log: (line: string) => void): Promise<SuiteResult> {
  // The app under test makes its own database on this server (tests/support/app.ts).
  process.env.TEST_DATABASE_URL = SERVER;
  const admin = await connect(SERVER);
  const plain = `ecobid_adopt_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${plain}`);
  const a = await connect(urlOf(plain));
  await a.query(FIXTURE);
  // B: the app on its own database, the fixture loaded into it, every table adopted.
  const t = await startTestApp();
  const bUrl = t.app.ctx.config.databaseUrl ?? '';
  const b = await connect(bUrl);
  await b.query(FIXTURE);
  const counts = async (client: pg.Client): Promise<{ indexes: number; indexBytes: number }> => {
    const row = (
      await client.query<{ n: string; bytes: string }>(
        `select count(*)::text as n, coalesce(sum(pg_relation_size(indexrelid)), 0)::text as bytes from pg_index
         where indrelid = 'infra_api_access_log'::regclass`,
      )
    ).rows[0];
    return { indexes: Number(row?.n ?? 0), indexBytes: Number(row?.bytes ?? 0) };
  };
  const tables = (
    await b.query<{ t: string }>(`select tablename as t from pg_tables where schemaname = current_schema()`)
  ).rows.map((row) => row.t);
  const fixtureTables = [...FIXTURE.matchAll(/^CREATE TABLE (\w+)/gm)].map((match) => match[1] ?? '');
  let adopted = 0;
  for (const table of fixtureTables) {
    if (!tables.includes(table)) continue;
    const done = await t.request({
      method: 'POST',
      url: '/api/generator/reverse/adopt',
      headers: t.auth,
      payload: { tableName: table, confirm: true },
    });
    if (done.statusCode !== 200) continue;
    const formId = (done.json() as { data: { form: { id: number } } }).data.form.id;
    const published = await t.request({
      method: 'POST',
      url: '/api/generator/form/publish',
      headers: t.auth,
      payload: { id: formId, menuParent: 'formgenerator', roles: [] },
    });
    if (published.statusCode === 200) adopted += 1;
  }
  const before: number[] = [];
  const after: number[] = [];
  await insertLog(a);
  await insertLog(b);
  // A B, B A, A B …: neither database always runs second (a checkpoint, autovacuum).
  for (let round = 0; round < ROUNDS; round += 1) {
    if (round % 2 === 0) {
      before.push(await insertLog(a));
      after.push(await insertLog(b));
    } else {
      after.push(await insertLog(b));
      before.push(await insertLog(a));
    }
  }
  const ratio = median(after) / median(before);
  const details = {
    rows: ROWS,
    rounds: ROUNDS,
    adoptedTables: adopted,
    beforeMs: before.map(Math.round),
    afterMs: after.map(Math.round),
    medianBeforeMs: Math.round(median(before)),
    medianAfterMs: Math.round(median(after)),
    accessLogIndexes: { before: await counts(a), after: await counts(b) },
  };
  log(
    `  ${adopted} tables adopted; ${ROWS} access-log rows: ${details.medianBeforeMs} ms before, ` +
      `${details.medianAfterMs} ms after (median of ${ROUNDS})`,
  );
  await a.end();
  await b.end();
  await t.close();
  await admin.query(`drop database if exists ${plain} with (force)`);
  await admin.end();
  return {
    suite: 'adopt',
    figures: [
      figure('adopt', 'tables adopted (ruoyi-vue-pro)', adopted, 'tables'),
      figure(
        'adopt',
        `other app's insert time, adopted / untouched (${ROWS} rows)`,
        Number(ratio.toFixed(3)),
        '×',
        { op: '<', value: 1.1 },
      ),
    ],
    details,
  };
}
