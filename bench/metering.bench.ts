/**
 * Metering and ledger benchmark (`npm run bench:metering`; not part of `npm test`). Every figure is compared with a
 * baseline measured in the same run.
 *
 * 1. Metering overhead, over HTTP with autocannon, in embedded mode (PGlite, in-process limiter and counters) and in
 *    services mode (PostgreSQL at DATABASE_URL in a schema of its own, Redis at REDIS_URL under a prefix of its own).
 *    The service runs in a child process with two bench-only routes doing the same trivial work
 *    (bench/metering-routes.ts): POST /bench/metered behind the whole pipeline with a live key (on a plan whose rate
 *    limit and allowance are too large to matter, set through ChangePlanCommand), and POST /bench/unmetered without
 *    it. For each mode: a warm-up of both, then BENCH_ROUNDS rounds of unmetered/metered in A-B-B-A order at
 *    BENCH_CONNECTIONS connections for BENCH_DURATION seconds each (saturation: req/s, p50, p99), then as many rounds
 *    at a fixed BENCH_RATE req/s (latency below saturation). Latencies are every 2xx response's own time (sub-ms).
 *    In services mode, the metered route again with a key that has a monthly credit limit, in a project that has one
 *    (limits never reached), against the plain key, A-B-B-A at saturation and at the fixed rate: what budgets cost;
 *    then the same on POST /search itself (the whole route, over a local index of BENCH_SEARCH_DOCS documents that
 *    the query matches), A-B-B-A at saturation.
 * 2. Ledger, on the PostgreSQL event store (in a child process): CreditsCharged appends per second through
 *    ChargeWriter's group commit (BENCH_CHARGES charges over BENCH_ORGS organizations, BENCH_IN_FLIGHT appends in
 *    flight), against one append per charge (the same store, no batching); the projector's catch-up rate over what
 *    was appended; then the projection lag (append durable → ProjectionRunner.onEvents, i.e. read-model transaction
 *    committed) at a steady BENCH_LEDGER_RATE charges/s for BENCH_LEDGER_SECONDS.
 * 3. The peak RSS of each child process.
 *
 * Prints a table and, last, one JSON line (BenchReport). Everything runs on 127.0.0.1 and stops by itself; schemas,
 * Redis keys and temporary directories are removed afterwards. BENCH_PARTS (default `embedded,services,ledger`)
 * chooses the parts; BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each child there (node --cpu-prof).
 */
import 'reflect-metadata';
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { CommandBus } from '@nestjs/cqrs';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { createClient } from 'redis';
import { ProjectionRunner } from '../projections/projection-runner.js';
import { READ_MODEL_PROJECTORS, READ_MODELS_CHECKPOINT } from '../projections/read-models/index.js';
import { createApp } from '../src/app/create-app.js';
import { loadConfig } from '../src/config/app-config.js';
import { Database, quoteIdent } from '../src/database/database.js';
import { migrate } from '../src/database/migrator.js';
import { type Actor, toNewEvent } from '../src/event-store/domain-event.js';
import { EVENT_STORE, type EventStore, type Position, comparePositions } from '../src/event-store/event-store.port.js';
import { PostgresEventStore } from '../src/event-store/postgres/postgres-event-store.js';
import { DocumentIndexWriter } from '../src/documents/document-index.writer.js';
import { CreateKeyCommand } from '../src/keys/commands/create-key.command.js';
import { ChargeWriter } from '../src/metering/charge-writer.js';
import { billingMonth } from '../src/metering/counter-keys.js';
import { type CreditsCharged, chargesStream } from '../src/metering/events/credits-charged.event.js';
import { ChangePlanCommand } from '../src/organizations/commands/change-plan.command.js';
import { CreateOrganizationCommand } from '../src/organizations/commands/create-organization.command.js';
import { planLimits } from '../src/organizations/plans.js';
import { CreateProjectCommand } from '../src/projects/commands/create-project.command.js';
import { RegisterUserCommand } from '../src/users/commands/register-user.command.js';
import {
  type BenchReport,
  type Figure,
  figuresTable,
  mib,
  peakRssBytes,
  percentile,
  sortedCopy,
} from './bench-support.js';
import { MeteringBenchRoutesModule } from './metering-routes.js';
import { searchDocuments } from './metering-search-documents.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CONNECTIONS = env('BENCH_CONNECTIONS', 32);
const DURATION = env('BENCH_DURATION', 10);
const WARMUP = env('BENCH_WARMUP', 3);
const ROUNDS = env('BENCH_ROUNDS', 2);
const RATE = env('BENCH_RATE', 1000);
/** The monthly credit limit of the budgeted key and its project: never reached in a run. */
const BUDGET = 1_000_000_000_000;
/** Documents in the local index that POST /search reads in the budgets' rounds on the real route. */
const SEARCH_DOCS = env('BENCH_SEARCH_DOCS', 2_000);
const CHARGES = env('BENCH_CHARGES', 20_000);
const BASELINE_CHARGES = env('BENCH_BASELINE_CHARGES', 5_000);
const ORGS = env('BENCH_ORGS', 50);
const IN_FLIGHT = env('BENCH_IN_FLIGHT', 1000);
const LEDGER_RATE = env('BENCH_LEDGER_RATE', 1000);
const LEDGER_SECONDS = env('BENCH_LEDGER_SECONDS', 10);
const PROJECTION_GATHER_MS = env('BENCH_PROJECTION_GATHER_MS', 5); // the service's default PROJECTION_GATHER_MS
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn';
const POOL_SIZE = 10; // the service's default DATABASE_POOL_SIZE
const ACTOR: Actor = { type: 'operator', id: 'bench' };

type Mode = 'embedded' | 'services';

// ---------------------------------------------------------------------------------------------------------------
// Child: the service, with the bench routes and a provisioned key.

interface ReadyMessage {
  readonly type: 'ready';
  readonly url: string;
  readonly key: string;
  /** A live key of the same organization with a monthly credit limit, in a project with one (too large to reach). */
  readonly budgetedKey: string;
}
interface CpuMessage {
  readonly type: 'cpu';
  /** CPU time (user + system) the service process has used so far. */
  readonly micros: number;
}
interface StatsMessage {
  readonly type: 'stats';
  readonly peakRssBytes: number;
  readonly charges: number;
}

async function serve(mode: Mode, name: string, dataDir: string): Promise<void> {
  const config = loadConfig(
    mode === 'embedded'
      ? { DATA_DIR: dataDir, LOG_LEVEL, DEMO_SEED: 'false' }
      : {
          DATABASE_URL,
          DATABASE_SCHEMA: name,
          REDIS_URL,
          REDIS_PREFIX: `${name}:`,
          LOG_LEVEL,
          DEMO_SEED: 'false',
        },
  );
  const app = await createApp(config, { modules: [MeteringBenchRoutesModule] });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');

  // A live key with every pipeline step active, on a plan whose limits cannot be reached in the run.
  const bus = app.get(CommandBus);
  const user = await bus.execute(new RegisterUserCommand('bench@localhost', ACTOR));
  const org = await bus.execute(
    new CreateOrganizationCommand(
      'Bench',
      'free',
      planLimits('free'),
      { userId: user.userId, email: user.email },
      ACTOR,
    ),
  );
  const project = await bus.execute(new CreateProjectCommand(org.orgId, 'Bench', ACTOR));
  const key = await bus.execute(
    new CreateKeyCommand(org.orgId, project.projectId, 'bench', 'live', ['search'], null, ACTOR),
  );
  // The same calls held to a key's and a project's budget as well (each reserved from a credit lease of its own).
  const budgeted = await bus.execute(new CreateProjectCommand(org.orgId, 'Budgeted', ACTOR, BUDGET));
  const budgetedKey = await bus.execute(
    new CreateKeyCommand(org.orgId, budgeted.projectId, 'budgeted', 'live', ['search'], null, ACTOR, BUDGET),
  );
  await app.get(DocumentIndexWriter).upsert(searchDocuments(SEARCH_DOCS));
  const limits = planLimits('enterprise', { allowance: 1e12, rpmLive: 1e9, rpmTest: 1e9 });
  const { position } = await bus.execute(new ChangePlanCommand(org.orgId, 'enterprise', limits, ACTOR));
  await app.get(ProjectionRunner).waitFor(position, 30_000);
  process.send!({
    type: 'ready',
    url,
    key: key.plaintext,
    budgetedKey: budgetedKey.plaintext,
  } satisfies ReadyMessage);

  process.on('message', (message: { type: string }) => {
    void (async () => {
      if (message.type === 'cpu') {
        const usage = process.cpuUsage();
        process.send!({ type: 'cpu', micros: usage.user + usage.system } satisfies CpuMessage);
      } else if (message.type === 'stats') {
        const store = app.get<EventStore>(EVENT_STORE);
        const events = await store.readStream(chargesStream(org.orgId, billingMonth(new Date())));
        process.send!({
          type: 'stats',
          peakRssBytes: peakRssBytes(),
          charges: events.length,
        } satisfies StatsMessage);
      } else if (message.type === 'stop') {
        await app.close();
        process.exit(0);
      }
    })();
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Parent: load over HTTP.

interface LoadResult {
  readonly requestsPerSecond: number;
  readonly ok: number;
  readonly failed: number;
  /** Non-200 answers by status, and errors (no answer: timeouts, resets), e.g. `500×7 errors×2`. */
  readonly statuses: string;
  readonly p50: number;
  readonly p99: number;
  readonly latencies: Float64Array;
  /** CPU time per answered request: of the service process, and of the whole machine (every process: the load
   * generator, PostgreSQL, Redis, and whatever else runs). */
  readonly serverCpuMicros: number;
  readonly machineCpuMicros: number;
}

/** Busy (non-idle) CPU time of the whole machine so far, in microseconds (Linux /proc/stat; NaN elsewhere). */
async function machineBusyMicros(): Promise<number> {
  try {
    const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!;
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
    const busy = ticks.slice(0, 8).reduce((sum, t) => sum + t, 0) - idle;
    return (busy * 1_000_000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return NaN;
  }
}

function load(
  url: string,
  key: string,
  seconds: number,
): Promise<Omit<LoadResult, 'serverCpuMicros' | 'machineCpuMicros'>> {
  const latencies: number[] = [];
  const statuses = new Map<string, number>();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        method: 'POST',
        connections: CONNECTIONS,
        duration: seconds,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'metering benchmark', search_depth: 'basic' }),
        timeout: 10,
      },
      (error: unknown, result: autocannon.Result) => {
        if (error) return reject(error instanceof Error ? error : new Error(String(error)));
        const sorted = sortedCopy(latencies);
        if (result.errors > 0) statuses.set('errors', result.errors);
        resolve({
          requestsPerSecond: latencies.length / result.duration,
          ok: latencies.length,
          failed: [...statuses.values()].reduce((sum, n) => sum + n, 0),
          statuses: [...statuses].map(([status, n]) => `${status}×${n}`).join(' '),
          p50: percentile(sorted, 50),
          p99: percentile(sorted, 99),
          latencies: sorted,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode === 200) latencies.push(responseTime);
      else statuses.set(String(statusCode), (statuses.get(String(statusCode)) ?? 0) + 1);
    });
  });
}

/**
 * An open loop at an even `rate` (autocannon's overallRate sends each second's quota in a burst, which measures
 * saturation again): a request every 1/rate s whatever the answers take, over up to CONNECTIONS connections, each
 * request timed from when it was due, so waiting for a free connection counts too.
 */
async function paced(
  url: string,
  key: string,
  seconds: number,
  rate: number,
): Promise<Omit<LoadResult, 'serverCpuMicros' | 'machineCpuMicros'>> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: CONNECTIONS, pipelining: 1 });
  const latencies: number[] = [];
  const statuses = new Map<string, number>();
  const body = JSON.stringify({ query: 'metering benchmark', search_depth: 'basic' });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const pending: Promise<void>[] = [];
  const total = Math.round(rate * seconds);
  const started = performance.now();
  // Whatever is still unanswered 10 s after the last request was due is abandoned (counted as errors), so a stuck
  // service cannot hold the run. Each request has a signal of its own: thousands of listeners on one shared signal
  // cost the load generator a core (each removal searches the whole list), and its delays were measured as latency.
  const deadlineAt = started + seconds * 1000 + 10_000;
  try {
    for (let sent = 0; sent < total;) {
      const elapsed = performance.now() - started;
      for (const due = Math.min(total, Math.floor((elapsed / 1000) * rate) + 1); sent < due; sent++) {
        const dueAt = started + (sent * 1000) / rate;
        pending.push(
          pool
            .request({
              path: target.pathname,
              method: 'POST',
              headers,
              body,
              signal: AbortSignal.timeout(Math.max(1, Math.round(deadlineAt - performance.now()))),
            })
            .then(async (response) => {
              await response.body.dump();
              if (response.statusCode === 200) latencies.push(performance.now() - dueAt);
              else statuses.set(String(response.statusCode), (statuses.get(String(response.statusCode)) ?? 0) + 1);
            })
            .catch(() => {
              statuses.set('errors', (statuses.get('errors') ?? 0) + 1);
            }),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all(pending);
  } finally {
    await pool.destroy();
  }
  const elapsedSeconds = (performance.now() - started) / 1000;
  const sorted = sortedCopy(latencies);
  return {
    requestsPerSecond: latencies.length / elapsedSeconds,
    ok: latencies.length,
    failed: [...statuses.values()].reduce((sum, n) => sum + n, 0),
    statuses: [...statuses].map(([status, n]) => `${status}×${n}`).join(' '),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    latencies: sorted,
  };
}

function cpuPerRequest(runs: readonly LoadResult[], micros: (run: LoadResult) => number): number {
  const clean = runs.filter((r) => r.failed === 0 && r.ok > 0);
  return clean.reduce((sum, r) => sum + micros(r) * r.ok, 0) / clean.reduce((sum, r) => sum + r.ok, 0);
}

/** The combined view of several runs of one route: req/s averaged, percentiles over every latency. */
function combine(runs: readonly LoadResult[]): LoadResult {
  const all = sortedCopy(
    runs.reduce<number[]>((acc, r) => {
      for (const v of r.latencies) acc.push(v);
      return acc;
    }, []),
  );
  return {
    requestsPerSecond: runs.reduce((s, r) => s + r.requestsPerSecond, 0) / runs.length,
    ok: runs.reduce((s, r) => s + r.ok, 0),
    failed: runs.reduce((s, r) => s + r.failed, 0),
    statuses: runs.map((r) => r.statuses).join(' '),
    // Per answered request, over the runs where every request was answered (NaN when none was clean).
    serverCpuMicros: cpuPerRequest(runs, (r) => r.serverCpuMicros),
    machineCpuMicros: cpuPerRequest(runs, (r) => r.machineCpuMicros),
    p50: percentile(all, 50),
    p99: percentile(all, 99),
    latencies: all,
  };
}

function childArgs(): { execArgv: string[] } {
  const dir = process.env.BENCH_CPU_PROF;
  return { execArgv: dir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(dir)}`] : [] };
}

function startChild(args: string[]): ChildProcess {
  return fork(fileURLToPath(import.meta.url), args, { ...childArgs(), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

function nextMessage<T extends { type: string }>(child: ChildProcess, type: T['type'], timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`no '${type}' from the child within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (message: { type: string }) => {
      if (message.type === type) done(undefined, message as T);
    };
    const onExit = (code: number | null) => done(new Error(`the child exited (${code}) before '${type}'`));
    function done(error?: Error, message?: T) {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(message!);
    }
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** VmHWM of a live process (Linux), in bytes. */
async function procPeakRss(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
    return kib ? Number(kib) * 1024 : null;
  } catch {
    return null;
  }
}

function exited(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

interface ModeResult {
  readonly mode: Mode;
  readonly saturation: { readonly unmetered: LoadResult; readonly metered: LoadResult };
  readonly fixedRate: { readonly unmetered: LoadResult; readonly metered: LoadResult };
  /** Services mode: the same metered route with a budgeted key against the plain key, A-B-B-A as above. */
  readonly budgets: {
    readonly saturation: { readonly plain: LoadResult; readonly budgeted: LoadResult };
    readonly fixedRate: { readonly plain: LoadResult; readonly budgeted: LoadResult };
    /** POST /search itself, at saturation. */
    readonly search: { readonly plain: LoadResult; readonly budgeted: LoadResult };
  } | null;
  readonly peakRssBytes: number;
  /** CreditsCharged events in the organization's stream at the end (null: the service did not answer). */
  readonly chargesAppended: number | null;
  readonly meteredOk: number;
  /** Runs of the metered route (each may end with CONNECTIONS calls charged but not counted). */
  readonly meteredRuns: number;
  /** Requests answered with anything but 200, or not answered, over the whole mode (warm-ups included). */
  readonly failed: number;
}

async function runMode(mode: Mode, log: (line: string) => void): Promise<ModeResult> {
  const name = `bench_metering_${process.pid}_${mode}`;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-metering-'));
  const child = startChild(['server', mode, name, dataDir]);
  try {
    const ready = await nextMessage<ReadyMessage>(child, 'ready', 120_000);
    const metered = `${ready.url}/bench/metered`;
    const unmetered = `${ready.url}/bench/unmetered`;
    let meteredOk = 0;
    let meteredRuns = 0;
    let failed = 0;
    const serverCpu = async () => {
      child.send({ type: 'cpu' });
      return (await nextMessage<CpuMessage>(child, 'cpu', 30_000)).micros;
    };
    const run = async (
      label: string,
      url: string,
      seconds: number,
      rate?: number,
      key = ready.key,
    ): Promise<LoadResult> => {
      const [serverBefore, machineBefore] = [await serverCpu(), await machineBusyMicros()];
      const measured = rate ? await paced(url, key, seconds, rate) : await load(url, key, seconds);
      const [serverAfter, machineAfter] = [await serverCpu(), await machineBusyMicros()];
      const answered = Math.max(1, measured.ok + measured.failed);
      const result: LoadResult = {
        ...measured,
        serverCpuMicros: (serverAfter - serverBefore) / answered,
        machineCpuMicros: (machineAfter - machineBefore) / answered,
      };
      if (url !== unmetered) {
        meteredOk += result.ok;
        meteredRuns += 1;
      }
      failed += result.failed;
      log(
        `  ${mode} ${label.padEnd(10)} ${url === unmetered ? 'unmetered' : key === ready.budgetedKey ? 'budgeted ' : 'metered  '} ` +
          `${Math.round(result.requestsPerSecond).toString().padStart(6)} req/s  p50 ${result.p50.toFixed(2)} ms  ` +
          `p99 ${result.p99.toFixed(2)} ms  CPU/request ${Math.round(result.serverCpuMicros)} µs service, ` +
          `${Math.round(result.machineCpuMicros)} µs machine` +
          `${result.failed ? `  ${result.failed} FAILED (${result.statuses})` : ''}`,
      );
      return result;
    };
    await run('warm-up', unmetered, WARMUP);
    await run('warm-up', metered, WARMUP);
    // A-B-B-A rounds: drift (other processes, a growing table) weighs on both routes alike. Saturation first, then
    // the fixed rate the same way (its p99 is the one most exposed to a moment of other load).
    const rounds = async (rate?: number) => {
      const runs = { unmetered: [] as LoadResult[], metered: [] as LoadResult[] };
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? (['unmetered', 'metered'] as const) : (['metered', 'unmetered'] as const);
        for (const route of order) {
          const label = rate ? `${rate}/s ${round + 1}` : `round ${round + 1}`;
          runs[route].push(await run(label, route === 'metered' ? metered : unmetered, DURATION, rate));
        }
      }
      return { unmetered: combine(runs.unmetered), metered: combine(runs.metered) };
    };
    const saturation = await rounds();
    const fixedRate = await rounds(RATE);
    // What budgets cost: the metered route with the plain key against the budgeted key (services mode, where each
    // budget is leased as the allowance is).
    const budgetRounds = async (rate?: number, route = metered) => {
      const runs = { plain: [] as LoadResult[], budgeted: [] as LoadResult[] };
      await run('warm-up', route, WARMUP, rate, ready.key);
      await run('warm-up', route, WARMUP, rate, ready.budgetedKey);
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? (['plain', 'budgeted'] as const) : (['budgeted', 'plain'] as const);
        for (const which of order) {
          const label = `${route === metered ? '' : '/search '}${rate ? `${rate}/s` : 'round'} ${round + 1}`;
          const key = which === 'budgeted' ? ready.budgetedKey : ready.key;
          runs[which].push(await run(label, route, DURATION, rate, key));
        }
      }
      return { plain: combine(runs.plain), budgeted: combine(runs.budgeted) };
    };
    const budgets =
      mode === 'services'
        ? {
            saturation: await budgetRounds(),
            fixedRate: await budgetRounds(RATE),
            search: await budgetRounds(undefined, `${ready.url}/search`),
          }
        : null;
    // Peak RSS from the kernel (the child may be too stuck to answer), the charge count from the child.
    const peak = (await procPeakRss(child.pid!)) ?? 0;
    child.send({ type: 'stats' });
    const stats = await nextMessage<StatsMessage>(child, 'stats', 30_000).catch((error: Error) => {
      log(`  ${mode}: ${error.message}`);
      return null;
    });
    child.send({ type: 'stop' });
    await exited(child, 30_000);
    return {
      mode,
      saturation,
      fixedRate,
      budgets,
      peakRssBytes: Math.max(peak, stats?.peakRssBytes ?? 0),
      chargesAppended: stats?.charges ?? null,
      meteredOk,
      meteredRuns,
      failed,
    };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited(child, 10_000);
    await rm(dataDir, { recursive: true, force: true });
    if (mode === 'services') await dropServicesState(name);
  }
}

async function dropServicesState(name: string): Promise<void> {
  const db = Database.connect(DATABASE_URL, 'public', 1);
  await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(name)} CASCADE`).catch(() => {});
  await db.close();
  const redis = createClient({ url: REDIS_URL });
  redis.on('error', () => {});
  try {
    await redis.connect();
    for await (const batch of redis.scanIterator({ MATCH: `${name}:*`, COUNT: 500 })) {
      const keys = (Array.isArray(batch) ? batch : [batch]) as string[];
      if (keys.length > 0) await redis.del(keys);
    }
  } finally {
    await redis.close().catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Child: the ledger on the PostgreSQL event store.

interface LedgerResult {
  readonly type: 'ledger';
  readonly postgres: { version: string; synchronousCommit: string; fsync: string };
  readonly groupCommit: AppendRun;
  readonly unbatched: AppendRun;
  readonly catchUp: { events: number; seconds: number; eventsPerSecond: number; eventByEventPerSecond: number };
  readonly steady: {
    targetRate: number;
    achievedRate: number;
    charges: number;
    appendP50: number;
    appendP99: number;
    lagP50: number;
    lagP99: number;
    lagMax: number;
  };
  readonly peakRssBytes: number;
}

interface AppendRun {
  readonly charges: number;
  readonly inFlight: number;
  readonly seconds: number;
  readonly chargesPerSecond: number;
  readonly appendP50: number;
  readonly appendP99: number;
}

function chargeFor(orgs: readonly { org: string; project: string; key: string }[], i: number): CreditsCharged {
  const o = orgs[i % orgs.length]!;
  return {
    type: 'CreditsCharged',
    data: {
      charge_id: randomUUID(),
      org_id: o.org,
      project_id: o.project,
      key_id: o.key,
      key_environment: 'live',
      operation: 'search',
      channel: 'rest',
      depth: 'basic',
      credits: 1,
      request_id: randomUUID(),
      idempotency_key: null,
      billing_month: billingMonth(new Date()),
      counts: { results: 5 },
      pricing: { items: [{ item: 'search:basic', credits: 1 }], units: null },
    },
  };
}

/** `total` calls of `append`, `inFlight` at a time (a closed loop). */
async function closedLoop(
  total: number,
  inFlight: number,
  append: (i: number) => Promise<unknown>,
): Promise<AppendRun> {
  const latencies = new Float64Array(total);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < total; i = next++) {
      const started = performance.now();
      await append(i);
      latencies[i] = performance.now() - started;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(inFlight, total) }, worker));
  const seconds = (performance.now() - started) / 1000;
  const sorted = latencies.sort();
  return {
    charges: total,
    inFlight,
    seconds,
    chargesPerSecond: total / seconds,
    appendP50: percentile(sorted, 50),
    appendP99: percentile(sorted, 99),
  };
}

async function ledger(): Promise<void> {
  const schema = `bench_ledger_${process.pid}`;
  const db = Database.connect(DATABASE_URL, schema, POOL_SIZE);
  let store: PostgresEventStore | undefined;
  let runner: ProjectionRunner | undefined;
  const log = (line: string) => process.stderr.write(`  ledger ${line}\n`);
  try {
    await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await migrate(db.pool, schema, ['store', 'readModels']);
    const settings = (
      await db.query<{ version: string; sc: string; fsync: string }>(
        "SELECT current_setting('server_version') AS version, current_setting('synchronous_commit') AS sc, " +
          "current_setting('fsync') AS fsync",
      )
    ).rows[0]!;
    store = await PostgresEventStore.create(db, { listen: true });
    const orgs = Array.from({ length: ORGS }, () => ({ org: randomUUID(), project: randomUUID(), key: randomUUID() }));
    const s = store;

    // Baseline: one transaction per charge, as an append without group commit would do.
    const unbatched = await closedLoop(BASELINE_CHARGES, IN_FLIGHT, (i) => {
      const charge = chargeFor(orgs, i);
      return s.appendToStream(
        chargesStream(charge.data.org_id, charge.data.billing_month),
        [toNewEvent(charge, ACTOR, { id: charge.data.charge_id })],
        'any',
      );
    });
    log(`one append per charge: ${Math.round(unbatched.chargesPerSecond)} charges/s`);
    const writer = new ChargeWriter(store);
    const groupCommit = await closedLoop(CHARGES, IN_FLIGHT, (i) => writer.append(chargeFor(orgs, i), ACTOR));
    log(`group commit: ${Math.round(groupCommit.chargesPerSecond)} charges/s`);

    // Baseline: the projector applying every event on its own (no applyMany), into a scratch schema of read models
    // fed by the same events.
    const head = await store.headPosition();
    const catchUpEvents = CHARGES + BASELINE_CHARGES;
    const scratch = Database.connect(DATABASE_URL, `${schema}_one_by_one`, POOL_SIZE);
    let eventByEventSeconds = NaN;
    try {
      await scratch.query(`DROP SCHEMA IF EXISTS ${quoteIdent(scratch.schema)} CASCADE`);
      await migrate(scratch.pool, scratch.schema, ['readModels']);
      const oneByOne = READ_MODEL_PROJECTORS.map((projector) => ({ ...projector, applyMany: undefined }));
      const baselineRunner = new ProjectionRunner(scratch, store, {
        checkpointName: READ_MODELS_CHECKPOINT,
        projectors: oneByOne,
      });
      const baselineStarted = performance.now();
      baselineRunner.start();
      if (typeof head !== 'symbol') await baselineRunner.waitFor(head, 600_000);
      eventByEventSeconds = (performance.now() - baselineStarted) / 1000;
      await baselineRunner.stop();
    } finally {
      await scratch.query(`DROP SCHEMA IF EXISTS ${quoteIdent(scratch.schema)} CASCADE`).catch(() => {});
      await scratch.close();
    }
    log(`projection catch-up, event by event: ${Math.round(catchUpEvents / eventByEventSeconds)} events/s`);

    // The projector catching up with everything appended so far (every read model, as the service runs it).
    const projected = new Map<string, number>();
    runner = new ProjectionRunner(db, store, {
      checkpointName: READ_MODELS_CHECKPOINT,
      projectors: READ_MODEL_PROJECTORS,
      gatherMs: PROJECTION_GATHER_MS,
    });
    runner.onEvents((events) => {
      const now = performance.now();
      for (const event of events) projected.set(event.id, now);
    });
    const catchUpStarted = performance.now();
    runner.start();
    if (typeof head !== 'symbol') await runner.waitFor(head, 600_000);
    const catchUpSeconds = (performance.now() - catchUpStarted) / 1000;
    log(`projection catch-up: ${Math.round(catchUpEvents / catchUpSeconds)} events/s`);

    // Steady load (an open loop: charges are issued on time whatever the appends take), lag of each charge.
    const durable = new Map<string, number>();
    const appendLatencies: number[] = [];
    let last: Position | undefined;
    const pending: Promise<unknown>[] = [];
    const total = Math.round(LEDGER_RATE * LEDGER_SECONDS);
    const started = performance.now();
    let issued = 0;
    while (issued < total) {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * LEDGER_RATE) + 1);
      for (; issued < due; issued++) {
        const charge = chargeFor(orgs, issued);
        const at = performance.now();
        pending.push(
          writer.append(charge, ACTOR).then((position) => {
            const now = performance.now();
            durable.set(charge.data.charge_id, now);
            appendLatencies.push(now - at);
            if (!last || comparePositions(position, last) > 0) last = position;
          }),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await Promise.all(pending);
    const loadSeconds = (performance.now() - started) / 1000;
    if (last) await runner.waitFor(last, 60_000);
    const lags: number[] = [];
    for (const [id, at] of durable) {
      const seen = projected.get(id);
      if (seen === undefined) throw new Error(`charge ${id} was not projected`);
      lags.push(Math.max(0, seen - at));
    }
    const lagSorted = sortedCopy(lags);
    const appendSorted = sortedCopy(appendLatencies);
    const steady = {
      targetRate: LEDGER_RATE,
      achievedRate: total / loadSeconds,
      charges: total,
      appendP50: percentile(appendSorted, 50),
      appendP99: percentile(appendSorted, 99),
      lagP50: percentile(lagSorted, 50),
      lagP99: percentile(lagSorted, 99),
      lagMax: lagSorted[lagSorted.length - 1] ?? NaN,
    };
    log(
      `projection lag at ${Math.round(steady.achievedRate)}/s: p50 ${steady.lagP50.toFixed(1)} ms, p99 ${steady.lagP99.toFixed(1)} ms`,
    );
    process.send!({
      type: 'ledger',
      postgres: { version: settings.version, synchronousCommit: settings.sc, fsync: settings.fsync },
      groupCommit,
      unbatched,
      catchUp: {
        events: catchUpEvents,
        seconds: catchUpSeconds,
        eventsPerSecond: catchUpEvents / catchUpSeconds,
        eventByEventPerSecond: catchUpEvents / eventByEventSeconds,
      },
      steady,
      peakRssBytes: peakRssBytes(),
    } satisfies LedgerResult);
  } finally {
    await runner?.stop();
    await store?.close();
    if (!process.env.BENCH_KEEP) await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`).catch(() => {});
    await db.close();
  }
}

async function runLedger(): Promise<LedgerResult> {
  const child = startChild(['ledger']);
  try {
    return await nextMessage<LedgerResult>(child, 'ledger', 900_000);
  } finally {
    await exited(child, 60_000);
  }
}

// ---------------------------------------------------------------------------------------------------------------

function modeFigures(r: ModeResult): Figure[] {
  const { saturation: sat, fixedRate: fixed } = r;
  const bench = `metering (${r.mode})`;
  const throughputRatio = sat.metered.requestsPerSecond / sat.unmetered.requestsPerSecond;
  // Issue 13's goals: throughput ≥ 0.80× unmetered in services mode (0.60× embedded), p99 added at the fixed rate
  // < 5 ms, machine CPU per metered request ≤ 2× unmetered.
  const throughputTarget = r.mode === 'services' ? 0.8 : 0.6;
  const machineRatio = sat.metered.machineCpuMicros / sat.unmetered.machineCpuMicros;
  return [
    {
      bench,
      measure: `throughput, ${CONNECTIONS} connections`,
      value: sat.metered.requestsPerSecond,
      unit: 'req/s',
      baseline: { label: 'unmetered', value: sat.unmetered.requestsPerSecond },
      ratio: throughputRatio,
      target: `≥ ${throughputTarget.toFixed(2)}×`,
      met: throughputRatio >= throughputTarget,
    },
    {
      bench,
      measure: `p50 latency, ${CONNECTIONS} connections`,
      value: sat.metered.p50,
      unit: 'ms',
      baseline: { label: 'unmetered', value: sat.unmetered.p50 },
      added: sat.metered.p50 - sat.unmetered.p50,
    },
    {
      bench,
      measure: `p99 latency, ${CONNECTIONS} connections`,
      value: sat.metered.p99,
      unit: 'ms',
      baseline: { label: 'unmetered', value: sat.unmetered.p99 },
      added: sat.metered.p99 - sat.unmetered.p99,
    },
    {
      bench,
      measure: `p50 latency at ${RATE} req/s`,
      value: fixed.metered.p50,
      unit: 'ms',
      baseline: { label: 'unmetered', value: fixed.unmetered.p50 },
      added: fixed.metered.p50 - fixed.unmetered.p50,
    },
    {
      bench,
      measure: `p99 latency at ${RATE} req/s`,
      value: fixed.metered.p99,
      unit: 'ms',
      baseline: { label: 'unmetered', value: fixed.unmetered.p99 },
      added: fixed.metered.p99 - fixed.unmetered.p99,
      target: '< +5 ms',
      met: fixed.metered.p99 - fixed.unmetered.p99 < 5,
    },
    {
      bench,
      measure: `service CPU per request, ${CONNECTIONS} connections`,
      value: sat.metered.serverCpuMicros,
      unit: 'µs',
      baseline: { label: 'unmetered', value: sat.unmetered.serverCpuMicros },
      ratio: sat.metered.serverCpuMicros / sat.unmetered.serverCpuMicros,
    },
    {
      bench,
      measure: `machine CPU per request, ${CONNECTIONS} connections`,
      value: sat.metered.machineCpuMicros,
      unit: 'µs',
      baseline: { label: 'unmetered', value: sat.unmetered.machineCpuMicros },
      ratio: machineRatio,
      target: '≤ 2.00×',
      met: machineRatio <= 2,
    },
    {
      bench,
      measure: 'requests not answered 200 (all runs)',
      value: r.failed,
      unit: 'requests',
      target: '= 0',
      met: r.failed === 0,
    },
    { bench, measure: 'server peak RSS', value: mib(r.peakRssBytes), unit: 'MiB' },
    ...budgetFigures(r),
  ];
}

/** Issue 39's goal: a key's and a project's budget add at most 5 % to the p50 of a metered call (services mode). */
function budgetFigures(r: ModeResult): Figure[] {
  if (!r.budgets) return [];
  const bench = `metering (${r.mode})`;
  const figure = (measure: string, runs: { plain: LoadResult; budgeted: LoadResult }): Figure => {
    const ratio = runs.budgeted.p50 / runs.plain.p50;
    return {
      bench,
      measure,
      value: runs.budgeted.p50,
      unit: 'ms',
      baseline: { label: 'no budget', value: runs.plain.p50 },
      ratio,
      target: '≤ 1.05×',
      met: ratio <= 1.05,
    };
  };
  return [
    figure(`p50 with key and project budgets, ${CONNECTIONS} connections`, r.budgets.saturation),
    figure(`p50 with key and project budgets at ${RATE} req/s`, r.budgets.fixedRate),
    figure(`POST /search p50 with key and project budgets, ${CONNECTIONS} connections`, r.budgets.search),
  ];
}

function ledgerFigures(r: LedgerResult): Figure[] {
  const bench = 'ledger (postgres)';
  return [
    {
      bench,
      measure: `CreditsCharged appends, group commit, ${r.groupCommit.inFlight} in flight`,
      value: r.groupCommit.chargesPerSecond,
      unit: 'charges/s',
      baseline: { label: 'one append per charge', value: r.unbatched.chargesPerSecond },
      ratio: r.groupCommit.chargesPerSecond / r.unbatched.chargesPerSecond,
      target: '≥ 15,000/s',
      met: r.groupCommit.chargesPerSecond >= 15_000,
    },
    {
      bench,
      measure: 'append latency p99, group commit',
      value: r.groupCommit.appendP99,
      unit: 'ms',
      baseline: { label: 'one append per charge', value: r.unbatched.appendP99 },
      ratio: r.groupCommit.appendP99 / r.unbatched.appendP99,
    },
    {
      bench,
      measure: `projection catch-up (${r.catchUp.events.toLocaleString('en')} charges)`,
      value: r.catchUp.eventsPerSecond,
      unit: 'events/s',
      baseline: { label: 'event by event', value: r.catchUp.eventByEventPerSecond },
      ratio: r.catchUp.eventsPerSecond / r.catchUp.eventByEventPerSecond,
    },
    {
      bench,
      measure: `projection lag p50 at ${Math.round(r.steady.achievedRate)} charges/s`,
      value: r.steady.lagP50,
      unit: 'ms',
    },
    {
      bench,
      measure: `projection lag p99 at ${Math.round(r.steady.achievedRate)} charges/s`,
      value: r.steady.lagP99,
      unit: 'ms',
      target: '< 100 ms',
      met: r.steady.lagP99 < 100,
    },
    {
      bench,
      measure: `append latency p99 at ${Math.round(r.steady.achievedRate)} charges/s`,
      value: r.steady.appendP99,
      unit: 'ms',
    },
    { bench, measure: 'peak RSS', value: mib(r.peakRssBytes), unit: 'MiB' },
  ];
}

async function main(): Promise<void> {
  const parts = (process.env.BENCH_PARTS ?? 'embedded,services,ledger').split(',').map((p) => p.trim());
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const out = (line = '') => process.stdout.write(`${line}\n`);
  const loadAverage = os.loadavg();
  out(
    `metering benchmark: ${os.cpus().length} CPUs (load average ${loadAverage.map((l) => l.toFixed(2)).join(' ')}), ` +
      `node ${process.version}; ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} rounds, fixed rate ${RATE} req/s`,
  );
  const figures: Figure[] = [];
  const details: Record<string, unknown> = {
    cpus: os.cpus().length,
    loadAverageAtStart: loadAverage,
    node: process.version,
    connections: CONNECTIONS,
    durationSeconds: DURATION,
    rounds: ROUNDS,
    fixedRate: RATE,
    logLevel: LOG_LEVEL,
  };
  for (const mode of ['embedded', 'services'] as const) {
    if (!parts.includes(mode)) continue;
    const result = await runMode(mode, log);
    // Each run ends with up to CONNECTIONS metered requests in flight: served and charged, but not counted.
    const cutOff = CONNECTIONS * result.meteredRuns;
    const extra = result.chargesAppended === null ? null : result.chargesAppended - result.meteredOk;
    if (extra === null || extra < 0 || extra > cutOff) {
      log(
        `  ${mode}: WARNING ${result.meteredOk} metered 200 responses but ${result.chargesAppended} charges recorded`,
      );
    }
    figures.push(...modeFigures(result));
    details[mode] = {
      saturation: {
        unmetered: summary(result.saturation.unmetered),
        metered: summary(result.saturation.metered),
      },
      fixedRate: { unmetered: summary(result.fixedRate.unmetered), metered: summary(result.fixedRate.metered) },
      ...(result.budgets
        ? {
            budgets: {
              saturation: {
                plain: summary(result.budgets.saturation.plain),
                budgeted: summary(result.budgets.saturation.budgeted),
              },
              fixedRate: {
                plain: summary(result.budgets.fixedRate.plain),
                budgeted: summary(result.budgets.fixedRate.budgeted),
              },
              search: {
                plain: summary(result.budgets.search.plain),
                budgeted: summary(result.budgets.search.budgeted),
              },
            },
          }
        : {}),
      peakRssMiB: mib(result.peakRssBytes),
      meteredOk: result.meteredOk,
      chargesAppended: result.chargesAppended,
      failedRequests: result.failed,
    };
  }
  if (parts.includes('ledger')) {
    const result = await runLedger();
    figures.push(...ledgerFigures(result));
    details.ledger = { ...result, type: undefined, peakRssMiB: mib(result.peakRssBytes) };
  }
  out();
  out(figuresTable(figures));
  const targets = figures.filter((f) => f.target !== undefined);
  out();
  out(`targets: ${targets.filter((f) => f.met).length} of ${targets.length} met`);
  for (const f of targets.filter((t) => !t.met)) out(`  MISSED: ${f.bench}, ${f.measure} (${f.target})`);
  const report: BenchReport = { bench: 'metering', figures, details };
  // Recorded in bench/results (the run-all runner records its own runs there too).
  if (!process.env.BENCH_NO_RECORD) {
    const directory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'results');
    await mkdir(directory, { recursive: true });
    const file = path.join(directory, `metering-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    await writeFile(file, `${JSON.stringify({ ...report, parts }, null, 2)}\n`);
    log(`recorded in ${path.relative(process.cwd(), file)}`);
  }
  out(JSON.stringify(report));
}

function summary(r: LoadResult) {
  return {
    requestsPerSecond: r.requestsPerSecond,
    ok: r.ok,
    failed: r.failed,
    statuses: r.statuses,
    p50: r.p50,
    p99: r.p99,
    serverCpuMicrosPerRequest: r.serverCpuMicros,
    machineCpuMicrosPerRequest: r.machineCpuMicros,
  };
}

const [role, ...args] = process.argv.slice(2);
const fail = (error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
};
// A child goes when its parent does (stopped, or killed), whatever state the service is in.
if (role) process.on('disconnect', () => process.exit(1));
if (role === 'server') {
  serve(args[0] as Mode, args[1]!, args[2]!).catch(fail);
} else if (role === 'ledger') {
  ledger()
    .then(() => process.exit(0))
    .catch(fail);
} else {
  main().catch(fail);
}
