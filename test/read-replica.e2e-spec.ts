import { ReplicaMetrics } from '../src/database/replica-metrics.js';
import { DocumentIndexWriter } from '../src/documents/document-index.writer.js';
import { eventually } from './support/eventually.js';
import { textDocument } from './support/indexed-document.js';
import { chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { MeteredTestRoutesModule } from './support/metered-test-routes.js';
import { operatorCli } from './support/operator-cli.js';
import { ReplicatedPostgres } from './support/replicated-postgres.js';
import { TEST_REDIS_URL } from './support/test-database.js';
import { call, useTestApp } from './support/test-app.js';

const MAX_LAG_MS = 500;

/**
 * Services mode with DATABASE_READ_URL: a real PostgreSQL primary and its streaming replica, started by the test.
 * What a caller just did is what it reads back, whether the replica keeps up, lags (replay paused) or is promoted.
 */
describe('a read replica (DATABASE_READ_URL)', () => {
  let cluster: ReplicatedPostgres;
  beforeAll(async () => {
    cluster = await ReplicatedPostgres.start();
  }, 60_000);

  const app = useTestApp(
    () => ({
      modules: [MeteredTestRoutesModule],
      clearRedis: true,
      env: {
        DATABASE_URL: cluster.primaryUrl,
        DATABASE_READ_URL: cluster.replicaUrl,
        DATABASE_READ_MAX_LAG_MS: String(MAX_LAG_MS),
      },
    }),
    60_000,
  );
  afterAll(async () => {
    await cluster?.stop();
  });

  let org: Awaited<ReturnType<typeof meteredOrganization>>;
  let orgName: string;
  let key: { id: string; key: string };
  /** Credits charged so far, to the organization and to `key`. */
  let charged = 0;
  let chargedToKey = 0;
  beforeAll(async () => {
    org = await meteredOrganization(app, app.smtp, 'replica@reads.test');
    orgName = (await call(app.url, 'GET', `/orgs/${org.orgId}`, { token: org.session })).body.name;
    key = await org.key();
  }, 30_000);

  const search = async (apiKey: string) => {
    const answer = await call(app.url, 'POST', '/test/search', { token: apiKey, body: { query: 'q' } });
    if (answer.status === 200) {
      charged++;
      if (apiKey === key.key) chargedToKey++;
    }
    return answer.status;
  };
  const keyUsage = async () => (await call(app.url, 'GET', '/usage', { token: key.key })).body.key.usage as number;
  const orgUsage = async () => {
    const answer = await call(app.url, 'POST', '/org-usage', { token: key.key, body: { organization_name: orgName } });
    return answer.body.totals.usage as number;
  };
  const dashboardUsage = async () =>
    (await call(app.url, 'GET', `/orgs/${org.orgId}/usage`, { token: org.session })).body.credits_used as number;
  const ledger = async () => {
    const answer = await call(app.url, 'GET', `/orgs/${org.orgId}/ledger?limit=200`, { token: org.session });
    return { entries: answer.body.entries.length as number, credits: answer.body.totals.live.credits as number };
  };
  const counted = async (name: 'reads' | 'fallbacks', label: string) => {
    const { values } = await app.app.get(ReplicaMetrics)[name].get();
    const labels = (value: (typeof values)[number]): Record<string, unknown> => value.labels;
    return values
      .filter((value) => labels(value).served_by === label || labels(value).reason === label)
      .reduce((sum, value) => sum + value.value, 0);
  };
  const ledgerVerify = () =>
    operatorCli(
      {
        DATABASE_URL: cluster.primaryUrl,
        DATABASE_SCHEMA: app.schema,
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: app.config.redisPrefix,
        LOG_LEVEL: 'error',
      },
      'ledger',
      'verify',
    );

  /** A new key works on its first call, and a revoked one is refused on the call after DELETE answered. */
  async function createUseRevoke(): Promise<void> {
    const created = await org.key({ name: 'short-lived' });
    expect(await search(created.key)).toBe(200);
    const revoked = await call(app.url, 'DELETE', `/orgs/${org.orgId}/api-keys/${created.id}`, {
      token: org.session,
    });
    expect(revoked.status).toBe(200);
    expect(await search(created.key)).toBe(401);
  }

  test('a key works as soon as it is created, and is refused as soon as its revocation answered', async () => {
    for (let i = 0; i < 3; i++) await createUseRevoke();
  });

  test('usage and the ledger are exact after calls, and the replica serves the reads that tolerate a lag', async () => {
    const replicaReads = await counted('reads', 'replica');
    for (let i = 0; i < 5; i++) expect(await search(key.key)).toBe(200);
    // A caller's own calls are in GET /usage and POST /org-usage at once (read-your-writes).
    expect(await keyUsage()).toBe(chargedToKey);
    expect(await orgUsage()).toBe(charged);
    // The dashboard and the ledger may lag by the bound at most.
    await eventually('the dashboard usage', dashboardUsage, (credits) => credits === charged, 5000);
    expect(await ledger()).toEqual({ entries: charged, credits: charged });
    expect(await counted('reads', 'replica')).toBeGreaterThan(replicaReads);
    const metrics = await call(app.url, 'GET', '/metrics');
    expect(metrics.body).toMatch(/^database_replica_lag_seconds\{database="main"\} \d/m);
    expect(metrics.body).toMatch(/^database_reads_total\{database="main",served_by="replica"\} [1-9]/m);
  });

  test('searches read the local index on the replica, and find what was indexed on the primary', async () => {
    const url = 'https://replica.test/lanterns';
    await app.app.get(DocumentIndexWriter).upsert([
      {
        ...textDocument(url, 'Paper lanterns', 'Zebra crossings lit by paper lanterns at dusk.'),
        fetchedAt: new Date(),
      },
    ]);
    const replicaReads = await counted('reads', 'replica');
    const searchFor = async (query: string) => {
      const answer = await call(app.url, 'POST', '/search', { token: key.key, body: { query } });
      if (answer.status === 200) {
        charged++;
        chargedToKey++;
      }
      return answer;
    };
    const found = await eventually(
      'the indexed page in the results',
      () => searchFor('zebra lanterns'),
      (answer) => answer.status === 200 && answer.body.results.some((r: { url: string }) => r.url === url),
      5000,
    );
    expect(found.status).toBe(200);
    expect(await counted('reads', 'replica')).toBeGreaterThan(replicaReads);
  });

  test('while the replica does not replay, every figure is still exact (reads fall back to the primary)', async () => {
    await cluster.pauseReplay();
    try {
      const lagFallbacks = await counted('fallbacks', 'lag');
      for (let i = 0; i < 3; i++) expect(await search(key.key)).toBe(200);
      expect(await keyUsage()).toBe(chargedToKey);
      expect(await orgUsage()).toBe(charged);
      await createUseRevoke();
      expect(await counted('fallbacks', 'lag')).toBeGreaterThan(lagFallbacks);
      // Past the bound, the lag-tolerant reads leave the replica too.
      await new Promise((resolve) => setTimeout(resolve, MAX_LAG_MS + 600));
      expect(await dashboardUsage()).toBe(charged);
      expect(await ledger()).toEqual({ entries: charged, credits: charged });
    } finally {
      await cluster.resumeReplay();
    }
    const verified = await ledgerVerify();
    expect(verified.stderr).toBe('');
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(new RegExp(`^ledger matches the events: ${charged} charges`));
  });

  test('promoting the replica mid-load loses and doubles no charge, and reads keep answering', async () => {
    const diverged = await counted('fallbacks', 'diverged');
    const before = charged;
    const load = async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 15; i++) statuses.push(await search(key.key));
      return statuses;
    };
    const [statuses] = await Promise.all([
      Promise.all([load(), load()]),
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await cluster.promote();
      })(),
    ]);
    expect(statuses.flat().every((status) => status === 200)).toBe(true);
    expect(charged - before).toBe(30);
    expect(await keyUsage()).toBe(chargedToKey);
    expect(await orgUsage()).toBe(charged);
    await eventually('the dashboard usage', dashboardUsage, (credits) => credits === charged, 5000);
    expect(await ledger()).toEqual({ entries: charged, credits: charged });
    expect(await counted('fallbacks', 'diverged')).toBeGreaterThan(diverged);
    expect(await chargesOf(app, org.orgId)).toHaveLength(charged);
    const verified = await ledgerVerify();
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(new RegExp(`^ledger matches the events: ${charged} charges`));
  }, 60_000);
});
