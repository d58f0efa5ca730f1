import type { Logger } from '@nestjs/common';
import { hashTagOf, keyBesides } from '../../redis/hash-tags.js';
import type { RedisClient } from '../../redis/redis.module.js';
import { onRedisReady } from '../../redis/redis-events.js';
import { LeaseSteps } from './lease-steps.js';

/** Past this many queues, those with nothing pending are let go (their answered receipts expire in Redis). */
const MAX_IDLE_QUEUES = 1_000;

/**
 * The lease steps of a node, one queue per hash tag. A script may touch the keys of one slot only on a Redis Cluster,
 * where each organization's keys carry its tag: there each organization has its queue, its batches and their
 * receipts (in its slot). On one server no key has a tag, and one queue batches every step, as it always did.
 */
export class LeaseStepsBySlot {
  private readonly queues = new Map<string, LeaseSteps>();
  private stopped = false;

  constructor(
    private readonly redis: RedisClient,
    /** The key of a batch's receipt. */
    private readonly receiptKey: (batchId: string) => string,
    private readonly logger: Logger,
  ) {
    onRedisReady(redis, () => {
      for (const queue of this.queues.values()) queue.redisReady();
    });
  }

  /** Queues one step (keys[0] names its slot); resolves with what the script answered for it. */
  enqueue(code: 's' | 'g' | 'r', keys: string[], args: string[]): Promise<number> {
    return this.queueOf(keys[0]!).enqueue(code, keys, args);
  }

  /** Whether steps wait to be sent, or are on their way, in any queue. */
  pending(): boolean {
    return [...this.queues.values()].some((queue) => queue.pending());
  }

  /** Sends what every queue holds. */
  async flush(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.flush()));
  }

  /** No retry is scheduled any more (shutdown): what is queued still goes with the next flush. */
  stop(): void {
    this.stopped = true;
    for (const queue of this.queues.values()) queue.stop();
  }

  private queueOf(key: string): LeaseSteps {
    const tag = hashTagOf(key) ?? '';
    let queue = this.queues.get(tag);
    if (!queue) {
      if (this.queues.size >= MAX_IDLE_QUEUES) this.letIdleQueuesGo();
      queue = new LeaseSteps(this.redis, (batchId) => keyBesides(this.receiptKey(batchId), key), this.logger);
      if (this.stopped) queue.stop();
      this.queues.set(tag, queue);
    }
    return queue;
  }

  private letIdleQueuesGo(): void {
    for (const [tag, queue] of this.queues) if (!queue.pending()) this.queues.delete(tag);
  }
}
