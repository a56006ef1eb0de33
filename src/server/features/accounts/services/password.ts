import { sql } from 'kysely';
import { EntityInputError } from '../../../../engine/index.js';
import { writeAudit } from '../../../lib/audit.js';
import type { AppContext } from '../../../lib/context.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import type { Translate } from '../../../lib/i18n.js';
import { hashSecret, verifySecret } from '../../../lib/passwords.js';
import type { RenewedSession } from '../../../../engine/index.js';
import { endSessions, renewSession, type AuthContext } from '../../sessions/index.js';

/**
 * Changes the caller's own password after checking the current one; every session of the user
 * ends in the same transaction, the caller's own too, so neither a stolen session nor a token
 * copied from the caller's can outlive the change. The page that made the change goes on with the
 * fresh session answered here (docs/http-contract.md "Sessions").
 */
export async function changeOwnPassword({
  ctx,
  auth,
  current,
  newPassword,
  t,
  ip,
  userAgent,
}: {
  ctx: AppContext;
  auth: AuthContext;
  current: string;
  newPassword: string;
  t: Translate;
  /** Where the request came from, kept on the new session as a sign-in keeps it. */
  ip: string | null;
  userAgent: string | null;
}): Promise<RenewedSession> {
  const user = ctx.registry.require('sysuser');
  const users = sql.table(user.table);
  return inTransaction(ctx.db, async (trx) => {
    const found = await sql<{ password: string | null }>`select password from ${users}
      where id = ${auth.userId} and tenant_code = ${auth.tenantCode} for update`.execute(trx);
    if (!(await verifySecret(current, found.rows[0]?.password))) {
      throw new EntityInputError([{ field: '/password', message: t('errors.wrongPassword') }]);
    }
    await sql`update ${users} set password = ${await hashSecret(newPassword)}, version = version + 1,
      updated_at = now(), updated_by = ${auth.username} where id = ${auth.userId}`.execute(trx);
    await endSessions({ trx, userIds: [auth.userId] });
    await writeAudit({
      trx,
      actor: { userId: auth.userId, username: auth.username, tenantCode: auth.tenantCode },
      entries: [
        {
          entity: user.name,
          recordKey: auth.userId,
          action: 'update',
          before: null,
          after: { passwordChanged: true },
        },
      ],
    });
    return renewSession({ trx, ctx, sessionId: auth.sessionId, ip, userAgent });
  });
}
