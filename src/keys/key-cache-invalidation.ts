import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { REDIS, type RedisClient } from '../redis/redis.module.js';
import { isCluster } from '../redis/cluster-nodes.js';

type Evict = (keyHash: string) => void;

/**
 * Tells every node to drop a key from its lookup cache, and waits until each node subscribed at that moment has
 * confirmed it (Redis pub/sub plus an acknowledgement list). Without Redis there is one node: evict locally.
 */
@Injectable()
export class KeyCacheInvalidation implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('KeyCacheInvalidation');
  private readonly evictors: Evict[] = [];
  private subscriber: RedisClient | undefined;
  private readonly channel: string;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient | null,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.channel = `${config.redisPrefix}keys:invalidate`;
  }

  onEvict(evict: Evict): void {
    this.evictors.push(evict);
  }

  async onModuleInit(): Promise<void> {
    if (!this.redis) return;
    const subscriber = this.redis.duplicate();
    subscriber.on('error', () => {});
    await subscriber.connect();
    const listener = (message: string) => void this.onMessage(message);
    // On a cluster, sharded pub/sub: every subscriber listens on the master of the channel's slot, so the number
    // SPUBLISH answers counts them all (PUBLISH would count the subscribers of the node it was sent to only).
    if (isCluster(subscriber)) await subscriber.sSubscribe(this.channel, listener);
    else await subscriber.subscribe(this.channel, listener);
    this.subscriber = subscriber;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber?.close().catch(() => {});
  }

  async invalidate(keyHash: string, timeoutMs = 5000): Promise<void> {
    this.evictLocally(keyHash);
    if (!this.redis) return;
    const ackKey = `${this.config.redisPrefix}keys:ack:${randomUUID()}`;
    const message = JSON.stringify({ keyHash, ackKey });
    const receivers = isCluster(this.redis)
      ? await this.redis.sPublish(this.channel, message)
      : await this.redis.publish(this.channel, message);
    const deadline = Date.now() + timeoutMs;
    while ((await this.redis.lLen(ackKey)) < receivers) {
      if (Date.now() > deadline) {
        this.logger.warn(`only some nodes confirmed a key revocation within ${timeoutMs} ms`);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await this.redis.del(ackKey);
  }

  private async onMessage(message: string): Promise<void> {
    try {
      const { keyHash, ackKey } = JSON.parse(message) as { keyHash: string; ackKey: string };
      this.evictLocally(keyHash);
      await this.redis!.multi().rPush(ackKey, '1').expire(ackKey, 60).exec();
    } catch (error) {
      this.logger.error(`bad invalidation message: ${(error as Error).message}`);
    }
  }

  private evictLocally(keyHash: string): void {
    for (const evict of this.evictors) evict(keyHash);
  }
}
