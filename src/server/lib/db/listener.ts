import pg from 'pg';

/**
 * A PostgreSQL connection of its own that LISTENs on some channels, and reopens itself when it
 * drops (after 250 ms, 1 s, 2 s, then every 5 s). Notifications sent while it was down are gone:
 * `onListening(true)` tells the owner to catch up. Used by the event feed, the published forms'
 * watch and the session cache's watch, each on its own connection.
 */
const RECONNECT_MS = [250, 1000, 2000, 5000];
const CHANNEL = /^[a-z_][a-z0-9_]*$/;

export interface ListenerOptions {
  url: string;
  channels: readonly string[];
  /**
   * Set once listening, so that whoever counts listeners in pg_stat_activity by this name counts
   * only connections that hear.
   */
  applicationName: string;
  /** `client` is the connection that heard it (to answer on it). */
  onNotification: (channel: string, payload: string, client: pg.Client) => void;
  /** Listening: at start (false), or again after a lost connection (true). */
  onListening?: (isReconnect: boolean) => void;
  /** The connection dropped; another is being opened. */
  onLost?: () => void;
}

export interface Listener {
  /** Whether a connection is listening now. */
  isListening(): boolean;
  close(): Promise<void>;
}

/** Opens the first connection, which must succeed (a server that cannot listen does not start). */
export async function startListener(options: ListenerOptions): Promise<Listener> {
  for (const channel of options.channels)
    if (!CHANNEL.test(channel)) throw new Error(`bad channel name ${channel}`);
  let client: pg.Client | undefined;
  let isClosed = false;
  let attempts = 0;
  let timer: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: options.url });
    next.on('notification', (message) =>
      options.onNotification(message.channel, message.payload ?? '', next),
    );
    const lost = (): void => {
      if (client !== next) return;
      client = undefined;
      options.onLost?.();
      next.end().catch(() => undefined);
      schedule();
    };
    next.on('error', lost);
    next.on('end', lost);
    try {
      await next.connect();
      await next.query(options.channels.map((channel) => `listen ${channel}`).join('; '));
      await next.query(`select set_config('application_name', $1, false)`, [options.applicationName]);
    } catch (error) {
      await next.end().catch(() => undefined);
      throw error;
    }
    if (isClosed) {
      await next.end().catch(() => undefined);
      return;
    }
    const isReconnect = attempts > 0;
    client = next;
    attempts = 0;
    options.onListening?.(isReconnect);
  };
  const schedule = (): void => {
    if (isClosed) return;
    const delay = RECONNECT_MS[Math.min(attempts, RECONNECT_MS.length - 1)] ?? 5000;
    attempts += 1;
    timer = setTimeout(() => {
      connect().catch(() => schedule());
    }, delay);
    timer.unref();
  };
  await connect();
  return {
    isListening: () => client !== undefined,
    close: async () => {
      isClosed = true;
      clearTimeout(timer);
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
