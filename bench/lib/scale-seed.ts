/**
 * Users at scale for the `scale` suite, with generate_series on PostgreSQL and PGlite alike:
 * Chinese names, skewed dictionary values (user type 0/1/2 at about 80/14/6 %, status 1 at
 * 92 %), creation dates spread over seven years. A multiplicative hash of the row number stands
 * in for randomness, so every run seeds the same rows.
 */

/** Runs one statement with parameters: a pg client or PGlite. */
export type Execute = (text: string, params?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;

export const SCALE_USER_PREFIX = 'u';
const BATCH = 1_000_000;

const SURNAMES = '王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗'.split('');
const GIVEN = [
  '伟',
  '芳',
  '娜',
  '秀英',
  '敏',
  '静',
  '丽',
  '强',
  '磊',
  '军',
  '洋',
  '勇',
  '艳',
  '杰',
  '娟',
  '涛',
  '明',
  '超',
  '秀兰',
  '霞',
  '平',
  '刚',
  '桂英',
];
const MIDDLE = ['华', '国', '建', '文', '玉', '金', '海', '春'];
const PROVINCES = ['北京', '上海', '广东', '江苏', '浙江', '山东', '四川', '湖北', '河南', '福建'];

const textArray = (items: string[]): string => `array[${items.map((item) => `'${item}'`).join(',')}]`;

/**
 * Every index of the table but its primary key: dropped before seeding (building an index once
 * over all rows is much faster than keeping twenty of them up to date row by row), created again
 * by the server's migration when it next starts.
 */
export async function dropSecondaryIndexes(execute: Execute, table: string): Promise<number> {
  const found = await execute(
    `select i.relname as name from pg_index x join pg_class i on i.oid = x.indexrelid
     join pg_class t on t.oid = x.indrelid where t.relname = $1 and not x.indisprimary`,
    [table],
  );
  for (const row of found.rows) await execute(`drop index if exists "${String(row.name)}"`);
  return found.rows.length;
}

export async function seedScaleUsers(
  execute: Execute,
  table: string,
  count: number,
  log: (line: string) => void,
  tenantCode = 'default',
): Promise<void> {
  const quoted = `"${table.replace(/"/g, '""')}"`;
  const admin = await execute(
    `select password, role_id, org_id from ${quoted} where username = 'admin' and tenant_code = $1`,
    [tenantCode],
  );
  if (admin.rows.length !== 1) throw new Error(`no admin user in ${table}`);
  for (let from = 1; from <= count; from += BATCH) {
    const to = Math.min(count, from + BATCH - 1);
    const started = Date.now();
    await execute(
      `insert into ${quoted} (username, nickname, password, email, country_code, mobile, phone, status, user_type,
         role_id, org_id, geographic, address, tenant_code, created_at, updated_at, created_by, updated_by)
       select '${SCALE_USER_PREFIX}' || lpad(i::text, 8, '0'),
         (${textArray(SURNAMES)})[1 + h % ${SURNAMES.length}]
           || case when h % 3 = 0 then (${textArray(MIDDLE)})[1 + (h / 7) % ${MIDDLE.length}] else '' end
           || (${textArray(GIVEN)})[1 + (h / 61) % ${GIVEN.length}],
         admin.password, '${SCALE_USER_PREFIX}' || i || '@example.com', '+86', (13000000000 + i)::text,
         '010-' || lpad((h % 100000000)::text, 8, '0'),
         case when h % 100 < 92 then '1' else '0' end,
         case when h % 97 < 78 then 0 when h % 97 < 91 then 1 else 2 end,
         admin.role_id, admin.org_id, (${textArray(PROVINCES)})[1 + (h / 11) % ${PROVINCES.length}],
         (${textArray(PROVINCES)})[1 + (h / 13) % ${PROVINCES.length}] || '市' || (h % 999) || '号',
         $1, ts, ts + (h % 400) * interval '1 day', 'bench', 'bench'
       from generate_series($3::int, $4::int) as i,
         lateral (select (i::bigint * 2654435761) % 4294967291 as h) as hashed,
         lateral (select timestamptz '2019-01-01 00:00:00+08' + (i::double precision / $2::int) * interval '7 years'
           + (h % 86400) * interval '1 second' as ts) as dated,
         (select $5::text as password, $6::bigint as role_id, $7::bigint as org_id) as admin`,
      [tenantCode, count, from, to, admin.rows[0]?.password, admin.rows[0]?.role_id, admin.rows[0]?.org_id],
    );
    log(
      `    seeded ${to.toLocaleString('en-US')} / ${count.toLocaleString('en-US')} users (${Date.now() - started} ms)`,
    );
  }
}
