/**
 * row-scope: a list under a row data scope against the same list unscoped (issue 32: "a scoped
 * list within 1.3× of the unscoped one"), at 1,000,000 purchases (BENCH_ROWSCOPE_ROWS).
 *
 *   node --import tsx bench/row-scope.ts pglite
 *   node --import tsx bench/row-scope.ts postgres      (BENCH_DATABASE_URL, default local test)
 *
 * The real app in this process (buildApp, as main.ts), purchases seeded with generate_series:
 * created by 20 users in 10 organisations (org i has users 2i and 2i+1; organisations 1–4 sit
 * below organisation 0). One signed-in user of a role, the same user and token for both sides;
 * only the role's sys_data_scope row differs (none = unscoped). Requests alternate unscoped and
 * scoped (app.inject, sequential, after a warm-up), each scope in turn:
 *   self (≈5 % of the rows), org (≈10 %), orgBelow (≈50 %), and a condition
 *   `published = true and createdBy = $user.username`.
 * Lists: the default order (-publishTime,-id), and ?sort=-id. The figure is median scoped /
 * median unscoped latency per list and scope.
 */
import { rm } from 'node:fs/promises';
import { buildApp } from '../src/server/app.js';
import { readConfig } from '../src/server/lib/config.js';
import { logStream } from '../src/server/lib/log-stream.js';
import { sql } from 'kysely';
import { ADMIN_PASSWORD, BROWSER_CLIENT, createDatabase, median, round, tempDir } from './lib/util.js';

const ROWS = Number(process.env.BENCH_ROWSCOPE_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROWSCOPE_ROUNDS ?? 60);
const kind = process.argv[2] === 'postgres' ? 'postgres' : 'pglite';
const PASSWORD = 'bench-user-1';

async function main(): Promise<void> {
  const dir = tempDir('rowscope');
  const database = kind === 'postgres' ? await createDatabase('rowscope') : undefined;
  const env: NodeJS.ProcessEnv = { ADMIN_PASSWORD, DATA_DIR: dir.path, MONITORING: 'off' };
  if (database) env.DATABASE_URL = database.url;
  // LIST_EXACT_COUNT_LIMIT=1: every list shows the planner's estimate (isolates the page from the count).
  if (process.env.LIST_EXACT_COUNT_LIMIT) env.LIST_EXACT_COUNT_LIMIT = process.env.LIST_EXACT_COUNT_LIMIT;
  const { app } = await buildApp({
    config: readConfig(env),
    logger: { level: 'warn', stream: logStream(2) },
  });
  const db = app.ctx.db;
  try {
    const signIn = async (username: string, password: string): Promise<string> => {
      const answer = await app.inject({
        method: 'POST',
        url: '/api/uaa/oauth/token',
        headers: { authorization: BROWSER_CLIENT, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'password',
          scope: 'ui',
          client_id: 'browser',
          tenantCode: 'default',
          username,
          password,
        }).toString(),
      });
      if (answer.statusCode !== 200) throw new Error(`sign-in failed: ${answer.body}`);
      return (answer.json() as { access_token: string }).access_token;
    };
    const admin = { authorization: `Bearer ${await signIn('admin', ADMIN_PASSWORD)}` };
    const call = async (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) => {
      const answer = await app.inject({ method, url, headers: admin, ...(payload ? { payload } : {}) });
      if (answer.statusCode !== 200) throw new Error(`${url}: ${answer.body}`);
      return (answer.json() as { data: Record<string, unknown> }).data;
    };
    // Organisations 0..9 (1–4 below 0), a role granted every URL, 20 users.
    const orgs: number[] = [];
    for (let index = 0; index < 10; index += 1) {
      const parent = index >= 1 && index <= 4 ? (orgs[0] ?? 0) : 0;
      const added = await call('POST', '/api/admin/sysorg/add', {
        orgName: `bench-org-${index}`,
        orgType: 'group',
        orgParent: parent,
      });
      orgs.push(Number(added.id));
    }
    const role = await call('POST', '/api/admin/sysrole/add', {
      roleCode: 'ROLE_BENCH_SCOPE',
      roleName: 'bench',
    });
    const url = await call('POST', '/api/admin/sysurl/add', { url: '/api/**' });
    await call('POST', '/api/admin/sysurl/authorizeRoleToUrl', { urlId: url.id, roleIds: [role.id] });
    for (let index = 0; index < 20; index += 1) {
      await call('POST', '/api/admin/sysuser/add', {
        username: `bench${index}`,
        nickname: `bench${index}`,
        password: PASSWORD,
        email: `bench${index}@example.com`,
        mobile: `1390000${String(index).padStart(4, '0')}`,
        phone: '010-1234',
        roleId: role.id,
        orgId: orgs[Math.floor(index / 2)],
      });
    }
    const seeded = Date.now();
    await sql`insert into portal_purchase (tenant_code, title, buyer_name, category, budget, publish_time, published,
        created_by, updated_by, created_at)
      select 'default', 'purchase ' || g, 'buyer ' || (g % 97), 'goods', g % 100000,
        now() - make_interval(mins => ((g::bigint * 7919) % 5000000)::int), g % 3 <> 0,
        'bench' || ((g::bigint * 2654435761) % 20), 'bench', now()
      from generate_series(1, ${ROWS}) as g`.execute(db);
    // A table at rest is vacuumed (autovacuum): its visibility map lets counts read the index alone.
    await sql`vacuum analyze portal_purchase`.execute(db);
    console.error(`seeded ${ROWS} purchases in ${Date.now() - seeded} ms (${kind})`);
    const token = { authorization: `Bearer ${await signIn('bench0', PASSWORD)}` };
    const list = async (path: string): Promise<number> => {
      const started = process.hrtime.bigint();
      const answer = await app.inject({ method: 'GET', url: path, headers: token });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (answer.statusCode !== 200) throw new Error(`${path}: ${answer.body}`);
      return ms;
    };
    const scopes: [string, Record<string, unknown>][] = [
      ['self', { scope: 'self' }],
      ['org', { scope: 'org' }],
      ['orgBelow', { scope: 'orgBelow' }],
      ['condition', { scope: 'condition', condition: 'published = true and createdBy = $user.username' }],
    ];
    const paths = [
      ['default order', '/api/notification/purchase/query?currentPage=1&pageSize=20'],
      ['sort=-id', '/api/notification/purchase/query?currentPage=1&pageSize=20&sort=-id'],
    ] as const;
    const lines: string[] = [];
    for (const [name, scope] of scopes) {
      for (const [label, path] of paths) {
        const scoped: number[] = [];
        const unscoped: number[] = [];
        for (let round = -3; round < ROUNDS; round += 1) {
          await call('POST', '/api/admin/sysrole/authorizeDataScopeToRole', { roleId: role.id, rows: [] });
          const a = await list(path);
          await call('POST', '/api/admin/sysrole/authorizeDataScopeToRole', {
            roleId: role.id,
            rows: [{ menuCode: 'purchase', ...scope }],
          });
          const b = await list(path);
          if (round >= 0) {
            unscoped.push(a);
            scoped.push(b);
          }
        }
        const ratio = median(scoped) / median(unscoped);
        lines.push(
          `${kind}\t${name}\t${label}\tunscoped ${round(median(unscoped), 2)} ms\tscoped ${round(median(scoped), 2)} ms\tratio ${round(ratio, 2)}`,
        );
        console.error(lines.at(-1));
      }
    }
    console.log(
      `row-scope bench, ${ROWS} purchases, ${ROUNDS} rounds (median latency, sequential app.inject)`,
    );
    for (const line of lines) console.log(line);
  } finally {
    await app.close();
    await database?.drop();
    await rm(dir.path, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
