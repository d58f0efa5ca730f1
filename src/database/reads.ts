import type pg from 'pg';
import type { Database, Queryable } from './database.js';

/** Where reads run: single statements, and several from one snapshot (so that they agree with each other). */
export interface Reads extends Queryable {
  /** `work`'s statements run in one read-only, repeatable-read transaction. */
  snapshot<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
}

/** One read-only, repeatable-read transaction on `db`. */
export async function readOnlySnapshot<T>(db: Database, work: (tx: Queryable) => Promise<T>): Promise<T> {
  const client: pg.PoolClient = await db.pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
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
