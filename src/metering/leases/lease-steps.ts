import { randomUUID } from 'node:crypto';
import type { Logger } from '@nestjs/common';
import type { RedisClient } from '../../redis/redis.module.js';
import { runScript } from '../../redis/run-script.js';
import { mayRetryLater } from '../../redis/redis-events.js';

/** The least time between two scripts of lease steps (settlements, give-backs, returns). */
const SETTLE_GATHER_MS = 5;
/** A batch whose answer was lost is sent again after this, or as soon as Redis is back. */
const RETRY_MS = 1_000;

/**
 * Several lease operations in one step. ARGV[1] says which, one letter each; each takes its keys and arguments in
 * turn. s (settle; KEYS leases, quota; ARGV field, credits): the lease's credits move to the counter; the counter
 * after it, -1 if the counter is missing, -2 if the lease is (Redis lost it, or the node was taken for dead); either
 * way the charge is then counted unless the counter's seed includes it (settleLost). g (give back; KEYS leases,
 * journal; ARGV field, journal field, amount). r (return: the lease is done, what it still holds goes back; KEYS
 * leases, journal; ARGV field, journal field). KEYS[1] is the batch's receipt (ARGV[2] its lifetime): a batch sent
 * again (its answer was lost with the connection, and it may have run) answers what it answered the first time, and
 * changes nothing. The next ARGV[3] keys are receipts of batches whose answers have arrived since: they go.
 */
const APPLY = `
local answered = tonumber(ARGV[3])
for i = 2, answered + 1 do redis.call('DEL', KEYS[i]) end
local receipt = redis.call('GET', KEYS[1])
if receipt then return cjson.decode(receipt) end
local out = {}
local k, a = answered + 2, 4
for i = 1, #ARGV[1] do
  local op = string.sub(ARGV[1], i, i)
  if op == 's' then
    if redis.call('HEXISTS', KEYS[k], ARGV[a]) == 0 then out[i] = -2
    else
      redis.call('HINCRBY', KEYS[k], ARGV[a], 0 - tonumber(ARGV[a + 1]))
      if redis.call('EXISTS', KEYS[k + 1]) == 1 then out[i] = redis.call('INCRBY', KEYS[k + 1], ARGV[a + 1])
      else out[i] = -1 end
    end
    k, a = k + 2, a + 2
  elseif op == 'g' then
    out[i] = 0
    if redis.call('HEXISTS', KEYS[k], ARGV[a]) == 1 then
      redis.call('HINCRBY', KEYS[k], ARGV[a], 0 - tonumber(ARGV[a + 2]))
      redis.call('HINCRBY', KEYS[k + 1], ARGV[a + 1], 0 - tonumber(ARGV[a + 2]))
      out[i] = 1
    end
    k, a = k + 2, a + 3
  else
    out[i] = redis.call('HDEL', KEYS[k], ARGV[a])
    redis.call('HDEL', KEYS[k + 1], ARGV[a + 1])
    k, a = k + 2, a + 2
  end
end
redis.call('SET', KEYS[1], cjson.encode(out), 'EX', ARGV[2])
return out`;

/** How long Redis keeps a receipt the next batch did not remove (the node stopped, or its last batch went unanswered). */
const RECEIPT_TTL_SECONDS = 24 * 3600;

interface Op {
  readonly code: 's' | 'g' | 'r';
  readonly keys: readonly string[];
  readonly args: readonly string[];
  resolve(result: number): void;
  reject(error: unknown): void;
}

/** A batch of steps and its receipt's key: sent again as it is, never merged with later steps. */
interface Batch {
  readonly receiptKey: string;
  readonly steps: readonly Step[];
  ops: Op[];
}

interface Step {
  readonly code: Op['code'];
  readonly keys: readonly string[];
  args: string[];
  readonly ops: Op[];
}

/**
 * The batch as script steps: the settlements of one lease become one (credits summed, every call answered with the
 * counter after it). A lease's settlements are all queued before its return, so moving one earlier, onto the first
 * settlement of its lease, never moves it past that return.
 */
function coalesced(batch: readonly Op[]): Step[] {
  const steps: Step[] = [];
  const settlements = new Map<string, Step>();
  for (const op of batch) {
    const lease = op.code === 's' ? `${op.keys[0]}|${op.args[0]}` : null;
    const step = lease === null ? undefined : settlements.get(lease);
    if (step) {
      step.args = [step.args[0]!, String(Number(step.args[1]) + Number(op.args[1]))];
      step.ops.push(op);
      continue;
    }
    const created: Step = { code: op.code, keys: op.keys, args: [...op.args], ops: [op] };
    steps.push(created);
    if (lease !== null) settlements.set(lease, created);
  }
  return steps;
}

/**
 * The lease steps of a node (CreditLeases): settlements, give-backs and returns, queued and sent in batches, one
 * script per batch, each batch with a receipt so that one sent again after a lost answer changes nothing.
 */
export class LeaseSteps {
  private readonly queue: Op[] = [];
  /** A batch whose answer was lost: it goes again, first. */
  private unanswered: Batch | null = null;
  /** Receipts of batches answered since the last script: the next one removes them. */
  private readonly answeredReceipts: string[] = [];
  private flushing: Promise<void> | null = null;
  private lastFlushAt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly redis: RedisClient,
    /** The key of a batch's receipt. */
    private readonly receiptKey: (batchId: string) => string,
    private readonly logger: Logger,
  ) {}

  /** Redis is back (LeaseStepsBySlot listens): the steps kept for it go now, not at the next retry. */
  redisReady(): void {
    if (!this.retryTimer || this.stopped) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    void this.flush();
  }

  /** Whether steps wait to be sent, or are on their way. */
  pending(): boolean {
    return this.queue.length > 0 || this.unanswered !== null || this.flushing !== null;
  }

  /** No retry is scheduled any more (shutdown): what is queued still goes with the next flush. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
  }

  /** Queues one step; resolves with what the script answered for it (rejects if its batch failed). */
  enqueue(code: Op['code'], keys: string[], args: string[]): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ code, keys, args, resolve, reject });
      if (!this.flushing && !this.retryTimer) void this.flush();
    });
  }

  /**
   * One script for everything queued; while it runs, the next calls queue up for the next one (group commit), and
   * a script starts at most every SETTLE_GATHER_MS, so that a busy node sends one per few milliseconds, not one per
   * round trip. Settlements of one lease in a batch are one step (their credits summed).
   */
  flush(): Promise<void> {
    if (!this.flushing) {
      // Cleared in a later microtask, never before it is set (a drain with nothing queued ends synchronously).
      const flushing = this.drain().finally(() => {
        if (this.flushing === flushing) this.flushing = null;
      });
      this.flushing = flushing;
    }
    return this.flushing;
  }

  private async drain(): Promise<void> {
    while (this.unanswered || this.queue.length > 0) {
      const wait = this.lastFlushAt + SETTLE_GATHER_MS - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      this.lastFlushAt = Date.now();
      const batch = this.unanswered ?? this.nextBatch();
      const { steps } = batch;
      try {
        const answered = this.answeredReceipts.splice(0, 500);
        let results: number[];
        try {
          results = (await runScript(this.redis, APPLY, {
            keys: [batch.receiptKey, ...answered, ...steps.flatMap((step) => step.keys)],
            arguments: [
              steps.map((step) => step.code).join(''),
              String(RECEIPT_TTL_SECONDS),
              String(answered.length),
              ...steps.flatMap((step) => step.args),
            ],
          })) as number[];
        } catch (error) {
          this.answeredReceipts.unshift(...answered);
          throw error;
        }
        this.answeredReceipts.push(batch.receiptKey);
        this.unanswered = null;
        steps.forEach((step, i) => {
          for (const op of step.ops) op.resolve(results[i]!);
        });
      } catch (error) {
        for (const op of batch.ops) op.reject(error);
        // Redis answered with an error: the step is wrong, trying it again would not help.
        if (!mayRetryLater(this.redis, error)) {
          this.unanswered = null;
          this.logger.error(`a lease step failed: ${(error as Error).message}`);
          continue;
        }
        // It may have run, its answer lost: sent again as it is when Redis is back (its receipt makes that safe),
        // before anything queued since; the calls waiting on a settlement answer meanwhile.
        batch.ops = batch.ops.map((op) => ({ ...op, resolve: () => {}, reject: () => {} }));
        this.unanswered = batch;
        if (!this.stopped) this.retryLater();
        return;
      }
    }
  }

  private nextBatch(): Batch {
    const ops = this.queue.splice(0, 500);
    return { receiptKey: this.receiptKey(randomUUID()), steps: coalesced(ops), ops };
  }

  private retryLater(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.flush();
    }, RETRY_MS);
    this.retryTimer.unref();
  }
}
