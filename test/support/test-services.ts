/** The PostgreSQL and Redis the tests share (the machine's, or the scaled-out run's), without loading a client. */
export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/**
 * Set by `npm run test:scaled-out` (tools/test-scaled-out.mjs): the seed nodes of a Redis Cluster that replaces the
 * test Redis, and a streaming replica of the test PostgreSQL, for every service the tests start on them.
 */
export const TEST_REDIS_CLUSTER_NODES = process.env.TEST_REDIS_CLUSTER_NODES ?? '';
export const TEST_DATABASE_READ_URL = process.env.TEST_DATABASE_READ_URL ?? '';

/**
 * A service's environment as the scaled-out run wants it: REDIS_CLUSTER_NODES instead of the test Redis's REDIS_URL,
 * and DATABASE_READ_URL beside the test PostgreSQL's DATABASE_URL. An environment naming servers of a test's own, or
 * a replica already, is kept as it is; so is every environment outside that run.
 */
export function scaledOut<E extends Record<string, string | undefined>>(env: E): E {
  let result: Record<string, string | undefined> = { ...env };
  if (TEST_REDIS_CLUSTER_NODES && env.REDIS_URL === TEST_REDIS_URL) {
    const { REDIS_URL: _single, ...rest } = result;
    result = { ...rest, REDIS_CLUSTER_NODES: TEST_REDIS_CLUSTER_NODES };
  }
  if (TEST_DATABASE_READ_URL && env.DATABASE_URL === TEST_DATABASE_URL && env.DATABASE_READ_URL === undefined) {
    result = { ...result, DATABASE_READ_URL: TEST_DATABASE_READ_URL };
  }
  return result as E;
}
