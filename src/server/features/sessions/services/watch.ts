import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { sql } from 'kysely';
import type pg from 'pg';
import type { Db, NotificationHandler } from '../../../lib/db/database.js';
import { startListener, type Listener } from '../../../lib/db/listener.js';
import type { ParamCache } from '../../../lib/store/param-cache.js';
import type { SessionCache } from './session.js';

/**
 * Every server process keeps a cache of checked sessions (SessionCache); this keeps it exact.
 *
 * Triggers in the database announce each change that can end a session on the channel
 * ecobid_session ("u:<user id>:<backend pid of the writer>"): a session revoked, re-scoped to
 * other roles or deleted, a user whose status or tenant changed or who was deleted. Notifications go out when the change commits,
 * whoever made it (this server, another process, an administrator with psql), and reach every
 * listening connection in commit order.
 *
 * - This process: every connection it queries through listens, and PostgreSQL hands a
 *   connection the notifications of its own transaction before the commit's answer (the
 *   embedded database does the same), so the cache is cleared before the code that ended a
 *   session goes on.
 * - Other processes (PostgreSQL): each listens on a connection of its own, which also carries
 *   the barriers of settle() on the channel ecobid_session_sync. A request that ended sessions
 *   is answered only once every listening process has acknowledged a barrier sent after its
 *   change (sessionSettleHook); a process answers a barrier after applying everything committed
 *   before it. So a logged-out token is refused by every process from the moment the logout is
 *   answered. While a process's own listening connection is down, it serves nothing from its
 *   cache. A pooler in transaction mode must let this one connection through in session mode.
 */

const CHANGES = 'ecobid_session'; // also written in ecobid_session_changed()
/** Writes to the params table ("<backend pid of the writer>"): the ParamCache is dropped. */
const PARAMS = 'ecobid_param'; // also written in ecobid_param_changed()
const SYNC = 'ecobid_session_sync';
/** How listening connections show in pg_stat_activity, to count who must acknowledge a barrier. */
const LISTENER_NAME = 'ecobid-session-listener';
/** A process that has not acknowledged a barrier by then is hung or gone; its cache entries expire anyway. */
const SETTLE_TIMEOUT_MS = 2000;

export interface SessionWatch {
  close(): Promise<void>;
}

export interface WatchOptions {
  db: Db;
  cache: SessionCache;
  /** The table of the sysuser entity. */
  userTable: string;
  /** The operational params, dropped on every write to the sysparam entity's table (paramTable). */
  params: ParamCache;
  paramTable: string;
  /** LISTEN on the connections this process queries through (DatabaseHandle.listen). */
  listen: (channel: string, onNotification: NotificationHandler) => Promise<void>;
  /** PostgreSQL: where to open the connection that hears other processes and carries barriers. */
  databaseUrl?: string;
}

/** Installs the triggers and starts listening; the cache is used from then on. */
export async function watchSessions(options: WatchOptions): Promise<SessionWatch> {
  const { cache, params } = options;
  await installTriggers(options.db, options.userTable, options.paramTable);
  await options.listen(CHANGES, (payload, connectionPid) => {
    const change = parseChange(payload);
    if (!change) {
      cache.clear();
      return;
    }
    cache.forgetUser(change.userId);
    // Heard on a connection of this process from its own backend: this process made the change.
    if (connectionPid === null || connectionPid === change.writerPid) cache.changesHere += 1;
  });
  await options.listen(PARAMS, (payload, connectionPid) => {
    params.clear();
    // A param this process changed: the request waits for every process to drop its copy too.
    if (connectionPid === null || String(connectionPid) === payload) cache.changesHere += 1;
  });
  if (!options.databaseUrl) {
    cache.setHearing(true);
    params.setHearing(true);
    return {
      close: async () => {
        cache.setHearing(false);
        params.setHearing(false);
      },
    };
  }
  const listener = new PostgresListener(options.databaseUrl, options.db, cache, params);
  await listener.start();
  cache.settle = () => listener.settle();
  return { close: () => listener.close() };
}

function parseChange(payload: string): { userId: number; writerPid: number } | undefined {
  const match = /^u:(\d+):(\d+)$/.exec(payload);
  if (!match) return undefined;
  return { userId: Number(match[1]), writerPid: Number(match[2]) };
}

/**
 * Answers a request during which this process ended sessions only once every other process
 * has dropped them too (SessionCache.settle). Reads (GET, HEAD) end no sessions and skip it; the
 * process's own cache is exact for them anyway.
 */
export const sessionSettleHook = fp(
  async (app: FastifyInstance) => {
    const cache = app.ctx.sessionCache;
    const changesAtStart = new WeakMap<FastifyRequest, number>();
    app.addHook('onRequest', (request, _reply, done) => {
      if (request.method !== 'GET' && request.method !== 'HEAD')
        changesAtStart.set(request, cache.changesHere);
      done();
    });
    app.addHook('onSend', (request, _reply, payload, done) => {
      const start = changesAtStart.get(request);
      if (start === undefined || start === cache.changesHere) {
        done(null, payload);
        return;
      }
      cache.settle().then(
        () => done(null, payload),
        (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
      );
    });
  },
  { name: 'session-settle' },
);

/**
 * The notifying function and its triggers, created once per database (under a lock, since
 * several processes may start at the same time).
 */
async function installTriggers(db: Db, userTable: string, paramTable: string): Promise<void> {
  const triggers = [
    {
      name: 'sys_session_ended_notify',
      table: 'sys_session',
      create: sql`create trigger sys_session_ended_notify after update of revoked_at or delete on sys_session
        for each row when (old.revoked_at is null) execute function ecobid_session_changed()`,
    },
    {
      // Re-scoped sessions (features/sessions/services/changes.ts): the roles a cached session holds changed.
      name: 'sys_session_roles_notify',
      table: 'sys_session',
      create: sql`create trigger sys_session_roles_notify after update of roles on sys_session
        for each row when (old.revoked_at is null and new.roles is distinct from old.roles)
        execute function ecobid_session_changed()`,
    },
    {
      // Any write to the params (a limit edited on the flow-control page, the param list, psql).
      name: 'sys_param_changed_notify',
      table: paramTable,
      create: sql`create trigger sys_param_changed_notify after insert or update or delete or truncate
        on ${sql.table(paramTable)} for each statement execute function ecobid_param_changed()`,
    },
    {
      name: 'sys_user_session_notify',
      table: userTable,
      create: sql`create trigger sys_user_session_notify after update of status, tenant_code or delete
        on ${sql.table(userTable)} for each row execute function ecobid_session_changed()`,
    },
  ];
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('ecobid_session_triggers'))`.execute(trx);
    await sql`create or replace function ecobid_session_changed() returns trigger language plpgsql as $$
      declare
        user_id bigint;
      begin
        if tg_table_name = 'sys_session' then
          user_id := old.user_id;
        elsif tg_op = 'DELETE' then
          user_id := old.id;
        elsif new.status is distinct from old.status or new.tenant_code is distinct from old.tenant_code then
          user_id := old.id;
        else
          return null;
        end if;
        perform pg_notify('ecobid_session', 'u:' || user_id || ':' || pg_backend_pid());
        return null;
      end $$`.execute(trx);
    await sql`create or replace function ecobid_param_changed() returns trigger language plpgsql as $$
      begin
        perform pg_notify('ecobid_param', pg_backend_pid()::text);
        return null;
      end $$`.execute(trx);
    // Superseded by sys_user_session_notify, which also hears a user moved to another tenant.
    const superseded = await sql`select 1 from pg_trigger
      where tgname = 'sys_user_status_notify' and tgrelid = to_regclass(${userTable})`.execute(trx);
    if (superseded.rows.length > 0)
      await sql`drop trigger sys_user_status_notify on ${sql.table(userTable)}`.execute(trx);
    for (const trigger of triggers) {
      const found = await sql`select 1 from pg_trigger
        where tgname = ${trigger.name} and tgrelid = to_regclass(${trigger.table})`.execute(trx);
      if (found.rows.length === 0) await trigger.create.execute(trx);
    }
  });
}

interface Barrier {
  acks: number;
  expected: number;
  done: () => void;
}

/** LISTEN on a connection of its own (lib/db/listener.ts); the cache is off while it is down. */
class PostgresListener {
  private listener: Listener | undefined;
  private readonly barriers = new Map<string, Barrier>();

  constructor(
    private readonly url: string,
    private readonly db: Db,
    private readonly cache: SessionCache,
    private readonly params: ParamCache,
  ) {}

  /** The first connection must succeed: a server that cannot listen does not start. */
  async start(): Promise<void> {
    this.listener = await startListener({
      url: this.url,
      channels: [CHANGES, SYNC, PARAMS],
      applicationName: LISTENER_NAME,
      onNotification: (channel, payload, client) => this.heard(client, channel, payload),
      onListening: () => this.setHearing(true),
      onLost: () => this.setHearing(false),
    });
  }

  private setHearing(isHearing: boolean): void {
    this.cache.setHearing(isHearing);
    this.params.setHearing(isHearing);
  }

  private heard(client: pg.Client, channel: string, payload: string): void {
    if (channel === CHANGES) {
      const change = parseChange(payload);
      if (change) this.cache.forgetUser(change.userId);
      else this.cache.clear();
    } else if (channel === PARAMS) {
      this.params.clear();
    } else if (payload.startsWith('b:')) {
      // Everything committed before the barrier has been applied (notifications come in order).
      client.query('select pg_notify($1, $2)', [SYNC, `a:${payload.slice(2)}`]).catch(() => undefined);
    } else if (payload.startsWith('a:')) {
      const barrier = this.barriers.get(payload.slice(2));
      if (barrier) {
        barrier.acks += 1;
        if (barrier.acks >= barrier.expected) barrier.done();
      }
    }
  }

  /** Waits until every listening process has acknowledged a barrier sent now (or the timeout); never fails. */
  async settle(): Promise<void> {
    if (!this.listener?.isListening()) return;
    const id = randomBytes(9).toString('base64url');
    let timer: NodeJS.Timeout | undefined;
    const acknowledged = new Promise<void>((resolve) => {
      this.barriers.set(id, { acks: 0, expected: Number.POSITIVE_INFINITY, done: resolve });
      timer = setTimeout(resolve, SETTLE_TIMEOUT_MS);
    });
    try {
      const sent = await sql<{ listeners: number }>`select pg_notify(${SYNC}, ${`b:${id}`}),
        (select count(*)::int from pg_stat_activity
          where datname = current_database() and application_name = ${LISTENER_NAME}) as listeners`.execute(
        this.db,
      );
      const barrier = this.barriers.get(id);
      if (barrier) {
        barrier.expected = sent.rows[0]?.listeners ?? 0;
        if (barrier.acks >= barrier.expected) barrier.done();
      }
      await acknowledged;
    } catch {
      // The change itself has committed and its notification is on its way; a barrier that
      // cannot be sent must not turn the answer into an error.
    } finally {
      clearTimeout(timer);
      this.barriers.delete(id);
    }
  }

  async close(): Promise<void> {
    this.setHearing(false);
    for (const barrier of this.barriers.values()) barrier.done();
    await this.listener?.close();
  }
}
