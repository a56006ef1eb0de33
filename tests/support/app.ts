import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { buildApp } from '../../src/server/app.js';
import type { AnswerMismatch } from '../../src/server/lib/answer-check.js';
import { readConfig } from '../../src/server/lib/config.js';

export const ADMIN_PASSWORD = 'admin-pass-1';
export const BROWSER_CLIENT = `Basic ${Buffer.from('browser:').toString('base64')}`;

/** POST /api/uaa/oauth/token with the password grant, as the built-in browser client sends it. */
export function passwordGrant(
  app: FastifyInstance,
  username: string,
  password: string,
  tenantCode = 'default',
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/api/uaa/oauth/token',
    headers: { authorization: BROWSER_CLIENT, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'password',
      scope: 'ui',
      client_id: 'browser',
      tenantCode,
      username,
      password,
    }).toString(),
  });
}

export interface TestApp {
  app: FastifyInstance;
  /** Bearer header of the seeded admin. */
  auth: { authorization: string };
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  signIn(username: string, password: string, tenantCode?: string): Promise<LightMyRequestResponse>;
  /** Runs SQL directly against the app's database (to check what a request left behind). */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/**
 * Boots the real app on a real database: embedded PGlite in memory by default, or a fresh
 * PostgreSQL database (created and dropped here) when TEST_DATABASE_URL is set.
 */
export async function startTestApp(options: { env?: Record<string, string> } = {}): Promise<TestApp> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  let databaseUrl: string | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;
  if (serverUrl) {
    const name = `ecobid_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dropDatabase = async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    };
  }
  const env: Record<string, string> = { DATA_DIR: ':memory:', ADMIN_PASSWORD, ...options.env };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  // Every answer a test causes is checked against the route's declared schema; close() fails
  // the test file on any that differs (the API document must describe what is sent).
  const mismatches = new Map<string, AnswerMismatch>();
  const { app } = await buildApp({
    config: readConfig(env),
    onAnswerMismatch: (mismatch) => {
      const key = `${mismatch.method} ${mismatch.url}: ${mismatch.problems.join('; ')}`;
      if (!mismatches.has(key)) mismatches.set(key, mismatch);
    },
  });
  const request = (opts: InjectOptions): Promise<LightMyRequestResponse> => app.inject(opts);
  const signIn = (
    username: string,
    password: string,
    tenantCode = 'default',
  ): Promise<LightMyRequestResponse> => passwordGrant(app, username, password, tenantCode);
  const signedIn = await signIn('admin', ADMIN_PASSWORD);
  if (signedIn.statusCode !== 200) throw new Error(`admin sign-in failed: ${signedIn.body}`);
  const token = (signedIn.json() as { access_token: string }).access_token;
  return {
    app,
    auth: { authorization: `Bearer ${token}` },
    request,
    signIn,
    sql: async <T>(text: string, params: unknown[] = []) =>
      (await app.ctx.db.executeQuery<T>(CompiledQuery.raw(text, params))).rows,
    close: async () => {
      await app.close();
      await dropDatabase?.();
      if (mismatches.size > 0)
        throw new Error(
          `answers that differ from their declared schema (${mismatches.size}):\n  ${[...mismatches.keys()].join('\n  ')}`,
        );
    },
  };
}
