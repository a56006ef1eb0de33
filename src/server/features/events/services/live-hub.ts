import { PassThrough } from 'node:stream';
import { sql } from 'kysely';
import type { AuthContext } from '../../../lib/auth.js';
import { BUDGETS } from '../../../lib/budgets.js';
import type { AppContext } from '../../../lib/context.js';
import { AppError } from '../../../lib/errors.js';
import type { OutboxEvent } from '../../../lib/events/index.js';
import type { Localizer } from '../../../lib/i18n.js';
import { noticeAudience } from '../../notifications/index.js';
import { currentRoles, findSession } from '../../sessions/index.js';
import { eventOf, type EventRow } from './event-rows.js';
import {
  isRecordInScope,
  liveRightsOf,
  taskPeople,
  type LiveRights,
  type TaskPeople,
} from './live-rights.js';

/** What a session is told of one event: never a value, only what changed and where. */
export interface LiveMessage {
  id: number;
  type: OutboxEvent['type'];
  entity: string | null;
  key: string | null;
  version: number | null;
  /** Names of the changed fields the session may see. */
  changed: string[];
  /** Whether the session's own user made the change (the screens ignore their own saves). */
  isMine: boolean;
  at: string;
  /** A notification now in the session's user's inbox (added, or changed, for them). */
  inbox?: true;
}

/**
 * Where a stream is (its SSE id, sent back as Last-Event-ID): the highest event id it was told
 * of, and the lower ids that had not committed when it was (a transaction that took an id first
 * may commit after one that took a higher id). Written `<last>` or `<last>;<gap>,<gap>…`.
 */
export interface StreamCursor {
  lastId: number;
  gaps: number[];
}

const CURSOR = /^(\d{1,15})(?:;(\d{1,15}(?:,\d{1,15})*))?$/;

/** A Last-Event-ID as a cursor; undefined when it is none (a client's own text: ignored). */
export function parseCursor(text: string): StreamCursor | undefined {
  const match = CURSOR.exec(text.trim());
  if (!match) return undefined;
  const lastId = Number(match[1]);
  const gaps = (match[2] ?? '')
    .split(',')
    .filter((item) => item !== '')
    .map(Number)
    .filter((id) => id < lastId)
    .slice(-BUDGETS.live.cursorGaps);
  return { lastId, gaps };
}

interface LiveConnection {
  id: number;
  /** Kept in memory only, to check the session again when sessions change (never logged). */
  token: string;
  roleHeader: string | undefined;
  auth: AuthContext;
  /** The caller's workflow groups (role:, post:, org:), for the task events. */
  groups: string[];
  expiresAt: number;
  stream: PassThrough;
  /** Live events heard while the outbox is replayed after a reconnect, sent after it. */
  pending: OutboxEvent[] | undefined;
  /** The highest event id handled (told, or not for this session). */
  lastId: number;
  /** Ids up to this one the client had when the stream opened (but those in `unseen`). */
  floor: number;
  /** Ids the client does not have that may still commit: when they are no longer waited for. */
  unseen: Map<number, number>;
  /** Ids told from the outbox at the start, so that their live notification is not told again. */
  replayed: Set<number>;
}

const RECORD_TYPES = new Set(['record.added', 'record.changed', 'record.deleted', 'record.restored']);
/** The notification entity: its events are also told to the inboxes of its recipients. */
const NOTICE_ENTITY = 'notification';
const TASK_TYPES = new Set(['workflow.taskCreated', 'workflow.taskAssigned', 'workflow.taskCompleted']);

/**
 * The live-update streams this process holds (GET /api/events/stream), and what each is told of
 * the events committed on any process (live-feed.ts hands them here). Every event is authorised
 * per session by the read policy: the tenant, the URL grant of the entity's list, the row scope
 * and the hidden fields (a field the session cannot see is not even named).
 */
export class LiveHub {
  private readonly connections = new Map<number, LiveConnection>();
  private nextId = 1;
  private readonly rights = new Map<string, { rights: LiveRights | undefined; until: number }>();
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly stopObserving: () => void;
  private recheckUsers = new Set<number | null>();
  private recheckTimer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  /** The highest event id this process heard committed (live-feed.ts), once it heard one. */
  private highestHeard: number | undefined;
  /** Ids below highestHeard not heard yet (in commit order they may still come): first missed when. */
  private readonly missing = new Map<number, number>();

  constructor(
    private readonly ctx: AppContext,
    private readonly l10n: Localizer,
    private readonly groupsOf: (auth: AuthContext & { heldRoles: string[] }) => Promise<string[]>,
    private readonly onError: (error: unknown) => void,
  ) {
    this.stopObserving = ctx.sessionCache.observe((userId) => this.recheck(userId));
  }

  get size(): number {
    return this.connections.size;
  }

  /**
   * Ids committed, in commit order (every notification, whoever listens): an id above the
   * highest heard leaves the ids between it and the highest missing until they are heard or are
   * no longer waited for (BUDGETS.live.lateCommitMs: rolled back, or a transaction that long).
   */
  heard(ids: readonly number[]): void {
    const now = Date.now();
    for (const id of ids) {
      if (this.highestHeard === undefined) this.highestHeard = id;
      else if (id > this.highestHeard) {
        for (let gap = Math.max(this.highestHeard + 1, id - BUDGETS.live.cursorGaps); gap < id; gap += 1)
          this.missing.set(gap, now);
        this.highestHeard = id;
      } else this.missing.delete(id);
    }
    // Oldest first: those waited for long enough go.
    for (const [id, since] of this.missing) {
      if (since + BUDGETS.live.lateCommitMs > now && this.missing.size <= BUDGETS.live.cursorGaps * 10) break;
      this.missing.delete(id);
    }
  }

  /** The cursor of a stream: its last id and the ids below it the client still lacks. */
  private cursorOf(connection: LiveConnection): string {
    const now = Date.now();
    const gaps = new Set<number>();
    for (const [id, until] of connection.unseen)
      if (until <= now) connection.unseen.delete(id);
      else if (id < connection.lastId) gaps.add(id);
    for (const [id, since] of this.missing)
      if (
        id > connection.floor &&
        id < connection.lastId &&
        since + BUDGETS.live.lateCommitMs > now &&
        !connection.replayed.has(id)
      )
        gaps.add(id);
    const listed = [...gaps].sort((a, b) => a - b).slice(-BUDGETS.live.cursorGaps);
    return listed.length === 0 ? String(connection.lastId) : `${connection.lastId};${listed.join(',')}`;
  }

  /**
   * Opens a stream for the caller, or 429 past the budgets (BUDGETS.live). `lastEventId`: the
   * last event the client had (a reconnect), from which the outbox is replayed.
   */
  async open({
    token,
    roleHeader,
    auth,
    heldRoles,
    lastEventId,
  }: {
    token: string;
    roleHeader: string | undefined;
    auth: AuthContext;
    heldRoles: string[];
    lastEventId: StreamCursor | undefined;
  }): Promise<PassThrough> {
    const budget = BUDGETS.live;
    let ofSession = 0;
    let ofUser = 0;
    for (const connection of this.connections.values()) {
      if (connection.auth.sessionId === auth.sessionId) ofSession += 1;
      if (connection.auth.userId === auth.userId) ofUser += 1;
    }
    if (
      this.connections.size >= budget.perProcess ||
      ofSession >= budget.perSession ||
      ofUser >= budget.perUser
    )
      throw new AppError('liveStreamsExceeded');
    const [session, groups] = await Promise.all([
      sql<{ expires_at: Date }>`select expires_at from sys_session where id = ${auth.sessionId}`.execute(
        this.ctx.db,
      ),
      this.groupsOf({ ...auth, heldRoles }),
    ]);
    const expiresAt = session.rows[0]?.expires_at;
    if (!expiresAt) throw new AppError('invalidToken');
    const stream = new PassThrough();
    const connection: LiveConnection = {
      id: this.nextId,
      token,
      roleHeader,
      auth,
      groups,
      expiresAt: new Date(expiresAt).getTime(),
      stream,
      pending: [],
      // A new stream starts after the last event this process heard: what is heard from now on
      // (in `pending` until the stream starts) is told.
      lastId: lastEventId?.lastId ?? this.highestHeard ?? 0,
      floor: lastEventId?.lastId ?? this.highestHeard ?? 0,
      unseen: new Map(),
      replayed: new Set(),
    };
    this.nextId += 1;
    this.connections.set(connection.id, connection);
    stream.on('close', () => this.connections.delete(connection.id));
    this.startHeartbeat();
    // The browser waits this long before reconnecting after the stream ends.
    stream.write(`retry: 2000\n\n`);
    void this.start(connection, lastEventId).catch((error: unknown) => {
      this.onError(error);
      this.close(connection);
    });
    return stream;
  }

  /**
   * Replays the outbox after the cursor (a reconnect): the events above its last id and those of
   * its gaps that committed since; or tells where a new stream starts. Live events heard
   * meanwhile follow, each told once.
   */
  private async start(connection: LiveConnection, cursor: StreamCursor | undefined): Promise<void> {
    const { tenantCode } = connection.auth;
    const waitUntil = Date.now() + BUDGETS.live.lateCommitMs;
    if (cursor === undefined) {
      if (connection.floor === 0) {
        // Nothing heard yet by this process: the stream starts at the newest event.
        const newest = await sql<{ id: number | string | null }>`select max(id) as id from sys_event`.execute(
          this.ctx.db,
        );
        connection.lastId = Number(newest.rows[0]?.id ?? 0);
        connection.floor = connection.lastId;
      }
      // Ids below it not committed yet: told when they commit.
      for (const [missed, since] of this.missing)
        if (missed < connection.floor) connection.unseen.set(missed, since + BUDGETS.live.lateCommitMs);
      this.write(connection, `id: ${this.cursorOf(connection)}\nevent: ready\ndata: {}\n\n`);
    } else {
      for (const gap of cursor.gaps) connection.unseen.set(gap, waitUntil);
      const limit = BUDGETS.live.resumeEvents;
      const gaps = cursor.gaps.length > 0 ? sql`or id in (${sql.join(cursor.gaps)})` : sql``;
      const rows = await sql<EventRow>`select id, tenant_code, type, entity, record_key, user_id, username,
        version, changed, detail, at from sys_event where tenant_code = ${tenantCode}
          and (id > ${cursor.lastId} ${gaps})
        order by id limit ${limit + 1}`.execute(this.ctx.db);
      const events = rows.rows.map(eventOf);
      if (events.length > limit) {
        // Too far behind to replay: the client reloads what it shows.
        const newest = events[events.length - 1]?.id ?? cursor.lastId;
        connection.lastId = newest;
        connection.floor = newest;
        connection.unseen.clear();
        this.write(connection, `id: ${newest}\nevent: reset\ndata: {}\n\n`);
      } else {
        const newest = Math.max(cursor.lastId, ...events.map((event) => event.id));
        // Ids since the cursor that no tenant has yet: a transaction may still commit them.
        if (newest - cursor.lastId <= limit * 4) {
          const absent = await sql<{ id: number | string }>`select g as id
            from generate_series(${cursor.lastId + 1}::bigint, ${newest}::bigint) as g
            where not exists (select 1 from sys_event e where e.id = g)`.execute(this.ctx.db);
          for (const row of absent.rows) connection.unseen.set(Number(row.id), waitUntil);
        }
        for (const event of events) {
          connection.replayed.add(event.id);
          await this.tell(connection, event, true);
        }
        this.write(connection, `event: ready\ndata: {}\n\n`);
      }
    }
    const pending = connection.pending ?? [];
    connection.pending = undefined;
    for (const event of pending) await this.tell(connection, event);
  }

  /** Events committed (on any process), in commit order: each told to the sessions that may hear it. */
  deliver(events: readonly OutboxEvent[]): Promise<void> {
    this.queue = this.queue
      .then(async () => {
        for (const event of events)
          for (const connection of [...this.connections.values()]) {
            if (connection.auth.tenantCode !== event.tenant) continue;
            if (connection.pending) connection.pending.push(event);
            else await this.tell(connection, event);
          }
      })
      .catch(this.onError);
    return this.queue;
  }

  /** Whether anyone listens (the feed reads the outbox only then). */
  get isListened(): boolean {
    return this.connections.size > 0;
  }

  /**
   * Tells one event, once: an event above what the client had (and not told from the outbox
   * already), or one of the ids it lacked that committed late. `isReplay`: told from the outbox.
   */
  private async tell(connection: LiveConnection, event: OutboxEvent, isReplay = false): Promise<void> {
    const isNew =
      connection.unseen.has(event.id) ||
      (event.id > connection.floor && (isReplay || !connection.replayed.has(event.id)));
    if (!isNew) return;
    connection.unseen.delete(event.id);
    const message = await this.messageFor(connection, event);
    connection.lastId = Math.max(connection.lastId, event.id);
    if (message)
      this.write(connection, `id: ${this.cursorOf(connection)}\ndata: ${JSON.stringify(message)}\n\n`);
  }

  private async messageFor(connection: LiveConnection, event: OutboxEvent): Promise<LiveMessage | undefined> {
    const { auth } = connection;
    if (event.tenant !== auth.tenantCode) return undefined;
    const isMine = event.actor.userId === auth.userId;
    const base = {
      id: event.id,
      type: event.type,
      entity: event.entity,
      key: event.key,
      version: event.version,
      isMine,
      at: event.at,
    };
    if (TASK_TYPES.has(event.type)) {
      if (event.key === null) return undefined;
      const people = await this.peopleOf(event);
      const concerns =
        isMine ||
        (people !== undefined &&
          (people.assignee === auth.username ||
            people.users.includes(auth.username) ||
            people.groups.some((group) => connection.groups.includes(group)))) ||
        event.detail.assignee === auth.username;
      return concerns ? { ...base, changed: [] } : undefined;
    }
    if (!RECORD_TYPES.has(event.type) || event.entity === null) return undefined;
    const record = await this.recordMessage(connection, event, base);
    if (event.entity !== NOTICE_ENTITY || event.type === 'record.deleted' || event.key === null)
      return record;
    // A notice to the user: their inbox is told, whether or not they may list every notification.
    const audience = await this.audienceOf(event);
    const isInbox =
      audience !== undefined && (audience.users === null || audience.users.includes(auth.userId));
    return isInbox ? { ...(record ?? { ...base, changed: [] }), inbox: true } : record;
  }

  /** A record event as the session's read policy lets it see it: its list, row scope and fields. */
  private async recordMessage(
    connection: LiveConnection,
    event: OutboxEvent,
    base: Omit<LiveMessage, 'changed'>,
  ): Promise<LiveMessage | undefined> {
    const entity = event.entity === null ? undefined : this.ctx.registry.get(event.entity);
    if (!entity) return undefined;
    const rights = await this.rightsFor(connection, entity.name);
    if (!rights) return undefined;
    if (!(await isRecordInScope({ ctx: this.ctx, entity, event, rights }))) return undefined;
    return { ...base, changed: event.changed.filter((field) => rights.isVisible(field)) };
  }

  /** One look-up of a notification's recipients per event, whoever many sessions ask. */
  private audience = {
    eventId: 0,
    answer: Promise.resolve<{ users: number[] | null } | undefined>(undefined),
  };
  private audienceOf(event: OutboxEvent): Promise<{ users: number[] | null } | undefined> {
    if (this.audience.eventId !== event.id)
      this.audience = {
        eventId: event.id,
        answer: noticeAudience({ ctx: this.ctx, tenantCode: event.tenant, id: event.key ?? '' }),
      };
    return this.audience.answer;
  }

  /** One look-up of a task's people per event, whoever many sessions ask. */
  private people = { eventId: 0, answer: Promise.resolve<TaskPeople | undefined>(undefined) };
  private peopleOf(event: OutboxEvent): Promise<TaskPeople | undefined> {
    if (this.people.eventId !== event.id)
      this.people = {
        eventId: event.id,
        answer: taskPeople(this.ctx, event.tenant, event.key ?? ''),
      };
    return this.people.answer;
  }

  private async rightsFor(connection: LiveConnection, entityName: string): Promise<LiveRights | undefined> {
    const { auth } = connection;
    const cacheKey = `${auth.sessionId}|${auth.roles.join(',')}|${entityName}`;
    const now = Date.now();
    const cached = this.rights.get(cacheKey);
    if (cached && cached.until > now) return cached.rights;
    const entity = this.ctx.registry.get(entityName);
    const rights = entity ? await liveRightsOf({ ctx: this.ctx, auth, entity, l10n: this.l10n }) : undefined;
    this.rights.set(cacheKey, { rights, until: now + BUDGETS.live.rightsCacheMs });
    return rights;
  }

  private write(connection: LiveConnection, text: string): void {
    const { stream } = connection;
    if (stream.destroyed || stream.writableEnded) return;
    // A client that reads nothing keeps no unbounded backlog here: it is closed and reconnects.
    if (stream.writableLength + stream.readableLength > BUDGETS.live.backlogBytes) {
      this.close(connection);
      return;
    }
    stream.write(text);
  }

  private close(connection: LiveConnection): void {
    this.connections.delete(connection.id);
    connection.stream.end();
  }

  private startHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      const now = Date.now();
      for (const connection of [...this.connections.values()]) {
        if (connection.expiresAt <= now) this.close(connection);
        else this.write(connection, `: ping\n\n`);
      }
      for (const [key, entry] of this.rights) if (entry.until <= now) this.rights.delete(key);
      if (this.connections.size === 0 && this.heartbeat) {
        clearInterval(this.heartbeat);
        this.heartbeat = undefined;
      }
    }, BUDGETS.live.heartbeatMs);
    this.heartbeat.unref();
  }

  /**
   * Sessions changed (a sign-out, a revocation, a user disabled or re-scoped, on any process):
   * the streams of the user (null: every stream) check their session again, once for a burst.
   */
  private recheck(userId: number | null): void {
    if (this.connections.size === 0) return;
    this.recheckUsers.add(userId);
    this.recheckTimer ??= setTimeout(() => {
      this.recheckTimer = undefined;
      const users = this.recheckUsers;
      this.recheckUsers = new Set();
      const isAll = users.has(null);
      for (const connection of [...this.connections.values()])
        if (isAll || users.has(connection.auth.userId))
          void this.checkSession(connection).catch(this.onError);
    }, 0);
  }

  private async checkSession(connection: LiveConnection): Promise<void> {
    const userTable = this.ctx.registry.require('sysuser').table;
    const session = await findSession({
      db: this.ctx.db,
      userTable,
      accessToken: connection.token,
      cache: this.ctx.sessionCache,
    });
    if (!session) {
      this.close(connection);
      return;
    }
    try {
      const roles = currentRoles(session.roles, connection.roleHeader);
      connection.auth = { ...session, roles };
    } catch {
      this.close(connection);
      return;
    }
    for (const key of this.rights.keys())
      if (key.startsWith(`${session.sessionId}|`)) this.rights.delete(key);
  }

  /** Ends every stream (the server stops; clients reconnect to another process). */
  closeAll(): void {
    this.stopObserving();
    clearInterval(this.heartbeat);
    clearTimeout(this.recheckTimer);
    for (const connection of [...this.connections.values()]) this.close(connection);
  }
}
