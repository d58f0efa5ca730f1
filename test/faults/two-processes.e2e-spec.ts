import { Database, quoteIdent } from '../../src/database/database.js';
import { AppProcess, runBuiltCli, stopAllAppProcesses } from '../support/app-process.js';
import { FixtureSite } from '../support/fixture-site.js';
import { RoundRobinProxy, UPSTREAM_HEADER } from '../support/round-robin-proxy.js';
import { SmtpSink, signInTokenFrom } from '../support/smtp-sink.js';
import { type Json, call, createProjectAndKey } from '../support/test-app.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL, deleteTestRedisKeys, uniqueName } from '../support/test-database.js';

/**
 * Issue 8, fault 2: two app processes on one PostgreSQL schema and one Redis prefix, behind one address (a
 * round-robin proxy: consecutive requests go to alternate processes). Through that address, the per-key rate limit,
 * the monthly allowance, Idempotency-Keys and key revocations hold for the service as a whole, not per process.
 * The state is checked in the events themselves, and `ledger verify` and `projections verify` end it.
 */

const RATE_LIMIT = 10;
const ALLOWANCE = 40;
/** The extract of this fixture page takes long enough for a second call to arrive while it runs. */
const SLOW_PAGE_MS = 2_500;

interface Answer extends Json {
  /** Which process served it (the proxy's header). */
  readonly node: number;
}

async function request(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const answer = await call(base, method, path, { timeoutMs: 20_000, ...options });
  return { ...answer, node: Number(answer.headers.get(UPSTREAM_HEADER)) };
}

const countBy = <T>(items: readonly T[], key: (item: T) => string | number) => {
  const counts: Record<string, number> = {};
  for (const item of items) counts[String(key(item))] = (counts[String(key(item))] ?? 0) + 1;
  return counts;
};

describe('two app processes behind one address', () => {
  const schema = uniqueName('fault_two');
  const prefix = `${schema}:`;
  let smtp: SmtpSink;
  let site: FixtureSite;
  let db: Database;
  let serviceEnv: Record<string, string>;
  let nodes: AppProcess[] = [];
  let proxy: RoundRobinProxy;
  let base: string;
  let session: string;
  let started = Date.now();
  let setupMs = 0;

  const cli = async (...args: string[]) => {
    const result = await runBuiltCli(args, { ...serviceEnv, LOG_LEVEL: 'error' });
    if (result.code !== 0)
      throw new Error(`cli ${args.join(' ')} exited ${result.code}:\n${result.stdout}${result.stderr}`);
    return result.stdout;
  };

  /** An organization whose plan has these limits, owned by owner@two.test (the operator CLI, a child process). */
  const organization = async (name: string, allowance: number, rpm: number): Promise<string> =>
    (
      await cli(
        'org',
        'create',
        '--name',
        name,
        '--owner',
        'owner@two.test',
        '--allowance',
        String(allowance),
        '--rpm-live',
        String(rpm),
      )
    ).trim();
  const projectAndKey = (orgId: string) => createProjectAndKey({ url: base }, session, orgId);
  const chargesOf = async (orgId: string) =>
    (
      await db.query<{ request_id: string; idempotency_key: string | null; credits: number }>(
        `SELECT data->>'request_id' AS request_id, data->>'idempotency_key' AS idempotency_key,
           (data->>'credits')::int AS credits
         FROM events WHERE event_type = 'CreditsCharged' AND data->>'org_id' = $1`,
        [orgId],
      )
    ).rows;

  let rateOrg: string;
  let quotaOrg: string;
  let mainOrg: string;

  beforeAll(async () => {
    started = Date.now();
    smtp = await SmtpSink.start();
    site = new FixtureSite();
    site.route('/slow', (_request, response) => {
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(
          '<!doctype html><html><head><title>Slow</title></head><body><main><h1>Slow page</h1>' +
            `<p>${'A page that takes its time to arrive. '.repeat(20)}</p></main></body></html>`,
        );
      }, SLOW_PAGE_MS);
    });
    await site.start();
    db = Database.connect(TEST_DATABASE_URL, schema, 2);
    serviceEnv = {
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: schema,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      SMTP_URL: smtp.url,
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      DEMO_SEED: 'false',
    };
    // The two processes, and (at the same time) organizations with the limits under test, owned by one user: an
    // operator's CLI command each.
    [nodes, [rateOrg, quotaOrg, mainOrg]] = await Promise.all([
      Promise.all([
        AppProcess.start({ name: 'node-a', env: serviceEnv }),
        AppProcess.start({ name: 'node-b', env: serviceEnv }),
      ]),
      Promise.all([
        organization('Rate limited', 1_000_000, RATE_LIMIT),
        organization('Small allowance', ALLOWANCE, 100_000),
        organization('Main', 1_000_000, 100_000),
      ]),
    ]);
    proxy = await RoundRobinProxy.start(nodes.map((n) => n.url));
    base = proxy.url;

    // The owner signs in through the one address: the link is asked on one process and redeemed on the other.
    const asked = await request(base, 'POST', '/auth/magic-link', { body: { email: 'owner@two.test' } });
    expect(asked.status).toBe(202);
    const mail = await smtp.waitForMail('owner@two.test');
    const verified = await request(base, 'POST', '/auth/magic-link/verify', { body: { token: signInTokenFrom(mail) } });
    expect(verified.status).toBe(200);
    expect(verified.node).not.toBe(asked.node);
    session = verified.body.session_token as string;
    setupMs = Date.now() - started;
  }, 240_000);

  afterAll(async () => {
    await proxy?.stop();
    await Promise.all(nodes.map((n) => n.stop().catch(() => null)));
    await stopAllAppProcesses();
    await smtp?.stop();
    await site?.stop();
    await db?.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`).catch(() => {});
    await db?.close();
    await deleteTestRedisKeys(prefix);
  }, 60_000);

  test('the per-key rate limit is one limit for both processes', async () => {
    const { key } = await projectAndKey(rateOrg);
    const answers = await Promise.all(
      Array.from({ length: RATE_LIMIT * 3 }, (_, i) =>
        request(base, 'POST', '/search', { token: key, body: { query: `limited ${i}` } }),
      ),
    );
    expect(countBy(answers, (a) => a.node)).toEqual({ 0: (RATE_LIMIT * 3) / 2, 1: (RATE_LIMIT * 3) / 2 });
    expect(countBy(answers, (a) => a.status)).toEqual({ 200: RATE_LIMIT, 429: RATE_LIMIT * 2 });
    for (const a of answers) expect(a.headers.get('x-ratelimit-limit')).toBe(String(RATE_LIMIT));
    for (const a of answers.filter((a) => a.status === 429)) {
      expect(a.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Both processes served some of the allowed calls, and only those were billed.
    expect(new Set(answers.filter((a) => a.status === 200).map((a) => a.node)).size).toBe(2);
    const charges = await chargesOf(rateOrg);
    expect(charges.map((c) => c.request_id).sort()).toEqual(
      answers
        .filter((a) => a.status === 200)
        .map((a) => a.body.request_id as string)
        .sort(),
    );
  }, 60_000);

  test('the monthly allowance is one allowance: 402 at the limit, never more charged under parallel calls', async () => {
    const { key } = await projectAndKey(quotaOrg);
    const answers = await Promise.all(
      Array.from({ length: 160 }, (_, i) =>
        request(base, 'POST', '/search', {
          token: key,
          body: { query: `allowance ${i}`, ...(i % 2 === 1 ? { search_depth: 'advanced' } : {}) },
        }),
      ),
    );
    expect(Object.keys(countBy(answers, (a) => a.status)).sort()).toEqual(['200', '402']);
    expect(new Set(answers.filter((a) => a.status === 200).map((a) => a.node)).size).toBe(2);
    const charges = await chargesOf(quotaOrg);
    const total = charges.reduce((sum, c) => sum + c.credits, 0);
    expect(total).toBeLessThanOrEqual(ALLOWANCE);
    expect(total).toBeGreaterThanOrEqual(ALLOWANCE - 1);
    const ok = answers.filter((a) => a.status === 200);
    expect(charges.map((c) => c.request_id).sort()).toEqual(ok.map((a) => a.body.request_id as string).sort());
    for (const a of answers.filter((a) => a.status === 402)) {
      expect(a.body.credits_limit).toBe(ALLOWANCE);
      expect(a.body.credits_used).toBeLessThanOrEqual(ALLOWANCE);
      expect(a.headers.get('x-credits-limit')).toBe(String(ALLOWANCE));
    }
    // Afterwards, on either process: the allowance is spent.
    const after = await Promise.all(
      [0, 1].map(() => request(base, 'POST', '/search', { token: key, body: { query: 'more' } })),
    );
    expect(after.map((a) => [a.node, a.status]).sort()).toEqual([
      [0, 402],
      [1, 402],
    ]);
    expect(after.map((a) => a.headers.get('x-credits-used'))).toEqual([String(total), String(total)]);
  }, 60_000);

  test('an Idempotency-Key is one key: the same call on both processes bills once and replays', async () => {
    const { key } = await projectAndKey(mainOrg);
    const idempotencyKey = `two-${schema}-1`;
    const body = { urls: [site.url('/slow?idempotent=1')] };
    const headers = { 'idempotency-key': idempotencyKey };
    // At once, one on each process: one runs it; the other finds it running (409), or, should it come only once the
    // first is done (a loaded machine), replays it.
    const both = await Promise.all([
      request(base, 'POST', '/extract', { token: key, body, headers }),
      request(base, 'POST', '/extract', { token: key, body, headers }),
    ]);
    expect(both.map((a) => a.node).sort()).toEqual([0, 1]);
    const ran = both.filter((a) => a.status === 200 && a.headers.get('idempotent-replayed') === null);
    expect(ran).toHaveLength(1);
    const served = ran[0]!;
    const other = both.find((a) => a !== served)!;
    expect(other.status === 409 || (other.status === 200 && other.headers.get('idempotent-replayed') === 'true')).toBe(
      true,
    );
    if (other.status === 200) expect(other.body).toEqual(served.body);
    expect(served.body.results).toHaveLength(1);
    // Then on each process again: replays of that answer.
    const replays = await Promise.all(
      [0, 1].map(() => request(base, 'POST', '/extract', { token: key, body, headers })),
    );
    expect(replays.map((r) => r.node).sort()).toEqual([0, 1]);
    for (const replay of replays) {
      expect(replay.status).toBe(200);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(served.body);
    }
    // The same key with another body is refused on either process.
    const mismatched = await Promise.all(
      [0, 1].map(() =>
        request(base, 'POST', '/extract', { token: key, body: { urls: [site.url('/slow?other')] }, headers }),
      ),
    );
    expect(mismatched.map((o) => [o.node, o.status]).sort()).toEqual([
      [0, 422],
      [1, 422],
    ]);
    const charges = (await chargesOf(mainOrg)).filter((c) => c.idempotency_key === idempotencyKey);
    expect(charges.map((c) => c.request_id)).toEqual([served.body.request_id]);
  }, 60_000);

  test('a key revoked through one process is refused by both at once', async () => {
    const { key, keyId } = await projectAndKey(mainOrg);
    // Both processes have authenticated (and cached) the key.
    const before = await Promise.all(
      [0, 1].map(() => request(base, 'POST', '/search', { token: key, body: { query: 'x' } })),
    );
    expect(before.map((b) => [b.node, b.status]).sort()).toEqual([
      [0, 200],
      [1, 200],
    ]);
    const revoked = await request(base, 'DELETE', `/orgs/${mainOrg}/api-keys/${keyId}`, { token: session });
    expect(revoked.status).toBe(200);
    // The very next calls, on each process, are refused.
    const after = [];
    for (let i = 0; i < 4; i++)
      after.push(await request(base, 'POST', '/search', { token: key, body: { query: 'y' } }));
    expect(new Set(after.map((a) => a.node)).size).toBe(2);
    expect(after.map((a) => a.status)).toEqual([401, 401, 401, 401]);
    expect(after[0]!.body.error).toMatch(/revoked/i);
  }, 60_000);

  test('the ledger and the read models verify against the events, and neither process logged an error', async () => {
    const ledger = await runBuiltCli(['ledger', 'verify', '--json'], { ...serviceEnv, LOG_LEVEL: 'error' });
    expect({ code: ledger.code, output: ledger.stdout + ledger.stderr }).toMatchObject({ code: 0 });
    const charges = Number(
      (await db.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE event_type = 'CreditsCharged'`)).rows[0]!
        .n,
    );
    // Every charge projected; the quota counters of the three organizations and the extract units counter compared.
    expect(JSON.parse(ledger.stdout)).toMatchObject({
      ok: true,
      charges,
      notYetProjected: 0,
      redisChecked: true,
      countersCompared: 4,
      differences: [],
    });
    const projections = await runBuiltCli(['projections', 'verify'], { ...serviceEnv, LOG_LEVEL: 'error' });
    expect({ code: projections.code, out: projections.stdout }).toEqual({
      code: 0,
      out: expect.stringContaining('read models match'),
    });
    for (const node of nodes) {
      const errors = node
        .logLines()
        .filter((line) => line.level === 'error' || line.level === 'fatal')
        .filter((line) => line.route !== '/readyz');
      expect({ node: node.name, errors }).toEqual({ node: node.name, errors: [] });
    }
    process.stdout.write(
      `two-processes: requests per process ${JSON.stringify(proxy.served)}; setup ${setupMs} ms, ` +
        `total ${Date.now() - started} ms\n`,
    );
  }, 120_000);
});
