import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { quoteIdent } from './database.js';
import { projectRoot } from './project-root.js';

/**
 * Numbered .sql files: the store's own tables (ledger events, auth, idempotency, research jobs, webhooks), the search
 * index's (documents, postings, request log, feedback: INDEX_DATABASE_URL may put them in a database of their own),
 * and the read models that projections/ owns. File numbers are unique across the sets.
 */
export const MIGRATION_SETS = {
  store: 'src/database/migrations',
  index: 'src/database/index-migrations',
  readModels: 'projections/migrations',
} as const;
export type MigrationSet = keyof typeof MIGRATION_SETS;

/**
 * Where a set's files were recorded before: the index files belonged to `store` until the index could have its own
 * database, and a database migrated then records them as ('store', file). Such a row counts as applied.
 */
const LEGACY_SET_NAMES: Readonly<Record<MigrationSet, readonly string[]>> = {
  store: [],
  index: ['store'],
  readModels: [],
};

/** The sets a database holds: the store's and the read models, and the index's unless it has a database of its own. */
export function mainDatabaseSets(indexSeparate: boolean): MigrationSet[] {
  return indexSeparate ? ['store', 'readModels'] : ['store', 'index', 'readModels'];
}

const LOCK_ID = 7_401_312;

/** Applies the missing migrations of `sets` to `schema`, one transaction each, under an advisory lock. */
export async function migrate(pool: pg.Pool, schema: string, sets: MigrationSet[]): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoteIdent(schema)}.schema_migrations (
         migration_set text NOT NULL, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (migration_set, name))`,
    );
    for (const set of sets) {
      const dir = path.join(projectRoot(), MIGRATION_SETS[set]);
      const files = (await readdir(dir)).filter((f) => /^\d+_.+\.sql$/.test(f)).sort();
      const done = await client.query<{ name: string }>(
        `SELECT name FROM ${quoteIdent(schema)}.schema_migrations WHERE migration_set = ANY($1::text[])`,
        [[set, ...LEGACY_SET_NAMES[set]]],
      );
      const doneNames = new Set(done.rows.map((r) => r.name));
      for (const file of files.filter((f) => !doneNames.has(f))) {
        const sql = await readFile(path.join(dir, file), 'utf8');
        await client.query('BEGIN');
        try {
          await client.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
          await client.query(sql);
          await client.query(
            `INSERT INTO ${quoteIdent(schema)}.schema_migrations (migration_set, name) VALUES ($1, $2)`,
            [set, file],
          );
          await client.query('COMMIT');
          applied.push(`${set}/${file}`);
        } catch (error) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${set}/${file} failed: ${(error as Error).message}`);
        }
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_ID]).catch(() => {});
    client.release();
  }
  return applied;
}
