import pg from 'pg';
import { BackendPriority } from './backend-priority.js';

/** Anything that runs a parameterized query: the pool wrapper, a pooled client inside a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  /** With `name`: a prepared statement, parsed and planned once per connection (for statements run very often). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
}

/** The one PostgreSQL pool of a process, with every table of the service in `schema`. */
export class Database {
  constructor(
    readonly pool: pg.Pool,
    readonly schema: string,
    readonly connectionString: string,
    /** Searches first, background work in the gaps, where the server runs one statement at a time (embedded). */
    readonly priority = new BackendPriority(false),
  ) {}

  /**
   * `timeouts` bound every wait on PostgreSQL, so that a server that is gone or stops answering fails requests
   * instead of holding them: getting a connection (a free one from the pool, or a new one) and each statement's
   * answer. Without them a wait can last as long as the TCP connection, i.e. forever. `singleBackend`: the server runs
   * one statement at a time (embedded mode's PGlite), see BackendPriority.
   */
  static connect(
    connectionString: string,
    schema: string,
    poolSize: number,
    timeouts: { connectMs?: number; queryMs?: number; singleBackend?: boolean } = {},
  ): Database {
    const pool = new pg.Pool({
      connectionString,
      max: poolSize,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      ...(timeouts.connectMs ? { connectionTimeoutMillis: timeouts.connectMs } : {}),
      ...(timeouts.queryMs ? { query_timeout: timeouts.queryMs } : {}),
      // A startup parameter, so every statement of every connection sees the schema from its first query on.
      ...(schema !== 'public' ? { options: `-c search_path=${quoteIdent(schema)}` } : {}),
    });
    pool.on('error', () => {
      // An idle client lost its connection; the pool replaces it on the next checkout.
    });
    pool.on('connect', (client) => {
      // A checked-out client whose connection dies emits 'error' (its queries fail too, and the pool drops it on
      // release): without a listener that event would be an uncaught exception, and the process would exit.
      client.on('error', () => {});
    });
    return new Database(pool, schema, connectionString, new BackendPriority(timeouts.singleBackend ?? false));
  }

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    textOrConfig: string | pg.QueryConfig,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    return typeof textOrConfig === 'string'
      ? this.pool.query<R>(textOrConfig, values)
      : this.pool.query<R>(textOrConfig);
  }

  /** `begin`: the statement that opens it (an isolation level, READ ONLY). */
  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query(begin);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // A connection that cannot even roll back (lost, or a statement still hanging on it) is not reused.
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * A statement run very often, named (parsed and planned once per connection) when `name` is given; a bare PGlite
 * (tests) takes no names.
 */
export function oftenRun<R extends pg.QueryResultRow>(
  sql: Queryable,
  name: string | false,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult<R>> {
  return name ? sql.query<R>({ name, text, values }) : sql.query<R>(text, values);
}

export function quoteIdent(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
