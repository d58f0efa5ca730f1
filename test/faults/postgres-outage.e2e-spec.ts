import { ProjectionRunner } from '../../projections/projection-runner.js';
import { EVENT_STORE, type EventStore, START } from '../../src/event-store/event-store.port.js';
import { MESSAGES } from '../../src/metering/metering.errors.js';
import { eventually, sleep } from '../support/eventually.js';
import { type Outcome, timedCall } from '../support/fault-harness.js';
import { FixtureSite } from '../support/fixture-site.js';
import { changePlan, chargesOf, meteredOrganization } from '../support/metering-fixture.js';
import { MeteredTestRoutesModule } from '../support/metered-test-routes.js';
import { operatorCli } from '../support/operator-cli.js';
import { SmtpSink } from '../support/smtp-sink.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { type TestApp, dropSchema, startTestApp } from '../support/test-app.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/test-database.js';

/** The app's PostgreSQL waits, kept short here: getting a connection, and one statement's answer. */
const CONNECT_TIMEOUT_MS = 1_000;
const QUERY_TIMEOUT_MS = 2_000;
/** The longest a call may take while PostgreSQL is gone: a few bounded waits in a row, never an open-ended one. */
const OUTAGE_ANSWER_BOUND_MS = 3 * (CONNECT_TIMEOUT_MS + QUERY_TIMEOUT_MS);
/** A call the test gives up on (status 0) is a hang: a finding. */
const CALL_TIMEOUT_MS = 15_000;
const OUTAGE_MS = 3_000;

const UNAVAILABLE = 'The service is temporarily unavailable; retry shortly.';

/**
 * The app reaches PostgreSQL only through a TCP proxy: its pool, the PostgreSQL event store (appends, reads,
 * LISTEN) and the projector. Taking the proxy away takes PostgreSQL away from all of them at once, while the test's
 * own checks (and the operator CLI) reach PostgreSQL directly. Redis stays up (the shared test Redis, own prefix).
 */
describe('PostgreSQL taken away mid-load, then given back', () => {
  let proxy: TcpProxy;
  let smtp: SmtpSink;
  let site: FixtureSite;
  let app: TestApp;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const direct = new URL(TEST_DATABASE_URL);
    proxy = await TcpProxy.start({ host: direct.hostname, port: Number(direct.port || 5432) });
    smtp = await SmtpSink.start();
    site = await new FixtureSite().start();
    const viaProxy = new URL(TEST_DATABASE_URL);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    app = await startTestApp({
      env: {
        DATABASE_URL: viaProxy.toString(),
        DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
        DATABASE_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
        SMTP_URL: smtp.url,
        FETCH_ALLOW_HOSTS: '127.0.0.1',
        LOG_LEVEL: process.env.FAULT_LOG_LEVEL ?? 'silent',
      },
      modules: [MeteredTestRoutesModule],
    });
    env = {
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: app.schema,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: app.config.redisPrefix,
      LOG_LEVEL: 'error',
    };
  }, 30_000);

  afterAll(async () => {
    proxy?.resume();
    await app?.close().catch(() => {});
    await proxy?.close();
    await site?.stop();
    await smtp?.stop();
    if (app) await dropSchema(app.schema);
  }, 30_000);

  /** Parallel metered calls (metering only, /search over the index, /extract of a fixture page) around an outage. */
  async function outage(mode: 'cut' | 'blackhole', email: string) {
    const org = await meteredOrganization(app, smtp, email);
    const key = (await org.key()).key;
    const unusedKey = (await org.key({ name: 'first used during the outage' })).key;
    await changePlan(app, org.orgId, { allowance: 100_000, rpmLive: 100_000 });

    const outcomes: Outcome[] = [];
    let phase: 'before' | 'outage' | 'restored' = 'before';
    const requests: [string, Record<string, unknown>][] = [
      ['/test/search', { query: 'metered only' }],
      ['/search', { query: 'harbour' }],
      ['/extract', { urls: [site.url('/articles/harbour-news.html')] }],
    ];
    const send = async (i: number, token = key) => {
      const [path, body] = requests[i % requests.length]!;
      const outcome = await timedCall(app.url, path, token, body, `${phase} ${path}`, CALL_TIMEOUT_MS);
      outcomes.push(outcome);
      return outcome;
    };
    for (let i = 0; i < requests.length; i++) expect((await send(i)).status).toBe(200);

    let stop = false;
    const worker = async (w: number) => {
      for (let i = w; !stop; i++) {
        await send(i);
        await sleep(20);
      }
    };
    const workers = Array.from({ length: 3 }, (_, w) => worker(w));
    try {
      await sleep(300);

      phase = 'outage';
      const outageStarted = Date.now();
      if (mode === 'cut') proxy.cut();
      else proxy.blackhole();
      await sleep(100);
      const [ready, fresh] = await Promise.all([
        timedCall(app.url, '/readyz', '', undefined, 'readyz', CALL_TIMEOUT_MS),
        send(0, unusedKey),
      ]);
      await sleep(Math.max(0, OUTAGE_MS - (Date.now() - outageStarted)));

      phase = 'restored';
      proxy.resume();
      const firstOk = await eventually(
        'a metered call succeeds again',
        () => send(0),
        (o) => o.status === 200,
      );
      const readyAgain = await eventually(
        '/readyz ready again',
        () => timedCall(app.url, '/readyz', '', undefined, 'readyz', CALL_TIMEOUT_MS),
        (o) => o.status === 200,
      );
      const freshAfter = await send(0, unusedKey);
      await sleep(300);
      stop = true;
      await Promise.all(workers);
      return { org, outcomes, ready, fresh, firstOk, readyAgain, freshAfter };
    } finally {
      stop = true;
      proxy.resume();
      await Promise.all(workers);
    }
  }

  async function expectFailedClosed(run: Awaited<ReturnType<typeof outage>>) {
    const { org, outcomes } = run;
    // Nothing hung: every call got an answer, and only 200 or 503.
    expect(outcomes.filter((o) => o.status === 0).map((o) => `${o.label}: ${o.transportError}`)).toEqual([]);
    expect([...new Set(outcomes.map((o) => o.status))].sort()).toEqual([200, 503]);
    for (const o of outcomes.filter((o) => o.status === 503)) {
      expect(typeof o.body.error).toBe('string');
      expect(o.body.detail).toEqual({ error: o.body.error });
      expect([UNAVAILABLE, MESSAGES.chargeFailed, MESSAGES.chargeUnknown]).toContain(o.body.error);
    }
    expect(outcomes.filter((o) => o.status === 503).length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...outcomes.map((o) => o.answeredAt - o.sentAt))).toBeLessThan(OUTAGE_ANSWER_BOUND_MS);

    // Not ready while it is gone, naming the database; an unknown key is a 503, not a 401.
    expect(run.ready.status).toBe(503);
    expect(run.ready.body.failing).toContain('database');
    expect(run.fresh.status).toBe(503);
    // Back by itself: calls, readiness, and a key looked up for the first time.
    expect(run.firstOk.status).toBe(200);
    expect(run.readyAgain.body.status).toBe('ready');
    expect(run.freshAfter.status).toBe(200);

    // Every 200 is billed exactly once, by a durable charge; a charge without a 200 can only be a call whose append
    // outcome was unknown when PostgreSQL went away (answered 503: "could not confirm").
    const store = app.app.get<EventStore>(EVENT_STORE);
    const head = await store.headPosition();
    if (head !== START) await app.app.get(ProjectionRunner).waitFor(head, 15_000);
    const charges = await chargesOf(app, org.orgId);
    const chargesByRequest = new Map<string, number>();
    for (const c of charges) chargesByRequest.set(c.request_id, (chargesByRequest.get(c.request_id) ?? 0) + 1);
    expect([...chargesByRequest.values()].every((n) => n === 1)).toBe(true);
    const served = outcomes.filter((o) => o.status === 200);
    for (const o of served) expect(chargesByRequest.has(o.requestId!)).toBe(true);
    const unserved = charges.filter((c) => !served.some((o) => o.requestId === c.request_id));
    for (const c of unserved) {
      const answer = outcomes.find((o) => o.requestId === c.request_id);
      expect(answer?.body.error).toBe(MESSAGES.chargeUnknown);
    }
    return { served: served.length, charges: charges.length, unserved: unserved.length };
  }

  async function expectVerified() {
    // The counters settle calls whose charge outcome was unknown once PostgreSQL is back: allow them a moment.
    const ledger = await eventually(
      'ledger verify exits 0',
      () => operatorCli(env, 'ledger', 'verify'),
      (r) => r.code === 0,
      20_000,
      1_000,
    );
    expect(ledger.stdout).toMatch(/ledger matches the events/);
    const projections = await operatorCli(env, 'projections', 'verify');
    expect(projections).toMatchObject({ code: 0, stderr: '' });
  }

  test('cut (connections reset, new ones refused): 503s with an error, nothing unbilled, resumes', async () => {
    const run = await outage('cut', 'pg-cut@faults.test');
    await expectFailedClosed(run);
    await expectVerified();
  }, 60_000);

  test('blackhole (PostgreSQL stops answering): every wait is bounded, 503s, resumes', async () => {
    const run = await outage('blackhole', 'pg-blackhole@faults.test');
    await expectFailedClosed(run);
    await expectVerified();
  }, 60_000);
});
