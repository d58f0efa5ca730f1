import { READ_MODELS_CHECKPOINT, READ_MODEL_PROJECTORS } from '../projections/read-models/index.js';
import { rebuildReadModels } from '../projections/rebuild.js';
import { verifyLedger } from '../projections/verify-ledger.js';
import { verifyReadModels } from '../projections/verify.js';
import { ProjectionRunner } from '../projections/projection-runner.js';
import { Database } from '../src/database/database.js';
import { migrate } from '../src/database/migrator.js';
import { EVENT_STORE, type EventStore, START } from '../src/event-store/event-store.port.js';
import { REDIS, type RedisClient } from '../src/redis/redis.module.js';
import { parseCsv } from './support/csv.js';
import { eventually, sleep } from './support/eventually.js';
import { changePlan, chargesOf, grantCredits, meteredOrganization } from './support/metering-fixture.js';
import { MeteredTestRoutesModule } from './support/metered-test-routes.js';
import { SmtpSink } from './support/smtp-sink.js';
import { type Json, type TestApp, call, dropSchema, signIn, startTestApp, useTestApp } from './support/test-app.js';

const countStatuses = (responses: readonly Json[]) => {
  const counted: Record<number, number> = {};
  for (const { status } of responses) counted[status] = (counted[status] ?? 0) + 1;
  return counted;
};

interface GrantView {
  grant_id: string;
  used: number;
  remaining: number;
  status: string;
}

const OPERATOR = 'operator@grants.test';

/**
 * Credit grants and overage: the organization's limit is its allowance, what its grants add this month and its
 * overage cap, enforced on the allowance's path (leases with Redis, the in-process counters without), and each live
 * charge is split by the ledger projector into allowance, grants (soonest to expire first) and overage.
 */
describe.each([
  ['services mode (Redis counters)', true],
  ['in-process counters (embedded mode)', false],
])('credit grants and overage: %s', (_mode, redis) => {
  let n = 0;

  const app = useTestApp({
    redis,
    env: { OPERATOR_EMAILS: OPERATOR },
    modules: [MeteredTestRoutesModule],
  });

  const organization = () => meteredOrganization(app, app.smtp, `grant-${redis ? 'r' : 'm'}-${n++}@a.test`);
  const search = (key: string, query = 'q') => call(app.url, 'POST', '/test/search', { token: key, body: { query } });
  const allocations = (orgId: string) =>
    app.app
      .get(Database)
      .query<{ allowance: string; grants: { grant_id: string; credits: number }[]; overage: string }>(
        `SELECT a.allowance_credits AS allowance, a.grants, a.overage_credits AS overage
         FROM charge_allocations a JOIN ledger_entries l USING (charge_id)
         WHERE a.org_id = $1 ORDER BY l.commit_position, l.prepare_position`,
        [orgId],
      )
      .then((r) => r.rows);

  test('a grant adds its credits: calls past the allowance succeed until it is used, then 402', async () => {
    const org = await organization();
    await changePlan(app, org.orgId, { allowance: 2 });
    const grantId = await grantCredits(app, org.orgId, { credits: 3, note: 'welcome' });
    const key = await org.key();
    for (let i = 0; i < 5; i++) expect((await search(key.key, `g${i}`)).status).toBe(200);
    const refused = await search(key.key);
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ limit: 'organization', credits_used: 5, credits_limit: 5 });

    const usage = await call(app.url, 'GET', '/usage', { token: key.key });
    expect(usage.body.account).toMatchObject({
      plan_usage: 5,
      plan_limit: 5,
      paygo_usage: 0,
      paygo_limit: null,
      allowance: 2,
      credits_limit: 5,
    });
    expect(usage.body.account.grants).toEqual([
      expect.objectContaining({
        grant_id: grantId,
        credits: 3,
        used: 3,
        remaining: 0,
        status: 'spent',
        note: 'welcome',
      }),
    ]);
    const report = await call(app.url, 'GET', `/orgs/${org.orgId}/usage`, { token: org.session });
    expect(report.body.grants).toEqual(usage.body.account.grants);
    expect(report.body.overage).toBeNull();
    expect((await allocations(org.orgId)).map((a) => Number(a.allowance))).toEqual([1, 1, 0, 0, 0]);
  });

  test('GET /orgs/{id}/usage: credits_limit is the limit the quota enforces, with its parts', async () => {
    const org = await organization();
    await changePlan(app, org.orgId, { allowance: 2, overage: { credit_cap: 3, price_per_credit: '0.01' } });
    await grantCredits(app, org.orgId, { credits: 4 });
    const report = () => call(app.url, 'GET', `/orgs/${org.orgId}/usage`, { token: org.session });
    expect((await report()).body).toMatchObject({
      credits_limit: 9,
      credits_limit_parts: { allowance: 2, grants: 4, overage_cap: 3 },
      credits_used: 0,
      credits_remaining: 9,
    });
    const key = await org.key();
    for (let i = 0; i < 9; i++) expect((await search(key.key, `l${i}`)).status).toBe(200);
    const refused = await search(key.key);
    expect(refused.status).toBe(402);
    await call(app.url, 'GET', '/usage', { token: key.key }); // answers once the read models include every call
    const after = (await report()).body;
    expect(after).toMatchObject({
      credits_limit: refused.body.credits_limit,
      credits_limit_parts: { allowance: 2, grants: 4, overage_cap: 3 },
      credits_used: refused.body.credits_used,
      credits_remaining: 0,
    });
    // A past month keeps the allowance of the plan that held at its end.
    expect(
      (await call(app.url, 'GET', `/orgs/${org.orgId}/usage?month=2000-01`, { token: org.session })).body,
    ).toMatchObject({ credits_limit: 0, credits_limit_parts: { allowance: 0, grants: null, overage_cap: null } });
  });

  test('both ledger CSV exports say what paid each charge, as paid_by does in JSON', async () => {
    const org = await organization();
    await changePlan(app, org.orgId, { allowance: 1, overage: { credit_cap: 2, price_per_credit: '0.01' } });
    const grantId = await grantCredits(app, org.orgId, { credits: 2 });
    const key = await org.key();
    for (let i = 0; i < 5; i++) expect((await search(key.key, `c${i}`)).status).toBe(200);
    await call(app.url, 'GET', '/usage', { token: key.key }); // answers once the read models include every call
    const ledger = (query: string, accept?: string) =>
      call(app.url, 'GET', `/orgs/${org.orgId}/ledger?order=asc${query}`, {
        token: org.session,
        headers: accept ? { accept } : {},
      });
    const json = (await ledger('')).body.entries as { paid_by: { allowance: number; overage: number } }[];
    const [header, ...rows] = parseCsv((await ledger('', 'text/csv')).body as string);
    const cell = (row: string[], name: string) => row[header!.indexOf(name)];
    const audit = rows.map((r) => ['paid_allowance', 'paid_grants', 'paid_overage'].map((c) => cell(r, c)));
    expect(audit).toEqual([
      ['1', '0', '0'],
      ['0', '1', '0'],
      ['0', '1', '0'],
      ['0', '0', '1'],
      ['0', '0', '1'],
    ]);
    expect(JSON.parse(cell(rows[1]!, 'paid_grants_detail')!)).toEqual([{ grant_id: grantId, credits: 1 }]);
    expect(json.map((e) => [e.paid_by.allowance, e.paid_by.overage])).toEqual(
      audit.map(([allowance, , overage]) => [Number(allowance), Number(overage)]),
    );
    const [financeHeader, ...records] = parseCsv((await ledger('&format=finance', 'text/csv')).body as string);
    const paid = (row: string[]) =>
      ['Paid by allowance', 'Paid by grants', 'Paid as overage'].map((c) => row[financeHeader!.indexOf(c)]);
    expect(records.filter((r) => r[0] === 'charge').map(paid)).toEqual(audit);
    expect(records.filter((r) => r[0] === 'total').map(paid)).toEqual([
      ['1', '2', '2'],
      ['', '', ''],
    ]);
  });

  test('spending order: the allowance, then the soonest-expiring grant, then the one without expiry', async () => {
    const org = await organization();
    await changePlan(app, org.orgId, { allowance: 1 });
    const lasting = await grantCredits(app, org.orgId, { credits: 2 });
    const soon = await grantCredits(app, org.orgId, { credits: 2, expiresAt: new Date(Date.now() + 86_400_000) });
    const later = await grantCredits(app, org.orgId, { credits: 2, expiresAt: new Date(Date.now() + 2 * 86_400_000) });
    const key = await org.key();
    for (let i = 0; i < 6; i++) expect((await search(key.key, `o${i}`)).status).toBe(200);
    // GET /usage answers once the read models include every call answered before it.
    const usage = await call(app.url, 'GET', '/usage', { token: key.key });
    const split = (await allocations(org.orgId)).map((a) =>
      Number(a.allowance) ? 'allowance' : a.grants[0]!.grant_id,
    );
    expect(split).toEqual(['allowance', soon, soon, later, later, lasting]);
    const byId = new Map((usage.body.account.grants as GrantView[]).map((g) => [g.grant_id, g]));
    expect(byId.get(lasting)).toMatchObject({ used: 1, remaining: 1, status: 'active' });
    expect(byId.get(soon)).toMatchObject({ used: 2, remaining: 0, status: 'spent' });
  });

  test('a grant expiring mid-month: its unused part stops counting, what it paid stays paid', async () => {
    const org = await organization();
    await changePlan(app, org.orgId, { allowance: 1 });
    const expiresAt = new Date(Date.now() + 4000);
    const grantId = await grantCredits(app, org.orgId, { credits: 10, expiresAt });
    const key = await org.key();
    for (let i = 0; i < 3; i++) expect((await search(key.key, `e${i}`)).status).toBe(200);
    await sleep(expiresAt.getTime() - Date.now() + 50);
    const refused = await search(key.key);
    expect(refused.status).toBe(402);
    // The allowance (1) and what the grant paid before it expired (2).
    expect(refused.body).toMatchObject({ limit: 'organization', credits_used: 3, credits_limit: 3 });
    const usage = await call(app.url, 'GET', '/usage', { token: key.key });
    expect(usage.body.account.grants).toEqual([
      expect.objectContaining({ grant_id: grantId, used: 2, remaining: 0, status: 'expired' }),
    ]);
    expect(usage.body.account).toMatchObject({ plan_usage: 3, plan_limit: 3 });
  });

  test('overage up to the cap, exactly, under 40 concurrent calls; then 402; /usage fills paygo_*', async () => {
    const org = await organization();
    await changePlan(app, org.orgId, { allowance: 2, overage: { credit_cap: 5, price_per_credit: '0.008' } });
    const key = await org.key();
    const responses = await Promise.all(Array.from({ length: 40 }, (_, i) => search(key.key, `p${i}`)));
    expect(countStatuses(responses)).toEqual({ 200: 7, 402: 33 });
    expect(responses.find((r) => r.status === 402)!.body).toMatchObject({
      limit: 'organization',
      credits_used: 7,
      credits_limit: 7,
    });
    expect((await chargesOf(app, org.orgId)).reduce((sum, c) => sum + c.credits, 0)).toBe(7);
    const usage = await call(app.url, 'GET', '/usage', { token: key.key });
    expect(usage.body.account).toMatchObject({ plan_usage: 2, plan_limit: 2, paygo_usage: 5, paygo_limit: 5 });
    const report = await call(app.url, 'GET', `/orgs/${org.orgId}/usage`, { token: org.session });
    expect(report.body.overage).toEqual({ credit_cap: 5, price_per_credit: '0.008', credits_used: 5, amount: '0.04' });
    const ledger = await call(app.url, 'GET', `/orgs/${org.orgId}/ledger`, { token: org.session });
    const paid = ledger.body.entries.map((e: { paid_by: { allowance: number; overage: number } }) => e.paid_by);
    expect(paid.reduce((sum: number, p: { overage: number }) => sum + p.overage, 0)).toBe(5);
    expect(paid.reduce((sum: number, p: { allowance: number }) => sum + p.allowance, 0)).toBe(2);
    const split = await allocations(org.orgId);
    expect(split.reduce((sum, a) => sum + Number(a.overage), 0)).toBe(5);
    expect(split.reduce((sum, a) => sum + Number(a.allowance), 0)).toBe(2);
  });

  test('operators grant and revoke over HTTP; owners may read but not grant; bad input is a 400', async () => {
    const org = await organization();
    await changePlan(app, org.orgId, { allowance: 1 });
    const operator = await signIn(app, app.smtp, OPERATOR);
    const path = `/orgs/${org.orgId}/credit-grants`;
    const byOwner = await call(app.url, 'POST', path, { token: org.session, body: { credits: 5 } });
    expect(byOwner.status).toBe(403);
    for (const body of [
      { credits: 0 },
      { credits: 1.5 },
      { credits: 5, expires_at: 'soon' },
      { credits: 5, expires_at: '2001-01-01' },
    ]) {
      const bad = await call(app.url, 'POST', path, { token: operator, body });
      expect(bad.status).toBe(400);
      expect(bad.body.detail.error).toBe(bad.body.error);
    }
    const granted = await call(app.url, 'POST', path, {
      token: operator,
      body: { credits: 4, every_month: true, expires_at: '2999-12-31', note: 'pilot' },
    });
    expect(granted.status).toBe(201);
    expect(granted.body).toMatchObject({
      credits: 4,
      recurrence: 'monthly',
      expires_at: '3000-01-01T00:00:00.000Z',
      note: 'pilot',
      used: 0,
      remaining: 4,
      status: 'active',
    });
    const listed = await call(app.url, 'GET', path, { token: org.session });
    expect(listed.body.grants.map((g: GrantView) => g.grant_id)).toEqual([granted.body.grant_id]);
    const key = await org.key();
    for (let i = 0; i < 3; i++) expect((await search(key.key, `h${i}`)).status).toBe(200);
    const grantPath = `${path}/${granted.body.grant_id}`;
    expect((await call(app.url, 'DELETE', grantPath, { token: org.session })).status).toBe(403);
    expect((await call(app.url, 'DELETE', grantPath, { token: operator })).status).toBe(204);
    const refused = await search(key.key);
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ credits_used: 3, credits_limit: 3 });
    const after = await call(app.url, 'GET', path, { token: org.session });
    expect(after.body.grants[0]).toMatchObject({ used: 2, remaining: 0, status: 'revoked' });
    const unknown = `${path}/00000000-0000-4000-8000-000000000000`;
    expect((await call(app.url, 'DELETE', unknown, { token: operator })).status).toBe(404);
  });

  test('read models rebuilt from the events give the same balances; ledger verify passes', async () => {
    const db = app.app.get(Database);
    const store = app.app.get<EventStore>(EVENT_STORE);
    const options = { checkpointName: READ_MODELS_CHECKPOINT, projectors: READ_MODEL_PROJECTORS };
    const balances = () =>
      db
        .query(
          `SELECT g.grant_id, u.month, u.credits FROM credit_grants g JOIN credit_grant_usage u USING (grant_id)
           ORDER BY 1, 2`,
        )
        .then((r) => r.rows);
    const before = await balances();
    expect(before.length).toBeGreaterThan(0);
    const verified = await verifyReadModels(db, store, options);
    expect(verified.differences).toEqual([]);
    await db.query('UPDATE credit_grant_usage SET credits = credits + 1');
    expect((await verifyReadModels(db, store, options)).ok).toBe(false);
    await rebuildReadModels(db, store, options);
    expect(await balances()).toEqual(before);
    expect((await verifyReadModels(db, store, options)).ok).toBe(true);
    const ledger = await verifyLedger(db, store, {
      redis: redis ? app.app.get<RedisClient>(REDIS) : null,
      redisPrefix: app.config.redisPrefix,
    });
    expect(ledger.differences).toEqual([]);
  });

  test('ledger verify recomputes every split from the events: a tampered charge_allocations row fails it', async () => {
    const db = app.app.get(Database);
    const store = app.app.get<EventStore>(EVENT_STORE);
    const verify = () =>
      verifyLedger(db, store, {
        redis: redis ? app.app.get<RedisClient>(REDIS) : null,
        redisPrefix: app.config.redisPrefix,
      });
    const untampered = await verify();
    expect(untampered.differences).toEqual([]);
    expect(untampered.allocations).toBeGreaterThan(10);
    const [row] = (
      await db.query<{ charge_id: string; grants: { grant_id: string; credits: number }[] }>(
        `SELECT charge_id, grants FROM charge_allocations WHERE jsonb_array_length(grants) = 1 ORDER BY charge_id LIMIT 1`,
      )
    ).rows;
    const key = expect.stringContaining(`charge=${row!.charge_id}`);
    const grant = row!.grants[0]!;
    // Paid by the grant, but said to be overage: the parts still add up to the charge's credits.
    await db.query(
      `UPDATE charge_allocations SET grants = '[]', overage_credits = overage_credits + $2 WHERE charge_id = $1`,
      [row!.charge_id, grant.credits],
    );
    expect((await verify()).differences).toEqual([
      {
        source: 'charge_allocations',
        key,
        field: 'grants',
        expected: `${grant.grant_id}:${grant.credits}`,
        actual: 'none',
      },
      expect.objectContaining({ source: 'charge_allocations', key, field: 'overage' }),
    ]);
    // Parts that no longer add up to the charge.
    await db.query(
      `UPDATE charge_allocations SET grants = $2, overage_credits = overage_credits - $3 + 1 WHERE charge_id = $1`,
      [row!.charge_id, JSON.stringify(row!.grants), grant.credits],
    );
    expect((await verify()).differences).toEqual([
      expect.objectContaining({ source: 'charge_allocations', key, field: 'sum' }),
      expect.objectContaining({ source: 'charge_allocations', key, field: 'overage' }),
    ]);
    await db.query('UPDATE charge_allocations SET overage_credits = overage_credits - 1 WHERE charge_id = $1', [
      row!.charge_id,
    ]);
    // A split deleted, then one for a charge that does not exist.
    const deleted = (
      await db.query('DELETE FROM charge_allocations WHERE charge_id = $1 RETURNING *', [row!.charge_id])
    ).rows[0]!;
    expect((await verify()).differences).toEqual([
      expect.objectContaining({ source: 'charge_allocations', key, field: 'row', actual: 'missing' }),
    ]);
    await db.query(
      `INSERT INTO charge_allocations (charge_id, org_id, month, allowance_credits, grants, overage_credits)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        deleted.charge_id,
        deleted.org_id,
        deleted.month,
        deleted.allowance_credits,
        JSON.stringify(deleted.grants),
        deleted.overage_credits,
      ],
    );
    await db.query(
      `INSERT INTO charge_allocations (charge_id, org_id, month, allowance_credits, grants, overage_credits)
       VALUES ('no-such-charge', $1, $2, 1, '[]', 0)`,
      [deleted.org_id, deleted.month],
    );
    expect((await verify()).differences).toEqual([
      expect.objectContaining({
        source: 'charge_allocations',
        key: 'charge=no-such-charge',
        field: 'row',
        expected: 'none',
      }),
    ]);
    await db.query(`DELETE FROM charge_allocations WHERE charge_id = 'no-such-charge'`);
    expect((await verify()).differences).toEqual([]);
  });
});

describe('grants and overage across two nodes (services mode: one database, one Redis)', () => {
  let smtp: SmtpSink;
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    first = await startTestApp({ env: { SMTP_URL: smtp.url }, modules: [MeteredTestRoutesModule] });
    second = await startTestApp({
      schema: first.schema,
      env: { SMTP_URL: smtp.url },
      modules: [MeteredTestRoutesModule],
    });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
    await smtp.stop();
    await dropSchema(first.schema);
  });

  const spread = (key: string, calls: number, tag: string) =>
    Promise.all(
      Array.from({ length: calls }, (_, i) =>
        call((i % 2 ? first : second).url, 'POST', '/test/search', { token: key, body: { query: `${tag}${i}` } }),
      ),
    );

  test('allowance 3, a grant of 4 and an overage cap of 5: exactly 12 of 40 concurrent calls, never more', async () => {
    const org = await meteredOrganization(first, smtp, 'two-nodes-grants@a.test');
    await changePlan(first, org.orgId, { allowance: 3, overage: { credit_cap: 5, price_per_credit: '0.01' } });
    await grantCredits(first, org.orgId, { credits: 4 });
    // The other node's plan cache sees the grant within PLAN_CACHE_MS.
    await sleep(2100);
    const key = await org.key();
    const responses = await spread(key.key, 40, 'n');
    expect(countStatuses(responses)).toEqual({ 200: 12, 402: 28 });
    expect((await chargesOf(first, org.orgId)).reduce((sum, c) => sum + c.credits, 0)).toBe(12);
    const usage = await call(second.url, 'GET', '/usage', { token: key.key });
    expect(usage.body.account).toMatchObject({ plan_usage: 7, plan_limit: 7, paygo_usage: 5, paygo_limit: 5 });
    const redis = first.app.get<RedisClient>(REDIS);
    await eventually(
      'the ledger and the counters agree',
      () =>
        verifyLedger(first.app.get(Database), first.app.get<EventStore>(EVENT_STORE), {
          redis,
          redisPrefix: first.config.redisPrefix,
        }),
      (report) => report.ok,
    );
  });
});

describe('read-model migration 007 on read models projected before it', () => {
  const app = useTestApp({ modules: [MeteredTestRoutesModule] });

  test('splits the charges already in the ledger as a rebuild from the events would', async () => {
    const org = await meteredOrganization(app, app.smtp, 'before-grants@a.test');
    await changePlan(app, org.orgId, { allowance: 3 });
    const key = await org.key();
    for (let i = 0; i < 3; i++) {
      const searched = await call(app.url, 'POST', '/test/search', { token: key.key, body: { query: `m${i}` } });
      expect(searched.status).toBe(200);
    }
    expect((await call(app.url, 'GET', '/usage', { token: key.key })).body.account.plan_usage).toBe(3);
    // The ledger holds the three charges (GET /usage reads the counter, which is ahead of the projection).
    const store = app.app.get<EventStore>(EVENT_STORE);
    const head = await store.headPosition();
    if (head !== START) await app.app.get(ProjectionRunner).waitFor(head, 10_000);
    const db = app.app.get(Database);
    // The read models as they were before migration 007.
    await db.query('DROP TABLE credit_grants, credit_grant_usage, spend_months, charge_allocations');
    await db.query('ALTER TABLE organizations DROP COLUMN overage_credit_cap, DROP COLUMN overage_price_per_credit');
    await db.query(
      `DELETE FROM schema_migrations WHERE migration_set = 'readModels' AND name = '007_credit_grants.sql'`,
    );
    expect(await migrate(db.pool, app.schema, ['readModels'])).toEqual(['readModels/007_credit_grants.sql']);
    const spend = await db.query('SELECT allowance_credits, overage_credits FROM spend_months WHERE org_id = $1', [
      org.orgId,
    ]);
    expect(spend.rows).toEqual([{ allowance_credits: '3.0000', overage_credits: '0.0000' }]);
    const report = await verifyReadModels(db, app.app.get<EventStore>(EVENT_STORE), {
      checkpointName: READ_MODELS_CHECKPOINT,
      projectors: READ_MODEL_PROJECTORS,
    });
    expect(report.differences).toEqual([]);
  });
});
