import { randomBytes } from 'node:crypto';
import { Database, quoteIdent } from '../../src/database/database.js';
import { migrate, type MigrationSet } from '../../src/database/migrator.js';
import { scanKeys } from '../../src/redis/cluster-nodes.js';
import { connectRedis, connectRedisCluster } from '../../src/redis/redis-client.js';
import {
  TEST_DATABASE_READ_URL,
  TEST_DATABASE_URL,
  TEST_REDIS_CLUSTER_NODES,
  TEST_REDIS_URL,
} from './test-services.js';

export { TEST_DATABASE_URL, TEST_REDIS_URL } from './test-services.js';

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

/** Deletes the keys under `prefix` on the shared Redis: the test Redis, or every master of the scaled-out cluster. */
export async function deleteTestRedisKeys(prefix: string): Promise<void> {
  const redis = TEST_REDIS_CLUSTER_NODES
    ? connectRedisCluster(
        TEST_REDIS_CLUSTER_NODES.split(',').map((node) => `redis://${node}`),
        5_000,
      )
    : connectRedis(TEST_REDIS_URL, 5_000);
  redis.on('error', () => {});
  await redis.connect();
  try {
    // One DEL a key: on a cluster they are in several slots.
    for (const key of await scanKeys(redis, `${prefix}*`)) await redis.del(key);
  } finally {
    await redis.close();
  }
}

/**
 * Resolves once the scaled-out run's replica has replayed what the primary has written so far (at once without one).
 * The service reads dashboards and ledger pages from the replica while it lags less than DATABASE_READ_MAX_LAG_MS:
 * a fixture calls this before the tests read what it wrote.
 */
export async function replicaCaughtUp(timeoutMs = 10_000): Promise<void> {
  if (!TEST_DATABASE_READ_URL) return;
  const primary = Database.connect(TEST_DATABASE_URL, 'public', 1);
  const replica = Database.connect(TEST_DATABASE_READ_URL, 'public', 1);
  try {
    const { lsn } = (await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!;
    const deadline = Date.now() + timeoutMs;
    const replayed = async () =>
      (await replica.query<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [lsn])).rows[0]!.ok;
    while (!(await replayed())) {
      if (Date.now() > deadline) throw new Error(`the replica has not replayed ${lsn} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await Promise.all([primary.close(), replica.close()]);
  }
}
