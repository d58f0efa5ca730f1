import { ProjectionRunner } from '../projections/projection-runner.js';
import { READ_MODEL_PROJECTORS, READ_MODELS_CHECKPOINT } from '../projections/read-models/index.js';
import { verifyReadModels } from '../projections/verify.js';
import { Database } from '../src/database/database.js';
import { EVENT_STORE, type EventStore, START } from '../src/event-store/event-store.port.js';
import { counterKeys } from '../src/metering/counter-keys.js';
import { redisKeyspace } from '../src/redis/redis-keyspace.js';
import { CREDIT_COUNTERS, type CreditCounters } from '../src/metering/counters/credit-counters.js';
import { verifyLedger } from '../projections/verify-ledger.js';
import { REDIS, type RedisClient } from '../src/redis/redis.module.js';
import { changePlan, chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { MeteredTestRoutesModule } from './support/metered-test-routes.js';
import { SmtpSink } from './support/smtp-sink.js';
import { type Json, type TestApp, call, dropSchema, startTestApp } from './support/test-app.js';

const ALLOWANCE = 40;
const REQUESTS = 300;

describe('hundreds of parallel calls through two nodes sharing PostgreSQL and Redis', () => {
  let smtp: SmtpSink;
  let nodeA: TestApp;
  let nodeB: TestApp;

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    nodeA = await startTestApp({ env: { SMTP_URL: smtp.url }, modules: [MeteredTestRoutesModule] });
    nodeB = await startTestApp({
      schema: nodeA.schema,
      env: { SMTP_URL: smtp.url },
      modules: [MeteredTestRoutesModule],
    });
  });
  afterAll(async () => {
    await nodeB.close();
    await nodeA.close();
    await smtp.stop();
    await dropSchema(nodeA.schema);
  });

  test('never charge past the allowance, and exactly one CreditsCharged for every successful response', async () => {
    const org = await meteredOrganization(nodeA, smtp, 'race@c.test');
    const key = (await org.key()).key;
    await changePlan(nodeA, org.orgId, { allowance: ALLOWANCE, rpmLive: 100_000 });
    await changePlan(nodeB, org.orgId, { allowance: ALLOWANCE, rpmLive: 100_000 });

    const requests = Array.from({ length: REQUESTS }, (_, i) => {
      const node = i % 2 === 0 ? nodeA : nodeB;
      const kind = i % 3;
      const [path, body] =
        kind === 0
          ? ['/test/search', { query: `q${i}` }]
          : kind === 1
            ? ['/test/search', { query: `q${i}`, search_depth: 'advanced' }]
            : ['/test/extract', { urls: Array.from({ length: 5 }, (_, u) => `https://x/${i}/${u}`) }];
      return call(node.url, 'POST', path, { token: key, body });
    });
    const responses: Json[] = await Promise.all(requests);

    const statuses = new Map<number, number>();
    for (const r of responses) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    expect([...statuses.keys()].sort()).toEqual([200, 402]);

    const charges = await chargesOf(nodeA, org.orgId);
    const total = charges.reduce((sum, c) => sum + c.credits, 0);
    expect(total).toBeLessThanOrEqual(ALLOWANCE);
    expect(total).toBeGreaterThanOrEqual(ALLOWANCE - 2);

    const perRequest = new Map<string, number>();
    for (const c of charges) perRequest.set(c.request_id, (perRequest.get(c.request_id) ?? 0) + 1);
    const succeeded = responses.filter((r) => r.status === 200);
    for (const r of succeeded) expect(perRequest.get(r.body.request_id as string)).toBe(1);
    expect(charges).toHaveLength(succeeded.length);
    for (const r of responses.filter((r) => r.status === 402)) {
      expect(perRequest.has(r.headers.get('x-request-id')!)).toBe(false);
      expect(r.body.credits_limit).toBe(ALLOWANCE);
      expect(r.body.credits_used).toBeLessThanOrEqual(ALLOWANCE);
    }

    const month = new Date().toISOString().slice(0, 7);
    const counter = await nodeB.app
      .get<CreditCounters>(CREDIT_COUNTERS)
      .read(counterKeys.quota(redisKeyspace(nodeB.config), org.orgId, month), async () => -1);
    expect(counter).toBe(total);

    const store = nodeA.app.get<EventStore>(EVENT_STORE);
    const head = await store.headPosition();
    if (head !== START) await nodeA.app.get(ProjectionRunner).waitFor(head, 10_000);
    const totals = await nodeA.app
      .get(Database)
      .query<{ credits: string; requests: string }>(`SELECT credits, requests FROM monthly_totals WHERE org_id = $1`, [
        org.orgId,
      ]);
    expect(Number(totals.rows[0]!.credits)).toBe(total);
    expect(Number(totals.rows[0]!.requests)).toBe(succeeded.length);
    const verified = await verifyReadModels(nodeA.app.get(Database), store, {
      checkpointName: READ_MODELS_CHECKPOINT,
      projectors: READ_MODEL_PROJECTORS,
    });
    expect(verified.differences).toEqual([]);

    const ledger = await verifyLedger(nodeA.app.get(Database), store, {
      redis: nodeA.app.get<RedisClient>(REDIS),
      redisPrefix: nodeA.config.redisPrefix,
    });
    expect(ledger.differences).toEqual([]);
    expect(ledger.ok).toBe(true);
    expect(ledger.countersCompared).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
