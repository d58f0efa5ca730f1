import { randomBytes } from 'node:crypto';
import { Database, quoteIdent } from '../../src/database/database.js';
import { migrate, type MigrationSet } from '../../src/database/migrator.js';

export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestDatabase {
  readonly db: Database;
  readonly schema: string;
  drop(): Promise<void>;
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

/** A fresh schema on the real test PostgreSQL, migrated, dropped by `drop()`. */
export async function createTestDatabase(
  sets: MigrationSet[] = ['store', 'index', 'readModels'],
): Promise<TestDatabase> {
  const schema = uniqueName('t');
  const db = Database.connect(TEST_DATABASE_URL, schema, 10);
  await migrate(db.pool, schema, sets);
  return {
    db,
    schema,
    drop: async () => {
      await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`).catch(() => {});
      await db.close();
    },
  };
}
