/**
 * row-scope: a list under a row data scope against the same list unscoped (issue 32: "a scoped
 * list within 1.3× of the unscoped one"), at 1,000,000 purchases (BENCH_ROWSCOPE_ROWS).
 *
 *   npm run bench -- rowscope [pglite|postgres]      (PostgreSQL: BENCH_DATABASE_URL, default local test)
 *
 * The real app in this process (bench/lib/app.ts, as main.ts and the query suite boot it), purchases seeded with generate_series:
 * created by 20 users in 10 organisations (org i has users 2i and 2i+1; organisations 1–4 sit
 * below organisation 0). One signed-in user of a role, the same user and token for both sides;
 * only the role's sys_data_scope row differs (none = unscoped). Requests alternate unscoped and
 * scoped (app.inject, sequential, after a warm-up), each scope in turn:
 *   self (≈5 % of the rows), org (≈10 %), orgBelow (≈50 %), and a condition
 *   `published = true and createdBy = $user.username`.
 * Lists: the default order (-publishTime,-id), and ?sort=-id. The figure is median scoped /
 * median unscoped latency per list and scope (goal: below 1.3). A scoped list counts at most
 * LIST_SCOPED_COUNT_LIMIT rows (10,000) before it gives the planner's estimate, as the unscoped
 * list gives it above LIST_EXACT_COUNT_LIMIT; both are passed on when set.
 */
import { rm } from 'node:fs/promises';
import { sql } from 'kysely';
import { bootApp, signInApp, type BenchApp } from './lib/app.js';
import { figure, perDatabase, type Figure, type SuiteResult } from './lib/report.js';
import { createDatabase, median, round, tempDir, type DbKind } from './lib/util.js';

const ROWS = Number(process.env.BENCH_ROWSCOPE_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROWSCOPE_ROUNDS ?? 60);
const GOAL = 1.3;
const PASSWORD = 'bench-user-1';

/** Organisations 0..9 (1–4 below 0), a role granted every URL, 20 users; the role's id. */
async function prepare(app: BenchApp, admin: { authorization: string }): Promise<number> {
  const call = async (url: string, payload: Record<string, unknown>) => {
    const answer = await app.inject({ method: 'POST', url, headers: admin, payload });
    if (answer.statusCode !== 200) throw new Error(`${url}: ${answer.body}`);
    return (answer.json() as { data: Record<string, unknown> }).data;
  };
  const orgs: number[] = [];
  for (let index = 0; index < 10; index += 1) {
    const parent = index >= 1 && index <= 4 ? (orgs[0] ?? 0) : 0;
    const added = await call('/api/admin/sysorg/add', {
      orgName: `bench-org-${index}`,
      orgType: 'group',
      orgParent: parent,
    });
    orgs.push(Number(added.id));
  }
  const role = await call('/api/admin/sysrole/add', { roleCode: 'ROLE_BENCH_SCOPE', roleName: 'bench' });
  const url = await call('/api/admin/sysurl/add', { url: '/api/**' });
  await call('/api/admin/sysurl/authorizeRoleToUrl', { urlId: url.id, roleIds: [role.id] });
  for (let index = 0; index < 20; index += 1) {
    await call('/api/admin/sysuser/add', {
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
  return Number(role.id);
}

async function measure(
  kind: DbKind,
  log: (line: string) => void,
): Promise<{ figures: Figure[]; details: unknown }> {
  const dir = tempDir('rowscope');
  const database = kind === 'postgres' ? await createDatabase('rowscope') : undefined;
  const env: NodeJS.ProcessEnv = { MONITORING: 'off' };
  for (const name of ['LIST_EXACT_COUNT_LIMIT', 'LIST_SCOPED_COUNT_LIMIT'])
    if (process.env[name]) env[name] = process.env[name];
  const { app } = await bootApp({ dataDir: dir.path, databaseUrl: database?.url, env, logTo: 2 });
  const db = app.ctx.db;
  try {
    const admin = { authorization: `Bearer ${await signInApp(app)}` };
    const roleId = await prepare(app, admin);
    const setScope = async (rows: Record<string, unknown>[]): Promise<void> => {
      const answer = await app.inject({
        method: 'POST',
        url: '/api/admin/sysrole/authorizeDataScopeToRole',
        headers: admin,
        payload: { roleId, rows },
      });
      if (answer.statusCode !== 200) throw new Error(`authorizeDataScopeToRole: ${answer.body}`);
    };
    const seeded = Date.now();
    await sql`insert into portal_purchase (tenant_code, title, buyer_name, category, budget, publish_time, published,
        created_by, updated_by, created_at)
      select 'default', 'purchase ' || g, 'buyer ' || (g % 97), 'goods', g % 100000,
        now() - make_interval(mins => ((g::bigint * 7919) % 5000000)::int), g % 3 <> 0,
        'bench' || ((g::bigint * 2654435761) % 20), 'bench', now()
      from generate_series(1, ${ROWS}) as g`.execute(db);
    // A table at rest is vacuumed (autovacuum): its visibility map lets counts read the index alone.
    await sql`vacuum analyze portal_purchase`.execute(db);
    const seedMs = Date.now() - seeded;
    log(`  ${kind}: seeded ${ROWS.toLocaleString('en-US')} purchases in ${(seedMs / 1000).toFixed(0)} s`);
    const token = { authorization: `Bearer ${await signInApp(app, 'bench0', PASSWORD)}` };
    const list = async (path: string): Promise<{ ms: number; totalExact: boolean }> => {
      const started = process.hrtime.bigint();
      const answer = await app.inject({ method: 'GET', url: path, headers: token });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (answer.statusCode !== 200) throw new Error(`${path}: ${answer.body}`);
      return { ms, totalExact: (answer.json() as { data: { totalExact: boolean } }).data.totalExact };
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
    const figures: Figure[] = [];
    const samples: Record<string, { scoped: number[]; unscoped: number[]; scopedTotalExact: boolean }> = {};
    for (const [name, scope] of scopes) {
      for (const [label, path] of paths) {
        const scoped: number[] = [];
        const unscoped: number[] = [];
        let scopedTotalExact = false;
        // Alternating, after a warm-up: the same user and token, only the role's scope row differs.
        for (let turn = -3; turn < ROUNDS; turn += 1) {
          await setScope([]);
          const a = await list(path);
          await setScope([{ menuCode: 'purchase', ...scope }]);
          const b = await list(path);
          scopedTotalExact = b.totalExact;
          if (turn >= 0) {
            unscoped.push(a.ms);
            scoped.push(b.ms);
          }
        }
        const ratio = median(scoped) / median(unscoped);
        samples[`${name} / ${label}`] = { scoped, unscoped, scopedTotalExact };
        const note = `scoped ${round(median(scoped), 2)} ms, unscoped ${round(median(unscoped), 2)} ms; total ${scopedTotalExact ? 'exact' : 'estimated'}`;
        log(`  ${kind} ${name} (${label}): ratio ${round(ratio, 2)} (${note})`);
        figures.push(
          figure(
            'rowscope',
            `${kind} ${name}, ${label}: scoped / unscoped`,
            ratio,
            'ratio',
            { op: '<', value: GOAL },
            note,
          ),
        );
      }
    }
    return { figures, details: { rows: ROWS, rounds: ROUNDS, seedMs, samples } };
  } finally {
    await app.close();
    await database?.drop();
    await rm(dir.path, { recursive: true, force: true });
  }
}

/** The rowscope suite: each database in turn (1,000,000 purchases: minutes of seeding each). */
export function runRowScope(kinds: DbKind[], log: (line: string) => void): Promise<SuiteResult> {
  return perDatabase('rowscope', kinds, (kind) => measure(kind, log));
}
