import { createClient } from 'redis';
import { Database, quoteIdent } from '../../src/database/database.js';
import { counterKeys } from '../../src/metering/counter-keys.js';
import { AppProcess, runBuiltCli, stopAllAppProcesses } from '../support/app-process.js';
import { eventually, sleep } from '../support/eventually.js';
import { RoundRobinProxy, UPSTREAM_HEADER } from '../support/round-robin-proxy.js';
import { SmtpSink } from '../support/smtp-sink.js';
import { type Json, call, createProjectAndKey, signIn } from '../support/test-app.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL, uniqueName } from '../support/test-database.js';

/**
 * Credit and rate-limit leases (issue 13) across two app processes on one PostgreSQL schema and one Redis prefix:
 * the allowance and the per-minute limit hold for the service as a whole, a 402 comes with at most the documented
 * slack left, a process SIGKILLed while holding leases gives its unused credits back through the other one's
 * sweep, and a plan change retires the leases taken under the old plan.
 */

/**
 * The documented slack (docs/metering.md, credit leases across nodes) for two nodes: a 402 leaves less than the call's amount
 * in Redis, plus what the other node's lease has left, at most an eighth of what was left when it was granted.
 */
const slackOf = (allowance: number, callAmount: number) => callAmount - 1 + Math.floor(allowance / 8);

/** The longest a dead node's leases stay out: its heartbeat's lifetime, then one sweep, and a margin. */
const DEAD_NODE_SETTLED_MS = 10_000 + 5_000 + 5_000;

interface Answer extends Json {
  readonly node: number;
}

describe('credit and rate-limit leases across two processes', () => {
  const schema = uniqueName('fault_leases');
  const prefix = `${schema}:`;
  const space = { prefix, cluster: false };
  const month = new Date().toISOString().slice(0, 7);
  let smtp: SmtpSink;
  let db: Database;
  let redis: ReturnType<typeof createClient>;
  let env: Record<string, string>;
  let nodes: AppProcess[] = [];
  let proxy: RoundRobinProxy;
  let session: string;

  const cli = async (...args: string[]) => {
    const result = await runBuiltCli(args, { ...env, LOG_LEVEL: 'error' });
    if (result.code !== 0)
      throw new Error(`cli ${args.join(' ')} exited ${result.code}:\n${result.stdout}${result.stderr}`);
    return result.stdout.trim();
  };
  const organization = (name: string, allowance: number, rpm: number) =>
    cli(
      'org',
      'create',
      '--name',
      name,
      '--owner',
      'owner@leases.test',
      '--allowance',
      String(allowance),
      '--rpm-live',
      String(rpm),
    );
  const request = async (base: string, path: string, token: string, body: Record<string, unknown>): Promise<Answer> => {
    const answer = await call(base, 'POST', path, { token, body, timeoutMs: 20_000 });
    return { ...answer, node: Number(answer.headers.get(UPSTREAM_HEADER) ?? -1) };
  };
  const charged = async (orgId: string) =>
    Number(
      (
        await db.query<{ credits: string | null }>(
          `SELECT sum((data->>'credits')::int) AS credits FROM events
           WHERE event_type = 'CreditsCharged' AND data->>'org_id' = $1`,
          [orgId],
        )
      ).rows[0]!.credits ?? 0,
    );
  const outstanding = async (orgId: string) =>
    Object.values(await redis.hGetAll(counterKeys.leases(space, orgId, month))).reduce((s, v) => s + Number(v), 0);
  const counter = async (orgId: string) => Number((await redis.get(counterKeys.quota(space, orgId, month))) ?? 0);

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    db = Database.connect(TEST_DATABASE_URL, schema, 2);
    redis = createClient({ url: TEST_REDIS_URL });
    await redis.connect();
    env = {
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: schema,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      SMTP_URL: smtp.url,
      DEMO_SEED: 'false',
    };
    nodes = await Promise.all([AppProcess.start({ name: 'lease-a', env }), AppProcess.start({ name: 'lease-b', env })]);
    proxy = await RoundRobinProxy.start(nodes.map((n) => n.url));
    await organization('Bootstrap', 10, 10); // creates the owner
    session = await signIn(proxy, smtp, 'owner@leases.test');
  }, 240_000);

  afterAll(async () => {
    await proxy?.stop();
    await Promise.all(nodes.map((n) => n.stop().catch(() => null)));
    await stopAllAppProcesses();
    await smtp?.stop();
    await db?.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`).catch(() => {});
    await db?.close();
    for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      if (keys.length > 0) await redis.del(keys);
    }
    await redis?.close();
  }, 60_000);

  test('two nodes at an allowance of 40: never more than 40 charged, every 402 with at most the slack left', async () => {
    const allowance = 40;
    const orgId = await organization('Forty', allowance, 100_000);
    const { key } = await createProjectAndKey(proxy, session, orgId);
    const answers: Answer[] = [];
    // Workers on both nodes, each going on until it is refused, basic (1 credit) and advanced (2) calls mixed.
    const worker = async (w: number) => {
      for (let i = 0; ; i++) {
        const body = { query: `w${w} ${i}`, ...(i % 2 === 1 ? { search_depth: 'advanced' } : {}) };
        const answer = await request(proxy.url, '/search', key, body);
        answers.push(answer);
        if (answer.status !== 200) return;
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
    expect([...new Set(answers.map((a) => a.status))].sort()).toEqual([200, 402]);
    expect(new Set(answers.filter((a) => a.status === 200).map((a) => a.node)).size).toBe(2);
    const total = await charged(orgId);
    expect(total).toBeLessThanOrEqual(allowance);
    expect(allowance - total).toBeLessThanOrEqual(slackOf(allowance, 2));
    for (const refused of answers.filter((a) => a.status === 402)) {
      expect(refused.body.credits_limit).toBe(allowance);
      expect(refused.body.credits_used).toBeLessThanOrEqual(allowance);
      expect(allowance - (refused.body.credits_used as number)).toBeLessThan(2);
    }
    // The counter holds exactly what the ledger holds.
    await eventually(
      'the counter holds the ledger',
      () => counter(orgId),
      (v) => v === total,
    );
  }, 120_000);

  test('the rate limit across two nodes: never more than the limit in the window', async () => {
    const limit = 25;
    const orgId = await organization('Rate', 1_000_000, limit);
    const { key } = await createProjectAndKey(proxy, session, orgId);
    const answers = await Promise.all(
      Array.from({ length: limit * 4 }, (_, i) => request(proxy.url, '/search', key, { query: `r${i}` })),
    );
    const ok = answers.filter((a) => a.status === 200);
    expect([...new Set(answers.map((a) => a.status))].sort()).toEqual([200, 429]);
    expect(ok.length).toBeLessThanOrEqual(limit);
    expect(limit - ok.length).toBeLessThanOrEqual(Math.floor(limit / 8));
    expect(new Set(ok.map((a) => a.node)).size).toBe(2);
    for (const a of answers.filter((a) => a.status === 429)) {
      expect(a.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Calls after the burst: what the shares still held serves, never past the limit in the window.
    const after: Answer[] = [];
    for (let i = 0; i < 10; i++) after.push(await request(proxy.url, '/search', key, { query: `after ${i}` }));
    const okAfter = after.filter((a) => a.status === 200).length;
    expect(ok.length + okAfter).toBeLessThanOrEqual(limit);
    expect(after.slice(-2).map((a) => a.status)).toEqual([429, 429]);
    expect(await charged(orgId)).toBe(ok.length + okAfter);
  }, 60_000);

  test('a plan change mid-month: the old leases go back, the new allowance applies', async () => {
    const orgId = await organization('Plan change', 10_000, 100_000);
    const { key } = await createProjectAndKey(proxy, session, orgId);
    for (let i = 0; i < 20; i++)
      expect((await request(proxy.url, '/search', key, { query: `p${i}` })).status).toBe(200);
    const leasesKey = counterKeys.leases(space, orgId, month);
    const before = Object.keys(await redis.hGetAll(leasesKey));
    expect(before.length).toBeGreaterThanOrEqual(2);
    await cli('org', 'plan', orgId, '--plan', 'free', '--allowance', '30', '--rpm-live', '100000');
    // Each node sees the change within its plan cache's lifetime (PLAN_CACHE_MS), as without leases, and gives back
    // its old leases at its next call or maintenance pass (every second), whichever comes first.
    await sleep(3_500);
    let served = 0;
    const refused = await eventually(
      'the new allowance refuses',
      async () => {
        const answer = await request(proxy.url, '/search', key, { query: 'after' });
        if (answer.status === 200) served++;
        return answer;
      },
      (a) => a.status === 402,
      30_000,
      50,
    );
    expect(refused.body.credits_limit).toBe(30);
    const total = await charged(orgId);
    expect(total).toBeLessThanOrEqual(30);
    expect(total).toBeGreaterThanOrEqual(30 - slackOf(30, 1));
    expect(served).toBeGreaterThan(0);
    const after = Object.keys(await redis.hGetAll(leasesKey));
    for (const lease of before) expect(after).not.toContain(lease);
    await eventually(
      'the counter holds the ledger',
      () => counter(orgId),
      (v) => v === total,
    );
  }, 60_000);

  test("a node SIGKILLed while holding a key's and a project's budget leases: the ledger settles them too", async () => {
    const orgId = await organization('Budgets killed', 1_000, 100_000);
    const { key, keyId, projectId } = await createProjectAndKey(proxy, session, orgId);
    const limit = async (path: string, credits: number) =>
      expect(
        (
          await call(proxy.url, 'PATCH', `/orgs/${orgId}${path}`, {
            token: session,
            body: { monthly_credit_limit: credits },
          })
        ).status,
      ).toBe(200);
    await limit(`/api-keys/${keyId}`, 40);
    await limit(`/projects/${projectId}`, 50);
    const [victim, survivor] = nodes as [AppProcess, AppProcess];
    for (let i = 0; i < 10; i++)
      expect((await request(victim.url, '/search', key, { query: `b${i}` })).status).toBe(200);
    expect(await charged(orgId)).toBe(10);
    const budgets = [
      {
        leases: counterKeys.leases(space, orgId, month, { scope: 'key', id: keyId }),
        counter: counterKeys.keySpend(space, orgId, keyId, month),
      },
      {
        leases: counterKeys.leases(space, orgId, month, { scope: 'project', id: projectId }),
        counter: counterKeys.projectSpend(space, orgId, projectId, month),
      },
    ];
    const held = async (leasesKey: string) =>
      Object.values(await redis.hGetAll(leasesKey)).reduce((sum, v) => sum + Number(v), 0);
    // The victim took a lease of each budget (no Redis step per call), and holds part of each still.
    for (const budget of budgets) expect(await held(budget.leases)).toBeGreaterThan(0);
    await victim.kill();
    for (const budget of budgets) {
      await eventually(
        "the victim's budget leases are given back",
        () => held(budget.leases),
        (v) => v === 0,
        DEAD_NODE_SETTLED_MS,
        250,
      );
      await eventually(
        'the budget counter holds the ledger',
        () => redis.get(budget.counter),
        (v) => v === '10',
      );
    }
    // The survivor spends the rest of the key's budget, to the credit, and is then refused by the key.
    let answer: Answer;
    let served = 0;
    do {
      answer = await request(survivor.url, '/search', key, { query: `s${served}` });
      if (answer.status === 200) served++;
    } while (answer.status === 200 && served < 40);
    expect(answer.status).toBe(402);
    expect(answer.body).toMatchObject({ limit: 'key', credits_limit: 40 });
    expect(await charged(orgId)).toBe(40);
    await eventually(
      'the key counter holds the ledger',
      () => redis.get(budgets[0]!.counter),
      (v) => v === '40',
    );
    // Back on its address for the next test.
    nodes[0] = await AppProcess.start({ name: 'lease-a', env, port: victim.port });
  }, 150_000);

  test('a node SIGKILLed while holding leases: its unused credits come back within the lease timeout', async () => {
    const allowance = 60;
    const orgId = await organization('Killed', allowance, 100_000);
    const { key } = await createProjectAndKey(proxy, session, orgId);
    const [victim, survivor] = nodes as [AppProcess, AppProcess];
    // The victim takes a lease and spends part of it.
    for (let i = 0; i < 10; i++)
      expect((await request(victim.url, '/search', key, { query: `k${i}` })).status).toBe(200);
    const spent = await charged(orgId);
    expect(spent).toBe(10);
    const held = await outstanding(orgId);
    expect(held).toBeGreaterThan(0);
    await victim.kill();
    const killedAt = Date.now();
    await eventually(
      "the victim's leases are given back",
      () => outstanding(orgId),
      (v) => v === 0,
      DEAD_NODE_SETTLED_MS,
      250,
    );
    expect(Date.now() - killedAt).toBeLessThan(DEAD_NODE_SETTLED_MS);
    await eventually(
      'the counter holds the ledger',
      () => counter(orgId),
      (v) => v === spent,
    );
    // The survivor can now spend the whole rest of the allowance, to the credit.
    let answer: Answer;
    let served = 0;
    do {
      answer = await request(survivor.url, '/search', key, { query: `s${served}` });
      if (answer.status === 200) served++;
    } while (answer.status === 200 && served < allowance);
    expect(answer.status).toBe(402);
    expect(await charged(orgId)).toBe(allowance);
    await eventually(
      'the counter holds the ledger',
      () => counter(orgId),
      (v) => v === allowance,
    );
  }, 90_000);
});
