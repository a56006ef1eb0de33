import { CompiledQuery, type Kysely } from 'kysely';

/** The seeded user rows all carry this prefix, so a `username` contains-filter selects exactly them. */
export const BENCH_USER_PREFIX = 'benchuser';

/**
 * Inserts `count` valid users of the default tenant in one statement (generate_series), not
 * through the API: unique usernames and mobiles, 90 % with status '1', the seeded admin's
 * password hash, role and organisation, then ANALYZE so plans do not depend on autovacuum timing.
 */
export async function seedUsers(
  db: Kysely<Record<string, Record<string, unknown>>>,
  table: string,
  count: number,
  tenantCode = 'default',
): Promise<void> {
  const quoted = `"${table.replace(/"/g, '""')}"`;
  await db.executeQuery(
    CompiledQuery.raw(
      `insert into ${quoted} (username, nickname, password, email, country_code, mobile, phone, status, user_type,
         role_id, org_id, geographic, address, profile, avatar, tenant_code, created_by, updated_by)
       select '${BENCH_USER_PREFIX}' || lpad(i::text, 7, '0'), 'Bench user ' || i, admin.password,
         '${BENCH_USER_PREFIX}' || i || '@example.com', '+86', (15000000000 + i)::text, '010-' || lpad(i::text, 8, '0'),
         case when i % 10 = 0 then '0' else '1' end, i % 2, admin.role_id, admin.org_id, 'Region ' || (i % 300),
         'No. ' || i || ' Bench Road, Beijing', null, null, $1, 'bench', 'bench'
       from generate_series(1, $2::int) as i,
         (select password, role_id, org_id from ${quoted} where username = 'admin' and tenant_code = $1) as admin`,
      [tenantCode, count],
    ),
  );
  await db.executeQuery(CompiledQuery.raw(`analyze ${quoted}`));
  const result = await db.executeQuery<{ total: number }>(
    CompiledQuery.raw(
      `select count(*)::int as total from ${quoted} where username like '${BENCH_USER_PREFIX}%'`,
    ),
  );
  const total = result.rows[0]?.total ?? 0;
  if (total !== count) throw new Error(`seeding ${table}: expected ${count} bench users, found ${total}`);
}
