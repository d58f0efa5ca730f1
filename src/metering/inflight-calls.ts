import { randomUUID } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import { ProjectionRunner } from '../../projections/projection-runner.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Database } from '../database/database.js';
import { EVENT_STORE, type EventStore, START } from '../event-store/event-store.port.js';
import { REDIS, type RedisClient } from '../redis/redis.module.js';
import type { CounterJournal } from './counters/credit-counters.js';

/** A node is dead once its heartbeat is this old; it renews it every HEARTBEAT_MS. */
export const NODE_LEASE_MS = 10_000;
const HEARTBEAT_MS = 2_000;
/** How often each node looks for dead nodes whose calls are still open. */
const SWEEP_MS = 5_000;

/** Takes back one journal entry (HDEL, then the counter) exactly once, whichever node sweeps. */
const RELEASE = `
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('INCRBY', KEYS[2], ARGV[2]) end
return 1`;

/**
 * The metered calls in flight on each node, so that a node that dies (SIGKILL, OOM, lost machine) leaves neither
 * counters that stay too high nor Idempotency-Keys that stay "running":
 * - each node has an id, a heartbeat (a Redis key with a NODE_LEASE_MS lifetime) and a journal (a Redis hash) where
 *   the counters note, in the same atomic step as each change, what every call added, until its charge is durable;
 * - every node sweeps: for a node whose heartbeat is gone, each journaled call whose charge is in the ledger is only
 *   forgotten (the counters hold it), every other one is taken back from the counters;
 * - the metering pipeline asks `isAlive` and `isCharged` for an Idempotency-Key left running by a dead node.
 * Without Redis there is one process, whose counters and records die with it: nothing to do.
 */
@Injectable()
export class InflightCalls implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  readonly nodeId = randomUUID();
  private readonly logger = new Logger('InflightCalls');
  private readonly journalKey: string;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private beats = 0;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient | null,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: Database,
    private readonly projections: ProjectionRunner,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {
    this.journalKey = this.journalOf(this.nodeId);
  }

  /** Where the counters note the changes of call `chargeId` (null without Redis). */
  journal(chargeId: string): CounterJournal | null {
    return this.redis ? { key: this.journalKey, call: chargeId } : null;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.redis) return;
    await this.heartbeat();
    this.scheduleHeartbeat();
    this.scheduleSweep();
  }

  onModuleDestroy(): void {
    this.stopped = true;
    clearTimeout(this.heartbeatTimer);
    clearTimeout(this.sweepTimer);
  }

  /** A clean stop: no call is in flight any more, so this node leaves (what its journal still holds, others settle). */
  async onApplicationShutdown(): Promise<void> {
    if (!this.redis?.isReady) return;
    try {
      if ((await this.redis.hLen(this.journalKey)) === 0) {
        await this.redis.sRem(this.nodesKey(), this.nodeId);
        await this.redis.del(this.heartbeatKey(this.nodeId));
      }
    } catch {
      // Redis is going away too: the heartbeat expires, and the other nodes sweep.
    }
  }

  async isAlive(nodeId: string): Promise<boolean> {
    if (!this.redis || nodeId === this.nodeId) return true;
    return (await this.redis.exists(this.heartbeatKey(nodeId))) === 1;
  }

  /** Whether a charge is in the ledger (the read models, once they include every stored event). */
  async isCharged(chargeId: string): Promise<boolean> {
    const head = await this.store.headPosition();
    if (head !== START) await this.projections.waitFor(head, this.config.projectionWaitTimeoutMs);
    const { rows } = await this.db.query('SELECT 1 FROM ledger_entries WHERE charge_id = $1', [chargeId]);
    return rows.length > 0;
  }

  /** Settles the journals of every dead node; returns how many calls it settled. */
  async sweep(): Promise<number> {
    if (!this.redis) return 0;
    let settled = 0;
    for (const node of await this.redis.sMembers(this.nodesKey())) {
      if (node === this.nodeId || (await this.isAlive(node))) continue;
      settled += await this.settleNode(node);
    }
    return settled;
  }

  private async settleNode(node: string): Promise<number> {
    const redis = this.redis!;
    const journal = this.journalOf(node);
    const entries = await redis.hGetAll(journal);
    const calls = new Map<string, { field: string; counter: string; amount: number }[]>();
    for (const [field, value] of Object.entries(entries)) {
      const bar = field.indexOf('|');
      const call = field.slice(0, bar);
      calls.set(call, [...(calls.get(call) ?? []), { field, counter: field.slice(bar + 1), amount: Number(value) }]);
    }
    let charged = 0;
    let released = 0;
    for (const [call, changes] of calls) {
      if (await this.isCharged(call)) {
        await redis.hDel(
          journal,
          changes.map((c) => c.field),
        );
        charged += 1;
        continue;
      }
      for (const change of changes) {
        await redis.eval(RELEASE, {
          keys: [journal, change.counter],
          arguments: [change.field, String(-change.amount)],
        });
      }
      released += 1;
    }
    if ((await redis.hLen(journal)) === 0) await redis.sRem(this.nodesKey(), node);
    if (calls.size > 0) {
      this.logger.log(
        `settled ${calls.size} call(s) left in flight by stopped node ${node}: ` +
          `${charged} charged (kept), ${released} not charged (reservations released)`,
      );
    }
    return calls.size;
  }

  /** Renews the lease, and the membership (in case Redis lost its data and the node set with it). */
  private async heartbeat(): Promise<void> {
    const [previous] = await this.redis!.multi()
      .set(this.heartbeatKey(this.nodeId), '1', { expiration: { type: 'PX', value: NODE_LEASE_MS }, GET: true })
      .sAdd(this.nodesKey(), this.nodeId)
      .exec();
    if (this.beats++ > 0 && previous === null) {
      this.logger.warn(
        `this node's lease lapsed (Redis unreachable or lost its data, or the process stalled for ${NODE_LEASE_MS} ms): ` +
          'other nodes may have settled the calls it had in flight',
      );
    }
  }

  private scheduleHeartbeat(): void {
    if (this.stopped) return;
    this.heartbeatTimer = setTimeout(() => {
      this.heartbeat()
        .catch(() => {
          // Redis unreachable: readiness reports it; the next beat tries again.
        })
        .finally(() => this.scheduleHeartbeat());
    }, HEARTBEAT_MS);
    this.heartbeatTimer.unref();
  }

  private scheduleSweep(): void {
    if (this.stopped) return;
    this.sweepTimer = setTimeout(() => {
      this.sweep()
        .catch((error: unknown) => this.logger.warn(`sweeping stopped nodes failed: ${(error as Error).message}`))
        .finally(() => this.scheduleSweep());
    }, SWEEP_MS);
    this.sweepTimer.unref();
  }

  private nodesKey(): string {
    return `${this.config.redisPrefix}nodes`;
  }

  private heartbeatKey(node: string): string {
    return `${this.config.redisPrefix}node:${node}`;
  }

  private journalOf(node: string): string {
    return `${this.config.redisPrefix}inflight:${node}`;
  }
}
