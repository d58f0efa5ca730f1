/**
 * Request-log benchmark (`npm run bench:request-log`; not part of `npm test`): what logging every data-plane call
 * costs the data plane. Two instances of the service run side by side in this process, identical but for
 * REQUEST_LOG_RETENTION_DAYS (30: the log on, the default; 0: off), each with a live key on a plan whose limits
 * cannot be reached. POST /search (the whole metering pipeline, an empty local index) is driven with autocannon at
 * BENCH_CONNECTIONS connections for BENCH_DURATION seconds per round, BENCH_ROUNDS rounds in A-B-B-A order, in
 * embedded mode (PGlite) and services mode (PostgreSQL at DATABASE_URL, Redis at REDIS_URL, schemas and prefixes of
 * their own). Figures: req/s and p50 / p99 latency of the log on, against the log off in the same run. Last, the rows
 * the log holds are counted (every 2xx answered call must be there). BENCH_PARTS (default `embedded,services`)
 * chooses the modes. Prints a table and, last, one JSON line (BenchReport).
 */
import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CommandBus } from '@nestjs/cqrs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import autocannon from 'autocannon';
import { ProjectionRunner } from '../projections/projection-runner.js';
import { createApp } from '../src/app/create-app.js';
import { loadConfig } from '../src/config/app-config.js';
import { Database, quoteIdent } from '../src/database/database.js';
import { CreateKeyCommand } from '../src/keys/commands/create-key.command.js';
import { ChangePlanCommand } from '../src/organizations/commands/change-plan.command.js';
import { CreateOrganizationCommand } from '../src/organizations/commands/create-organization.command.js';
import { planLimits } from '../src/organizations/plans.js';
import { CreateProjectCommand } from '../src/projects/commands/create-project.command.js';
import { RequestLogWriter } from '../src/request-log/request-log.writer.js';
import { RegisterUserCommand } from '../src/users/commands/register-user.command.js';
import { type BenchReport, type Figure, figuresTable } from './bench-support.js';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PARTS = (process.env.BENCH_PARTS ?? 'embedded,services').split(',');
const ACTOR = { type: 'system', id: 'bench' } as const;

type Mode = 'embedded' | 'services';
interface Instance {
  readonly app: NestFastifyApplication;
  readonly url: string;
  readonly key: string;
  readonly orgId: string;
  readonly cleanup: () => Promise<void>;
}
interface Round {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly ok: number;
}

async function start(mode: Mode, logDays: number): Promise<Instance> {
  const name = `bench_reqlog_${logDays}_${process.pid}`;
  const dataDir = mode === 'embedded' ? await mkdtemp(path.join(os.tmpdir(), 'bench-reqlog-')) : '';
  const env = {
    LOG_LEVEL: 'silent',
    DEMO_SEED: 'false',
    REQUEST_LOG_RETENTION_DAYS: String(logDays),
    ...(mode === 'embedded'
      ? { DATA_DIR: dataDir }
      : { DATABASE_URL, DATABASE_SCHEMA: name, REDIS_URL, REDIS_PREFIX: `${name}:` }),
  };
  const app = await createApp(loadConfig(env));
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
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
  const limits = planLimits('enterprise', { allowance: 1e12, rpmLive: 1e9, rpmTest: 1e9 });
  const { position } = await bus.execute(new ChangePlanCommand(org.orgId, 'enterprise', limits, ACTOR));
  await app.get(ProjectionRunner).waitFor(position, 30_000);
  const cleanup = async () => {
    await app.close();
    if (mode === 'embedded') await rm(dataDir, { recursive: true, force: true });
    else {
      const db = Database.connect(DATABASE_URL, 'public', 1);
      await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(name)} CASCADE`);
      await db.close();
    }
  };
  return { app, url, key: key.plaintext, orgId: org.orgId, cleanup };
}

function drive(instance: Instance, seconds: number): Promise<Round> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${instance.url}/search`,
        method: 'POST',
        connections: CONNECTIONS,
        duration: seconds,
        headers: { authorization: `Bearer ${instance.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'request log benchmark' }),
        timeout: 10,
      },
      (error: unknown, result: autocannon.Result) => {
        if (error) return reject(error instanceof Error ? error : new Error(String(error)));
        resolve({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, ok: result['2xx'] });
      },
    );
  });
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

async function measure(mode: Mode): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const on = await start(mode, 30);
  const off = await start(mode, 0);
  try {
    await drive(on, 2);
    await drive(off, 2);
    const rounds: { on: Round[]; off: Round[] } = { on: [], off: [] };
    for (let i = 0; i < ROUNDS; i++) {
      for (const variant of i % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        rounds[variant].push(await drive(variant === 'on' ? on : off, DURATION));
      }
    }
    await on.app.get(RequestLogWriter).flush();
    const db = on.app.get(Database);
    const logged = await db.query<{ n: string }>('SELECT count(*) AS n FROM request_log WHERE org_id = $1', [on.orgId]);
    const answered = rounds.on.reduce((sum, r) => sum + r.ok, 0);
    const figure = (measure: string, unit: string, pick: (r: Round) => number, higherIsBetter: boolean): Figure => {
      const value = mean(rounds.on.map(pick));
      const baseline = mean(rounds.off.map(pick));
      const ratio = value / baseline;
      return {
        bench: 'request-log',
        measure: `${mode}: POST /search ${measure}, request log on`,
        value,
        unit,
        baseline: { label: 'log off', value: baseline },
        ratio,
        target: higherIsBetter ? '≥ 0.95× (within noise)' : '≤ 1.05× (within noise)',
        met: higherIsBetter ? ratio >= 0.95 : ratio <= 1.05,
      };
    };
    return {
      figures: [
        figure('throughput', 'req/s', (r) => r.rps, true),
        figure('p50 latency', 'ms', (r) => r.p50, false),
        figure('p99 latency', 'ms', (r) => r.p99, false),
      ],
      details: { mode, rounds, logged_rows: Number(logged.rows[0]?.n ?? 0), answered_2xx_while_on: answered },
    };
  } finally {
    await on.cleanup();
    await off.cleanup();
  }
}

async function main(): Promise<void> {
  const figures: Figure[] = [];
  const details: Record<string, unknown>[] = [];
  for (const mode of ['embedded', 'services'] as const) {
    if (!PARTS.includes(mode)) continue;
    const result = await measure(mode);
    figures.push(...result.figures);
    details.push(result.details);
  }
  console.log(figuresTable(figures));
  console.log(JSON.stringify({ bench: 'request-log', figures, details: { modes: details } } satisfies BenchReport));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
