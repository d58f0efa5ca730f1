import type { ProjectionRunner } from '../../projections/projection-runner.js';
import type { AppConfig } from '../config/app-config.js';
import type { Database } from '../database/database.js';
import {
  type EventStore,
  type From,
  type Position,
  START,
  type RecordedEvent,
} from '../event-store/event-store.port.js';
import type { RedisClient } from '../redis/redis.module.js';
import { ReadinessService } from './readiness.service.js';

const at = (commit: number): Position => ({ commit: BigInt(commit), prepare: BigInt(commit) });

interface World {
  dbQuery?: () => Promise<unknown>;
  /** With it, INDEX_DATABASE_URL's pool (else the index is in the main database, the same pool). */
  indexDbQuery?: () => Promise<unknown>;
  redis?: Partial<RedisClient> | null;
  head?: From;
  checkpoint?: From;
  oldestPendingAgeMs?: number;
  isLeader?: boolean;
  hasCaughtUp?: boolean;
}

function readiness(world: World = {}): ReadinessService {
  const db = { query: world.dbQuery ?? (async () => ({ rows: [{ '?column?': 1 }] })) } as unknown as Database;
  const indexDb = world.indexDbQuery ? ({ query: world.indexDbQuery } as unknown as Database) : db;
  const store = {
    headPosition: async () => world.head ?? START,
    readAll: async (): Promise<RecordedEvent[]> =>
      world.oldestPendingAgeMs === undefined
        ? []
        : [{ created: new Date(Date.now() - world.oldestPendingAgeMs) } as RecordedEvent],
  } as unknown as EventStore;
  const runner = {
    isLeader: world.isLeader ?? false,
    hasCaughtUp: world.hasCaughtUp ?? false,
    checkpoint: async () => world.checkpoint ?? START,
  } as unknown as ProjectionRunner;
  const config = { readyMaxProjectionLagMs: 1000 } as AppConfig;
  const redis = world.redis === undefined ? null : (world.redis as RedisClient | null);
  return new ReadinessService(db, indexDb, redis, store, runner, config);
}

describe('ReadinessService', () => {
  test('an empty store, no Redis: ready', async () => {
    expect(await readiness().check()).toEqual({
      ready: true,
      checks: { database: 'ok', redis: 'not_configured', event_store: 'ok', projections: 'ok' },
    });
  });

  test('a check that never answers fails as a timeout, within the per-check limit', async () => {
    const service = readiness({ dbQuery: () => new Promise(() => {}) });
    service.timeoutMs = 100;
    const started = Date.now();
    const result = await service.check();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result).toEqual({
      ready: false,
      checks: { database: 'timeout', redis: 'not_configured', event_store: 'ok', projections: 'ok' },
    });
  });

  test('an index database of its own: the database check fails when it does not answer, and is ok when it does', async () => {
    const up = await readiness({ indexDbQuery: async () => ({ rows: [] }) }).check();
    expect(up).toMatchObject({ ready: true, checks: { database: 'ok' } });
    const down = await readiness({
      indexDbQuery: async () => {
        throw new Error('connection refused');
      },
    }).check();
    expect(down).toMatchObject({ ready: false, checks: { database: 'failed', event_store: 'ok' } });
  });

  test('Redis configured: ok when PING answers, failed when the client is not connected', async () => {
    const up = await readiness({ redis: { isReady: true, ping: async () => 'PONG' } }).check();
    expect(up.checks.redis).toBe('ok');
    const down = await readiness({ redis: { isReady: false, ping: async () => 'PONG' } }).check();
    expect(down).toMatchObject({ ready: false, checks: { redis: 'failed' } });
  });

  test('projections: ok when the checkpoint has reached the head', async () => {
    const result = await readiness({ head: at(5), checkpoint: at(5), oldestPendingAgeMs: 60_000 }).check();
    expect(result.checks.projections).toBe('ok');
  });

  test('projections: ok when behind by events younger than the bound, behind when older', async () => {
    const young = await readiness({ head: at(5), checkpoint: at(4), oldestPendingAgeMs: 200 }).check();
    expect(young.checks.projections).toBe('ok');
    const old = await readiness({ head: at(5), checkpoint: at(4), oldestPendingAgeMs: 5000 }).check();
    expect(old).toMatchObject({ ready: false, checks: { projections: 'behind' } });
    const never = await readiness({ head: at(5), checkpoint: START, oldestPendingAgeMs: 5000 }).check();
    expect(never.checks.projections).toBe('behind');
  });

  test('projections: the node running the projector is not ready until it has caught up once', async () => {
    const replaying = await readiness({ head: at(5), checkpoint: at(5), isLeader: true, hasCaughtUp: false }).check();
    expect(replaying).toMatchObject({ ready: false, checks: { projections: 'replaying' } });
    const caughtUp = await readiness({ head: at(5), checkpoint: at(5), isLeader: true, hasCaughtUp: true }).check();
    expect(caughtUp.checks.projections).toBe('ok');
  });
});
