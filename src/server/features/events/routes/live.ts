import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../lib/errors.js';
import { bearerToken, requireAuth } from '../../../lib/http.js';
import { localizer } from '../../../lib/i18n.js';
import { typed } from '../../../lib/route-schema.js';
import type { FeatureHookOptions } from '../../../lib/feature.js';
import { candidateOf } from '../../workflow/index.js';
import { LiveHub, parseCursor, type StreamCursor } from '../services/live-hub.js';
import { startEventFeed, type EventFeed } from '../services/live-feed.js';

/** A Last-Event-ID the outbox can resume from (a client's own text otherwise: ignored). */
function lastEventIdOf(header: string | string[] | undefined): StreamCursor | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value === undefined ? undefined : parseCursor(value);
}

/** The live-update streams of this process (the poller looks at the outbox more often while any is open). */
export function liveHubOf(app: FastifyInstance): LiveHub {
  const { ctx } = app;
  return new LiveHub(
    ctx,
    localizer(app.i18n, 'en'),
    async (auth) => (await candidateOf({ ctx, db: ctx.db, user: auth })).groups,
    (error) => app.log.warn({ err: error }, 'live updates: an event could not be told'),
  );
}

/**
 * Live updates of a signed-in session (docs/http-contract.md "Live updates"): server-sent events
 * on GET /api/events/stream, read with fetch so that the token goes in the Authorization header
 * as on every call (never in the URL, where logs would keep it). Each event is told only to the
 * sessions the read policy lets see it, with the names of the changed fields they may see and
 * never a value.
 */
export function liveRoutes({ database }: FeatureHookOptions, hub: LiveHub) {
  return async (app: FastifyInstance): Promise<void> => {
    const { ctx } = app;
    let feed: EventFeed | undefined;
    app.addHook('onReady', async () => {
      feed = await startEventFeed({
        ctx,
        database,
        isWanted: () => hub.isListened,
        heard: (ids) => hub.heard(ids),
        deliver: (events) => hub.deliver(events),
        onError: (error) => app.log.warn({ err: error }, 'live updates: the outbox could not be read'),
      });
    });
    app.addHook('preClose', async () => {
      hub.closeAll();
    });
    app.addHook('onClose', async () => {
      await feed?.close();
    });

    typed(app).get(
      '/api/events/stream',
      {
        config: { isSelfService: true },
        schema: {
          tags: ['events'],
          summary: 'Live updates of the signed-in session (server-sent events)',
          description:
            'text/event-stream, to a request with Accept: text/event-stream (406 otherwise). Each message: id (the outbox event id) and data {id, type, entity, key, version, changed, isMine, at}; `changed` names only the fields the session may see, never a value. The SSE id is a cursor, `<last id>` or `<last id>;<id>,<id>…` (ids below it that had not committed yet when it was sent); a reconnect sends it as Last-Event-ID and gets the events since, and those of the listed ids that committed late, from the outbox (or an event `reset` when too far behind). Comments every 20 s keep the stream open; it ends on sign-out or revocation.',
          produces: 'text/event-stream',
          response: { 200: { type: 'string' } },
        },
      },
      async (request, reply) => {
        const auth = requireAuth(request);
        // A client that waits for a whole answer would wait for ever: it must ask for the stream.
        if (!String(request.headers.accept ?? '').includes('text/event-stream'))
          throw new AppError('eventStreamOnly');
        const token = bearerToken(request);
        const roleHeader = request.headers.rolecode;
        const stream = await hub.open({
          token: token ?? '',
          roleHeader: Array.isArray(roleHeader) ? roleHeader.join(',') : roleHeader,
          auth,
          heldRoles: auth.heldRoles,
          lastEventId: lastEventIdOf(request.headers['last-event-id']),
        });
        request.raw.on('close', () => stream.destroy());
        reply
          .header('content-type', 'text/event-stream; charset=utf-8')
          .header('cache-control', 'no-store')
          .header('x-accel-buffering', 'no');
        return reply.send(stream);
      },
    );
  };
}
