import pg from 'pg';

/**
 * A transaction's BEGIN sent together with its first statement (PostgreSQL).
 *
 * Kysely opens a transaction with a `begin` of its own, one round trip before the first
 * statement. On two cores a round trip costs both processes a write, a wake-up and a read; a
 * workflow request (begin, lock, write, commit) spent a quarter of its trips on the `begin`.
 * Here `begin` only marks the connection; the next statement carries it in one message:
 * Parse/Bind/Execute of `begin`, then the statement's own messages and one Sync (the extended
 * protocol's pipelining; PostgreSQL turns the pipeline's implicit transaction into the explicit
 * one, which stays open after the Sync). Npgsql sends its BEGIN the same way.
 *
 * - A statement without parameters (the simple protocol), a cursor or another submittable is
 *   sent after a plain `begin`, in order on the connection.
 * - A `commit` or `rollback` with the `begin` still waiting ends a transaction that never
 *   started: nothing is sent.
 * - An error of the `begin` (none but a broken connection) fails the statement it went with,
 *   and so the transaction.
 */

/** What pg answers for a statement; Kysely reads command, rowCount and rows. */
type QueryAnswer = pg.QueryResult;

type QueryFunction = (...args: unknown[]) => unknown;

const EMPTY = (command: string): QueryAnswer => ({ command, rowCount: null, oid: 0, fields: [], rows: [] });

/** A statement that first runs `begin` in the same pipeline; the begin's answer is not its own. */
class BeginFirst extends pg.Query {
  #isBeginAnswered = false;
  /** The statement was prepared on this connection before (no Parse of its own goes out). */
  #wasParsed = true;

  override prepare(connection: PgConnection): void {
    this.#wasParsed = this.hasBeenParsed(connection) === true;
    connection.parse({ text: 'begin' });
    connection.bind({});
    connection.execute({});
    super.prepare(connection);
  }

  /**
   * The begin's ParseComplete made pg note the statement's name as prepared before its own Parse
   * was answered; when that Parse failed, the name is not prepared and must be parsed next time.
   */
  override handleError(error: Error, connection: PgConnection): void {
    if (!this.#wasParsed && this.name) delete connection.parsedStatements[this.name];
    super.handleError(error, connection);
  }

  override handleCommandComplete(message: unknown, connection: PgConnection): void {
    if (!this.#isBeginAnswered) {
      this.#isBeginAnswered = true;
      return;
    }
    super.handleCommandComplete(message, connection);
  }
}

/** pg's connection as the extended protocol's messages use it (pg's own types leave it out). */
interface PgConnection {
  parse(message: { text: string; name?: string }): void;
  bind(message: object): void;
  execute(message: object): void;
  /** The named statements pg believes prepared on this connection. */
  parsedStatements: Record<string, string>;
}

declare module 'pg' {
  interface Query {
    name?: string;
    prepare(connection: PgConnection): void;
    hasBeenParsed(connection: PgConnection): boolean | undefined;
    handleCommandComplete(message: unknown, connection: PgConnection): void;
    handleError(error: Error, connection: PgConnection): void;
  }
}

const isSubmittable = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && typeof (value as { submit?: unknown }).submit === 'function';

/**
 * Wraps a client's query function: `begin` waits for the next statement. `named` gives the
 * prepared statement's name of a text (prepared.ts), or undefined.
 */
export function deferBegin(
  query: QueryFunction,
  named: (text: string) => string | undefined,
): { query: QueryFunction; reset: () => void } {
  let isBeginWaiting = false;
  const send = (...args: unknown[]): unknown => {
    const [text, values] = args;
    const isPlain = args.length === 2 && typeof text === 'string' && Array.isArray(values);
    if (isPlain && values.length === 0 && text === 'begin') {
      isBeginWaiting = true;
      return Promise.resolve(EMPTY('BEGIN'));
    }
    if (isBeginWaiting) {
      isBeginWaiting = false;
      if (isPlain && values.length === 0 && (text === 'commit' || text === 'rollback'))
        return Promise.resolve(EMPTY(text.toUpperCase()));
      if (isPlain && values.length > 0) {
        const name = named(text);
        return new Promise<QueryAnswer>((resolve, reject) => {
          query(
            new BeginFirst({
              text,
              values,
              ...(name === undefined ? {} : { name }),
              callback: (error: Error | null, answer: QueryAnswer) =>
                error ? reject(error) : resolve(answer),
            } as pg.QueryConfig),
          );
        });
      }
      // Sent in order on the connection: the statement runs inside the transaction.
      const begun = query('begin') as Promise<unknown>;
      if (isSubmittable(text)) {
        begun.catch(() => undefined);
        return query(...args);
      }
      return begun.then(() => query(...args));
    }
    if (isPlain) {
      const name = named(text);
      if (name !== undefined) return query({ name, text, values });
    }
    return query(...args);
  };
  return {
    query: send,
    reset: () => {
      isBeginWaiting = false;
    },
  };
}
