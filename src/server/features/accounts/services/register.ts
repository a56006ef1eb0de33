import { sql } from 'kysely';
import {
  BUYER_ROLE,
  EntityInputError,
  prepareInput,
  SUPPLIER_ROLE,
  TOURIST_ROLE,
  type FieldError,
} from '../../../../engine/index.js';
import { writeAudit } from '../../../lib/audit.js';
import type { AppContext } from '../../../lib/context.js';
import { insertRecords } from '../../../lib/sql/insert-records.js';
import { checkUnique } from '../../crud/index.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import type { Db } from '../../../lib/db/database.js';
import { AppError } from '../../../lib/errors.js';
import { DEFAULT_LANGUAGE, type I18n, type Localizer } from '../../../lib/i18n.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { checkSmsCode, smsCodeError } from './captcha.js';
import { consumeCode } from '../../../lib/store/codes.js';
import { secretOf, textOf } from '../../../lib/input.js';

/** The kinds of portal account (docs/product.md §1, §6): userType and the role that goes with it. */
const KINDS = {
  tourist: { userType: 0, roleCode: TOURIST_ROLE, hasOrg: false },
  buyer: { userType: 1, roleCode: BUYER_ROLE, hasOrg: true },
  supplier: { userType: 2, roleCode: SUPPLIER_ROLE, hasOrg: true },
} as const;
type Kind = keyof typeof KINDS;

/** The fields a registration reads, as the form sends them (text, or a JSON body's number). */
export const REGISTRATION_FIELDS = [
  'username',
  'password',
  'confirmPassword',
  'mobile',
  'smsCaptcha',
  'nickname',
  'email',
  'countryCode',
  'phone',
  'companyName',
  'orgName',
  'userType',
  'type',
  'tenantCode',
  'geographic',
  'address',
  'profile',
] as const;

export type RegistrationInput = { [K in (typeof REGISTRATION_FIELDS)[number]]?: string | number };

/** userType as a number (0, 1, 2) or a name (tourist, buyer, supplier); `type` is accepted too. */
function kindOf(input: RegistrationInput): Kind | undefined {
  const raw = textOf(input.userType) || textOf(input.type);
  for (const [name, kind] of Object.entries(KINDS)) {
    if (raw === name || raw === String(kind.userType)) return name as Kind;
  }
  return undefined;
}

/** The id of a role of the tenant, created (named from the locales) when the tenant lacks it. */
async function ensureRole(
  ctx: AppContext,
  i18n: I18n,
  trx: Db,
  actor: Actor,
  roleCode: string,
): Promise<number> {
  const role = ctx.registry.require('sysrole');
  const found = await sql<{ id: number }>`select id from ${sql.table(role.table)}
    where tenant_code = ${actor.tenantCode} and role_code = ${roleCode}`.execute(trx);
  if (found.rows[0]) return found.rows[0].id;
  const [id] = await insertRecords({
    trx,
    registry: ctx.registry,
    entity: role,
    actor,
    records: [
      {
        roleCode,
        roleName: i18n.t(DEFAULT_LANGUAGE, `roles.${roleCode}.name`),
        roleDescription: i18n.t(DEFAULT_LANGUAGE, `roles.${roleCode}.description`),
      },
    ],
  });
  return Number(id);
}

/** Tourists have no company: they share one organisation of the tenant, created on first use. */
async function touristOrg(ctx: AppContext, i18n: I18n, trx: Db, actor: Actor): Promise<number> {
  const org = ctx.registry.require('sysorg');
  const name = i18n.t(DEFAULT_LANGUAGE, 'account.touristOrg');
  const found = await sql<{ id: number }>`select id from ${sql.table(org.table)}
    where tenant_code = ${actor.tenantCode} and org_name = ${name}`.execute(trx);
  if (found.rows[0]) return found.rows[0].id;
  const [id] = await insertRecords({
    trx,
    registry: ctx.registry,
    entity: org,
    actor,
    records: [{ orgName: name, orgType: 'team', orgSequence: 1000, orgParent: 0 }],
  });
  return Number(id);
}

/** Field errors of an engine validation, or none. */
function errorsOf(validate: () => unknown): FieldError[] {
  try {
    validate();
    return [];
  } catch (error) {
    if (error instanceof EntityInputError) return error.errors;
    throw error;
  }
}

/** The new account, as registerAccount answers it. */
export interface Registered {
  id: number;
  username: string;
  userType: number;
  roleCode: string;
  orgId: number;
}

interface Registration {
  kind: Kind;
  tenantCode: string;
  username: string;
  user: Record<string, unknown>;
  org: Record<string, unknown> | undefined;
  mobile: string;
  smsCaptcha: string;
}

/**
 * Reads and checks a registration body against the user and organisation schemas: every
 * problem at once, each naming its field. The organisation name may come as orgName or
 * companyName; errors name the one that was sent.
 */
function readRegistration(ctx: AppContext, l10n: Localizer, input: RegistrationInput): Registration {
  const t = l10n.t;
  const errors: FieldError[] = [];
  const kind = kindOf(input);
  if (!kind) errors.push({ field: '/userType', message: t('validation.enum') });
  const username = textOf(input.username);
  const password = secretOf(input.password);
  const mobile = textOf(input.mobile);
  const smsCaptcha = textOf(input.smsCaptcha);
  const user: Record<string, unknown> = {
    username,
    password,
    nickname: textOf(input.nickname) || username,
    email: textOf(input.email),
    countryCode: textOf(input.countryCode) || '+86',
    mobile,
    phone: textOf(input.phone) || mobile,
    status: '1',
    userType: kind ? KINDS[kind].userType : 0,
  };
  for (const name of ['geographic', 'address', 'profile'] as const) {
    const value = textOf(input[name]);
    if (value) user[name] = value;
  }
  const userEntity = ctx.registry.require('sysuser');
  // roleId and orgId are ours to fill in; placeholders let the schema check everything else.
  errors.push(
    ...errorsOf(() =>
      prepareInput(
        userEntity,
        ctx.registry.validators(userEntity),
        { ...user, roleId: 1, orgId: 1 },
        'create',
        t,
      ),
    ),
  );
  const confirm = input.confirmPassword;
  if (typeof confirm === 'string' && confirm !== password) {
    errors.push({ field: '/confirmPassword', message: t('account.passwordMismatch') });
  }
  if (!smsCaptcha) errors.push({ field: '/smsCaptcha', message: t('validation.required') });
  let org: Record<string, unknown> | undefined;
  if (kind && KINDS[kind].hasOrg) {
    const nameField = textOf(input.companyName) && !textOf(input.orgName) ? 'companyName' : 'orgName';
    org = { orgName: textOf(input[nameField]), orgType: 'company', orgSequence: 0, orgParent: 0 };
    const orgEntity = ctx.registry.require('sysorg');
    errors.push(
      ...errorsOf(() => prepareInput(orgEntity, ctx.registry.validators(orgEntity), org, 'create', t)).map(
        (error) => (error.field === '/orgName' ? { ...error, field: `/${nameField}` } : error),
      ),
    );
  }
  if (errors.length > 0 || !kind) throw new EntityInputError(errors);
  return {
    kind,
    tenantCode: textOf(input.tenantCode) || ctx.config.defaultTenant,
    username,
    user,
    org,
    mobile,
    smsCaptcha,
  };
}

/**
 * Creates a portal account: checks the SMS code sent to the mobile number, then in one
 * transaction uses the code up, creates the organisation (buyer, supplier) and the user with the
 * role of its kind.
 */
export async function register({
  ctx,
  i18n,
  l10n,
  input,
}: {
  ctx: AppContext;
  i18n: I18n;
  l10n: Localizer;
  input: RegistrationInput;
}): Promise<Registered> {
  const registration = readRegistration(ctx, l10n, input);
  const { kind, tenantCode, username, mobile, smsCaptcha } = registration;
  const code = await checkSmsCode({ ctx, t: l10n.t, tenantCode, mobile, smsCaptcha });
  const actor: Actor = { userId: null, username, tenantCode };
  const userEntity = ctx.registry.require('sysuser');
  const orgEntity = ctx.registry.require('sysorg');
  return inTransaction(ctx.db, async (trx) => {
    await checkUnique({
      trx,
      entity: userEntity,
      registry: ctx.registry,
      actor,
      l10n,
      values: registration.user,
    });
    let orgId: number;
    if (registration.org) {
      try {
        await checkUnique({
          trx,
          entity: orgEntity,
          registry: ctx.registry,
          actor,
          l10n,
          values: registration.org,
        });
      } catch (error) {
        // The organisation name reads best under the field the form used.
        if (error instanceof AppError && error.errors && input.companyName !== undefined && !input.orgName) {
          throw new AppError(
            'uniqueClash',
            error.params,
            error.errors.map((item) => ({ ...item, field: '/companyName' })),
          );
        }
        throw error;
      }
      [orgId] = (
        await insertRecords({
          trx,
          registry: ctx.registry,
          entity: orgEntity,
          actor,
          records: [registration.org],
        })
      ).map(Number) as [number];
    } else {
      orgId = await touristOrg(ctx, i18n, trx, actor);
    }
    // Used up once the names are known to be free: a clash leaves the code good for a second try
    // (in Redis a used code is gone even when this transaction fails).
    if (!(await consumeCode(trx, code.id))) throw smsCodeError(l10n.t);
    const roleId = await ensureRole(ctx, i18n, trx, actor, KINDS[kind].roleCode);
    const [userId] = (
      await insertRecords({
        trx,
        registry: ctx.registry,
        entity: userEntity,
        actor,
        records: [{ ...registration.user, roleId, orgId }],
      })
    ).map(Number) as [number];
    await writeAudit({
      trx,
      actor: { ...actor, userId },
      entries: [
        ...(registration.org
          ? [
              {
                entity: orgEntity.name,
                recordKey: orgId,
                action: 'add' as const,
                before: null,
                after: registration.org,
              },
            ]
          : []),
        {
          entity: userEntity.name,
          recordKey: userId,
          action: 'add',
          before: null,
          after: { ...registration.user, password: undefined, roleId, orgId },
        },
      ],
    });
    const registered: Registered = {
      id: userId,
      username,
      userType: KINDS[kind].userType,
      roleCode: KINDS[kind].roleCode,
      orgId,
    };
    return registered;
  });
}

/** Is an organisation name taken in the tenant? */
export async function isCompanyNameTaken({
  ctx,
  tenantCode,
  companyName,
}: {
  ctx: AppContext;
  tenantCode: string;
  companyName: string;
}): Promise<boolean> {
  const org = ctx.registry.require('sysorg');
  const found = await sql`select 1 from ${sql.table(org.table)}
    where tenant_code = ${tenantCode} and org_name = ${companyName} limit 1`.execute(ctx.db);
  return found.rows.length > 0;
}

/** Is a user name taken in the tenant? */
export async function isUsernameTaken({
  ctx,
  tenantCode,
  username,
}: {
  ctx: AppContext;
  tenantCode: string;
  username: string;
}): Promise<boolean> {
  const users = sql.table(ctx.registry.require('sysuser').table);
  const found = await sql`select 1 from ${users}
    where tenant_code = ${tenantCode} and username = ${username} limit 1`.execute(ctx.db);
  return found.rows.length > 0;
}
