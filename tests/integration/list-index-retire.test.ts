import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { readConfig } from '../../src/server/lib/config.js';
import { ADMIN_PASSWORD, passwordGrant } from '../support/app.js';

/**
 * A database built by an earlier engine has list indexes this one no longer keeps: the plain
 * (tenant_code) index, btrees of columns the list does not sort by (version, who wrote the row,
 * when it changed, a hidden contact phone) and trigram indexes of filters the filter bar does not
 * show (the hidden contact phone, who wrote the row). The next start drops them, keeps every
 * index the engine did not make, and the lists still sort and filter as the list offers; the API
 * still filters by the hidden fields (without an index of their own).
 */
const dataDir = mkdtempSync(join(tmpdir(), 'ecobid-retire-'));
let env: Record<string, string> = { DATA_DIR: dataDir };
let drop = async (): Promise<void> => {};

beforeAll(async () => {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return;
  const name = `ecobid_test_retire_${process.pid}_${Date.now()}`;
  const run = async (statement: string): Promise<void> => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  await run(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  env = { DATABASE_URL: url.toString(), DATA_DIR: dataDir };
  drop = () => run(`drop database if exists ${name} with (force)`);
});
afterAll(async () => {
  await drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<FastifyInstance> {
  const { app } = await buildApp({ config: readConfig({ ...env, ADMIN_PASSWORD }) });
  return app;
}

async function run<T>(app: FastifyInstance, text: string): Promise<T[]> {
  return (await app.ctx.db.executeQuery<T>(CompiledQuery.raw(text, []))).rows;
}

const purchaseIndexes = async (app: FastifyInstance): Promise<string[]> =>
  (
    await run<{ name: string }>(
      app,
      `select indexname as name from pg_indexes where tablename = 'portal_purchase' order by 1`,
    )
  ).map((row) => row.name);

/** What an earlier engine made, and what a person made by hand. */
const RETIRED = [
  'create index portal_purchase_tenant_code_idx on portal_purchase (tenant_code)',
  'create index portal_purchase_tenant_code_version_id_lx on portal_purchase (tenant_code, version, id)',
  'create index portal_purchase_tenant_code_updated_by_id_lx on portal_purchase (tenant_code, updated_by nulls first, id)',
  'create index portal_purchase_tenant_code_contact_phone_id_lx on portal_purchase (tenant_code, contact_phone nulls first, id)',
  'create index portal_purchase_tenant_code_updated_at_id_lx on portal_purchase (tenant_code, updated_at, id)',
  'create index portal_purchase_contact_phone_trgm on portal_purchase using gin (contact_phone gin_trgm_ops)',
  'create index portal_purchase_created_by_trgm on portal_purchase using gin (created_by gin_trgm_ops)',
];
const RETIRED_NAMES = RETIRED.map((statement) => statement.split(' ')[2] ?? '');
const BY_HAND = [
  'create index portal_purchase_by_hand on portal_purchase (budget)',
  'create index portal_purchase_tenant_code_idx2 on portal_purchase (tenant_code, title)',
  'create index portal_purchase_phone_digits_trgm on portal_purchase using gin (contact_phone gin_trgm_ops)',
];

describe('list indexes retired by the engine', () => {
  it('are dropped at the next start; other indexes stay; lists sort and filter as before', async () => {
    const first = await start();
    try {
      const made = await purchaseIndexes(first);
      for (const name of RETIRED_NAMES) expect(made, name).not.toContain(name);
      expect(made).toContain('portal_purchase_tenant_code_id_lx');
      for (const statement of [...RETIRED, ...BY_HAND]) await run(first, statement);
      await run(
        first,
        `insert into portal_purchase (title, buyer_name, contact_phone, tenant_code, created_by, updated_by)
         values ('Retire one', 'Buyer', '021-5550123', 'default', 'admin', 'admin'),
                ('Retire two', 'Buyer', '010-7770000', 'default', 'admin', 'admin')`,
      );
    } finally {
      await first.close();
    }

    const again = await start();
    try {
      const now = await purchaseIndexes(again);
      for (const name of RETIRED_NAMES) expect(now, name).not.toContain(name);
      expect(now).toContain('portal_purchase_by_hand');
      expect(now).toContain('portal_purchase_tenant_code_idx2');
      expect(now).toContain('portal_purchase_phone_digits_trgm');
      expect(now).toContain('portal_purchase_tenant_code_title_id_lx');
      expect(now).toContain('portal_purchase_title_trgm');

      const signIn = await passwordGrant(again, 'admin', ADMIN_PASSWORD);
      expect(signIn.statusCode, signIn.body).toBe(200);
      const authorization = `Bearer ${signIn.json<{ access_token: string }>().access_token}`;
      const get = (url: string) => again.inject({ method: 'GET', url, headers: { authorization } });
      const base = '/api/notification/purchase/query';

      const byPhone = await get(`${base}?contactPhone=5550`);
      expect(byPhone.statusCode, byPhone.body).toBe(200);
      expect(
        byPhone.json<{ data: { records: { title: string }[] } }>().data.records.map((r) => r.title),
      ).toEqual(['Retire one']);
      const byTitle = await get(`${base}?sort=title&title=Retire`);
      expect(
        byTitle.json<{ data: { records: { title: string }[] } }>().data.records.map((r) => r.title),
      ).toEqual(['Retire one', 'Retire two']);
      // Filters the filter bar does not show still answer through the API.
      const byWriter = await get(`${base}?createdBy=admi&title=Retire&updatedAt=2000-01-01,2999-12-31`);
      expect(byWriter.statusCode, byWriter.body).toBe(200);
      expect(byWriter.json<{ data: { total: number } }>().data.total).toBe(2);
      // Not sortable any more (hidden columns): a 400 naming the field, never a sort without its index.
      for (const field of ['version', 'contactPhone', 'updatedBy', 'updatedAt']) {
        const sorted = await get(`${base}?sort=-${field}`);
        expect(sorted.statusCode, field).toBe(400);
        const errors = sorted.json<{ errors: { field: string; message: string }[] }>().errors;
        expect(errors.map((e) => e.field)).toEqual(['/sort']);
        expect(errors[0]?.message, field).toContain(field);
      }
    } finally {
      await again.close();
    }
    // Two cold starts of the app, the first one seeding.
  }, 300_000);
});
