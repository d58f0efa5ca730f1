import { Database } from '../../src/database/database.js';
import fc from 'fast-check';
import { billingMonth, counterKeys } from '../../src/metering/counter-keys.js';
import { redisKeyspace } from '../../src/redis/redis-keyspace.js';
import { REDIS, type RedisClient } from '../../src/redis/redis.module.js';
import { call } from '../support/test-app.js';
import type { UpstreamMode } from '../support/upstream-servers.js';
import { type Plan, ROUTES, type RouteSpec, fcParams, planFor, routeKey } from './arbitraries.js';
import { type FuzzApp, Fuzzer, describe as describeSent, startFuzzApp } from './harness.js';

const DATA_PLANE = ROUTES.filter((r) => r.auth === 'apiKey' || r.auth === 'mcp');
const METERED_REST = DATA_PLANE.filter((r) => r.metered && r.path !== '/mcp');
const JSON_BODY_ROUTES = DATA_PLANE.filter((r) => r.method === 'POST');
const route = (key: string): RouteSpec => ROUTES.find((r) => routeKey(r) === key)!;

/**
 * The data plane (search, verticals, extract, map, crawl, MCP, usage) with requests that mostly pass
 * authentication and validation, so that the work runs and is billed: a refusal never charges, a success charges
 * exactly once (an idempotent retry not at all), and afterwards the event store, the Redis counters and the read
 * models agree. Reproduce a failure with the seed it prints: FC_SEED=… npm test -- test/property/data-plane
 */
describe('property: the data plane bills every success once and no refusal', () => {
  let fz: FuzzApp;
  let fuzzer: Fuzzer;

  beforeAll(async () => {
    fz = await startFuzzApp();
    fuzzer = new Fuzzer(fz);
  }, 60_000);
  afterAll(async () => {
    fuzzer?.report();
    await fz?.close();
  });

  test('any valid-ish request to a data-plane route', async () => {
    const plans = fc.oneof(
      ...DATA_PLANE.map((route) => ({ weight: route.metered ? 4 : 1, arbitrary: planFor(route, fz.ctx, 'valid') })),
    );
    await fc.assert(fuzzer.property(plans), fcParams(150, 270_000));
  }, 300_000);

  test('a retry with the same Idempotency-Key replays a success and is not billed again', async () => {
    const retried = fc
      .tuple(fc.oneof(...METERED_REST.map((route) => planFor(route, fz.ctx, 'valid'))), fc.uuid())
      .map(([plan, key]): Plan => ({ ...plan, headers: [...plan.headers, ['idempotency-key', key]] }));
    await fc.assert(
      fc.asyncProperty(retried, async (plan) => {
        const first = await fuzzer.check(plan);
        fc.pre(first !== null);
        const second = (await fuzzer.check(plan))!;
        if (first!.status === 200) {
          expect({ request: describeSent(second), replayed: second.headers['idempotent-replayed'] }).toEqual({
            request: describeSent(second),
            replayed: 'true',
          });
          expect(second.text).toBe(first!.text);
        }
      }),
      fcParams(30, 170_000),
    );
  }, 200_000);

  test('a body that is not UTF-8 JSON (another media type, charset or content coding) is a 415, never billed', async () => {
    const notJson = fc.oneof(
      fc.constantFrom(
        'application/x-www-form-urlencoded',
        'text/plain',
        'text/plain; charset=utf-8',
        'multipart/form-data; boundary=x',
        'application/octet-stream',
        'application/xml',
        'application/vnd.api+json',
        'text/json',
      ),
      fc
        .constantFrom('utf-16', 'UTF-16LE', 'utf-32', 'iso-8859-1', 'latin1', 'us-ascii', 'windows-1252', '"UTF-16"')
        .map((charset) => `application/json; charset=${charset}`),
    );
    const coding = fc.constantFrom('gzip', 'x-gzip', 'deflate', 'br', 'compress', 'zstd', 'gzip, identity', 'GZIP');
    const variant = fc.oneof(
      notJson.map((contentType) => ({ contentType, headers: [] as [string, string][] })),
      coding.map((value) => ({
        contentType: 'application/json',
        headers: [['content-encoding', value]] as [string, string][],
      })),
    );
    const plans = fc
      .tuple(fc.oneof(...JSON_BODY_ROUTES.map((route) => planFor(route, fz.ctx, 'valid'))), variant)
      .map(([plan, { contentType, headers }]): Plan => {
        // A body of the route's own (a small one: a body over the size limit would be a 413 first).
        const small = plan.body.kind === 'json' && !JSON.stringify(plan.body.value).includes('"$huge"');
        const body = small ? plan.body : { kind: 'json' as const, value: { query: 'fuzz' } };
        return { ...plan, method: 'POST', body, contentType, headers };
      });
    await fc.assert(
      fc.asyncProperty(plans, async (plan) => {
        const sent = await fuzzer.check(plan);
        fc.pre(sent !== null);
        expect(describeSent(sent!)).toMatch(/ → 415 in /);
      }),
      fcParams(40, 100_000),
    );
  }, 120_000);

  test('upstream search APIs that fail, hang or answer junk: a 502, never billed', async () => {
    const modes = fc.constantFrom<UpstreamMode>(
      'ok',
      'http-500',
      'malformed-json',
      'wrong-shape',
      'html',
      'engines-failed',
      'search-error',
      'hang',
    );
    const searches = fc.oneof(
      planFor(route('POST /search'), fz.ctx, 'valid'),
      planFor(route('POST /search/{vertical}'), fz.ctx, 'valid'),
    );
    try {
      await fc.assert(
        fc.asyncProperty(searches, fc.tuple(modes, modes, modes), async (plan, [searxng, brave, serpapi]) => {
          // A hang lasts UPSTREAM_TIMEOUT_MS: only now and then.
          fc.pre([searxng, brave, serpapi].filter((m) => m === 'hang').length <= 1);
          const [s, b, p] = fz.upstreams;
          s!.mode = searxng;
          b!.mode = brave;
          p!.mode = serpapi;
          fc.pre((await fuzzer.check(plan, [502])) !== null);
        }),
        fcParams(30, 170_000),
      );
    } finally {
      for (const upstream of fz.upstreams) upstream.reset();
    }
  }, 200_000);

  test('afterwards the ledger, the counters and the usage read models agree', async () => {
    const redis = fz.app.app.get<RedisClient>(REDIS, { strict: false });
    const month = billingMonth(new Date());
    for (const [name, orgId] of Object.entries(fz.ctx.orgIds)) {
      const session = name === 'b' ? fz.sessions.ownerB : fz.sessions.ownerA;
      const charges = (await fuzzer.watch.since({ position: 0, quota: {} })).events.filter(
        (e) => e.type === 'CreditsCharged' && e.data.org_id === orgId && e.data.billing_month === month,
      );
      const sum = (environment: string) =>
        charges.filter((c) => c.data.key_environment === environment).reduce((s, c) => s + Number(c.data.credits), 0);
      const expected = { credits_used: sum('live'), test_credits_used: sum('test'), requests: charges.length };
      // The projections follow the store asynchronously: wait until they have caught up.
      let usage: Record<string, unknown> = {};
      for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
        usage = (await call(fz.app.url, 'GET', `/orgs/${orgId}/usage`, { token: session.token })).body;
        if (usage.requests === expected.requests) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect({ org: name, ...expected }).toEqual({
        org: name,
        credits_used: usage.credits_used,
        test_credits_used: usage.test_credits_used,
        requests: usage.requests,
      });
      const counter = await redis.get(counterKeys.quota(redisKeyspace(fz.app.config), orgId, month));
      // The counter also holds what research tasks not run yet (this app runs none) reserved at submission.
      const open = await fz.app.app.get(Database, { strict: false }).query<{ reserved: number }>(
        `SELECT coalesce(sum(reserved_credits), 0)::int AS reserved FROM research_jobs
         WHERE org_id = $1 AND billing_month = $2 AND key_environment = 'live' AND status IN ('pending', 'in_progress')`,
        [orgId, month],
      );
      const reserved = open.rows[0]!.reserved;
      expect({ org: name, counter: Number(counter ?? 0) }).toEqual({
        org: name,
        counter: expected.credits_used + reserved,
      });
    }
    // A good share of it was billed (the fuzz reached the work, not only refusals).
    expect(fuzzer.billed).toBeGreaterThan(fuzzer.sent / 10);
  }, 60_000);
});
