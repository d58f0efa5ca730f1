import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Database } from '../database/database.js';

/** How often a node prunes; every node may (a delete of rows already gone deletes nothing). */
export const PRUNE_INTERVAL_MS = 3_600_000;
/** Rows deleted per statement, so that a prune never holds many locks for long. */
const BATCH = 1000;

export interface PruneOutcome {
  readonly deliveries: number;
  readonly endpoints: number;
}

/**
 * Keeps the alert outbox and its delivery log from growing for ever: a delivery that has finished (succeeded, or
 * failed once its retries were spent) is deleted with its attempts ALERT_DELIVERY_RETENTION_DAYS after it was created
 * and last attempted (a replay within that time keeps it); a pending one is never pruned. A deleted webhook endpoint
 * goes too once none of its deliveries is left and it was deleted that long ago (its encrypted secret with it).
 * The alert events themselves stay in the event store.
 */
@Injectable()
export class AlertDeliveryRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AlertDelivery');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.runProjections) return;
    const tick = () => {
      this.running ??= this.prune()
        .then(({ deliveries }) => {
          if (deliveries > 0) this.logger.log(`pruned ${deliveries} finished alert deliveries`);
        })
        .catch((error: Error) => this.logger.warn(`pruning alert deliveries failed (retried): ${error.message}`))
        .finally(() => (this.running = undefined));
    };
    this.timer = setInterval(tick, PRUNE_INTERVAL_MS);
    this.timer.unref();
    tick();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.settled();
  }

  /** Resolves once the scheduled prune running now, if any (the one on start, an hourly one), has ended. */
  async settled(): Promise<void> {
    await this.running;
  }

  /** Deletes what is past the retention at `now`, in batches; returns how many deliveries and endpoints went. */
  async prune(now = new Date()): Promise<PruneOutcome> {
    const cutoff = new Date(now.getTime() - this.config.alertDeliveryRetentionDays * 86_400_000);
    let deliveries = 0;
    for (;;) {
      const deleted = await this.db.transaction(async (tx) => {
        const due = await tx.query<{ delivery_id: string }>(
          `SELECT d.delivery_id FROM alert_deliveries d
           WHERE d.status IN ('succeeded', 'failed') AND d.created_at < $1
             AND NOT EXISTS (SELECT 1 FROM alert_delivery_attempts a
                             WHERE a.delivery_id = d.delivery_id AND a.started_at >= $1)
           ORDER BY d.created_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
          [cutoff, BATCH],
        );
        const ids = due.rows.map((r) => r.delivery_id);
        if (ids.length === 0) return 0;
        await tx.query('DELETE FROM alert_delivery_attempts WHERE delivery_id = ANY($1::uuid[])', [ids]);
        // The rows are locked: a replay of one of them waits, then finds it gone (404).
        const removed = await tx.query('DELETE FROM alert_deliveries WHERE delivery_id = ANY($1::uuid[])', [ids]);
        return removed.rowCount ?? 0;
      });
      deliveries += deleted;
      if (deleted < BATCH) break;
    }
    const endpoints = await this.db.query(
      `DELETE FROM webhook_endpoints e WHERE e.deleted_at < $1
         AND NOT EXISTS (SELECT 1 FROM alert_deliveries d WHERE d.endpoint_id = e.endpoint_id)`,
      [cutoff],
    );
    return { deliveries, endpoints: endpoints.rowCount ?? 0 };
  }
}
