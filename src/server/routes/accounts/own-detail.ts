import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Row } from '../../lib/db/database.js';
import { column, selectList, table } from '../../lib/sql/toolkit.js';
import { AppError } from '../../lib/errors.js';
import { ok, requireAuth } from '../../lib/http.js';
import { OWN_PROFILE_FIELDS } from '../../../engine/index.js';

/**
 * querySysUserDetail: the caller's own record as the profile form edits it (the fields
 * updateSysUserDetail accepts, with id, username and version), for any signed-in user, whatever
 * their URL permissions on the user list.
 */
export async function ownDetailRoutes(app: FastifyInstance): Promise<void> {
  const entity = app.ctx.registry.require('sysuser');
  const names = ['id', 'username', 'version', ...OWN_PROFILE_FIELDS];
  app.get(
    '/api/account/sysuserdetail/querySysUserDetail',
    { config: { isSelfService: true } },
    async (request) => {
      const auth = requireAuth(request);
      const found = await sql<Row>`select ${selectList(entity)} from ${table(entity)}
        where ${column(entity.key)} = ${auth.userId} and tenant_code = ${auth.tenantCode}`.execute(
        app.ctx.db,
      );
      const row = found.rows[0];
      if (!row) throw new AppError('invalidToken');
      const detail: Row = {};
      for (const name of names) if (name in row) detail[name] = row[name] ?? null;
      return ok(detail);
    },
  );
}
