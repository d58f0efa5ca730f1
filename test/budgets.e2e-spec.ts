import { verifyLedger } from '../projections/verify-ledger.js';
import { Database } from '../src/database/database.js';
import { EVENT_STORE, type EventStore } from '../src/event-store/event-store.port.js';
import { CHARGED_TOTALS, type ChargedTotals } from '../src/metering/charged-totals.port.js';
import { billingMonth, counterKeys } from '../src/metering/counter-keys.js';
import { redisKeyspace } from '../src/redis/redis-keyspace.js';
import { REDIS, type RedisClient } from '../src/redis/redis.module.js';
import { eventually } from './support/eventually.js';
import { changePlan, chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { MeteredTestRoutesModule } from './support/metered-test-routes.js';
import { SmtpSink } from './support/smtp-sink.js';
import { type Json, type TestApp, call, dropSchema, signIn, startTestApp, useTestApp } from './support/test-app.js';

const countStatuses = (responses: readonly Json[]) => {
  const counted: Record<number, number> = {};
  for (const { status } of responses) counted[status] = (counted[status] ?? 0) + 1;
  return counted;
};

/**
 * Monthly credit limits of keys and projects (monthly_credit_limit), enforced on the quota path with the
 * organization's allowance: the tightest binds, concurrency never overspends one, and a 402 names the limit that bit.
 * Run with Redis (services mode's counters) and with the in-process counters (embedded mode's).
 */
describe.each([
  ['services mode (Redis counters)', true],
  ['in-process counters (embedded mode)', false],
])('budgets per key and project: %s', (_mode, redis) => {
  let n = 0;

  const app = useTestApp({ redis, modules: [MeteredTestRoutesModule] });

  const organization = () => meteredOrganization(app, app.smtp, `budget-${redis ? 'r' : 'm'}-${n++}@a.test`);
  const search = (key: string, body: Record<string, unknown> = {}) =>
    call(app.url, 'POST', '/test/search', { token: key, body: { query: 'q', ...body } });
  const patch = (org: { orgId: string; session: string }, path: string, body: Record<string, unknown>) =>
    call(app.url, 'PATCH', `/orgs/${org.orgId}${path}`, { token: org.session, body });

  test('a key created with a limit: listed, in GET /usage as key.limit, and set or removed with PATCH', async () => {
    const org = await organization();
    const key = await org.key({ monthly_credit_limit: 10 });
    const listed = await call(app.url, 'GET', `/orgs/${org.orgId}/api-keys`, { token: org.session });
    expect(listed.body.keys.find((k: { id: string }) => k.id === key.id).monthly_credit_limit).toBe(10);
    expect((await search(key.key)).status).toBe(200);
    const usage = await call(app.url, 'GET', '/usage', { token: key.key });
    expect(usage.body.key).toMatchObject({ usage: 1, limit: 10 });

    const raised = await patch(org, `/api-keys/${key.id}`, { monthly_credit_limit: 25 });
    expect(raised.status).toBe(200);
    expect(raised.body).toMatchObject({ name: 'key', monthly_credit_limit: 25 });
    expect((await call(app.url, 'GET', '/usage', { token: key.key })).body.key.limit).toBe(25);
    const removed = await patch(org, `/api-keys/${key.id}`, { monthly_credit_limit: null, name: 'renamed' });
    expect(removed.body).toMatchObject({ name: 'renamed', monthly_credit_limit: null });
    expect((await call(app.url, 'GET', '/usage', { token: key.key })).body.key.limit).toBeNull();
  });

  test('50 concurrent calls on a key with 10 credits left charge exactly 10; the rest are 402 naming the key', async () => {
    const org = await organization();
    const key = await org.key({ monthly_credit_limit: 12 });
    for (let i = 0; i < 2; i++) expect((await search(key.key)).status).toBe(200);
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => search(key.key, { query: `c${i}` })));
    expect(countStatuses(responses)).toEqual({ 200: 10, 402: 40 });
    const refused = responses.find((r) => r.status === 402)!;
    expect(refused.body).toMatchObject({ limit: 'key', credits_used: 12, credits_limit: 12 });
    expect(refused.body.error).toMatch(/API key's monthly credit limit/);
    expect(refused.body.detail.error).toBe(refused.body.error);
    const charges = await chargesOf(app, org.orgId);
    expect(charges.reduce((sum, c) => sum + c.credits, 0)).toBe(12);
    // Raised, it serves again at once.
    expect((await patch(org, `/api-keys/${key.id}`, { monthly_credit_limit: 13 })).status).toBe(200);
    expect((await search(key.key)).status).toBe(200);
    expect((await search(key.key)).status).toBe(402);
  });

  test("a project's limit binds its live keys together; its test keys are not counted", async () => {
    const org = await organization();
    const project = await call(app.url, 'POST', `/orgs/${org.orgId}/projects`, {
      token: org.session,
      body: { name: 'Capped', monthly_credit_limit: 5 },
    });
    expect(project.status).toBe(201);
    expect(project.body.monthly_credit_limit).toBe(5);
    const projectId = project.body.id as string;
    const [a, b, testKey] = await Promise.all([
      org.key({ project_id: projectId }),
      org.key({ project_id: projectId }),
      org.key({ project_id: projectId, environment: 'test' }),
    ]);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => search(i % 2 ? a.key : b.key, { query: `p${i}` })),
    );
    expect(countStatuses(responses)).toEqual({ 200: 5, 402: 15 });
    expect(responses.find((r) => r.status === 402)!.body).toMatchObject({
      limit: 'project',
      credits_used: 5,
      credits_limit: 5,
    });
    expect((await search(testKey.key)).status).toBe(200);
    // Another project of the organization is not bound by it.
    expect((await search((await org.key()).key)).status).toBe(200);
    const listed = await call(app.url, 'GET', `/orgs/${org.orgId}/projects`, { token: org.session });
    expect(listed.body.projects.find((p: { id: string }) => p.id === projectId).monthly_credit_limit).toBe(5);
    // Lifted, every key of the project serves again.
    expect((await patch(org, `/projects/${projectId}`, { monthly_credit_limit: null })).status).toBe(200);
    expect((await search(a.key)).status).toBe(200);
  });

  test('the tightest limit binds: a key of 100 in a project of 3 is refused by the project', async () => {
    const org = await organization();
    expect((await patch(org, `/projects/${org.projectId}`, { monthly_credit_limit: 3 })).status).toBe(200);
    const key = await org.key({ monthly_credit_limit: 100 });
    for (let i = 0; i < 3; i++) expect((await search(key.key, { query: `t${i}` })).status).toBe(200);
    const refused = await search(key.key);
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ limit: 'project', credits_used: 3, credits_limit: 3 });
  });

  test('what a call did not spend goes back: a failed call, and an answer that never came', async () => {
    const org = await organization();
    const key = await org.key({ monthly_credit_limit: 2 });
    const failed = await search(key.key, { query: 'upstream-down' });
    expect(failed.status).toBe(502);
    // Reserved 2 (search and answer), charged 1 (no answer came back).
    const unanswered = await search(key.key, { query: 'unanswerable', include_answer: true, include_usage: true });
    expect(unanswered.status).toBe(200);
    expect(unanswered.body.usage.credits).toBe(1);
    expect((await search(key.key)).status).toBe(200);
    const over = await search(key.key);
    expect(over.status).toBe(402);
    expect(over.body).toMatchObject({ limit: 'key', credits_used: 2, credits_limit: 2 });
  });

  test("the organization's allowance binds when it is the tightest: 402 naming the organization", async () => {
    const org = await organization();
    await changePlan(app, org.orgId, { allowance: 2 });
    const key = await org.key({ monthly_credit_limit: 100 });
    for (let i = 0; i < 2; i++) expect((await search(key.key, { query: `o${i}` })).status).toBe(200);
    const refused = await search(key.key);
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ limit: 'organization', credits_used: 2, credits_limit: 2 });
  });

  test.each([
    [{ monthly_credit_limit: -1 }, /monthly_credit_limit must be 0 or more/],
    [{ monthly_credit_limit: 1.5 }, /monthly_credit_limit must be a whole number/],
    [{ monthly_credit_limit: 'ten' }, /monthly_credit_limit must be a whole number/],
  ])('PATCH a key with %j is a 400 naming the field, and changes nothing', async (body, message) => {
    const org = await organization();
    const key = await org.key({ monthly_credit_limit: 7 });
    const response = await patch(org, `/api-keys/${key.id}`, body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(message);
    const listed = await call(app.url, 'GET', `/orgs/${org.orgId}/api-keys`, { token: org.session });
    expect(listed.body.keys[0]).toMatchObject({ name: 'key', monthly_credit_limit: 7 });
  });

  test('PATCH with an empty body changes nothing (200, the key as it is)', async () => {
    const org = await organization();
    const key = await org.key({ monthly_credit_limit: 7 });
    const response = await patch(org, `/api-keys/${key.id}`, {});
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'key', monthly_credit_limit: 7 });
    // It still names a key: another organization's, a malformed id, or a project of none, is a 404.
    const other = await organization();
    const theirs = await other.key();
    expect((await patch(org, `/api-keys/${theirs.id}`, {})).status).toBe(404);
    expect((await patch(org, '/api-keys/nope', {})).status).toBe(404);
    expect((await patch(org, `/api-keys/${key.id.toUpperCase()}`, {})).status).toBe(404);
    expect((await patch(org, `/projects/${other.projectId}`, {})).status).toBe(404);
    expect((await patch(org, '/projects/nope', {})).status).toBe(404);
  });

  test('a member who is not an owner or admin cannot set a limit (404, as for any write they may not make)', async () => {
    const org = await organization();
    const key = await org.key();
    const email = `member-${redis ? 'r' : 'm'}@a.test`;
    const added = await call(app.url, 'POST', `/orgs/${org.orgId}/members`, {
      token: org.session,
      body: { email, role: 'member' },
    });
    expect(added.status).toBeLessThan(300);
    const member = await signIn(app, app.smtp, email);
    const refused = await call(app.url, 'PATCH', `/orgs/${org.orgId}/api-keys/${key.id}`, {
      token: member,
      body: { monthly_credit_limit: 1 },
    });
    expect(refused.status).toBe(404);
  });
});

describe('budgets across two nodes (services mode: one database, one Redis)', () => {
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

  test('a key limit of 10 holds for 60 concurrent calls spread over both nodes', async () => {
    const org = await meteredOrganization(first, smtp, 'two-nodes@a.test');
    const key = await org.key({ monthly_credit_limit: 10 });
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        call((i % 2 ? first : second).url, 'POST', '/test/search', { token: key.key, body: { query: `n${i}` } }),
      ),
    );
    expect(countStatuses(responses)).toEqual({ 200: 10, 402: 50 });
    expect((await chargesOf(first, org.orgId)).length).toBe(10);
    // Every counter, the budgets' included, holds what the ledger says (once the settlements have run).
    const redis = first.app.get<RedisClient>(REDIS);
    const spendKey = counterKeys.keySpend(redisKeyspace(first.config), org.orgId, key.id, billingMonth(new Date()));
    await eventually(
      'the key budget counter settled',
      () => redis.get(spendKey),
      (value) => value === '10',
    );
    const report = await verifyLedger(first.app.get(Database), first.app.get<EventStore>(EVENT_STORE), {
      redis,
      redisPrefix: first.config.redisPrefix,
      redisCluster: first.config.redisClusterNodes.length > 0,
    });
    expect(report.differences).toEqual([]);
    expect(report.ok).toBe(true);
    // Each charge names the key-budget lease it drew on (one per node at this size): what a dead node's lease
    // spent is read from them.
    const charges = await chargesOf(first, org.orgId);
    const leases = new Set(charges.flatMap((charge) => charge.budget_leases ?? []));
    expect(charges.every((charge) => Array.isArray(charge.budget_leases) && charge.budget_leases.length === 1)).toBe(
      true,
    );
    const totals = first.app.get<ChargedTotals>(CHARGED_TOTALS);
    const month = billingMonth(new Date());
    let spent = 0;
    for (const lease of leases) spent += await totals.budgetLeaseCredits(lease, org.orgId, month);
    expect(spent).toBe(10);
    expect(await totals.budgetLeaseCredits('00000000-0000-4000-8000-0000', org.orgId, month)).toBe(0);
  });

  test('a limit set on one node binds on the other as soon as the PATCH answers (key and project)', async () => {
    const org = await meteredOrganization(first, smtp, 'two-nodes-raise@a.test');
    const key = await org.key({ monthly_credit_limit: 1 });
    const onSecond = (query: string) =>
      call(second.url, 'POST', '/test/search', { token: key.key, body: { query } }).then((r) => r.status);
    expect(await onSecond('a')).toBe(200);
    expect(await onSecond('b')).toBe(402);
    const raised = await call(first.url, 'PATCH', `/orgs/${org.orgId}/api-keys/${key.id}`, {
      token: org.session,
      body: { monthly_credit_limit: 3 },
    });
    expect(raised.status).toBe(200);
    expect(await onSecond('c')).toBe(200);
    const capped = await call(first.url, 'PATCH', `/orgs/${org.orgId}/projects/${org.projectId}`, {
      token: org.session,
      body: { monthly_credit_limit: 2 },
    });
    expect(capped.status).toBe(200);
    const refused = await call(second.url, 'POST', '/test/search', { token: key.key, body: { query: 'd' } });
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ limit: 'project', credits_used: 2, credits_limit: 2 });
  });
});
