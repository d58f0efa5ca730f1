import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { quoteIdent } from './database.js';
import { projectRoot } from './project-root.js';

/** Numbered .sql files: the store's own tables, and the read models that projections/ owns. */
export const MIGRATION_SETS = {
  store: 'src/database/migrations',
  readModels: 'projections/migrations',
} as const;
export type MigrationSet = keyof typeof MIGRATION_SETS;

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
        `SELECT name FROM ${quoteIdent(schema)}.schema_migrations WHERE migration_set = $1`,
        [set],
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
