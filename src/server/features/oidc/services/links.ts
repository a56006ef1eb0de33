import { sql } from 'kysely';
import type { OidcLinkView } from '../../../../engine/api-types.js';
import { writeAudit } from '../../../lib/audit.js';
import type { RequestAuth } from '../../../lib/auth.js';
import type { AppContext } from '../../../lib/context.js';
import { inTransaction } from '../../../lib/db/transaction.js';

/** The tenant's enabled providers, each linked to the signed-in user or not (个人中心). */
export async function ownLinks(ctx: AppContext, auth: RequestAuth): Promise<OidcLinkView[]> {
  const rows = await sql<{ id: number; name: string; linked_at: Date | null }>`select p.id, p.name,
      l.created_at as linked_at
    from sys_oidc_provider p left join sys_oidc_link l on l.provider_id = p.id and l.user_id = ${auth.userId}
    where p.tenant_code = ${auth.tenantCode} and (p.enabled or l.id is not null)
    order by p.sequence, p.id`.execute(ctx.db);
  return rows.rows.map((row) => ({
    providerId: Number(row.id),
    name: row.name,
    isLinked: row.linked_at !== null,
    linkedAt: row.linked_at === null ? null : row.linked_at.toISOString(),
  }));
}

/**
 * Unlinks the signed-in user from a provider of the tenant (the user signs in with the password
 * or SMS code, or links again); whether there was a link.
 */
export async function unlink(ctx: AppContext, auth: RequestAuth, providerId: number): Promise<boolean> {
  return inTransaction(ctx.db, async (trx) => {
    const deleted = await sql<{ id: number; subject: string }>`delete from sys_oidc_link
      where provider_id = ${providerId} and user_id = ${auth.userId} and tenant_code = ${auth.tenantCode}
      returning id, subject`.execute(trx);
    const row = deleted.rows[0];
    if (!row) return false;
    await writeAudit({
      trx,
      actor: { userId: auth.userId, username: auth.username, tenantCode: auth.tenantCode },
      entries: [
        {
          entity: 'sysoidclink',
          recordKey: Number(row.id),
          action: 'delete',
          before: { providerId, userId: auth.userId, subject: row.subject },
          after: null,
        },
      ],
    });
    return true;
  });
}
