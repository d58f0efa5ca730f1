import pg from 'pg';

/** Anything that runs a parameterized query: the pool wrapper, a pooled client inside a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** The one PostgreSQL pool of a process, with every table of the service in `schema`. */
export class Database {
  constructor(
    readonly pool: pg.Pool,
    readonly schema: string,
    readonly connectionString: string,
  ) {}

  static connect(connectionString: string, schema: string, poolSize: number): Database {
    const pool = new pg.Pool({
      connectionString,
      max: poolSize,
      idleTimeoutMillis: 30_000,
      // A startup parameter, so every statement of every connection sees the schema from its first query on.
      ...(schema !== 'public' ? { options: `-c search_path=${quoteIdent(schema)}` } : {}),
    });
    pool.on('error', () => {
      // An idle client lost its connection; the pool replaces it on the next checkout.
    });
    return new Database(pool, schema, connectionString);
  }

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>(text, values);
  }

  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

export function quoteIdent(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
