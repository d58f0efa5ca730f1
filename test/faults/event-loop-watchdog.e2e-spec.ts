import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database, quoteIdent } from '../../src/database/database.js';
import { AppProcess, PROJECT_ROOT, stopAllAppProcesses } from '../support/app-process.js';
import { eventually } from '../support/eventually.js';
import { TEST_DATABASE_URL, uniqueName } from '../support/test-database.js';

/**
 * Issue 31, item 3: a wedged event loop must not go unnoticed. The built server (started as main.ts starts it, plus a
 * route that blocks the loop) with the smallest limit, EVENT_LOOP_BLOCK_LIMIT_MS=1000:
 * - WATCHDOG_ACTION=exit (the default), services mode: the watchdog thread logs the block with the requests in flight
 *   (route patterns and request ids, never a URL) and kills the process with SIGKILL, long before the block ends;
 * - WATCHDOG_ACTION=log, embedded mode: it logs the block and its end, the process serves on, and the block is in
 *   `event_loop_delay_seconds`; SIGTERM still stops it (the watchdog keeps nothing alive).
 */

const WEDGING_SERVER = path.join(PROJECT_ROOT, 'test/support/wedging-server.mjs');
const LIMIT_MS = 1000;
/** The exit test's block: far longer than the watchdog may take, so an exit before it ends is the watchdog's. */
const LONG_BLOCK_MS = 180_000;
/** The log test's block: the limit and plenty of time for the watchdog thread to look, even on a loaded machine. */
const BLOCK_MS = 8000;

type LogLine = Record<string, unknown>;

const watchdogLines = (app: AppProcess): LogLine[] =>
  app.logLines().filter((line) => line.context === 'EventLoopWatchdog');

/** Value of the sample `name{labels...}` whose labels include `labels`; undefined when there is none. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(?<!\w)(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

describe('the event-loop watchdog of the server process', () => {
  const schema = uniqueName('watchdog');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'watchdog-'));

  afterAll(async () => {
    await stopAllAppProcesses();
    rmSync(dataDir, { recursive: true, force: true });
    const db = Database.connect(TEST_DATABASE_URL, 'public', 1);
    await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await db.close();
  }, 60_000);

  test('WATCHDOG_ACTION=exit: a blocked loop is logged with the requests in flight, and the process is killed', async () => {
    const app = await AppProcess.start({
      name: 'wedged',
      script: WEDGING_SERVER,
      env: {
        DATABASE_URL: TEST_DATABASE_URL,
        DATABASE_SCHEMA: schema,
        DEMO_SEED: 'false',
        EVENT_LOOP_BLOCK_LIMIT_MS: String(LIMIT_MS),
      },
    });
    // A request in flight that does not block (its headers are in: the server is serving it), then one that does.
    const waiting = await fetch(`${app.url}/test/wait?ms=600000`, { headers: { 'x-request-id': 'waiting-1' } });
    expect(waiting.status).toBe(200);
    const blocked = fetch(`${app.url}/test/wedge?ms=${LONG_BLOCK_MS}&note=sk_live_NotForTheLogs123`, {
      method: 'POST',
      headers: { 'x-request-id': 'wedging-1' },
    }).then(
      (response) => response.status,
      () => 'no answer',
    );

    const exit = await app.waitForExit(LONG_BLOCK_MS / 2);
    expect(exit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await blocked).toBe('no answer');

    const lines = watchdogLines(app);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'fatal',
      limit_ms: LIMIT_MS,
      watchdog_action: 'exit',
      in_flight_count: 2,
      in_flight: [
        { request_id: 'waiting-1', method: 'GET', route: '/test/wait', running_ms: expect.any(Number) },
        { request_id: 'wedging-1', method: 'POST', route: '/test/wedge', running_ms: expect.any(Number) },
      ],
      msg: expect.stringMatching(/^event loop blocked for \d+ ms \(limit 1000 ms\): killing the process/),
    });
    expect(lines[0]!.blocked_ms).toBeGreaterThan(LIMIT_MS);
    // Route patterns, never URLs with their query.
    expect(app.output).not.toContain('NotForTheLogs');
  }, 240_000);

  test('WATCHDOG_ACTION=log: the block and its end are logged, the process serves on, the delay is a metric', async () => {
    const app = await AppProcess.start({
      name: 'logged',
      script: WEDGING_SERVER,
      env: { DATA_DIR: dataDir, WATCHDOG_ACTION: 'log', EVENT_LOOP_BLOCK_LIMIT_MS: String(LIMIT_MS) },
    });
    expect(
      await eventually(
        'the address line',
        () => app.output,
        (output) => output.includes('listening on'),
        20_000,
      ),
    ).toContain('(embedded mode)');

    const answer = await fetch(`${app.url}/test/wedge?ms=${BLOCK_MS}`, {
      method: 'POST',
      headers: { 'x-request-id': 'wedging-2' },
    });
    expect({ status: answer.status, body: await answer.json() }).toEqual({
      status: 200,
      body: { wedged_ms: BLOCK_MS },
    });

    const lines = await eventually(
      "the watchdog's two lines",
      () => watchdogLines(app),
      (found) => found.length >= 2,
      20_000,
    );
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'error',
        watchdog_action: 'log',
        in_flight_count: 1,
        in_flight: [expect.objectContaining({ request_id: 'wedging-2', method: 'POST', route: '/test/wedge' })],
        msg: expect.stringMatching(/^event loop blocked for \d+ ms \(limit 1000 ms\)$/),
      }),
      expect.objectContaining({
        level: 'warn',
        msg: expect.stringMatching(/^event loop unblocked after about \d+ ms$/),
      }),
    ]);
    expect(lines[1]!.blocked_ms).toBeGreaterThan(LIMIT_MS);
    expect(app.exited).toBe(false);
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);

    // The block is one observation above 5 s in the histogram; prom-client's own lag gauges are there too.
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    const count = sample(metrics, 'event_loop_delay_seconds_count')!;
    expect(count - sample(metrics, 'event_loop_delay_seconds_bucket', { le: '5' })!).toBeGreaterThanOrEqual(1);
    expect(sample(metrics, 'nodejs_eventloop_lag_max_seconds')).toBeDefined();

    const stopped = await app.stop(60_000);
    expect(stopped.signal).not.toBe('SIGKILL');
  }, 240_000);
});
