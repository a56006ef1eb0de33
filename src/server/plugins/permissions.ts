import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sql } from 'kysely';
import { AppError } from '../lib/errors.js';
import { ADMIN_ROLE } from '../services/permissions/authority.js';
import { matchesUrlPattern } from '../services/permissions/url-pattern.js';

/**
 * Role-based access on every non-public /api route, decided on the server: ROLE_ADMIN passes;
 * a route every signed-in user needs (config isSelfService: own profile, menus, notifications)
 * passes; any other route needs a URL permission (sysurl pattern) granted to one of the
 * caller's roles in the caller's tenant. No matching permission means 403.
 */
async function rbacPlugin(app: FastifyInstance): Promise<void> {
  const url = app.ctx.registry.require('sysurl');
  const role = app.ctx.registry.require('sysrole');
  app.addHook('onRequest', async (request) => {
    const auth = request.auth;
    if (!auth || request.is404 || request.routeOptions.config.isPublic === true) return;
    if (auth.roles.includes(ADMIN_ROLE) || request.routeOptions.config.isSelfService === true) return;
    if (auth.roles.length === 0) throw new AppError('forbidden');
    const granted = await sql<{ url: string }>`select distinct u.url from ${sql.table(url.table)} u
      join sys_role_url ru on ru.url_id = u.id
      join ${sql.table(role.table)} r on r.id = ru.role_id
      where r.tenant_code = ${auth.tenantCode} and r.role_code in (${sql.join(auth.roles)})`.execute(
      app.ctx.db,
    );
    const path = request.url.split('?')[0] ?? '';
    if (!granted.rows.some((row) => matchesUrlPattern(row.url, path))) throw new AppError('forbidden');
  });
}

export const rbacHook = fp(rbacPlugin, { name: 'rbac', dependencies: ['auth'] });
