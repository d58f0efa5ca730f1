import { randomUUID } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { REDIS, type RedisClient } from '../redis/redis.module.js';
import { CHARGED_TOTALS, type ChargedTotals } from './charged-totals.port.js';
import { counterKeys } from './counter-keys.js';
import type { CounterJournal } from './counters/credit-counters.js';
import { isLeaseJournalCall, leaseIdOf } from './leases/credit-leases.js';
import { runScript } from '../redis/run-script.js';
import { isCluster, scanKeys } from '../redis/cluster-nodes.js';
import { redisKeyspace } from '../redis/redis-keyspace.js';

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
 * Settles one lease of a dead node exactly once: KEYS[1] the journal, KEYS[2] the leases, KEYS[3] the counter; ARGV[1]
 * the journal field, ARGV[2] the lease field, ARGV[3] what the ledger shows the lease charged. The journal holds what
 * was granted (less what was given back), the lease what is outstanding: what was charged but not settled yet goes
 * to the counter (unless the counter is missing: seeded from the ledger, it has it), the rest is given back.
 */
const RELEASE_LEASE = `
local granted = redis.call('HGET', KEYS[1], ARGV[1])
if not granted then return -1 end
redis.call('HDEL', KEYS[1], ARGV[1])
local outstanding = redis.call('HGET', KEYS[2], ARGV[2])
if not outstanding then return 0 end
redis.call('HDEL', KEYS[2], ARGV[2])
local unsettled = tonumber(ARGV[3]) - (tonumber(granted) - tonumber(outstanding))
if unsettled > 0 and redis.call('EXISTS', KEYS[3]) == 1 then redis.call('INCRBY', KEYS[3], unsettled) end
return unsettled`;

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
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private beats = 0;
  private readonly leaving: (() => Promise<void>)[] = [];
  private readonly lapsed: (() => void)[] = [];

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient | null,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CHARGED_TOTALS) private readonly totals: ChargedTotals,
  ) {}

  /** The node's journal (a Redis hash), where credit leases are noted too. */
  get journalKey(): string {
    return this.journalOf(this.nodeId);
  }

  /** Run on a clean stop before the node leaves (credit leases are given back). */
  beforeLeaving(hook: () => Promise<void>): void {
    this.leaving.push(hook);
  }

  /** Called when this node finds its heartbeat had lapsed (others may have settled its journal). */
  onLapse(hook: () => void): void {
    this.lapsed.push(hook);
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
      for (const hook of this.leaving) await hook();
      if (await this.journalsEmpty(this.nodeId)) {
        await this.redis.sRem(this.nodesKey(), this.nodeId);
        await this.redis.del(this.heartbeatKey(this.nodeId));
      }
    } catch {
      // Redis is going away too: the heartbeat expires, and the other nodes sweep.
    }
  }

  async isAlive(nodeId: string): Promise<boolean> {
    if (nodeId === this.nodeId) return true;
    // Without Redis one process serves (its limits are in-process): another node's call is of a process that ended.
    if (!this.redis) return false;
    return (await this.redis.exists(this.heartbeatKey(nodeId))) === 1;
  }

  /** Whether a charge is in the ledger (the read models, once they include every stored event). */
  async isCharged(chargeId: string): Promise<boolean> {
    return (await this.totals.chargePosition(chargeId)) !== null;
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
    let settled = 0;
    for (const journal of await this.journalsOf(node)) settled += await this.settleJournal(node, journal);
    if (await this.journalsEmpty(node)) await this.redis!.sRem(this.nodesKey(), node);
    return settled;
  }

  private async settleJournal(node: string, journal: string): Promise<number> {
    const redis = this.redis!;
    const entries = await redis.hGetAll(journal);
    const calls = new Map<string, { field: string; counter: string; amount: number }[]>();
    let leases = 0;
    for (const [field, value] of Object.entries(entries)) {
      const bar = field.indexOf('|');
      const call = field.slice(0, bar);
      if (isLeaseJournalCall(call)) {
        await this.settleLease(journal, field, leaseIdOf(call), field.slice(bar + 1));
        leases += 1;
        continue;
      }
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
        await runScript(redis, RELEASE, {
          keys: [journal, change.counter],
          arguments: [change.field, String(-change.amount)],
        });
      }
      released += 1;
    }
    if (calls.size > 0 || leases > 0) {
      this.logger.log(
        `settled ${calls.size} call(s) left in flight by stopped node ${node}: ` +
          `${charged} charged (kept), ${released} not charged (reservations released); ` +
          `${leases} credit lease(s) settled from the ledger (charged credits kept, the rest given back)`,
      );
    }
    return calls.size + leases;
  }

  /**
   * A dead node's lease: what the ledger shows it charged stays counted, the rest goes back. The leases key says
   * whose: the organization's month (`leases:<org>:<month>`) or a budget of it (`…:<key|project>:<id>`).
   */
  private async settleLease(journal: string, field: string, leaseId: string, leasesKey: string): Promise<void> {
    const space = redisKeyspace(this.config);
    const [org, month, scope, id] = leasesKey.slice(`${space.prefix}leases:`.length).split(':') as string[];
    const orgId = space.cluster ? org!.slice(1, -1) : org!; // on a cluster, `{<org>}`
    let counterKey: string;
    let charged: number;
    if (scope === 'key' || scope === 'project') {
      counterKey =
        scope === 'key'
          ? counterKeys.keySpend(space, orgId, id!, month!)
          : counterKeys.projectSpend(space, orgId, id!, month!);
      charged = await this.totals.budgetLeaseCredits(leaseId, orgId, month!);
    } else {
      counterKey = counterKeys.quota(space, orgId, month!);
      // Its charges' ids start with the lease's id.
      charged = await this.totals.leaseCredits(leaseId, orgId, month!);
    }
    await runScript(this.redis!, RELEASE_LEASE, {
      keys: [journal, leasesKey, counterKey],
      arguments: [field, leaseId, String(charged)],
    });
  }

  /** Renews the lease, and the membership (in case Redis lost its data and the node set with it). */
  private async heartbeat(): Promise<void> {
    // Two commands, not a MULTI: on a cluster the two keys may be in different slots.
    const [previous] = await Promise.all([
      this.redis!.set(this.heartbeatKey(this.nodeId), '1', {
        expiration: { type: 'PX', value: NODE_LEASE_MS },
        GET: true,
      }),
      this.redis!.sAdd(this.nodesKey(), this.nodeId),
    ]);
    if (this.beats++ > 0 && previous === null) {
      for (const hook of this.lapsed) hook();
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

  /**
   * A node's journals: its journal, and on a cluster the journal of each hash tag its calls used (the counters note
   * a change in a journal in the counter's slot, see keyBesides), found by scanning every master.
   */
  private async journalsOf(node: string): Promise<string[]> {
    const journal = this.journalOf(node);
    if (!isCluster(this.redis!)) return [journal];
    return [journal, ...(await scanKeys(this.redis!, `${journal}:{*`))];
  }

  private async journalsEmpty(node: string): Promise<boolean> {
    for (const journal of await this.journalsOf(node)) if ((await this.redis!.hLen(journal)) > 0) return false;
    return true;
  }
}
