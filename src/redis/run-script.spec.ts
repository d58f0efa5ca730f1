import { createHash, randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import type { RedisClient } from './redis.module.js';
import { runScript } from './run-script.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// A script of its own (the key prefix differs per run), so that flushing the cache does not race other suites.
const prefix = `run-script-spec:${randomUUID()}:`;
const INCREMENT = `-- ${prefix}\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])`;

describe('runScript', () => {
  let redis: RedisClient;

  beforeAll(async () => {
    redis = createClient({ url: REDIS_URL });
    await redis.connect();
  });

  afterAll(async () => {
    await redis.del(`${prefix}n`);
    await redis.close();
  });

  it('runs a script Redis has not cached once (NOSCRIPT, then EVAL), and by its digest afterwards', async () => {
    const key = `${prefix}n`;
    const [cachedBefore] = await redis.scriptExists(createHash('sha1').update(INCREMENT).digest('hex'));
    expect(cachedBefore).toBe(0);
    expect(await runScript(redis, INCREMENT, { keys: [key], arguments: ['2'] })).toBe(2);
    expect(await runScript(redis, INCREMENT, { keys: [key], arguments: ['3'] })).toBe(5);
    expect(await redis.get(key)).toBe('5');
  });

  it('passes a script error through without running the script twice', async () => {
    const key = `${prefix}n`;
    await redis.set(key, '1');
    const failing = `-- ${prefix} failing\nredis.call('INCRBY', KEYS[1], 1)\nreturn redis.call('NOSUCHCOMMAND')`;
    await expect(runScript(redis, failing, { keys: [key], arguments: [] })).rejects.toThrow();
    expect(await redis.get(key)).toBe('2');
  });
});
