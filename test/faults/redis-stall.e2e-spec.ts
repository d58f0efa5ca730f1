import { eventually, sleep } from '../support/eventually.js';
import { type Outcome, expectLedgerAgrees, timedCall } from '../support/fault-harness.js';
import { changePlan, chargesOf, meteredOrganization } from '../support/metering-fixture.js';
import type { PrivateRedis } from '../support/private-redis.js';
import { type RedisFaultApp, startRedisFaultApp } from '../support/redis-fault-app.js';
import type { SmtpSink } from '../support/smtp-sink.js';
import type { TestApp } from '../support/test-app.js';

/** REDIS_STALL_TIMEOUT_MS in this test: a PING unanswered this long means Redis has stopped answering. */
const STALL_MS = 1_500;
/** The watch looks a quarter of STALL_MS apart; a loaded test machine adds its own delays. */
const MARGIN_MS = 1_000;
/** A refused call sends nothing to Redis: it answers at once. */
const REFUSED_WITHIN_MS = 500 + MARGIN_MS;
const FROZEN_MS = 6_000;
const CALL_TIMEOUT_MS = 20_000;
const UNAVAILABLE = 'The service is temporarily unavailable; retry shortly.';

/**
 * Redis freezes (SIGSTOP) with its connections open: nothing is refused, nothing is answered, and TCP would not
 * give up for minutes. Once a PING has waited REDIS_STALL_TIMEOUT_MS, new metered calls answer 503 at once, sending
 * nothing; the calls that had sent a command wait for its answer (given up, it could still run when Redis thaws, and
 * leave the counters off the ledger). After the thaw everything is served again, every 200 billed exactly once, and
 * the counters agree with the ledger.
 */
describe('a Redis that stops answering with its connection open: new calls refused at once, then service again', () => {
  let fault: RedisFaultApp;
  let redis: PrivateRedis;
  let smtp: SmtpSink;
  let app: TestApp;

  beforeAll(async () => {
    fault = await startRedisFaultApp({ env: { REDIS_STALL_TIMEOUT_MS: String(STALL_MS) } });
    ({ app, redis, smtp } = fault);
  }, 30_000);

  afterAll(async () => {
    await fault?.close();
  }, 30_000);

  test('503 at once while it is frozen, the calls that sent a command wait for it; served after the thaw; billed once', async () => {
    expect(app.config.redisStallTimeoutMs).toBe(STALL_MS);
    const org = await meteredOrganization(app, smtp, 'redis-stall@faults.test');
    const live = (await org.key()).key;
    const test = (await org.key({ environment: 'test' })).key;
    await changePlan(app, org.orgId, { allowance: 10_000, rpmLive: 100_000, rpmTest: 100_000 });

    const outcomes: Outcome[] = [];
    const call = async (label: string, path: string, body: Record<string, unknown>, token = live) => {
      const outcome = await timedCall(app.url, path, token, body, label, CALL_TIMEOUT_MS);
      outcomes.push(outcome);
      return outcome;
    };
    const probes = (label: string) =>
      Promise.all([
        call(`${label} search`, '/test/search', { query: label }),
        call(`${label} test key`, '/test/search', { query: label }, test),
        // Volume-priced: pricing it increments a counter in Redis.
        call(`${label} extract`, '/test/extract', { urls: ['https://x/a', 'https://x/b'] }),
      ]);

    for (let i = 0; i < 3; i++) expect((await call(`warm ${i}`, '/test/search', { query: `w${i}` })).status).toBe(200);
    expect((await call('warm extract', '/test/extract', { urls: ['https://x/w'] })).status).toBe(200);

    // In flight at the freeze: admitted before it, priced and charged after it.
    const inFlight = Promise.all([
      call('in flight search', '/test/search', { query: 'f', delay_ms: 300 }),
      call('in flight extract', '/test/extract', { urls: ['https://x/f1', 'https://x/f2'], delay_ms: 300 }),
    ]);
    await sleep(50);
    redis.freeze();
    const frozenAt = Date.now();

    const at = <T>(ms: number, what: () => Promise<T> | T) => sleep(ms - (Date.now() - frozenAt)).then(what);
    let thawedAt = 0;
    const unanswered = async () => {
      const text = await (await fetch(`${app.url}/metrics`)).text();
      return Number(/^redis_unanswered_seconds (\S+)$/m.exec(text)?.[1]);
    };
    const signIn = async () => {
      const sentAt = Date.now();
      const response = await fetch(`${app.url}/auth/magic-link`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'stall-sign-in@faults.test' }),
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
      return { status: response.status, waitedMs: Date.now() - sentAt, answeredAt: Date.now() };
    };
    const [early, refused, frozenMetric, frozenSignIn, later, flown] = await Promise.all([
      // Before the watch can tell: these send their commands and wait like the calls in flight.
      at(100, () => probes('early')),
      at(STALL_MS + 2 * MARGIN_MS, () => probes('refused')),
      at(STALL_MS + 2 * MARGIN_MS, unanswered),
      // The control plane's sign-in limits are in Redis too: refused alike.
      at(STALL_MS + 2 * MARGIN_MS, signIn),
      at(FROZEN_MS - 1_000, () => probes('later')),
      inFlight,
      at(FROZEN_MS, () => {
        thawedAt = Date.now();
        redis.thaw();
      }),
    ]);

    const resumed = await eventually(
      'served again after the thaw',
      () => call('resumed', '/test/search', { query: 'resumed' }),
      (o) => o.status === 200,
      10_000,
    );
    expect(resumed.answeredAt - thawedAt).toBeLessThan(5_000);
    expect((await call('resumed extract', '/test/extract', { urls: ['https://x/r'] })).status).toBe(200);
    // /metrics says how long Redis has left the PING unanswered: past the bound while frozen, then under a second.
    expect(frozenMetric).toBeGreaterThan(STALL_MS / 1000);
    expect(frozenSignIn).toMatchObject({ status: 503 });
    expect(frozenSignIn.waitedMs).toBeLessThan(REFUSED_WITHIN_MS);
    expect(frozenSignIn.answeredAt).toBeLessThan(thawedAt);
    expect((await signIn()).status).toBe(202);
    expect(await unanswered()).toBeLessThan(1);

    const waited = (o: Outcome) => ({ label: o.label, status: o.status, waitedMs: o.answeredAt - o.sentAt });
    // Once Redis is known not to answer: a clear 503 at once, while it is still frozen.
    for (const o of [...refused, ...later]) {
      expect({ label: o.label, status: o.status }).toEqual({ label: o.label, status: 503 });
      expect((o.body as { error?: string }).error).toBe(UNAVAILABLE);
      expect(o.answeredAt).toBeLessThan(thawedAt);
    }
    expect([...refused, ...later].map(waited).filter((o) => o.waitedMs > REFUSED_WITHIN_MS)).toEqual([]);
    // The calls that had sent a command: answered once Redis answers them, served or not (never lost).
    for (const o of [...early, ...flown]) expect([200, 503]).toContain(o.status);
    expect(outcomes.filter((o) => o.status === 0)).toEqual([]);

    // Every 200 billed exactly once; nothing else billed.
    const charges = await chargesOf(app, org.orgId);
    const byRequest = new Map(charges.map((c) => [c.request_id, c]));
    expect(byRequest.size).toBe(charges.length);
    const served = outcomes.filter((o) => o.status === 200);
    for (const o of served) expect(byRequest.has(o.requestId!)).toBe(true);
    expect(charges).toHaveLength(served.length);

    await expectLedgerAgrees(app, redis.url, 15_000);
  }, 90_000);
});
