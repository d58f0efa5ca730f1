import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { READ_MODEL_PROJECTORS, READ_MODELS_CHECKPOINT } from '../projections/read-models/index.js';
import { replayInto } from '../projections/replay.js';
import { verifyReadModels } from '../projections/verify.js';
import { type LedgerVerifyReport, verifyLedger } from '../projections/verify-ledger.js';
import { Database } from '../src/database/database.js';
import { PostgresEventStore } from '../src/event-store/postgres/postgres-event-store.js';
import { counterKeys } from '../src/metering/counter-keys.js';
import { redisKeyspace } from '../src/redis/redis-keyspace.js';
import { REDIS, type RedisClient } from '../src/redis/redis.module.js';
import {
  BIG_COUNT,
  MONTH,
  type LedgerFixture,
  appendCharges,
  charge,
  useLedgerFixture,
  waitUntilReadable,
} from './support/ledger-fixture.js';
import { operatorCli } from './support/operator-cli.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL, type TestDatabase, createTestDatabase } from './support/test-database.js';

/** `ledger verify` and `projections verify`: a healthy ledger, tampered rows, counters that differ, events not projected yet. */
describe('finance and audit: usage, the ledger, its CSV export and `ledger verify`', () => {
  const fixture = useLedgerFixture();
  const { app } = fixture;
  let store: LedgerFixture['store'];
  let owner: LedgerFixture['owner'];
  let opsKey: LedgerFixture['opsKey'];
  let march: LedgerFixture['march'];
  let all: LedgerFixture['all'];
  beforeAll(() => {
    ({ store, owner, opsKey, march, all } = fixture);
  });

  describe('ledger verify', () => {
    let db: Database;
    let redis: RedisClient;
    let quotaKey: string;
    let unitsKey: string;
    const verify = () => verifyLedger(db, store, { redis, redisPrefix: app.config.redisPrefix });
    const cliEnv = () => ({
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: app.schema,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: app.config.redisPrefix,
      LOG_LEVEL: 'error',
    });
    const sources = (report: LedgerVerifyReport) => [...new Set(report.differences.map((d) => d.source))].sort();

    beforeAll(() => {
      db = app.app.get(Database);
      redis = app.app.get<RedisClient>(REDIS);
      quotaKey = counterKeys.quota(redisKeyspace(app.config), owner.orgId, MONTH);
      unitsKey = counterKeys.units(redisKeyspace(app.config), owner.orgId, MONTH, 'live', 'extract:basic');
    });

    test('healthy: every table and the existing counters match the events', async () => {
      await redis.del([quotaKey, unitsKey]);
      const fresh = await verify();
      expect(fresh).toMatchObject({ ok: true, notYetProjected: 0, redisChecked: true, countersCompared: 0 });
      expect(fresh.differences).toEqual([]);
      const owners = all.length;
      expect(fresh.charges).toBe(owners + 1); // and the stranger's one
      expect(fresh.credits).toBe(String(1 + 2 + 1 + 0.5 + 2 + 2 + 1 + 1 + BIG_COUNT + 7));

      await redis.set(quotaKey, '8');
      await redis.set(unitsKey, '10');
      const seeded = await verify();
      expect(seeded).toMatchObject({ ok: true, countersCompared: 2 });

      const cli = await operatorCli(cliEnv(), 'ledger', 'verify');
      expect(cli.stderr).toBe('');
      expect(cli.code).toBe(0);
      expect(cli.stdout).toBe(`ledger matches the events: ${fresh.charges} charges, ${fresh.credits} credits\n`);
    });

    test('projections verify: a rebuild from the events reproduces ledger_entries exactly', async () => {
      const report = await verifyReadModels(db, store, {
        checkpointName: READ_MODELS_CHECKPOINT,
        projectors: READ_MODEL_PROJECTORS,
      });
      expect(report.differences).toEqual([]);
      expect(report.ok).toBe(true);
      const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM ledger_entries');
      expect(Number(rows[0]!.n)).toBe(all.length + 1);
    });

    test('a tampered read-model row is reported with its table, key and both values', async () => {
      await db.query(`UPDATE usage_daily SET requests = requests + 1 WHERE org_id = $1 AND day = '2031-03-01'`, [
        owner.orgId,
      ]);
      await db.query('UPDATE ledger_entries SET credits = credits + 1 WHERE charge_id = $1', [march[1]!.charge_id]);
      try {
        const report = await verify();
        expect(report.ok).toBe(false);
        expect(sources(report)).toEqual(['ledger_entries', 'usage_daily']);
        expect(report.differences).toContainEqual({
          source: 'usage_daily',
          key: `org=${owner.orgId} day=2031-03-01 project=${owner.projectId} key=${opsKey.id} operation=search environment=live`,
          field: 'requests',
          expected: '2',
          actual: '3',
        });
        expect(report.differences).toContainEqual({
          source: 'ledger_entries',
          key: `org=${owner.orgId} month=${MONTH} environment=live`,
          field: 'credits',
          expected: '8',
          actual: '9',
        });
      } finally {
        await db.query(`UPDATE usage_daily SET requests = requests - 1 WHERE org_id = $1 AND day = '2031-03-01'`, [
          owner.orgId,
        ]);
        await db.query('UPDATE ledger_entries SET credits = credits - 1 WHERE charge_id = $1', [march[1]!.charge_id]);
      }
      await db.query('DELETE FROM monthly_units WHERE org_id = $1', [owner.orgId]);
      const missing = await verify();
      expect(missing.differences).toEqual([
        {
          source: 'monthly_units',
          key: `org=${owner.orgId} month=${MONTH} environment=live price_class=extract:basic`,
          field: 'row',
          expected: 'units=10 credits=2',
          actual: 'missing',
        },
      ]);
      await db.query(
        `INSERT INTO monthly_units (org_id, month, environment, price_class, units, credits)
         VALUES ($1, $2, 'live', 'extract:basic', 10, 2)`,
        [owner.orgId, MONTH],
      );
      expect((await verify()).ok).toBe(true);
    });

    test('a Redis counter that differs is reported; fixed, everything matches again', async () => {
      await redis.set(quotaKey, '9');
      const report = await verify();
      expect(report.ok).toBe(false);
      expect(report.differences).toEqual([
        { source: 'redis:quota', key: quotaKey, field: 'value', expected: '8', actual: '9' },
      ]);
      const cli = await operatorCli(cliEnv(), 'ledger', 'verify');
      expect(cli.code).toBe(1);
      expect(cli.stdout).toMatch(/TABLE\/COUNTER +KEY +FIELD +EXPECTED +ACTUAL/);
      expect(cli.stdout).toContain(quotaKey);
      expect(cli.stdout).toMatch(/redis:quota .* value +8 +9\n/);
      expect(cli.stdout).not.toMatch(/ledger matches/);

      await redis.set(quotaKey, '8');
      expect(await verify()).toMatchObject({ ok: true, differences: [] });
      expect((await operatorCli(cliEnv(), 'ledger', 'verify')).code).toBe(0);
    });
  });
});

describe('ledger verify: events the projection has not reached yet', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  let redis: RedisClient;
  const prefix = `ledger-verify-${randomUUID()}:`;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await PostgresEventStore.create(database.db);
    redis = createClient({ url: TEST_REDIS_URL });
    await redis.connect();
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(keys);
    await redis.close();
    await store.close();
    await database.drop();
  });

  test('are counted as not yet projected, not as differences; counters include them', async () => {
    const org = randomUUID();
    const spec = { org, project: randomUUID(), key: randomUUID(), operation: 'search' as const };
    const first = await appendCharges(store, [
      charge({ ...spec, credits: 1, at: '2031-06-01T00:00:00Z' }),
      charge({ ...spec, credits: 2, at: '2031-06-02T00:00:00Z' }),
    ]);
    const last = await appendCharges(store, [charge({ ...spec, credits: 4, at: '2031-06-03T00:00:00Z' })]);
    await waitUntilReadable(store, last);
    const options = { checkpointName: READ_MODELS_CHECKPOINT, projectors: READ_MODEL_PROJECTORS };

    const none = await verifyLedger(database.db, store, { redis, redisPrefix: prefix });
    expect(none).toMatchObject({ ok: true, checkpoint: 'start', charges: 0, credits: '0', notYetProjected: 3 });

    await replayInto(database.db, store, { schema: database.schema, ...options, until: first });
    await redis.set(counterKeys.quota({ prefix, cluster: false }, org, '2031-06'), '7');
    const partly = await verifyLedger(database.db, store, { redis, redisPrefix: prefix });
    expect(partly).toMatchObject({ ok: true, charges: 2, credits: '3', notYetProjected: 1, countersCompared: 1 });
    expect(partly.checkpoint).toBe(`${first.commit}/${first.prepare}`);

    await redis.set(counterKeys.quota({ prefix, cluster: false }, org, '2031-06'), '3');
    const behind = await verifyLedger(database.db, store, { redis, redisPrefix: prefix });
    expect(behind.differences).toEqual([
      {
        source: 'redis:quota',
        key: counterKeys.quota({ prefix, cluster: false }, org, '2031-06'),
        field: 'value',
        expected: '7',
        actual: '3',
      },
    ]);
  });

  test('a charge_id charged twice: the totals count both, the ledger keeps one entry, verify reports it', async () => {
    const org = randomUUID();
    const spec = { org, project: randomUUID(), key: randomUUID(), operation: 'search' as const };
    const original = charge({ ...spec, credits: 1, at: '2031-07-01T00:00:00Z' });
    const again = charge({ ...spec, credits: 1, at: '2031-07-01T00:00:05Z' });
    const data = { ...again.data, charge_id: original.data.charge_id };
    const duplicate = { data, event: { ...again.event, data: data as unknown as Record<string, unknown> } };
    const last = await appendCharges(store, [original, duplicate]);
    await waitUntilReadable(store, last);
    await replayInto(database.db, store, {
      schema: database.schema,
      checkpointName: READ_MODELS_CHECKPOINT,
      projectors: READ_MODEL_PROJECTORS,
    });
    const report = await verifyLedger(database.db, store);
    expect(report.notYetProjected).toBe(0);
    const key = `org=${org} month=2031-07 environment=live`;
    expect(report.differences).toEqual([
      { source: 'ledger_entries', key, field: 'credits', expected: '2', actual: '1' },
      { source: 'ledger_entries', key, field: 'entries', expected: '2', actual: '1' },
    ]);
  });
});
