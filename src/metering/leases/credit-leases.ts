import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { Position } from '../../event-store/event-store.port.js';
import type { RedisClient } from '../../redis/redis.module.js';
import { COUNTER_TTL_SECONDS, type CreditCounters, type Seed } from '../counters/credit-counters.js';
import type { Admission, BudgetScope, QuotaGate, QuotaHold, QuotaRequest } from './quota-gate.js';
import { runScript } from '../../redis/run-script.js';
import { isUnavailableDependency } from '../../http/unavailable-dependency.js';
import { LeaseStepsBySlot } from './lease-steps-by-slot.js';
import { keyBesides } from '../../redis/hash-tags.js';
import { onRedisConnectionLost } from '../../redis/redis-events.js';
import { Account, Lease, type Refill } from './lease-accounts.js';

export { INITIAL_LEASE } from './lease-accounts.js';
import { GRANT } from './lease-grant-script.js';
import { chargeIdOf, leaseJournalCall } from './lease-ids.js';

export { chargeIdOf, isLeaseJournalCall, leaseIdOf, leaseJournalCall } from './lease-ids.js';

/**
 * Credit leases. A node takes a block of an organization's monthly credits from Redis in one atomic step, carved
 * out of what is left (the charged total, the `quota` counter, plus every node's outstanding leases never exceed
 * the allowance), and reserves each call's most credits from it in memory: a call that fits its node's lease does
 * no network I/O before its work. Once its charge is durable, the call's credits move from the lease to the
 * counter (`settle`, grouped: one Redis script for every settlement, give-back and return waiting at that moment).
 *
 * In Redis, per organization and month, `leases:<org>:<month>` holds each lease's outstanding credits (granted,
 * less what was given back, less what was settled into the counter), and the node's in-flight journal holds, per
 * lease, what was granted less what was given back (`lease:<id>|<leases key>`). A node that dies leaves both: the
 * sweeper (InflightCalls) adds to the counter what the ledger shows was charged from the lease and not settled yet,
 * and drops the rest. The charges of a lease have ids that start with the lease's id (`chargeIdPrefix` + a
 * sequence number), which is how the ledger says what a lease spent.
 *
 * Budgets (a key's or a project's monthly limit) are leased the same way, each from its own counter (keySpend,
 * projectSpend) with its own leases key; a call then holds up to three leases. A charge has one id, so it names the
 * budget leases it drew on in `budget_leases`, which is how the ledger says what a budget lease spent.
 *
 * Sizes adapt: a lease asked for within a quarter of LEASE_MS of the previous one is twice as large, up to
 * MAX_LEASE, but never more than an eighth of what is left (rounded down to whole calls), nor less than the call
 * that asks; a call that does not fit gives back what its node's leases have left in the same step. A lease is
 * given back when it expires (LEASE_MS), when the plan's allowance changes (at the node's next call or maintenance
 * pass, whichever comes first, once its plan cache has the change), on shutdown, and whenever the
 * connection to Redis is lost (then Redis may have lost it: what it held is settled as the seed of the counter
 * says, see RedisCreditCounters.settle). The slack: a 402 can come while other nodes' leases still hold unspent
 * credits, at most an eighth of what was left when each was granted (see docs/metering.md, credit leases across nodes).
 */
export const LEASE_MS = 10_000;
export const MAX_LEASE = 10_000;
/** A lease is fetched ahead of need once less than this share of it is left. */
const REFILL_SHARE = 0.25;
const MAINTENANCE_MS = 1_000;

export interface CreditLeaseOptions {
  readonly redis: RedisClient;
  readonly counters: CreditCounters;
  /** The node's journal (InflightCalls). */
  readonly journalKey: string;
  /** The leases of an organization's month, or of one of its budgets. */
  readonly leasesKey: (orgId: string, month: string, budget?: BudgetScope) => string;
  /** The key of a batch of lease steps' receipt. */
  readonly receiptKey: (batchId: string) => string;
  readonly logger?: Logger;
  readonly leaseMs?: number;
  /**
   * The organization's allowance as the node's plan cache has it: leases granted under another one are retired by
   * the maintenance pass, so a plan change gives back every node's leases, whether or not calls come.
   */
  readonly allowanceOf?: (orgId: string) => Promise<number | null>;
}

export class CreditLeases implements QuotaGate {
  private readonly accounts = new Map<string, Account>();
  private readonly steps: LeaseStepsBySlot;
  private readonly maintenance: NodeJS.Timeout;
  private readonly logger: Logger;
  private readonly leaseMs: number;

  constructor(private readonly options: CreditLeaseOptions) {
    this.logger = options.logger ?? new Logger('CreditLeases');
    this.steps = new LeaseStepsBySlot(options.redis, options.receiptKey, this.logger);
    this.leaseMs = options.leaseMs ?? LEASE_MS;
    // The connection lost: Redis may have lost the leases too. Stop spending them; settle what they hold when back.
    onRedisConnectionLost(options.redis, () => this.retireAll());
    this.maintenance = setInterval(() => this.maintain(), MAINTENANCE_MS);
    this.maintenance.unref();
  }

  tryReserve(request: QuotaRequest): Admission | null {
    if (!this.redisReady()) return null;
    const lease = this.pick(this.accountOf(request), request);
    return lease ? { ok: true, hold: this.hold(lease, request) } : null;
  }

  async reserve(request: QuotaRequest): Promise<Admission> {
    const account = this.accountOf(request);
    let refused: Refill | null = null;
    let waitedForGiveBacks = false;
    for (;;) {
      const lease = this.redisReady() ? this.pick(account, request) : null;
      if (lease) return { ok: true, hold: this.hold(lease, request) };
      if (refused && refused.amount <= request.amount) {
        // Leases this node retired may not be given back in Redis yet (their step queued behind another): once.
        if (waitedForGiveBacks || !this.steps.pending()) return { ok: false, used: refused.used };
        waitedForGiveBacks = true;
        refused = null;
        await this.steps.flush().catch(() => {});
      }
      const refill = account.refill ?? this.startRefill(account, request, true);
      const result = await refill;
      if (!result.granted) refused = result;
    }
  }

  /** Gives back every lease (shutdown): what they have left now, the rest once their calls are done. */
  async returnAll(): Promise<void> {
    this.steps.stop();
    clearInterval(this.maintenance);
    this.retireAll();
    await this.steps.flush().catch(() => {});
  }

  /** Stops spending every lease (the connection was lost, or this node was taken for dead). */
  retireAll(): void {
    for (const account of this.accounts.values()) for (const lease of account.leases) this.retire(lease);
  }

  /** The node's journal in the account's slot (on one server, the node's journal). */
  private journalOf(account: Account): string {
    return keyBesides(this.options.journalKey, account.leasesKey);
  }

  private redisReady(): boolean {
    return this.options.redis.isReady;
  }

  private accountOf(request: QuotaRequest): Account {
    let account = this.accounts.get(request.key);
    if (!account) {
      const leasesKey = this.options.leasesKey(request.orgId, request.month, request.budget);
      account = new Account(request.orgId, request.key, leasesKey, request.budget);
      this.accounts.set(request.key, account);
    }
    return account;
  }

  /** A lease of this allowance that fits the call; leases that expired or belong to an old plan are retired. */
  private pick(account: Account, request: QuotaRequest): Lease | null {
    const now = Date.now();
    let found: Lease | null = null;
    let left = 0;
    for (const lease of account.leases) {
      if (lease.retired) continue;
      if (lease.allowance !== request.allowance || now >= lease.expiresAt) {
        this.retire(lease);
        continue;
      }
      if (!found && lease.available >= request.amount) found = lease;
      left += lease.available;
    }
    if (found && !account.refill && left - request.amount < account.want * REFILL_SHARE) {
      // Ahead of need, and single-flight: the calls go on with what is left meanwhile.
      // Nobody awaits it here: a failure (Redis gone) is for the next call that needs the lease to meet.
      this.startRefill(account, request, false).catch((error: unknown) =>
        this.logger.warn(`taking a credit lease ahead of need failed: ${(error as Error).message}`),
      );
    }
    return found;
  }

  private hold(lease: Lease, request: QuotaRequest): QuotaHold {
    const { amount } = request;
    lease.available -= amount;
    lease.holding += amount;
    const chargeId = chargeIdOf(lease.id, lease.seq++);
    let done = false;
    const finish = () => {
      done = true;
      lease.holding -= amount;
      if (lease.retired && lease.holding === 0) this.returnLease(lease);
    };
    return {
      chargeId,
      leaseId: lease.id,
      used: this.usedEstimate(lease.account),
      charged: async (credits: number, chargedAt: () => Promise<Position | null>) => {
        if (done) return this.usedEstimate(lease.account);
        // The rest of the reservation goes back to the lease (an overrun, which pricing never makes, is taken too).
        if (!lease.retired) lease.available += amount - credits;
        const account = lease.account;
        // The charge is durable: the call is answered now, its credits move from the lease to the counter in the
        // background (grouped with the others of the moment); until then they count as this node's unsettled ones.
        account.unsettled += credits;
        this.steps.enqueue('s', [account.leasesKey, account.quotaKey], [lease.id, String(credits)]).then(
          (used) => {
            account.unsettled -= credits;
            if (used >= 0) account.lastUsed = used;
            if (used === -2) this.retire(lease);
            // The counter (-1) or the lease (-2) is gone: a seed read before the charge was durable may land later.
            if (used < 0) this.settleLost(chargeId, account.quotaKey, credits, request.seed, chargedAt);
          },
          (error: unknown) => {
            account.unsettled -= credits;
            // Redis went away after the charge was durable: settled once it is back (the op stays queued).
            this.logger.warn(`settling charge ${chargeId} waits for Redis: ${(error as Error).message}`);
          },
        );
        finish();
        return account.lastUsed + account.unsettled;
      },
      release: async () => {
        if (done) return null;
        if (!lease.retired) lease.available += amount;
        finish();
        return this.usedEstimate(lease.account);
      },
    };
  }

  /** The charged total as of this node's last look at Redis, its charges Redis has not counted yet, and what this
   * node's calls hold. */
  private usedEstimate(account: Account): number {
    return account.lastUsed + account.unsettled + account.leases.reduce((sum, l) => sum + l.holding, 0);
  }

  /**
   * Redis's charged total, or this node's last reading of it plus its charges not counted yet, whichever is larger:
   * both are at most the true total, and the second includes this node's calls answered a moment ago.
   */
  async usedNow(key: string, seed: Seed): Promise<number> {
    const counted = await this.options.counters.read(key, seed);
    const account = this.accounts.get(key);
    return account ? Math.max(counted, account.lastUsed + account.unsettled) : counted;
  }

  /** A fresh reading of the charged total (another path changed the counter): usage headers show it at once. */
  observe(key: string, used: number): void {
    const account = this.accounts.get(key);
    if (account) account.lastUsed = used;
  }

  private startRefill(account: Account, request: QuotaRequest, blocking: boolean): Promise<Refill> {
    const refill = this.grant(account, request, blocking).finally(() => {
      if (account.refill === refill) account.refill = null;
    });
    account.refill = refill;
    return refill;
  }

  private async grant(account: Account, request: QuotaRequest, blocking: boolean): Promise<Refill> {
    const now = Date.now();
    if (now - account.lastGrantAt < this.leaseMs / 4) account.want = Math.min(MAX_LEASE, account.want * 2);
    // A call that fits none of the leases: what they have left goes back in the same step (they cannot serve it).
    const given: [Lease, number][] = [];
    if (blocking) {
      for (const lease of account.leases) {
        if (lease.retired || lease.available === 0) continue;
        given.push([lease, lease.available]);
        lease.size -= lease.available;
        lease.available = 0;
        lease.retired = true;
      }
    }
    const id = randomUUID().slice(0, 28);
    const journalField = `${leaseJournalCall(id)}|${account.leasesKey}`;
    const args = [
      String(Math.max(account.want, request.amount)),
      String(request.amount),
      String(request.allowance),
      id,
      journalField,
      String(COUNTER_TTL_SECONDS),
      ...given.flatMap(([lease, amount]) => [lease.id, lease.journalField, String(amount)]),
    ];
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const [status, a, b, c] = (await runScript(this.options.redis, GRANT, {
          keys: [account.quotaKey, account.leasesKey, this.journalOf(account)],
          arguments: args,
        }).catch((error: unknown) => {
          // It may have run, its answer lost: a lease nobody here knows of would hold its credits for the month.
          // Returned once Redis answers (a lease that was never granted: nothing to remove).
          if (isUnavailableDependency(error)) {
            this.steps.enqueue('r', [account.leasesKey, this.journalOf(account)], [id, journalField]).catch(() => {});
          }
          throw error;
        })) as number[];
        if (status === -1) {
          await this.options.counters.read(account.quotaKey, request.seed);
          continue;
        }
        if (status === 0) {
          account.lastUsed = a!;
          return { granted: false, amount: request.amount, used: a! + b! };
        }
        account.lastGrantAt = Date.now();
        account.lastUsed = b!;
        account.leases.push(new Lease(id, account, a!, a!, request.allowance, now + this.leaseMs));
        return { granted: true, amount: request.amount, used: b! + c! };
      }
      throw new Error(`counter ${account.quotaKey} could not be seeded`);
    } finally {
      // Given back (or, if the step failed, still outstanding until returned): either way, done with.
      for (const [lease] of given) if (lease.holding === 0) this.returnLease(lease);
    }
  }

  /** No more calls on this lease: what it has left goes back now, the rest when its last call is done. */
  private retire(lease: Lease): void {
    if (lease.retired) return;
    lease.retired = true;
    if (lease.holding === 0) return this.returnLease(lease);
    if (lease.available > 0) {
      const amount = lease.available;
      lease.size -= amount;
      lease.available = 0;
      this.steps
        .enqueue(
          'g',
          [lease.account.leasesKey, this.journalOf(lease.account)],
          [lease.id, lease.journalField, String(amount)],
        )
        .catch(() => {});
    }
  }

  private returnLease(lease: Lease): void {
    if (lease.returned) return;
    lease.returned = true;
    lease.available = 0;
    const account = lease.account;
    account.leases = account.leases.filter((l) => l !== lease);
    this.steps
      .enqueue('r', [account.leasesKey, this.journalOf(account)], [lease.id, lease.journalField])
      .catch(() => {});
  }

  /**
   * A charge whose lease or counter Redis no longer has: counted in the counter unless its seed included it already
   * (the charge's position against the one the seed covers, see RedisCreditCounters.settle).
   */
  private settleLost(
    chargeId: string,
    quotaKey: string,
    credits: number,
    seed: Seed,
    chargedAt: () => Promise<Position | null>,
  ): void {
    if (credits === 0) return;
    const journal = { key: this.options.journalKey, call: chargeId }; // no such entry: the "lost" path of settle
    void this.options.counters
      .settle(journal, [{ key: quotaKey, amount: credits, seed }], chargedAt)
      .catch((error: unknown) => this.logger.warn(`settling charge ${chargeId} failed: ${(error as Error).message}`));
  }

  private maintain(): void {
    const now = Date.now();
    for (const [key, account] of this.accounts) {
      for (const lease of account.leases) if (!lease.retired && now >= lease.expiresAt) this.retire(lease);
      if (account.leases.length === 0 && !account.refill && now - account.lastGrantAt > this.leaseMs) {
        this.accounts.delete(key);
      }
      // A budget's change reaches the node with the key (its cache is invalidated): its next call retires the leases.
      if (!account.budget && account.leases.some((lease) => !lease.retired)) void this.retireUnderOldPlan(account);
    }
  }

  private async retireUnderOldPlan(account: Account): Promise<void> {
    const allowance = await this.options.allowanceOf?.(account.orgId).catch(() => null);
    if (allowance === null || allowance === undefined) return;
    for (const lease of account.leases) if (!lease.retired && lease.allowance !== allowance) this.retire(lease);
  }
}
