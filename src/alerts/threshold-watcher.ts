import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { loadCheckpoint, storeCheckpoint } from '../../projections/checkpoint-store.js';
import { ProjectionRunner } from '../../projections/projection-runner.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Database } from '../database/database.js';
import { toNewEvent } from '../event-store/domain-event.js';
import {
  EVENT_STORE,
  type EventStore,
  type RecordedEvent,
  START,
  WrongExpectedVersionError,
} from '../event-store/event-store.port.js';
import type { CreditsCharged } from '../metering/events/credits-charged.event.js';
import { AlertLimits, type WatchedLimit } from './alert-limits.js';
import { AlertOutbox } from './alert-outbox.js';
import { type AlertThresholdCrossed, alertCrossedStream } from './events/alert.events.js';

export const ALERT_WATCH_CHECKPOINT = 'alert_watch';
const BATCH = 500;

/**
 * Follows the events in order from its own checkpoint, on one node at a time (a session advisory lock). For the
 * limits a batch of CreditsCharged touched, once the read models include the batch, it compares each limit's usage
 * with its thresholds and records every threshold reached as AlertThresholdCrossed in a stream of its own, appended
 * with expected revision "no stream": a second writer (another node, a replay after a crash before the checkpoint
 * moved) is refused, so each organization, scope, month and threshold has exactly one event. Every crossing it
 * reads goes into the delivery outbox (unique per event and target), then the checkpoint moves.
 */
@Injectable()
export class ThresholdWatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Alerts');
  /** Crossings known to be recorded: no append tried again for them. */
  private readonly recorded = new LRUCache<string, true>({ max: 100_000 });
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly db: Database,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: ProjectionRunner,
    private readonly limits: AlertLimits,
    private readonly outbox: AlertOutbox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.runProjections) this.schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass()
        .then(() => undefined)
        .catch((error: Error) => this.logger.error(`alert thresholds: ${error.message}`))
        .finally(() => this.schedule());
    }, this.config.alertsPollMs);
  }

  /** Follows the events to the head; false when another node (or pass) holds the lock, and nothing was done. */
  async pass(): Promise<boolean> {
    const client = await this.db.pool.connect();
    const lock = `alerts:${this.db.schema}`;
    try {
      const locked = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [lock]);
      if (!locked.rows[0]?.ok) return false;
      try {
        let from = await loadCheckpoint(this.db, ALERT_WATCH_CHECKPOINT);
        if (from === START) {
          // A first start on an existing ledger begins at its head, not with alerts for every past month: the
          // checks look at a limit's usage as it is, so the next charge of a limit brings its crossings up to date.
          from = await this.store.headPosition();
          await storeCheckpoint(this.db, ALERT_WATCH_CHECKPOINT, from);
          if (from === START) return true;
        }
        while (!this.stopped) {
          const events = await this.store.readAll({ from, maxCount: BATCH });
          if (events.length === 0) return true;
          await this.handle(events);
          from = events.at(-1)!.position;
          await storeCheckpoint(this.db, ALERT_WATCH_CHECKPOINT, from);
        }
        return true;
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lock]);
      }
    } finally {
      client.release();
    }
  }

  private async handle(events: readonly RecordedEvent[]): Promise<void> {
    const charges = events.filter((e) => e.type === 'CreditsCharged');
    if (charges.length > 0) {
      await this.runner.waitFor(charges.at(-1)!.position, this.config.projectionWaitTimeoutMs);
      for (const limit of touchedLimits(charges)) await this.check(limit);
    }
    for (const event of events) if (event.type === 'AlertThresholdCrossed') await this.outbox.enqueue(event);
  }

  private async check(watched: WatchedLimit): Promise<void> {
    const limit = await this.limits.limitOf(watched);
    if (limit === null || limit <= 0) return;
    const thresholds = await this.limits.thresholdsOf(watched);
    const used = await this.limits.usedOf(watched);
    for (const threshold of thresholds) {
      if (used * 100 < threshold * limit) continue;
      const stream = alertCrossedStream(watched.orgId, watched.scope, watched.scopeId, watched.month, threshold);
      if (this.recorded.has(stream)) continue;
      const event: AlertThresholdCrossed = {
        type: 'AlertThresholdCrossed',
        data: {
          org_id: watched.orgId,
          scope: watched.scope,
          scope_id: watched.scopeId,
          billing_month: watched.month,
          threshold,
          credits_used: used,
          credits_limit: limit,
        },
      };
      try {
        await this.store.appendToStream(stream, [toNewEvent(event, { type: 'system', id: 'alerts' })], 'no_stream');
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError)) throw error;
      }
      this.recorded.set(stream, true);
    }
  }
}

/** The limits a run of charges counts against, each once. */
function touchedLimits(charges: readonly RecordedEvent[]): WatchedLimit[] {
  const limits = new Map<string, WatchedLimit>();
  const add = (limit: WatchedLimit) => limits.set(`${limit.scope}:${limit.scopeId}:${limit.month}`, limit);
  for (const event of charges) {
    const d = event.data as unknown as CreditsCharged['data'];
    const month = d.billing_month;
    add({ orgId: d.org_id, scope: 'key', scopeId: d.key_id, month });
    if (d.key_environment !== 'live') continue;
    add({ orgId: d.org_id, scope: 'project', scopeId: d.project_id, month });
    add({ orgId: d.org_id, scope: 'organization', scopeId: d.org_id, month });
  }
  return [...limits.values()];
}
