import { sql } from 'kysely';
import { BUDGETS } from '../../../lib/budgets.js';
import type { AppContext } from '../../../lib/context.js';
import { sanitizeRichText } from '../../../lib/html.js';
import type { I18n } from '../../../lib/i18n.js';
import { noticeInsert, noticeWithEvent } from '../../workflow/index.js';
import type { AddressGuard } from '../../../lib/address-guard.js';
import { eventOf, type EventRow } from './event-rows.js';
import { postSigned, type PostOutcome } from './post.js';

interface Taken extends EventRow {
  delivery_id: number | string;
  attempts: number;
  first_at: Date;
  webhook_id: number | string;
  url: string;
  secret: string;
  name: string;
}

/**
 * How long a taken batch is another process's to leave alone: longer than posting all of it,
 * BUDGETS.webhooks.concurrent at a time, each within its request time.
 */
const LEASE_SECONDS =
  Math.ceil(BUDGETS.webhooks.batch / BUDGETS.webhooks.concurrent) *
    Math.ceil(BUDGETS.webhooks.requestMs / 1000) +
  30;

/** The wait before the next attempt after `attempts` failed ones: doubling, from the first to the longest. */
export function retryDelayMs(attempts: number): number {
  const { firstRetryMs, longestRetryMs } = BUDGETS.webhooks;
  return Math.min(longestRetryMs, firstRetryMs * 2 ** Math.max(0, attempts - 1));
}

const isSuccess = (outcome: PostOutcome): boolean =>
  outcome.status !== null && outcome.status >= 200 && outcome.status < 300;

/** Runs `work` on every item, at most `limit` at once. */
async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** What one attempt came to, as the delivery log keeps it. */
interface Attempted {
  row: Taken;
  outcome: PostOutcome;
  status: 'delivered' | 'pending' | 'failed';
  next: Date;
}

/**
 * Takes the deliveries due (of enabled webhooks), a batch of up to BUDGETS.webhooks.batch in one
 * statement with a lease claimed under FOR UPDATE SKIP LOCKED, so that exactly one process makes
 * each attempt, posts them (BUDGETS.webhooks.concurrent at once, over kept connections), and
 * writes every outcome to the delivery log in one statement. A 2xx answer delivers; anything else
 * is tried again with backoff until BUDGETS.webhooks.retryHours after the first attempt, then the
 * delivery fails and its webhook is disabled, with a notice to the tenant's administrators.
 * Answers how many attempts were made.
 */
export async function deliverDue({
  ctx,
  i18n,
  guard,
  now = new Date(),
  limit = BUDGETS.webhooks.batch,
}: {
  ctx: AppContext;
  i18n: I18n;
  guard: AddressGuard;
  now?: Date;
  limit?: number;
}): Promise<number> {
  const taken = await sql<Taken>`with due as (
      select d.id from sys_webhook_delivery d join sys_webhook w on w.id = d.webhook_id
      where d.status = 'pending' and d.next_at <= ${now} and (d.lease_until is null or d.lease_until < ${now})
        and w.is_enabled
      order by d.next_at, d.id limit ${limit}
      for update of d skip locked),
    leased as (update sys_webhook_delivery d set lease_until = ${now}::timestamptz + make_interval(secs => ${LEASE_SECONDS}),
        attempts = d.attempts + 1
      from due where d.id = due.id
      returning d.id, d.webhook_id, d.event_id, d.attempts, d.created_at)
    select l.id as delivery_id, l.attempts, l.created_at as first_at, w.id as webhook_id, w.url, w.secret, w.name,
      e.id, e.tenant_code, e.type, e.entity, e.record_key, e.user_id, e.username, e.version, e.changed, e.detail, e.at
    from leased l join sys_webhook w on w.id = l.webhook_id join sys_event e on e.id = l.event_id
    order by l.id`.execute(ctx.db);
  if (taken.rows.length === 0) return 0;
  const attempted: Attempted[] = [];
  await eachLimited(taken.rows, BUDGETS.webhooks.concurrent, async (row) => {
    attempted.push(await attempt({ guard, now, row }));
  });
  attempted.sort((a, b) => Number(a.row.delivery_id) - Number(b.row.delivery_id));
  await logOutcomes(ctx, attempted);
  for (const failed of attempted.filter((item) => item.status === 'failed'))
    await disableForFailure({
      ctx,
      i18n,
      webhookId: Number(failed.row.webhook_id),
      tenantCode: failed.row.tenant_code,
      name: failed.row.name,
    });
  return taken.rows.length;
}

/** Posts one delivery (signed; the body names the delivery and its attempt) and judges the answer. */
async function attempt({
  guard,
  now,
  row,
}: {
  guard: AddressGuard;
  now: Date;
  row: Taken;
}): Promise<Attempted> {
  const deliveryId = Number(row.delivery_id);
  const event = eventOf(row);
  const body = JSON.stringify({ ...event, delivery: { id: deliveryId, attempt: row.attempts } });
  const outcome = await postSigned({
    url: row.url,
    body,
    secret: row.secret,
    guard,
    now,
    headers: { 'x-ecobid-event': event.type, 'x-ecobid-delivery': String(deliveryId) },
  });
  if (isSuccess(outcome)) return { row, outcome, status: 'delivered', next: now };
  const retryEnds = new Date(row.first_at).getTime() + BUDGETS.webhooks.retryHours * 3_600_000;
  const next = new Date(now.getTime() + retryDelayMs(row.attempts));
  return { row, outcome, status: next.getTime() > retryEnds ? 'failed' : 'pending', next };
}

/**
 * The outcomes of a batch in one statement: each delivery's status, answer and next attempt, and
 * each webhook's count of failures in a row (back to 0 after a success; a webhook whose count
 * does not change is not written).
 */
async function logOutcomes(ctx: AppContext, attempted: readonly Attempted[]): Promise<void> {
  const hooks = new Map<number, { reset: boolean; failed: number }>();
  for (const { row, status } of attempted) {
    const id = Number(row.webhook_id);
    const counts = hooks.get(id) ?? { reset: false, failed: 0 };
    if (status === 'delivered') hooks.set(id, { reset: true, failed: 0 });
    else hooks.set(id, { ...counts, failed: counts.failed + 1 });
  }
  const deliveries = attempted.map(
    ({ row, outcome, status, next }) =>
      sql`(${Number(row.delivery_id)}::bigint, ${status}::text, ${next}::timestamptz, ${outcome.status}::integer,
        ${outcome.excerpt}::text, ${status === 'delivered' ? null : outcome.error}::text)`,
  );
  const counts = [...hooks].map(
    ([id, { reset, failed }]) => sql`(${id}::bigint, ${reset}::boolean, ${failed}::integer)`,
  );
  await sql`with d as (update sys_webhook_delivery d set status = v.status,
        next_at = case when v.status = 'delivered' then d.next_at else v.next_at end,
        lease_until = null, last_at = now(), last_status = v.last_status, last_answer = v.last_answer,
        last_error = v.last_error
      from (values ${sql.join(deliveries)}) as v (id, status, next_at, last_status, last_answer, last_error)
      where d.id = v.id)
    update sys_webhook w set failures = case when v.reset then 0 else w.failures end + v.failed
    from (values ${sql.join(counts)}) as v (id, reset, failed)
    where w.id = v.id and (v.failed > 0 or w.failures <> 0)`.execute(ctx.db);
}

/**
 * A webhook whose delivery failed for the whole retry time is disabled (its pending deliveries
 * wait until it is enabled again), and the tenant's administrators get an inbox notice.
 */
async function disableForFailure({
  ctx,
  i18n,
  webhookId,
  tenantCode,
  name,
}: {
  ctx: AppContext;
  i18n: I18n;
  webhookId: number;
  tenantCode: string;
  name: string;
}): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const disabled =
      await sql`update sys_webhook set is_enabled = false, disabled_reason = 'failures', updated_at = now()
      where id = ${webhookId} and is_enabled returning id`.execute(trx);
    if (disabled.rows.length === 0) return;
    const language = 'zh';
    const actor = { userId: null, username: 'system', tenantCode };
    await noticeWithEvent(
      actor,
      noticeInsert({
        ctx,
        actor,
        to: { usernames: [], groups: ['role:ROLE_ADMIN'] },
        notice: {
          title: i18n.t(language, 'webhooks.disabledTitle', { name }),
          content: sanitizeRichText(
            `<p>${i18n.t(language, 'webhooks.disabledContent', { name, hours: BUDGETS.webhooks.retryHours })}</p>`,
          ),
        },
      }),
    ).execute(trx);
  });
}
