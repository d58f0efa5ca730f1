import type { Database, Queryable } from './database.js';

/** Where reads run: single statements, and several from one snapshot (so that they agree with each other). */
export interface Reads extends Queryable {
  /** `work`'s statements run in one read-only, repeatable-read transaction. */
  snapshot<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
}

/** One read-only, repeatable-read transaction on `db`. */
export function readOnlySnapshot<T>(db: Database, work: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(work, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
}
