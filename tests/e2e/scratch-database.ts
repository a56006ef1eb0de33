import pg from 'pg';

/** The PostgreSQL server the browser checks make their scratch databases on (TEST_DATABASE_URL). */
export const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Runs `work` with a client connected to `database` on that server, and closes the client. */
export async function onServer<T>(database: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(SERVER_URL);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
