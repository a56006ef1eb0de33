import { sql } from 'kysely';
import {
  EntityInputError,
  OWN_PROFILE_FIELDS,
  prepareInput,
  type FieldError,
} from '../../../../engine/index.js';
import { writeAudit } from '../../../lib/audit.js';
import { checkUnique } from '../../crud/index.js';
import { column, selectList, table, toDbValue } from '../../../lib/sql/toolkit.js';
import type { Row } from '../../../lib/db/database.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import type { AppContext } from '../../../lib/context.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import type { AuthContext } from '../../sessions/index.js';
import { checkSmsCode, smsCodeError } from './captcha.js';
import { consumeCode, type LiveCode } from '../../../lib/store/codes.js';
import { inTransaction } from '../../../lib/db/transaction.js';

/**
 * Fields that identify the record rather than change it (sent back by forms, they are checked, not
 * written), and smsCaptcha, the proof that goes with a new mobile number.
 */
const IDENTITY_FIELDS = new Set(['id', 'version', 'username', 'smsCaptcha']);
const EDITABLE_FIELDS = new Set<string>(OWN_PROFILE_FIELDS);

/**
 * The caller edits their own profile, checked by the user schema's rules. A
 * new mobile number needs smsCaptcha, a live SMS code sent to that number (getSmsCaptcha), used up
 * by the change: nobody gets a number they cannot receive texts on, and so its SMS sign-in.
 */
export async function updateOwnProfile({
  ctx,
  auth,
  input,
  l10n,
}: {
  ctx: AppContext;
  auth: AuthContext;
  input: Record<string, unknown>;
  l10n: Localizer;
}): Promise<Row> {
  const entity = ctx.registry.require('sysuser');
  const refused: FieldError[] = Object.keys(input)
    .filter((name) => !EDITABLE_FIELDS.has(name) && !IDENTITY_FIELDS.has(name))
    .map((name) => ({ field: `/${name}`, message: l10n.t('account.notEditable') }));
  if (refused.length > 0) throw new EntityInputError(refused);
  // id, when sent, is a whole number: the route schema read it (a form's digits included).
  if (typeof input.id === 'number' && input.id !== auth.userId) {
    throw new AppError('forbidden');
  }
  if (input.username !== undefined && input.username !== auth.username) {
    throw new EntityInputError([{ field: '/username', message: l10n.t('account.notEditable') }]);
  }
  const changes: Record<string, unknown> = { id: auth.userId };
  for (const name of OWN_PROFILE_FIELDS) if (name in input) changes[name] = input[name];
  // version is optional here: sent, it guards against a stale form; absent, the change applies as is.
  const hasVersion = input.version !== undefined && input.version !== null;
  changes.version = hasVersion ? input.version : 0;
  const { values, cleared } = prepareInput(
    entity,
    ctx.registry.validators(entity),
    changes,
    'update',
    l10n.t,
  );
  const version = hasVersion ? values.version : undefined;
  delete values.id;
  delete values.version;
  const actor: Actor = { userId: auth.userId, username: auth.username, tenantCode: auth.tenantCode };
  const where = sql`where ${column(entity.key)} = ${auth.userId} and tenant_code = ${auth.tenantCode}`;
  if (cleared.includes('mobile')) {
    throw new EntityInputError([{ field: '/mobile', message: l10n.t('validation.required') }]);
  }
  const newMobile = typeof values.mobile === 'string' ? values.mobile : undefined;
  // Checked before the transaction, so that a wrong guess counts even though the change fails.
  let smsCode: LiveCode | undefined;
  if (newMobile !== undefined) {
    const current = (
      await sql<{ mobile: string | null }>`select mobile from ${table(entity)} ${where}`.execute(ctx.db)
    ).rows[0];
    if (current && current.mobile !== newMobile) {
      const smsCaptcha = typeof input.smsCaptcha === 'string' ? input.smsCaptcha.trim() : '';
      if (smsCaptcha === '') {
        throw new EntityInputError([{ field: '/smsCaptcha', message: l10n.t('validation.required') }]);
      }
      smsCode = await checkSmsCode({
        ctx,
        t: l10n.t,
        tenantCode: auth.tenantCode,
        mobile: newMobile,
        smsCaptcha,
      });
    }
  }
  const updated = await inTransaction(ctx.db, async (trx) => {
    const before = (
      await sql<Row>`select ${selectList(entity)} from ${table(entity)} ${where} for update`.execute(trx)
    ).rows[0];
    if (!before) throw new AppError('invalidToken');
    if (version !== undefined && before.version !== version) {
      throw new AppError('staleVersion', {}, [{ field: '/version', message: l10n.t('errors.staleVersion') }]);
    }
    if (newMobile !== undefined && before.mobile !== newMobile) {
      if (!smsCode || !(await consumeCode(trx, smsCode.id))) throw smsCodeError(l10n.t);
    }
    await checkUnique({ trx, entity, registry: ctx.registry, actor, l10n, values, ownKey: auth.userId });
    const assignments = OWN_PROFILE_FIELDS.flatMap((name) => {
      const field = entity.fieldsByName.get(name);
      if (!field || (values[name] === undefined && !cleared.includes(name))) return [];
      return [sql`${column(field)} = ${toDbValue(field, values[name] ?? null)}`];
    });
    if (assignments.length === 0) return before;
    const after = (
      await sql<Row>`update ${table(entity)} set ${sql.join(assignments)}, version = version + 1,
        updated_at = now(), updated_by = ${auth.username} ${where} returning ${selectList(entity)}`.execute(
        trx,
      )
    ).rows[0];
    if (!after) throw new AppError('invalidToken');
    await writeAudit({
      trx,
      actor,
      entries: [{ entity: entity.name, recordKey: auth.userId, action: 'update', before, after }],
    });
    return after;
  });
  return updated;
}
