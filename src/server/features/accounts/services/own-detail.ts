import { sql } from 'kysely';
import { OWN_PROFILE_FIELDS } from '../../../../engine/index.js';
import type { AppContext } from '../../../lib/context.js';
import type { Row } from '../../../lib/db/database.js';
import { AppError } from '../../../lib/errors.js';
import { column, selectList, table } from '../../../lib/sql/toolkit.js';
import type { AuthContext } from '../../sessions/index.js';

const OWN_DETAIL_FIELDS = ['id', 'username', 'version', ...OWN_PROFILE_FIELDS];

/**
 * The caller's own record as the profile form edits it (the fields updateSysUserDetail accepts,
 * with id, username and version), whatever their URL permissions on the user list.
 */
export async function ownDetail({ ctx, auth }: { ctx: AppContext; auth: AuthContext }): Promise<Row> {
  const entity = ctx.registry.require('sysuser');
  const found = await sql<Row>`select ${selectList(entity)} from ${table(entity)}
    where ${column(entity.key)} = ${auth.userId} and tenant_code = ${auth.tenantCode}`.execute(ctx.db);
  const row = found.rows[0];
  if (!row) throw new AppError('invalidToken');
  const detail: Row = {};
  for (const name of OWN_DETAIL_FIELDS) if (name in row) detail[name] = row[name] ?? null;
  return detail;
}
