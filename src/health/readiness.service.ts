import { Inject, Injectable, Logger } from '@nestjs/common';
import { ProjectionRunner } from '../../projections/projection-runner.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Database } from '../database/database.js';
import { INDEX_DATABASE } from '../database/index-database.js';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port.js';
import { projectionStatus } from '../observability/projection-status.js';
import { TimeoutError, withTimeout } from '../observability/with-timeout.js';
import { REDIS, type RedisClient } from '../redis/redis.module.js';
import { assertClusterServes, isCluster } from '../redis/cluster-nodes.js';

export const CHECK_TIMEOUT_MS = 2000;

/** `ok`; `not_configured` (optional dependency absent); otherwise the reason the check failed. */
export type CheckResult = 'ok' | 'not_configured' | 'timeout' | 'failed' | 'replaying' | 'behind';

export interface Readiness {
  readonly ready: boolean;
  readonly checks: {
    readonly database: CheckResult;
    readonly redis: CheckResult;
    readonly event_store: CheckResult;
    readonly projections: CheckResult;
  };
}

class CheckFailed extends Error {
  constructor(readonly result: CheckResult) {
    super(result);
  }
}

/**
 * Readiness: every dependency answers within CHECK_TIMEOUT_MS, and the read models are current enough to serve.
 * Checks run in parallel, each with its own timeout, so the probe never hangs.
 */
@Injectable()
export class ReadinessService {
  private readonly logger = new Logger('Readiness');
  /** Per-check time limit (a field so that a test can shorten it). */
  timeoutMs = CHECK_TIMEOUT_MS;

  constructor(
    private readonly db: Database,
    @Inject(INDEX_DATABASE) private readonly indexDb: Database,
    @Inject(REDIS) private readonly redis: RedisClient | null,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: ProjectionRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async check(): Promise<Readiness> {
    const [database, redis, eventStore, projections] = await Promise.all([
      this.run('database', () => this.databases()),
      this.redis
        ? this.run('redis', () => this.pingRedis(this.redis!))
        : Promise.resolve<CheckResult>('not_configured'),
      this.run('event_store', async () => {
        await this.store.headPosition();
      }),
      this.run('projections', () => this.projections()),
    ]);
    const checks = { database, redis, event_store: eventStore, projections };
    const ready = Object.values(checks).every((result) => result === 'ok' || result === 'not_configured');
    return { ready, checks };
  }

  /** The main database and, with INDEX_DATABASE_URL, the index's: one `database` check answers for both. */
  private async databases(): Promise<void> {
    await Promise.all([
      this.db.query('SELECT 1'),
      this.indexDb === this.db
        ? null
        : this.indexDb.query('SELECT 1').catch((error: Error) => {
            throw new Error(`index database: ${error.message}`);
          }),
    ]);
  }

  private async pingRedis(redis: RedisClient): Promise<void> {
    if (!redis.isReady) throw new CheckFailed('failed'); // offline: commands would queue until the timeout
    if (isCluster(redis)) await assertClusterServes(redis);
    else await redis.ping();
  }

  /**
   * The read models are current when they include every stored event, or when the oldest event they miss is
   * younger than READY_MAX_PROJECTION_LAG_MS. A node that runs the projector must also have reached the end of the
   * store once since it started (a replay after a restart is not ready even if recent events keep arriving).
   */
  private async projections(): Promise<void> {
    const status = await projectionStatus(this.runner, this.store);
    if (status.replaying) throw new CheckFailed('replaying');
    if (!status.upToDate && status.lagMs > this.config.readyMaxProjectionLagMs) throw new CheckFailed('behind');
  }

  private async run(name: string, check: () => Promise<void>): Promise<CheckResult> {
    try {
      await withTimeout(check(), this.timeoutMs);
      return 'ok';
    } catch (error) {
      const result: CheckResult =
        error instanceof CheckFailed ? error.result : error instanceof TimeoutError ? 'timeout' : 'failed';
      const reason = error instanceof CheckFailed ? '' : `: ${(error as Error).message}`;
      this.logger.warn(`readiness check ${name} ${result}${reason}`);
      return result;
    }
  }
}
