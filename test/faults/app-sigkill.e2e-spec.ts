import { createClient } from 'redis';
import { Database, quoteIdent } from '../../src/database/database.js';
import { AppProcess, runBuiltCli, stopAllAppProcesses } from '../support/app-process.js';
import { FixtureSite } from '../support/fixture-site.js';
import { SmtpSink } from '../support/smtp-sink.js';
import { createProjectAndKey, signIn } from '../support/test-app.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL, uniqueName } from '../support/test-database.js';

/**
 * Issue 8, fault 1: the app process is killed (SIGKILL) in the middle of a load of metered calls and restarted on
 * the same PostgreSQL schema and Redis prefix. A charge is durable before its response is sent, so:
 * - every 200 has exactly one CreditsCharged with its request id;
 * - a call that got no answer may have been charged (the response was lost after the charge), at most once;
 * - a call with an Idempotency-Key retried after the restart bills exactly once in total: when its charge was
 *   already durable, the retry replays that call's response (its request id) instead of billing again;
 * - answered idempotent calls sent again after the restart are replayed, not billed;
 * - `ledger verify` (Redis counters = ledger) and `projections verify` exit 0.
 */

const CALLS = 240;
const CONCURRENCY = 24;
/** The kill comes once this many calls were answered. */
const KILL_AFTER = 70;
/** Extract fetches pages that answer this slowly, so that many calls are inside their work at the kill. */
const PAGE_DELAY_MS = 250;
const CALL_TIMEOUT_MS = 20_000;
/** How long a retry answered 409 (its call still running on the killed node) is tried again: the node lease, and more. */
const RETRY_FOR_MS = 60_000;

const OWNER = 'owner@sigkill.test';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Planned {
  readonly index: number;
  readonly path: '/search' | '/extract';
  readonly body: Record<string, unknown>;
  readonly requestId: string;
  readonly idempotencyKey: string | null;
}

interface Answer {
  readonly status: number;
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly headers: Headers;
}

type Outcome = Answer | { readonly status: 0; readonly error: string };

interface ChargeRow {
  request_id: string;
  idempotency_key: string | null;
  credits: number;
  key_environment: string;
}

async function send(base: string, key: string, call: Planned, requestId: string): Promise<Outcome> {
  try {
    const response = await fetch(base + call.path, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${key}`,
        'x-request-id': requestId,
        ...(call.idempotencyKey ? { 'idempotency-key': call.idempotencyKey } : {}),
      },
      body: JSON.stringify(call.body),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return { status: response.status, body, headers: response.headers };
  } catch (error) {
    return { status: 0, error: String((error as Error).cause ?? error) };
  }
}

describe('the app killed with SIGKILL mid-load and restarted on the same data', () => {
  const schema = uniqueName('fault_kill');
  const prefix = `${schema}:`;
  let serviceEnv: Record<string, string>;
  let smtp: SmtpSink;
  let site: FixtureSite;
  let db: Database;
  let app: AppProcess | undefined;

  const cli = async (...args: string[]) => {
    const result = await runBuiltCli(args, { ...serviceEnv, LOG_LEVEL: 'error' });
    if (result.code !== 0)
      throw new Error(`cli ${args.join(' ')} exited ${result.code}:\n${result.stdout}${result.stderr}`);
    return result.stdout;
  };

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    serviceEnv = {
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: schema,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      SMTP_URL: smtp.url,
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      DEMO_SEED: 'false',
    };
    site = new FixtureSite();
    site.route('/slow', (request, response) => {
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(
          `<!doctype html><html><head><title>Slow page ${request.url}</title></head><body><main><h1>Slow page</h1>` +
            `<p>${'Rate limits and credits are metered per organization. '.repeat(20)}</p></main></body></html>`,
        );
      }, PAGE_DELAY_MS);
    });
    await site.start();
    db = Database.connect(TEST_DATABASE_URL, schema, 2);
  }, 60_000);

  afterAll(async () => {
    await stopAllAppProcesses();
    await smtp?.stop();
    await site?.stop();
    await db?.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`).catch(() => {});
    await db?.close();
    const redis = createClient({ url: TEST_REDIS_URL });
    await redis.connect();
    for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      if (keys.length > 0) await redis.del(keys);
    }
    await redis.close();
  }, 60_000);

  test('no 200 without exactly one charge, no double charge, idempotent retries bill once, ledger and projections verify', async () => {
    const t0 = Date.now();
    // The app, an organization with room for the load (an operator's CLI command), and a page in the local index so
    // that searches find something, all at once; then a project and a key through the control plane.
    const [started, created] = await Promise.all([
      AppProcess.start({ name: 'app#1', env: serviceEnv }),
      cli('org', 'create', '--name', 'Killed', '--owner', OWNER, '--allowance', '1000000', '--rpm-live', '100000'),
      cli('index', site.url('/slow?indexed')),
    ]);
    app = started;
    const orgId = created.trim();
    const session = await signIn(app, smtp, OWNER);
    const { key } = await createProjectAndKey(app, session, orgId);
    const setupMs = Date.now() - t0;

    const planned: Planned[] = Array.from({ length: CALLS }, (_, i) => {
      const kind = i % 3;
      const [path, body]: [Planned['path'], Record<string, unknown>] =
        kind === 0
          ? ['/search', { query: `rate limits ${i}` }]
          : kind === 1
            ? ['/search', { query: `credits metered ${i}`, search_depth: 'advanced' }]
            : ['/extract', { urls: [site.url(`/slow?c=${i}&u=1`), site.url(`/slow?c=${i}&u=2`)] }];
      return {
        index: i,
        path,
        body,
        requestId: `kill-${i}`,
        idempotencyKey: i % 2 === 0 ? `idem-${schema}-${i}` : null,
      };
    });

    // The load: CONCURRENCY callers; SIGKILL once KILL_AFTER calls were answered; callers stop sending then.
    const first = new Map<number, Outcome>();
    let answered = 0;
    let killed: Promise<unknown> | null = null;
    let nextCall = 0;
    const running = app;
    const caller = async () => {
      while (killed === null && nextCall < planned.length) {
        const call = planned[nextCall++]!;
        const outcome = await send(running.url, key, call, call.requestId);
        first.set(call.index, outcome);
        if (outcome.status !== 0 && ++answered === KILL_AFTER) killed = running.kill();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, caller));
    expect(killed).not.toBeNull();
    const exit = await killed;
    expect(exit).toEqual({ code: null, signal: 'SIGKILL' });
    const loadMs = Date.now() - t0 - setupMs;

    const sent = planned.filter((c) => first.has(c.index));
    const ok = sent.filter((c) => first.get(c.index)!.status === 200);
    const lost = sent.filter((c) => first.get(c.index)!.status === 0);
    const other = sent.filter((c) => ![0, 200].includes(first.get(c.index)!.status));
    expect(other.map((c) => [c.requestId, first.get(c.index)!.status])).toEqual([]);
    expect(ok.length).toBeGreaterThanOrEqual(KILL_AFTER);
    // The kill must land while calls are in flight, or this test proves nothing.
    expect(lost.length).toBeGreaterThanOrEqual(CONCURRENCY / 2);
    for (const c of ok) {
      const answer = first.get(c.index) as Answer;
      expect(answer.body.request_id).toBe(c.requestId);
      expect(answer.headers.get('x-request-id')).toBe(c.requestId);
    }

    // Restart on the same schema and Redis prefix.
    app = await AppProcess.start({ name: 'app#2', env: serviceEnv });
    const restartedMs = Date.now() - t0 - setupMs - loadMs;

    // Every idempotent call once more with its key: answered ones replay; lost ones bill once in total.
    const idempotent = sent.filter((c) => c.idempotencyKey !== null);
    // A key whose call was running on the killed node answers 409 until that node's lease ran out; a client retries.
    const again = new Map<number, Outcome>();
    let conflicts = 0;
    await Promise.all(
      idempotent.map(async (c) => {
        const deadline = Date.now() + RETRY_FOR_MS;
        for (;;) {
          const outcome = await send(app!.url, key, c, `${c.requestId}-again`);
          if (outcome.status !== 409 || Date.now() > deadline) return again.set(c.index, outcome);
          conflicts += 1;
          await sleep(500);
        }
      }),
    );
    const notServed = idempotent
      .filter((c) => again.get(c.index)!.status !== 200)
      .map((c) => ({
        requestId: c.requestId,
        status: again.get(c.index)!.status,
        body: (again.get(c.index) as Answer).body,
      }));
    expect(notServed).toEqual([]);

    const { rows: charges } = await db.query<ChargeRow>(
      `SELECT data->>'request_id' AS request_id, data->>'idempotency_key' AS idempotency_key,
         (data->>'credits')::int AS credits, data->>'key_environment' AS key_environment
       FROM events WHERE event_type = 'CreditsCharged' AND data->>'org_id' = $1`,
      [orgId],
    );
    const byRequest = new Map<string, ChargeRow[]>();
    for (const charge of charges)
      byRequest.set(charge.request_id, [...(byRequest.get(charge.request_id) ?? []), charge]);
    const byIdempotencyKey = new Map<string, ChargeRow[]>();
    for (const charge of charges.filter((c) => c.idempotency_key !== null)) {
      byIdempotencyKey.set(charge.idempotency_key!, [...(byIdempotencyKey.get(charge.idempotency_key!) ?? []), charge]);
    }

    // Every charge belongs to a call this test sent.
    const known = new Set(sent.flatMap((c) => [c.requestId, `${c.requestId}-again`]));
    expect(charges.filter((c) => !known.has(c.request_id))).toEqual([]);
    // Every 200 before the kill: exactly one charge with its request id.
    expect(ok.filter((c) => byRequest.get(c.requestId)?.length !== 1).map((c) => c.requestId)).toEqual([]);
    // A lost call without a key: charged at most once (its charge may have been durable before the kill).
    const lostPlain = lost.filter((c) => c.idempotencyKey === null);
    expect(lostPlain.filter((c) => (byRequest.get(c.requestId)?.length ?? 0) > 1).map((c) => c.requestId)).toEqual([]);
    // Every idempotent call: exactly one charge for its key, and the answer after the restart is that charge's call.
    for (const c of idempotent) {
      const forKey = byIdempotencyKey.get(c.idempotencyKey!) ?? [];
      expect({ key: c.idempotencyKey, charges: forKey.length }).toEqual({ key: c.idempotencyKey, charges: 1 });
      const answer = again.get(c.index) as Answer;
      expect({ key: c.idempotencyKey, request_id: answer.body.request_id }).toEqual({
        key: c.idempotencyKey,
        request_id: forKey[0]!.request_id,
      });
      if (forKey[0]!.request_id === c.requestId) expect(answer.headers.get('idempotent-replayed')).toBe('true');
      if (first.get(c.index)!.status === 200) {
        expect(answer.body).toEqual((first.get(c.index) as Answer).body);
      }
    }
    const lostCharged = lost.filter((c) => byRequest.has(c.requestId)).length;
    const retriedFresh = idempotent.filter((c) => byRequest.has(`${c.requestId}-again`)).length;
    const lostReplayed = lost.filter((c) => c.idempotencyKey !== null && byRequest.has(c.requestId)).length;

    // The restarted process logged no error (but the 503s of /readyz while it started).
    const errors = app
      .logLines()
      .filter((line) => line.level === 'error' || line.level === 'fatal')
      .filter((line) => line.route !== '/readyz');
    expect(errors).toEqual([]);

    // The restarted node settles what the killed one left in flight (reservations of calls it never charged).
    const settledDeadline = Date.now() + RETRY_FOR_MS;
    const settled = () => app!.logLines().find((l) => /left in flight by stopped node/.test(String(l.msg)));
    while (!settled() && Date.now() < settledDeadline) await sleep(200);
    expect(settled()?.msg).toMatch(/^settled \d+ call\(s\) left in flight by stopped node/);

    // The operator's checks, on the same schema and prefix, with the restarted app idle.
    const ledger = await runBuiltCli(['ledger', 'verify', '--json'], { ...serviceEnv, LOG_LEVEL: 'error' });
    expect({ code: ledger.code, output: ledger.stdout + ledger.stderr }).toMatchObject({ code: 0 });
    // The quota counter and the extract units counter were compared with the events, every charge was projected.
    expect(JSON.parse(ledger.stdout)).toMatchObject({
      ok: true,
      charges: charges.length,
      notYetProjected: 0,
      redisChecked: true,
      countersCompared: 2,
      differences: [],
    });
    const projections = await runBuiltCli(['projections', 'verify'], { ...serviceEnv, LOG_LEVEL: 'error' });
    expect({ code: projections.code, out: projections.stdout }).toEqual({
      code: 0,
      out: expect.stringContaining('read models match'),
    });
    await app.stop();

    process.stdout.write(
      `app-sigkill: ${sent.length} sent, ${ok.length} answered before the kill, ${lost.length} lost ` +
        `(${lostCharged} of them charged before the kill), ${idempotent.length} idempotent sent again ` +
        `(${retriedFresh} billed fresh, ${lostReplayed} lost ones replayed from their durable charge, ${conflicts} 409 answers until the lease ran out), ${charges.length} charges;` +
        ` ${settled()?.msg}; setup ${setupMs} ms, load ${loadMs} ms, ` +
        `restart ${restartedMs} ms, total ${Date.now() - t0} ms\n`,
    );
  }, 240_000);
});
