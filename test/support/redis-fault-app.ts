import { createClient } from 'redis';
import type { RedisClient } from '../../src/redis/redis.module.js';
import { MeteredTestRoutesModule } from './metered-test-routes.js';
import { PrivateRedis } from './private-redis.js';
import { SmtpSink } from './smtp-sink.js';
import { TcpProxy } from './tcp-proxy.js';
import { type TestApp, dropSchema, startTestApp } from './test-app.js';

/** The app with the metered test routes, on a redis-server of the test's own (through a TCP proxy, if asked). */
export interface RedisFaultApp {
  readonly app: TestApp;
  readonly redis: PrivateRedis;
  /** Between the app and Redis when `viaProxy`; null otherwise. */
  readonly proxy: TcpProxy | null;
  readonly smtp: SmtpSink;
  /** A client of the test's own, straight to Redis (past the proxy), to look at the keys. */
  readonly inspector: RedisClient;
  /** Everything stopped and dropped, Redis thawed and the proxy opened first (a test that failed midway). */
  close(): Promise<void>;
}

export async function startRedisFaultApp(
  options: { viaProxy?: boolean; env?: Record<string, string> } = {},
): Promise<RedisFaultApp> {
  const redis = await PrivateRedis.start();
  const proxy = options.viaProxy ? await TcpProxy.start({ host: '127.0.0.1', port: redis.port }) : null;
  const smtp = await SmtpSink.start();
  const app = await startTestApp({
    env: {
      SMTP_URL: smtp.url,
      REDIS_URL: proxy ? `redis://127.0.0.1:${proxy.port}` : redis.url,
      LOG_LEVEL: process.env.FAULT_LOG_LEVEL ?? 'silent',
      ...options.env,
    },
    modules: [MeteredTestRoutesModule],
  });
  const inspector = createClient({ url: redis.url, disableOfflineQueue: true });
  inspector.on('error', () => {});
  await inspector.connect();
  return {
    app,
    redis,
    proxy,
    smtp,
    inspector,
    close: async () => {
      inspector.destroy();
      redis.thaw();
      proxy?.resume();
      await app.close().catch(() => {});
      await proxy?.close();
      await redis.kill();
      await smtp.stop();
      await dropSchema(app.schema);
    },
  };
}
