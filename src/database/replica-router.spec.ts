import { Registry } from 'prom-client';
import { eventually, sleep } from '../../test/support/eventually.js';
import { ReplicatedPostgres } from '../../test/support/replicated-postgres.js';
import { TEST_DATABASE_URL } from '../../test/support/test-database.js';
import { Database, type Queryable } from './database.js';
import { ReplicaMetrics } from './replica-metrics.js';
import { ReplicaRouter } from './replica-router.js';

const MAX_LAG_MS = 500;

/** Whether a read ran on the standby (true) or on the primary (false). */
async function servedByReplica(reads: Queryable): Promise<boolean> {
  const result = await reads.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
  return result.rows[0]!.standby;
}

async function counted(metrics: ReplicaMetrics, name: 'reads' | 'fallbacks', label: string): Promise<number> {
  const { values } = await metrics[name].get();
  const labels = (value: (typeof values)[number]): Record<string, unknown> => value.labels;
  return values
    .filter((value) => labels(value).served_by === label || labels(value).reason === label)
    .reduce((sum, value) => sum + value.value, 0);
}

async function lagSeconds(metrics: ReplicaMetrics): Promise<number> {
  const { values } = await metrics.lag.get();
  return values.find((value) => value.labels.database === 'test')?.value ?? Number.NaN;
}

describe('ReplicaRouter on a real primary and streaming replica', () => {
  let cluster: ReplicatedPostgres;
  let primary: Database;
  let metrics: ReplicaMetrics;
  let router: ReplicaRouter;

  beforeAll(async () => {
    cluster = await ReplicatedPostgres.start();
    primary = Database.connect(cluster.primaryUrl, 'public', 4);
    await primary.query('CREATE TABLE marks (id serial PRIMARY KEY, note text)');
    metrics = new ReplicaMetrics(new Registry());
    router = ReplicaRouter.create(
      primary,
      { url: cluster.replicaUrl, maxLagMs: MAX_LAG_MS, poolSize: 4, connectTimeoutMs: 1000, queryTimeoutMs: 5000 },
      metrics,
      'test',
    );
    await router.start();
  }, 60_000);

  afterAll(async () => {
    await router?.close();
    await primary?.close();
    await cluster?.stop();
  });

  test('reads go to the replica while it keeps up, and say so in the metrics', async () => {
    const before = await counted(metrics, 'reads', 'replica');
    await eventually(
      'a read on the replica',
      () => servedByReplica(router),
      (standby) => standby,
      5000,
    );
    expect(await servedByReplica(router)).toBe(true);
    expect(await router.snapshot(servedByReplica)).toBe(true);
    expect(await counted(metrics, 'reads', 'replica')).toBeGreaterThan(before);
    expect(await lagSeconds(metrics)).toBeLessThan(MAX_LAG_MS / 1000);
  });

  test('on an idle primary the measured lag stays near 0', async () => {
    await sleep(4 * MAX_LAG_MS);
    expect(await lagSeconds(metrics)).toBeLessThan(MAX_LAG_MS / 1000);
    expect(await servedByReplica(router)).toBe(true);
  });

  test('a replica whose replay is paused is left for the primary once it lags past the bound', async () => {
    await cluster.pauseReplay();
    try {
      const pausedAt = Date.now();
      const lagFallbacks = await counted(metrics, 'fallbacks', 'lag');
      await primary.query("INSERT INTO marks (note) VALUES ('while paused')");
      const left = await eventually(
        'reads on the primary',
        async () => ({ standby: await servedByReplica(router), at: Date.now() }),
        (read) => !read.standby,
        5000,
        20,
      );
      // The bound, plus one measurement interval (and the scheduling slack of a busy test machine).
      expect(left.at - pausedAt).toBeLessThan(MAX_LAG_MS + 1000);
      expect(await lagSeconds(metrics)).toBeGreaterThan(MAX_LAG_MS / 1000 / 2);
      expect(await counted(metrics, 'fallbacks', 'lag')).toBeGreaterThan(lagFallbacks);
      const rows = await router.query<{ note: string }>("SELECT note FROM marks WHERE note = 'while paused'");
      expect(rows.rows).toHaveLength(1);
    } finally {
      await cluster.resumeReplay();
    }
    await eventually(
      'reads back on the replica',
      () => servedByReplica(router),
      (standby) => standby,
      5000,
    );
  });

  test('reads that must include a change go to the replica only once it has replayed it', async () => {
    await primary.query("INSERT INTO marks (note) VALUES ('replayed')");
    const includes = (note: string) => async (replica: Queryable) =>
      (await replica.query('SELECT 1 FROM marks WHERE note = $1', [note])).rows.length > 0;
    await eventually(
      'the replica has the row',
      async () => servedByReplica(await router.covering(includes('replayed'))),
      (s) => s,
      5000,
    );

    await cluster.pauseReplay();
    try {
      await primary.query("INSERT INTO marks (note) VALUES ('not yet replayed')");
      const reads = await router.covering(includes('not yet replayed'));
      expect(await servedByReplica(reads)).toBe(false);
      expect((await reads.query('SELECT 1 FROM marks WHERE note = $1', ['not yet replayed'])).rows).toHaveLength(1);
    } finally {
      await cluster.resumeReplay();
    }
  });

  test('a stopped replica sends reads to the primary at once, and a restarted one gets them back', async () => {
    await eventually(
      'reads on the replica',
      () => servedByReplica(router),
      (standby) => standby,
      5000,
    );
    const before =
      (await counted(metrics, 'fallbacks', 'error')) + (await counted(metrics, 'fallbacks', 'unavailable'));
    await cluster.stopReplica();
    try {
      // The first read may still pick the replica: it fails to connect and is run again on the primary.
      expect(await servedByReplica(router)).toBe(false);
      expect(await servedByReplica(router)).toBe(false);
      const after =
        (await counted(metrics, 'fallbacks', 'error')) + (await counted(metrics, 'fallbacks', 'unavailable'));
      expect(after).toBeGreaterThan(before);
      await sleep(MAX_LAG_MS);
      expect(await lagSeconds(metrics)).toBeNaN();
      await primary.query("INSERT INTO marks (note) VALUES ('while stopped')");
    } finally {
      await cluster.startReplica();
    }
    await eventually(
      'reads back on the replica',
      () => servedByReplica(router),
      (standby) => standby,
      10_000,
    );
    const rows = await router.query("SELECT 1 FROM marks WHERE note = 'while stopped'");
    expect(rows.rows).toHaveLength(1);
  }, 30_000);

  test('a replica that stops answering (frozen, connections open) is left for the primary within the bound', async () => {
    await eventually(
      'reads on the replica',
      () => servedByReplica(router),
      (standby) => standby,
      5000,
    );
    await cluster.freezeReplica();
    try {
      await sleep(MAX_LAG_MS + 300);
      // A read started now does not wait on the frozen replica: it goes to the primary at once.
      const started = Date.now();
      expect(await servedByReplica(router)).toBe(false);
      expect(Date.now() - started).toBeLessThan(MAX_LAG_MS);
      await eventually('the lag gauge says unmeasured', () => lagSeconds(metrics), Number.isNaN, 5000);
    } finally {
      await cluster.thawReplica();
    }
    await eventually(
      'reads back on the replica',
      () => servedByReplica(router),
      (standby) => standby,
      10_000,
    );
  }, 30_000);

  test('a promoted replica (it replicates nothing more) is left for the primary', async () => {
    await eventually(
      'reads on the replica',
      () => servedByReplica(router),
      (standby) => standby,
      5000,
    );
    const diverged = await counted(metrics, 'fallbacks', 'diverged');
    await cluster.promote();
    // Both servers now answer pg_is_in_recovery() = false: the primary is told by its port.
    const port = async () => (await router.query<{ port: number }>('SELECT inet_server_port() AS port')).rows[0]!.port;
    await eventually('reads on the primary', port, (served) => served === cluster.primaryPort, 5000, 20);
    await primary.query("INSERT INTO marks (note) VALUES ('after promotion')");
    expect((await router.query("SELECT 1 FROM marks WHERE note = 'after promotion'")).rows).toHaveLength(1);
    expect(await counted(metrics, 'fallbacks', 'diverged')).toBeGreaterThan(diverged);
  }, 30_000);
});

describe('ReplicaRouter without a replica', () => {
  test('every read goes to the primary, with no fallback counted', async () => {
    const primary = Database.connect(TEST_DATABASE_URL, 'public', 2);
    const metrics = new ReplicaMetrics(new Registry());
    const router = ReplicaRouter.create(primary, undefined, metrics, 'test');
    try {
      await router.start();
      expect(await servedByReplica(router)).toBe(false);
      expect(await router.snapshot(servedByReplica)).toBe(false);
      expect(await servedByReplica(await router.covering(async () => true))).toBe(false);
      expect(await counted(metrics, 'reads', 'primary')).toBe(3);
      expect((await metrics.fallbacks.get()).values).toHaveLength(0);
    } finally {
      await router.close();
      await primary.close();
    }
  });
});
