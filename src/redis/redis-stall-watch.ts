import type { Logger } from '@nestjs/common';
import { Gauge, type Registry } from 'prom-client';
import { DependencyNotAnsweringError } from '../http/unavailable-dependency.js';
import { isCluster } from './cluster-nodes.js';
import type { RedisClient, SingleRedisClient } from './redis-client.js';

/** Thrown instead of sending a command to a Redis that has stopped answering (the call answers 503). */
export class RedisNotAnsweringError extends DependencyNotAnsweringError {
  constructor(waitedMs: number) {
    super(`Redis has not answered for ${waitedMs} ms on an open connection`);
    this.name = 'RedisNotAnsweringError';
  }
}

/**
 * A Redis that stops answering but keeps its connection open (a frozen server, a partition that drops packets)
 * holds every command sent to it until it answers again, or until TCP gives up minutes later. The watch keeps one
 * PING in flight on the shared connection; Redis answers a connection's commands in order, so a PING unanswered
 * for `stallMs` means nothing sent since has been answered either. From then until Redis answers, a metered call is
 * refused (503) before it sends anything, rather than joining the wait. Nothing already sent is given up: a command
 * whose answer is lost may still run in Redis (a frozen server reads it when it thaws), so the calls that sent one
 * wait for it, and the counters stay exact. On a Redis Cluster the watch keeps one PING in flight on the connection to
 * each master, and a stall of any of them refuses calls (which master a call needs is not known before it runs) until
 * it answers, or a failover has put its replica in its place.
 */
export class RedisStallWatch {
  private readonly timer: NodeJS.Timeout;
  /** The PING in flight on each connection watched. */
  private readonly pings = new Map<PingTarget, { readonly sentAt: number }>();
  private reported = false;

  constructor(
    private readonly client: RedisClient,
    private readonly stallMs: number,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => this.tick(), Math.min(1000, Math.max(50, Math.floor(stallMs / 4))));
    this.timer.unref();
  }

  /** How long the oldest PING in flight has waited so far (0: none in flight). */
  unansweredMs(): number {
    let oldest = Infinity;
    for (const ping of this.pings.values()) oldest = Math.min(oldest, ping.sentAt);
    return oldest === Infinity ? 0 : Date.now() - oldest;
  }

  /** How long the PING in flight has waited, once that is `stallMs` or more; 0 while Redis answers. */
  stalledForMs(): number {
    const waited = this.unansweredMs();
    return waited >= this.stallMs ? waited : 0;
  }

  /** `redis_unanswered_seconds` on /metrics: an alert on it above REDIS_STALL_TIMEOUT_MS says calls are refused. */
  register(registry: Registry): void {
    const unansweredMs = () => this.unansweredMs();
    new Gauge({
      name: 'redis_unanswered_seconds',
      help: 'How long the PING in flight on the Redis connection has waited (0 when none is: Redis answers).',
      registers: [registry],
      collect() {
        this.set(unansweredMs() / 1000);
      },
    });
  }

  /** Throws RedisNotAnsweringError while Redis does not answer (a 503 for the call, with nothing sent). */
  assertAnswering(): void {
    const waited = this.stalledForMs();
    if (waited > 0) throw new RedisNotAnsweringError(waited);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const waited = this.stalledForMs();
    if (waited > 0 && !this.reported) {
      this.reported = true;
      this.logger.warn(`Redis has not answered for ${waited} ms on an open connection: metered calls answer 503`);
    }
    // Offline, commands wait for the connection (at most REDIS_COMMAND_TIMEOUT_MS) and are not sent: no PING then.
    const targets = pingTargets(this.client);
    // A node that is no longer a master (a failover took its place) gets no command: its stall refuses nothing.
    for (const target of this.pings.keys()) if (!targets.includes(target)) this.pings.delete(target);
    for (const target of targets) {
      if (this.pings.has(target) || !target.isReady) continue;
      const ping = { sentAt: Date.now() };
      this.pings.set(target, ping);
      const done = () => {
        if (this.pings.get(target) !== ping) return;
        this.pings.delete(target);
        if (this.reported && this.stalledForMs() === 0) {
          this.logger.log('Redis answers again');
          this.reported = false;
        }
      };
      target.ping().then(done, done);
    }
  }
}

type PingTarget = Pick<SingleRedisClient, 'isReady' | 'ping'>;

/** The connections watched: the one server's, or each master's of a cluster (those connected so far). */
function pingTargets(redis: RedisClient): PingTarget[] {
  if (!isCluster(redis)) return [redis];
  return redis.masters.flatMap((master) => (master.client ? [master.client] : []));
}
