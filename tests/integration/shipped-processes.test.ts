import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { readConfig } from '../../src/server/lib/config.js';
import { ADMIN_PASSWORD, passwordGrant } from '../support/app.js';

/**
 * The product's processes ship with it (schemas/processes/<key>.bpmn, docs/workflow in README
 * "Approval of records"): the seed deploys purchaseApproval, which schemas/purchase names in
 * x-entity.workflow, in each tenant that lacks it, so that 提交审批 works on a fresh start without
 * an administrator's deployment; a restart deploys nothing again and leaves an administrator's
 * newer version the latest; a tenant added while the server runs gets it at its first submit
 * (and at the next start otherwise).
 */

const SHIPPED = readFileSync(
  join(import.meta.dirname, '..', '..', 'schemas', 'processes', 'purchaseApproval.bpmn'),
  'utf8',
);
const temporaryDirs: string[] = [];

/** The embedded database in a data directory, or (on PostgreSQL) one database kept across restarts. */
async function persistentDatabase(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ecobid-shipped-'));
  temporaryDirs.push(dataDir);
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return { env: { DATA_DIR: dataDir }, drop: async () => {} };
  const name = `ecobid_test_shipped_${process.pid}_${Date.now()}`;
  const run = async (statement: string): Promise<void> => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  await run(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: dataDir },
    drop: () => run(`drop database if exists ${name} with (force)`),
  };
}

interface Started {
  app: FastifyInstance;
  as: (
    authorization: string,
    method: 'GET' | 'POST',
    url: string,
    payload?: Record<string, unknown>,
  ) => Promise<LightMyRequestResponse>;
  admin: string;
  sql: <T>(text: string, params?: unknown[]) => Promise<T[]>;
}

let database: Awaited<ReturnType<typeof persistentDatabase>>;
let running: Started | undefined;

async function start(): Promise<Started> {
  const { app } = await buildApp({ config: readConfig({ ...database.env, ADMIN_PASSWORD }) });
  running = {
    app,
    admin: '',
    as: (authorization, method, url, payload) =>
      app.inject({
        method,
        url,
        headers: { authorization, 'accept-language': 'en' },
        ...(payload ? { payload } : {}),
      }),
    sql: async <T>(text: string, params: unknown[] = []) =>
      (await app.ctx.db.executeQuery<T>(CompiledQuery.raw(text, params))).rows,
  };
  const signedIn = await passwordGrant(app, 'admin', ADMIN_PASSWORD);
  expect(signedIn.statusCode, signedIn.body).toBe(200);
  running.admin = `Bearer ${signedIn.json<{ access_token: string }>().access_token}`;
  return running;
}

async function stop(): Promise<void> {
  await running?.app.close();
  running = undefined;
}

interface DeploymentRow {
  tenant: string;
  key: string;
  version: number;
  by: string;
}

const deployments = (s: Started, tenant: string): Promise<DeploymentRow[]> =>
  s.sql<DeploymentRow>(
    `select d.tenant_code as tenant, d.process_key as key, d.version, p.deployed_by as by
     from wf_definition d join wf_deployment p on p.id = d.deployment_id
     where d.tenant_code = $1 order by d.version`,
    [tenant],
  );

/** Adds a purchase announcement and submits it (提交审批): the submit's answer. */
async function addAndSubmit(
  s: Started,
  authorization: string,
  title: string,
): Promise<LightMyRequestResponse> {
  const added = await s.as(authorization, 'POST', '/api/notification/purchase/add', {
    title,
    buyerName: 'sp buyer',
    budget: '10.00',
  });
  expect(added.statusCode, added.body).toBe(200);
  const id = Number(added.json<{ data: { id: number } }>().data.id);
  return s.as(authorization, 'POST', `/api/notification/purchase/submitApproval?id=${id}`);
}

beforeAll(async () => {
  database = await persistentDatabase();
}, 60_000);
afterAll(async () => {
  await stop();
  await database?.drop();
  for (const dir of temporaryDirs) rmSync(dir, { recursive: true, force: true });
});

describe("the product's processes", () => {
  it('a fresh start has purchaseApproval deployed by the seed: 提交审批 works at once', async () => {
    const s = await start();
    expect(await deployments(s, 'default')).toEqual([
      { tenant: 'default', key: 'purchaseApproval', version: 1, by: 'system' },
    ]);
    const submitted = await addAndSubmit(s, s.admin, 'sp-fresh');
    expect(submitted.statusCode, submitted.body).toBe(200);
    expect(submitted.json().data.instance.processDefinitionKey).toBe('purchaseApproval');
  });

  it("an administrator's newer version stays the latest; a tenant added meanwhile gets the process at its first submit", async () => {
    const s = running ?? (await start());
    const newer = SHIPPED.replace('name="采购公告审批"', 'name="采购公告审批（管理员修订）"');
    const deployed = await s.as(s.admin, 'POST', '/api/activiti/deployment/deployXml', { xml: newer });
    expect(deployed.statusCode, deployed.body).toBe(200);
    expect(deployed.json().data.version).toBe(2);
    const tenant = await s.as(s.admin, 'POST', '/api/admin/systenant/add', {
      tenantCode: 'spbeta',
      tenantName: 'SP Beta',
    });
    expect(tenant.statusCode, tenant.body).toBe(200);
    const admin = tenant.json<{ data: { admin: { username: string; initialPassword: string } } }>().data
      .admin;
    const signedIn = await passwordGrant(s.app, admin.username, admin.initialPassword, 'spbeta');
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    const betaAdmin = `Bearer ${signedIn.json<{ access_token: string }>().access_token}`;
    expect(await deployments(s, 'spbeta')).toEqual([]);
    const submitted = await addAndSubmit(s, betaAdmin, 'sp-beta');
    expect(submitted.statusCode, submitted.body).toBe(200);
    expect(await deployments(s, 'spbeta')).toEqual([
      { tenant: 'spbeta', key: 'purchaseApproval', version: 1, by: 'system' },
    ]);
    // the other tenant's deployments are its own
    expect((await deployments(s, 'default')).map((row) => row.version)).toEqual([1, 2]);
    // a tenant nobody submits in until the restart
    const gamma = await s.as(s.admin, 'POST', '/api/admin/systenant/add', {
      tenantCode: 'spgamma',
      tenantName: 'SP Gamma',
    });
    expect(gamma.statusCode, gamma.body).toBe(200);
    expect(await deployments(s, 'spgamma')).toEqual([]);
  });

  it('a restart deploys nothing again, but in the tenant that lacked it; a submit starts the latest version', async () => {
    await stop();
    const s = await start();
    expect(await deployments(s, 'default')).toEqual([
      { tenant: 'default', key: 'purchaseApproval', version: 1, by: 'system' },
      { tenant: 'default', key: 'purchaseApproval', version: 2, by: 'admin' },
    ]);
    expect(await deployments(s, 'spbeta')).toEqual([
      { tenant: 'spbeta', key: 'purchaseApproval', version: 1, by: 'system' },
    ]);
    expect(await deployments(s, 'spgamma')).toEqual([
      { tenant: 'spgamma', key: 'purchaseApproval', version: 1, by: 'system' },
    ]);
    const submitted = await addAndSubmit(s, s.admin, 'sp-after-restart');
    expect(submitted.statusCode, submitted.body).toBe(200);
    const [instance] = await s.sql<{ version: number }>(
      `select d.version from wf_instance i join wf_definition d on d.id = i.definition_id where i.id = $1`,
      [submitted.json().data.instance.id],
    );
    expect(instance?.version).toBe(2);
  });
});
