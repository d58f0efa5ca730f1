import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ProjectionRunner } from '../projections/projection-runner.js';
import { createApp } from '../src/app/create-app.js';
import { loadConfig } from '../src/config/app-config.js';
import { Database, quoteIdent } from '../src/database/database.js';
import { DemoSeedService } from '../src/demo/demo-seed.service.js';
import { EVENT_STORE, type EventStore, WrongExpectedVersionError } from '../src/event-store/event-store.port.js';
import { TimedEventStore } from '../src/observability/timed-event-store.js';
import { REDIS, type RedisClient } from '../src/redis/redis.module.js';
import { eventually } from './support/eventually.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL, uniqueName } from './support/test-database.js';

interface Started {
  readonly app: NestFastifyApplication;
  readonly url: string;
}

async function start(env: Record<string, string>): Promise<Started> {
  const app = await createApp(loadConfig({ DATABASE_URL: TEST_DATABASE_URL, LOG_LEVEL: 'silent', PORT: '0', ...env }));
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}

async function getJson(url: string) {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function scrape(base: string): Promise<string> {
  const response = await fetch(`${base}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  return response.text();
}

/** Value of the sample `name{labels...}` whose labels include `labels`; undefined when there is none. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(?<!\w)(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

const someEvent = () => ({ id: randomUUID(), type: 'HealthProbeTested', data: { at: new Date().toISOString() } });

describe('operating the service: /healthz, /readyz, /metrics', () => {
  const schema = uniqueName('e2e');
  let node: Started;
  let second: Started | undefined;

  beforeAll(async () => {
    node = await start({
      DATABASE_SCHEMA: schema,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: `${schema}:`,
      DEMO_SEED: 'true',
      READY_MAX_PROJECTION_LAG_MS: '1000',
    });
  });
  afterAll(async () => {
    await second?.app.close();
    await node?.app.close();
    const db = Database.connect(TEST_DATABASE_URL, 'public', 1);
    await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await db.close();
  });

  test('GET /healthz answers 200 {status: ok} without credentials', async () => {
    expect(await getJson(`${node.url}/healthz`)).toEqual({ status: 200, body: { status: 'ok' } });
  });

  test('GET /readyz answers 200 with every check ok once the projections have caught up', async () => {
    // The node answers ready before its projector has taken the leadership (a follower is ready): wait for both.
    const runner = node.app.get(ProjectionRunner);
    const ready = await eventually(
      'ready with the projections caught up',
      () => getJson(`${node.url}/readyz`),
      (r) => r.status === 200 && runner.hasCaughtUp,
    );
    expect(ready).toEqual({
      status: 200,
      body: { status: 'ready', checks: { database: 'ok', redis: 'ok', event_store: 'ok', projections: 'ok' } },
    });
    expect(runner.hasCaughtUp).toBe(true);
  });

  test('GET /metrics counts requests by method, route pattern and status, never by raw URL', async () => {
    await fetch(`${node.url}/healthz`);
    await fetch(`${node.url}/healthz`);
    expect((await fetch(`${node.url}/orgs/org_rawid123/api-keys`)).status).toBe(401);
    expect((await fetch(`${node.url}/no/such/path-rawid456`)).status).toBe(404);

    const text = await scrape(node.url);
    expect(
      sample(text, 'http_requests_total', { method: 'GET', route: '/healthz', status: '200' }),
    ).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/orgs/:org_id/api-keys', status: '401' })).toBe(
      1,
    );
    expect(sample(text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(
      sample(text, 'http_request_duration_seconds_count', {
        method: 'GET',
        route: '/orgs/:org_id/api-keys',
        status: '401',
      }),
    ).toBe(1);
    expect(
      sample(text, 'http_request_duration_seconds_bucket', { route: '/healthz', status: '200', le: '+Inf' }),
    ).toBeGreaterThanOrEqual(3);
    expect(text).not.toContain('rawid123');
    expect(text).not.toContain('rawid456');
    // prom-client's default process metrics, in this application's own registry
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'projection_lag_seconds')).toBe(0);
  });

  test('GET /metrics has the event-loop delay: a histogram of how late a 500 ms timer ran, and the lag gauges', async () => {
    const text = await eventually(
      'two event-loop delay samples',
      () => scrape(node.url),
      (t) => (sample(t, 'event_loop_delay_seconds_count') ?? 0) >= 2,
    );
    expect(sample(text, 'event_loop_delay_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'event_loop_delay_seconds_bucket', { le: '+Inf' })).toBe(
      sample(text, 'event_loop_delay_seconds_count'),
    );
    expect(sample(text, 'event_loop_delay_seconds_bucket', { le: '300' })).toBeDefined();
    expect(sample(text, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
  });

  test('event_store_append_duration_seconds times every append through the EVENT_STORE provider', async () => {
    const store = node.app.get<EventStore>(EVENT_STORE);
    expect(store).toBeInstanceOf(TimedEventStore);
    const before = await scrape(node.url);
    const okBefore = sample(before, 'event_store_append_duration_seconds_count', { outcome: 'ok' }) ?? 0;

    // The real write path: commands append (user, organization, project, key, seed marker).
    expect(await node.app.get(DemoSeedService).seedOnce()).toMatch(/^sk_live_/);
    const stream = `health-${randomUUID()}`;
    await store.appendToStream(stream, [someEvent()], 'no_stream');
    await expect(store.appendToStream(stream, [someEvent()], 'no_stream')).rejects.toBeInstanceOf(
      WrongExpectedVersionError,
    );

    const after = await scrape(node.url);
    expect(sample(after, 'event_store_append_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThanOrEqual(
      okBefore + 5,
    );
    expect(sample(after, 'event_store_append_duration_seconds_count', { outcome: 'conflict' })).toBe(1);
    expect(
      sample(after, 'event_store_append_duration_seconds_bucket', { outcome: 'ok', le: '+Inf' }),
    ).toBeGreaterThanOrEqual(okBefore + 5);
  });

  test('a node without Redis that does not run the projector is ready from the shared checkpoint', async () => {
    second = await start({ DATABASE_SCHEMA: schema, RUN_PROJECTIONS: 'false', DEMO_SEED: 'false' });
    const ready = await eventually(
      'the second node ready',
      () => getJson(`${second!.url}/readyz`),
      (r) => r.status === 200,
    );
    expect(ready.body).toEqual({
      status: 'ready',
      checks: { database: 'ok', redis: 'not_configured', event_store: 'ok', projections: 'ok' },
    });
    // Each application instance has its own registry: the second node has counted only its own requests.
    const text = await scrape(second.url);
    expect(sample(text, 'http_requests_total', { route: '/healthz' })).toBeUndefined();
    expect(sample(text, 'http_requests_total', { route: '/readyz', status: '200' })).toBeGreaterThanOrEqual(1);
  });

  test('read models behind by more than READY_MAX_PROJECTION_LAG_MS: 503 naming projections, lag in the gauge', async () => {
    await node.app.get(ProjectionRunner).stop();
    await node.app.get<EventStore>(EVENT_STORE).appendToStream(`health-${randomUUID()}`, [someEvent()], 'no_stream');
    await new Promise((resolve) => setTimeout(resolve, 1300));

    const notReady = await getJson(`${node.url}/readyz`);
    expect(notReady).toEqual({
      status: 503,
      body: {
        status: 'not_ready',
        failing: ['projections'],
        checks: { database: 'ok', redis: 'ok', event_store: 'ok', projections: 'behind' },
      },
    });
    expect(sample(await scrape(node.url), 'projection_lag_seconds')).toBeGreaterThanOrEqual(1.2);
    expect((await getJson(`${node.url}/healthz`)).status).toBe(200);
  });

  test('Redis unreachable: /readyz answers 503 naming redis, promptly', async () => {
    await node.app.get<RedisClient>(REDIS).close();
    const started = Date.now();
    const notReady = await getJson(`${node.url}/readyz`);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(notReady.status).toBe(503);
    expect(notReady.body.failing).toContain('redis');
    expect(notReady.body.checks).toMatchObject({ database: 'ok', redis: 'failed', event_store: 'ok' });
  });
});
