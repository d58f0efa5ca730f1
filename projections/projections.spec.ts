import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../test/support/test-database.js';
import { type Actor, toNewEvent } from '../src/event-store/domain-event.js';
import { START, comparePositions } from '../src/event-store/event-store.port.js';
import { PostgresEventStore } from '../src/event-store/postgres/postgres-event-store.js';
import { type KeyCreated, keyStream } from '../src/keys/events/key.events.js';
import { type CreditsCharged, chargesStream } from '../src/metering/events/credits-charged.event.js';
import { type OrganizationCreated, organizationStream } from '../src/organizations/events/organization.events.js';
import { planLimits } from '../src/organizations/plans.js';
import { applyBatch } from './apply-batch.js';
import { setHold } from './checkpoint-store.js';
import { ProjectionRunner } from './projection-runner.js';
import { READ_MODEL_PROJECTORS, READ_MODELS_CHECKPOINT } from './read-models/index.js';
import { rebuildReadModels } from './rebuild.js';
import { verifyReadModels } from './verify.js';

const actor: Actor = { type: 'operator', id: 'test' };
const options = { checkpointName: READ_MODELS_CHECKPOINT, projectors: READ_MODEL_PROJECTORS };

describe('read-model projections', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  let runner: ProjectionRunner;
  const orgId = randomUUID();
  const projectId = randomUUID();
  const keyId = randomUUID();

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await PostgresEventStore.create(database.db, { pollIntervalMs: 20 });
    runner = new ProjectionRunner(database.db, store, { ...options, leaderRetryMs: 50 });
    runner.start();
  });
  afterAll(async () => {
    await runner.stop();
    await store.close();
    await database.drop();
  });

  const charge = (
    credits: number,
    operation: CreditsCharged['data']['operation'],
    at: string,
    environment: 'live' | 'test' = 'live',
  ) => {
    const event: CreditsCharged = {
      type: 'CreditsCharged',
      data: {
        charge_id: randomUUID(),
        org_id: orgId,
        project_id: projectId,
        key_id: keyId,
        key_environment: environment,
        operation,
        depth: 'basic',
        credits,
        request_id: randomUUID(),
        idempotency_key: null,
        billing_month: at.slice(0, 7),
        counts: operation === 'extract' ? { successful_urls: 1 } : {},
        channel: 'rest',
        pricing:
          operation === 'extract'
            ? {
                items: [{ item: 'extract:basic', credits }],
                units: { price_class: 'extract:basic', count: 1, units_per_block: 5, credits_per_block: 1 },
              }
            : { items: [{ item: `${operation}:basic`, credits }], units: null },
      },
    };
    return toNewEvent(event, { type: 'api_key', id: keyId }, { occurredAt: new Date(at) });
  };

  test('events become read models: organization, key listing with last use, monthly and daily totals', async () => {
    const created: OrganizationCreated = {
      type: 'OrganizationCreated',
      data: { org_id: orgId, name: 'Acme', plan: 'free', created_by: null, ...planLimits('free') },
    };
    await store.appendToStream(organizationStream(orgId), [toNewEvent(created, actor)], 'no_stream');
    const key: KeyCreated = {
      type: 'KeyCreated',
      data: {
        key_id: keyId,
        org_id: orgId,
        project_id: projectId,
        name: 'k',
        environment: 'live',
        prefix: 'sk_live_abcdef',
        key_hash: 'f'.repeat(64),
        scopes: ['search'],
        depth_limit: null,
      },
    };
    await store.appendToStream(keyStream(keyId), [toNewEvent(key, actor)], 'no_stream');
    await store.appendToStream(
      chargesStream(orgId, '2026-11'),
      [
        charge(1, 'search', '2026-11-03T10:00:00Z'),
        charge(2, 'search', '2026-11-03T11:00:00Z'),
        charge(0.2, 'extract', '2026-11-04T09:00:00Z'),
        charge(1, 'search', '2026-11-04T09:30:00Z', 'test'),
      ],
      'any',
    );
    const last = await store.appendToStream(
      chargesStream(orgId, '2026-12'),
      [charge(5, 'crawl', '2026-12-01T00:00:01Z')],
      'any',
    );
    await runner.waitFor(last.position, 10_000);

    const org = await database.db.query(
      'SELECT name, plan, monthly_credit_allowance FROM organizations WHERE org_id = $1',
      [orgId],
    );
    expect(org.rows[0]).toEqual({ name: 'Acme', plan: 'free', monthly_credit_allowance: '1000' });
    const totals = await database.db.query(
      'SELECT month, environment, credits, requests FROM monthly_totals ORDER BY month, environment',
    );
    expect(totals.rows).toEqual([
      { month: '2026-11', environment: 'live', credits: '3.2000', requests: '3' },
      { month: '2026-11', environment: 'test', credits: '1.0000', requests: '1' },
      { month: '2026-12', environment: 'live', credits: '5.0000', requests: '1' },
    ]);
    const daily = await database.db.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, operation, environment, credits, requests FROM usage_daily ORDER BY day, operation, environment`,
    );
    expect(daily.rows).toEqual([
      { day: '2026-11-03', operation: 'search', environment: 'live', credits: '3.0000', requests: '2' },
      { day: '2026-11-04', operation: 'extract', environment: 'live', credits: '0.2000', requests: '1' },
      { day: '2026-11-04', operation: 'search', environment: 'test', credits: '1.0000', requests: '1' },
      { day: '2026-12-01', operation: 'crawl', environment: 'live', credits: '5.0000', requests: '1' },
    ]);
    const keyRow = await database.db.query('SELECT last_used_at FROM api_keys WHERE key_id = $1', [keyId]);
    expect((keyRow.rows[0] as { last_used_at: Date }).last_used_at.toISOString()).toBe('2026-12-01T00:00:01.000Z');
  });

  test('applying an already-applied batch again changes nothing (the checkpoint guards it)', async () => {
    const events = await store.readAll({ from: START, maxCount: 1000 });
    const before = await database.db.query('SELECT * FROM monthly_totals ORDER BY month, environment');
    const client = await database.db.pool.connect();
    try {
      await applyBatch(client, database.schema, READ_MODELS_CHECKPOINT, READ_MODEL_PROJECTORS, events);
    } finally {
      client.release();
    }
    const after = await database.db.query('SELECT * FROM monthly_totals ORDER BY month, environment');
    expect(after.rows).toEqual(before.rows);
  });

  test('verify passes on live read models, fails on a corrupted one, and a rebuild repairs it', async () => {
    expect((await verifyReadModels(database.db, store, options)).ok).toBe(true);

    await database.db.query(
      `UPDATE monthly_totals SET credits = credits + 1 WHERE month = '2026-11' AND environment = 'live'`,
    );
    const corrupted = await verifyReadModels(database.db, store, options);
    expect(corrupted.ok).toBe(false);
    expect(corrupted.differences.map((d) => d.table)).toEqual(['monthly_totals']);
    expect(corrupted.differences[0]).toMatchObject({ onlyLive: 1, onlyRebuilt: 1 });

    const rebuilt = await rebuildReadModels(database.db, store, options);
    expect(rebuilt.events).toBeGreaterThanOrEqual(7);
    expect((await verifyReadModels(database.db, store, options)).ok).toBe(true);
  });

  test('a rebuild while charges keep arriving and the live runner applies them loses and doubles nothing', async () => {
    let appending = true;
    let last = await store.headPosition();
    const writer = (async () => {
      while (appending) {
        const appended = await store.appendToStream(
          chargesStream(orgId, '2027-01'),
          [charge(1, 'search', '2027-01-05T00:00:00Z'), charge(2, 'extract', '2027-01-05T00:00:00Z')],
          'any',
        );
        last = appended.position;
      }
    })();
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await rebuildReadModels(database.db, store, options);
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      appending = false;
      await writer;
    }
    await runner.waitFor(last as Exclude<typeof last, typeof START>, 10_000);
    expect((await verifyReadModels(database.db, store, options)).ok).toBe(true);
    const charged = await store.readStream(chargesStream(orgId, '2027-01'));
    const totals = await database.db.query(`SELECT credits, requests FROM monthly_totals WHERE month = '2027-01'`);
    expect(totals.rows).toEqual([{ credits: `${(charged.length / 2) * 3}.0000`, requests: String(charged.length) }]);
  });

  test('a held projector applies nothing until the hold is released or lapses (a rebuild that died holding it)', async () => {
    const before = await runner.checkpoint();
    await setHold(database.db, READ_MODELS_CHECKPOINT, 400);
    const heldAt = Date.now();
    const appended = await store.appendToStream(
      chargesStream(orgId, '2027-02'),
      [charge(1, 'search', '2027-02-01T00:00:00Z')],
      'any',
    );
    await new Promise((resolve) => setTimeout(resolve, 150));
    if (Date.now() - heldAt < 350) expect(await runner.checkpoint()).toEqual(before);
    await runner.waitFor(appended.position, 10_000);
    expect(Date.now() - heldAt).toBeGreaterThanOrEqual(350);
    const totals = await database.db.query(`SELECT requests FROM monthly_totals WHERE month = '2027-02'`);
    expect(totals.rows).toEqual([{ requests: '1' }]);
  });

  test('a second runner on the same schema waits as a follower; events still project exactly once', async () => {
    const second = new ProjectionRunner(database.db, store, { ...options, leaderRetryMs: 50 });
    second.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect([runner.isLeader, second.isLeader]).toEqual([true, false]);
      const last = await store.appendToStream(
        chargesStream(orgId, '2026-12'),
        [charge(1, 'map', '2026-12-02T00:00:00Z')],
        'any',
      );
      await second.waitFor(last.position, 10_000);
      const totals = await database.db.query(`SELECT credits, requests FROM monthly_totals WHERE month = '2026-12'`);
      expect(totals.rows).toEqual([{ credits: '6.0000', requests: '2' }]);
    } finally {
      await second.stop();
    }
  });
});

describe('a projector that gathers appends (gatherMs)', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await PostgresEventStore.create(database.db, { pollIntervalMs: 20 });
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  const created = (orgId: string) => {
    const event: OrganizationCreated = {
      type: 'OrganizationCreated',
      data: { org_id: orgId, name: `Org ${orgId.slice(0, 8)}`, plan: 'free', created_by: null, ...planLimits('free') },
    };
    return toNewEvent(event, actor);
  };

  test('appends made while it waits after a live batch are applied together, in one batch', async () => {
    const batches: number[] = [];
    const runner = new ProjectionRunner(database.db, store, {
      ...options,
      leaderRetryMs: 50,
      gatherMs: 1000,
      onBatch: (applied) => batches.push(applied),
    });
    runner.start();
    try {
      const first = randomUUID();
      const head = await store.appendToStream(organizationStream(first), [created(first)], 'no_stream');
      await runner.waitFor(head.position, 10_000);
      const appliedBefore = batches.length;
      const orgs = Array.from({ length: 5 }, () => randomUUID());
      const results = await Promise.all(
        orgs.map((orgId) => store.appendToStream(organizationStream(orgId), [created(orgId)], 'no_stream')),
      );
      const last = results.map((r) => r.position).reduce((a, b) => (comparePositions(a, b) >= 0 ? a : b));
      await runner.waitFor(last, 10_000);
      expect(batches.slice(appliedBefore)).toEqual([5]);
      const count = await database.db.query(`SELECT count(*)::int AS n FROM organizations`);
      expect(count.rows[0]).toEqual({ n: 6 });
    } finally {
      await runner.stop();
    }
  });
});
