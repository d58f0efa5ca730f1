import { randomUUID } from 'node:crypto';
import { AlertDeliveryRetention } from '../src/alerts/alert-delivery-retention.js';
import { Database } from '../src/database/database.js';
import { eventually } from './support/eventually.js';
import { type TestApp, dropSchema, startTestApp } from './support/test-app.js';

const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

/**
 * The alert outbox and its delivery log are pruned: finished deliveries (succeeded or failed) and their attempts
 * ALERT_DELIVERY_RETENTION_DAYS after they were created and last attempted; pending ones never; deleted endpoints
 * once none of their deliveries is left. Each node prunes on start and every hour.
 */
describe.each([
  ['services mode (Redis)', true],
  ['embedded mode (no REDIS_URL)', false],
])('alert delivery retention: %s', (_mode, redis) => {
  let app: TestApp;
  let db: Database;
  const orgId = randomUUID();

  beforeAll(async () => {
    app = await startTestApp({ redis, env: { ALERT_DELIVERY_RETENTION_DAYS: '30' } });
    db = app.app.get(Database);
    // The prune on start must not take the rows the tests write (it would count them, not the test's own prune).
    await app.app.get(AlertDeliveryRetention).settled();
  });
  afterAll(async () => {
    await app.close();
    await dropSchema(app.schema);
  });

  const endpoint = async () => {
    const id = randomUUID();
    await db.query(
      `INSERT INTO webhook_endpoints (endpoint_id, org_id, url, secret, created_by, created_at)
       VALUES ($1, $2, 'https://hooks.example/a', 'v1:sealed', $3, $4)`,
      [id, orgId, randomUUID(), daysAgo(60)],
    );
    return id;
  };
  // Deleted once its deliveries are in (a prune in between would take an endpoint without any, as it should).
  const deleteEndpoint = (id: string, daysAgoDeleted: number) =>
    db.query('UPDATE webhook_endpoints SET deleted_at = $2 WHERE endpoint_id = $1', [id, daysAgo(daysAgoDeleted)]);
  const delivery = async (
    to: { endpoint: string } | { email: string },
    status: 'pending' | 'succeeded' | 'failed',
    createdDaysAgo: number,
    attemptsDaysAgo: number[],
  ) => {
    const id = randomUUID();
    await db.query(
      `INSERT INTO alert_deliveries (delivery_id, org_id, event_id, channel, endpoint_id, email, payload, status,
         attempts, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, '{}', $7, $8, $9)`,
      [
        id,
        orgId,
        randomUUID(),
        'endpoint' in to ? 'webhook' : 'email',
        'endpoint' in to ? to.endpoint : null,
        'email' in to ? to.email : null,
        status,
        attemptsDaysAgo.length,
        daysAgo(createdDaysAgo),
      ],
    );
    for (const [i, days] of attemptsDaysAgo.entries()) {
      await db.query(
        `INSERT INTO alert_delivery_attempts (delivery_id, attempt, node, started_at, duration_ms, status_code)
         VALUES ($1, $2, 'n', $3, 5, 200)`,
        [id, i + 1, daysAgo(days)],
      );
    }
    return id;
  };
  const remaining = async (table: string, column: string, ids: string[]) =>
    (
      await db.query<{ id: string }>(
        `SELECT DISTINCT ${column} AS id FROM ${table} WHERE ${column} = ANY($1::uuid[])`,
        [ids],
      )
    ).rows
      .map((r) => r.id)
      .sort();

  test('finished deliveries past the retention go with their attempts; pending and recent ones stay', async () => {
    const live = await endpoint();
    const gone = await endpoint();
    const stillUsed = await endpoint();
    const old = await delivery({ endpoint: gone }, 'succeeded', 40, [40]);
    const failed = await delivery({ endpoint: gone }, 'failed', 40, [40, 39, 35]);
    const mailed = await delivery({ email: 'owner@retention.test' }, 'succeeded', 45, [45]);
    const pending = await delivery({ endpoint: stillUsed }, 'pending', 40, [40]);
    const replayed = await delivery({ endpoint: live }, 'succeeded', 40, [40, 2]);
    const recent = await delivery({ endpoint: live }, 'failed', 10, [10, 9]);
    const all = [old, failed, mailed, pending, replayed, recent];
    await deleteEndpoint(gone, 40);
    await deleteEndpoint(stillUsed, 40);

    expect(await app.app.get(AlertDeliveryRetention).prune()).toEqual({ deliveries: 3, endpoints: 1 });
    const kept = [pending, replayed, recent].sort();
    expect(await remaining('alert_deliveries', 'delivery_id', all)).toEqual(kept);
    expect(await remaining('alert_delivery_attempts', 'delivery_id', all)).toEqual(kept);
    expect(await remaining('webhook_endpoints', 'endpoint_id', [live, gone, stillUsed])).toEqual(
      [live, stillUsed].sort(),
    );
    expect(await app.app.get(AlertDeliveryRetention).prune()).toEqual({ deliveries: 0, endpoints: 0 });
  });

  test('a node prunes on start', async () => {
    const due = await delivery({ email: 'owner@retention.test' }, 'succeeded', 31, [31]);
    const second = await startTestApp({ redis, schema: app.schema, env: { ALERT_DELIVERY_RETENTION_DAYS: '30' } });
    try {
      await eventually(
        'the delivery pruned',
        () => remaining('alert_deliveries', 'delivery_id', [due]),
        (ids) => ids.length === 0,
      );
    } finally {
      await second.close();
    }
  });
});
