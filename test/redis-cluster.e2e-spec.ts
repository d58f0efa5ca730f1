import calculateSlotModule from '@redis/client/dist/lib/utils/calculate-slot.js';
import { KeyLookupService } from '../src/keys/key-lookup.service.js';
import { REDIS } from '../src/redis/redis.module.js';
import type { RedisClusterClient } from '../src/redis/redis-client.js';
import { changePlan, chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { MeteredTestRoutesModule } from './support/metered-test-routes.js';
import { operatorCli } from './support/operator-cli.js';
import { eventually } from './support/eventually.js';
import { scanKeys } from '../src/redis/cluster-nodes.js';
import { AppProcess, stopAllAppProcesses } from './support/app-process.js';
import { PrivateRedisCluster } from './support/private-redis-cluster.js';
import { SmtpSink } from './support/smtp-sink.js';
import { type Json, type TestApp, call, dropSchema, startTestApp } from './support/test-app.js';
import { TEST_DATABASE_URL } from './support/test-database.js';

const countStatuses = (responses: readonly Json[]) => {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
};

/** Every 200 has exactly one charge, and every charge is of a 200 (none for a call that failed). */
async function expectOneChargePerSuccess(app: TestApp, orgId: string, responses: readonly Json[]): Promise<number> {
  const charges = await chargesOf(app, orgId);
  const succeeded = responses.filter((r) => r.status === 200).map((r) => r.body.request_id as string);
  expect(charges.map((c) => c.request_id).sort()).toEqual([...succeeded].sort());
  return charges.reduce((sum, c) => sum + c.credits, 0);
}

/**
 * The service on a real Redis Cluster (three masters, a replica each; REDIS_CLUSTER_NODES), two nodes sharing it and
 * PostgreSQL: the allowance, rate limits, Idempotency-Keys and key revocations hold as on one Redis; `ledger verify`
 * agrees with the counters; a master killed mid-load fails over to its replica without a charge lost or doubled.
 */
describe('on a Redis Cluster', () => {
  let cluster: PrivateRedisCluster;
  let smtp: SmtpSink;
  let nodeA: TestApp;
  let nodeB: TestApp;
  const cliEnv = () => ({
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_SCHEMA: nodeA.schema,
    REDIS_CLUSTER_NODES: cluster.seedNodes,
    REDIS_PREFIX: nodeA.config.redisPrefix,
    LOG_LEVEL: 'error',
  });

  const expectLedgerVerified = async () => {
    const { code, stdout, stderr } = await operatorCli(cliEnv(), 'ledger', 'verify');
    expect({ code, output: code === 0 ? '' : stdout + stderr }).toEqual({ code: 0, output: '' });
  };

  beforeAll(async () => {
    cluster = await PrivateRedisCluster.start({ nodeTimeoutMs: 1000 });
    smtp = await SmtpSink.start();
    const options = {
      redisClusterNodes: cluster.seedNodes,
      env: { SMTP_URL: smtp.url },
      modules: [MeteredTestRoutesModule],
    };
    nodeA = await startTestApp(options);
    nodeB = await startTestApp({ ...options, schema: nodeA.schema });
  }, 60_000);
  afterAll(async () => {
    await stopAllAppProcesses();
    await nodeB?.close();
    await nodeA?.close();
    await smtp?.stop();
    if (nodeA) await dropSchema(nodeA.schema);
    await cluster?.stop();
  });

  test('readiness reports the cluster ok', async () => {
    const ready = await call(nodeA.url, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect((ready.body.checks as Record<string, string>).redis).toBe('ok');
  });

  test('50 concurrent calls over two nodes on an organization with 10 credits left charge exactly 10', async () => {
    const org = await meteredOrganization(nodeA, smtp, 'allowance@cluster.test');
    const key = (await org.key()).key;
    await changePlan(nodeA, org.orgId, { allowance: 10, rpmLive: 100_000 });
    await changePlan(nodeB, org.orgId, { allowance: 10, rpmLive: 100_000 });
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call((i % 2 ? nodeA : nodeB).url, 'POST', '/test/search', { token: key, body: { query: `q${i}` } }),
      ),
    );
    expect(countStatuses(responses)).toEqual({ 200: 10, 402: 40 });
    expect(await expectOneChargePerSuccess(nodeA, org.orgId, responses)).toBe(10);
  });

  test('a rate limit of 5 a minute holds across both nodes', async () => {
    const org = await meteredOrganization(nodeA, smtp, 'rate@cluster.test');
    const key = (await org.key()).key;
    await changePlan(nodeA, org.orgId, { rpmLive: 5 });
    await changePlan(nodeB, org.orgId, { rpmLive: 5 });
    const responses: Json[] = [];
    for (let i = 0; i < 8; i++) {
      responses.push(
        await call((i % 2 ? nodeA : nodeB).url, 'POST', '/test/search', { token: key, body: { query: 'r' } }),
      );
    }
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
  });

  test('an Idempotency-Key repeated on the other node replays the first answer, billed once', async () => {
    const org = await meteredOrganization(nodeA, smtp, 'idem@cluster.test');
    const key = (await org.key()).key;
    const headers = { 'idempotency-key': 'cluster-retry-1' };
    const first = await call(nodeA.url, 'POST', '/test/search', { token: key, body: { query: 'once' }, headers });
    const again = await call(nodeB.url, 'POST', '/test/search', { token: key, body: { query: 'once' }, headers });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await chargesOf(nodeA, org.orgId)).filter((c) => c.idempotency_key === 'cluster-retry-1')).toHaveLength(1);
  });

  test('a key revoked on one node is refused by the other, which had it cached, before DELETE answers', async () => {
    const org = await meteredOrganization(nodeA, smtp, 'revoke@cluster.test');
    const created = await org.key();
    expect((await nodeB.app.get(KeyLookupService).lookup(created.key))?.status).toBe('active');
    const revoked = await call(nodeA.url, 'DELETE', `/orgs/${org.orgId}/api-keys/${created.id}`, {
      token: org.session,
    });
    expect(revoked.status).toBe(200);
    expect((await nodeB.app.get(KeyLookupService).lookup(created.key))?.status).toBe('revoked');
    const refused = await call(nodeB.url, 'POST', '/test/search', { token: created.key, body: { query: 'x' } });
    expect(refused.status).toBe(401);
  });

  test('two app processes on the cluster: 50 concurrent searches with 10 credits left charge exactly 10; killed, their leases are settled', async () => {
    const org = await meteredOrganization(nodeA, smtp, 'processes@cluster.test');
    const key = (await org.key()).key;
    await changePlan(nodeA, org.orgId, { allowance: 10, rpmLive: 100_000 });
    const env = { ...cliEnv(), RUN_PROJECTIONS: 'false' };
    const processes = await Promise.all([
      AppProcess.start({ name: 'cluster-a', env }),
      AppProcess.start({ name: 'cluster-b', env }),
    ]);
    try {
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          call(processes[i % 2]!.url, 'POST', '/search', { token: key, body: { query: `p${i}` }, timeoutMs: 20_000 }),
        ),
      );
      expect(countStatuses(responses)).toEqual({ 200: 10, 402: 40 });
      expect(await expectOneChargePerSuccess(nodeA, org.orgId, responses)).toBe(10);

      // A process that took leases noted them in its journal of the organization's slot (one of them may have taken
      // all ten credits, the other none); both killed (SIGKILL), the other nodes' sweep finds their journals on the
      // cluster and settles them from the ledger.
      const redis = nodeA.app.get<RedisClusterClient>(REDIS);
      const journals = () => scanKeys(redis, `${nodeA.config.redisPrefix}inflight:*:{${org.orgId}}`);
      expect((await journals()).length).toBeGreaterThanOrEqual(1);
      await Promise.all(processes.map((p) => p.kill()));
      await eventually("the killed processes' journals settled", journals, (left) => left.length === 0, 30_000);
      await expectLedgerVerified();
    } finally {
      await Promise.all(processes.map((p) => p.stop()));
    }
  }, 240_000);

  test('`ledger verify` agrees with the counters on the cluster', async () => {
    await expectLedgerVerified();
  });

  test('a frozen master (SIGSTOP): calls answer 503 at once instead of waiting on it; after it thaws, 200 again', async () => {
    const watched = await startTestApp({
      schema: nodeA.schema,
      redisClusterNodes: cluster.seedNodes,
      env: { SMTP_URL: smtp.url, REDIS_STALL_TIMEOUT_MS: '500', RUN_PROJECTIONS: 'false' },
      modules: [MeteredTestRoutesModule],
    });
    try {
      const org = await meteredOrganization(nodeA, smtp, 'frozen@cluster.test');
      const key = (await org.key()).key;
      const search = () =>
        call(watched.url, 'POST', '/test/search', { token: key, body: { query: 'z' }, timeoutMs: 30_000 });
      const before = await search();
      expect(before.status).toBe(200);
      const redis = watched.app.get<RedisClusterClient>(REDIS);
      const master = redis.slots[calculateSlotModule.default(`{${org.orgId}}`)]!.master.port;
      cluster.freeze(master);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const during: Json[] = [];
      for (let i = 0; i < 3; i++) {
        const startedAt = Date.now();
        during.push(await search());
        expect(Date.now() - startedAt).toBeLessThan(2_000);
      }
      expect(during.map((r) => r.status)).toEqual([503, 503, 503]);
      cluster.thaw(master);
      await cluster.waitUntilOk(30_000);
      let after = await search();
      for (let i = 0; after.status !== 200 && i < 50; i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        after = await search();
      }
      expect(after.status).toBe(200);
      await expectOneChargePerSuccess(nodeA, org.orgId, [before, ...during, after]);
    } finally {
      await watched.close();
    }
  }, 90_000);

  test('a master killed mid-load: its replica takes over, no charge is lost or doubled, `ledger verify` passes', async () => {
    const org = await meteredOrganization(nodeA, smtp, 'failover@cluster.test');
    const key = (await org.key()).key;
    await changePlan(nodeA, org.orgId, { allowance: 100_000, rpmLive: 100_000 });
    await changePlan(nodeB, org.orgId, { allowance: 100_000, rpmLive: 100_000 });
    const redis = nodeA.app.get<RedisClusterClient>(REDIS);
    const orgMaster = redis.slots[calculateSlotModule.default(`{${org.orgId}}`)]!.master.port;

    const answers: { startedAt: number; response: Json }[] = [];
    let loading = true;
    const load = async (worker: number) => {
      for (let i = 0; loading; i++) {
        const node = (worker + i) % 2 ? nodeA : nodeB;
        const startedAt = Date.now();
        const body = { query: `f${worker}-${i}` };
        answers.push({ startedAt, response: await call(node.url, 'POST', '/test/search', { token: key, body }) });
      }
    };
    const workers = Array.from({ length: 8 }, (_, worker) => load(worker));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await cluster.kill(orgMaster);
    await cluster.waitUntilOk(30_000);
    // The replica serves the slot now; the clients find it within a couple of seconds.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const recoveredAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    loading = false;
    await Promise.all(workers);

    const responses = answers.map((a) => a.response);
    const statuses = countStatuses(responses);
    expect(Object.keys(statuses).filter((status) => status !== '200' && status !== '503')).toEqual([]);
    expect(statuses[503]).toBeGreaterThan(0); // the kill came mid-load
    const failedAfterRecovery = answers
      .filter((a) => a.startedAt >= recoveredAt && a.response.status !== 200)
      .map((a) => [a.response.status, a.response.body]);
    expect(failedAfterRecovery).toEqual([]);
    expect(answers.filter((a) => a.startedAt >= recoveredAt).length).toBeGreaterThan(8);
    await expectOneChargePerSuccess(nodeA, org.orgId, responses);
    await expectLedgerVerified();
  }, 120_000);
});
