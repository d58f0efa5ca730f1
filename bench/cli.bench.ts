/**
 * `npm run bench:cli`: how long an operator waits for `npm run cli -- org list` on a built checkout, embedded (a
 * DATA_DIR that exists, no server running) and in services mode (PostgreSQL), against two baselines measured in the
 * same run: Node.js starting and exiting, and `help` (the CLI without the application). BENCH_CLI_RUNS (default 7).
 *
 * The figure is the command itself (`node dist/src/cli/main.js`); `npm run` adds its own start (about 0.3 s).
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchReport, type Figure, figuresTable, percentile, sortedCopy } from './bench-support.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = path.join(ROOT, 'dist', 'src', 'cli', 'main.js');
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 7);
const TARGET_MS = 2_000;
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const out = (line = '') => process.stdout.write(`${line}\n`);

/** Milliseconds from spawn to exit of each run; throws when a run fails. */
function timeRuns(args: readonly string[], env: NodeJS.ProcessEnv, runs = RUNS): Float64Array {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { env: { ...process.env, ...env }, encoding: 'utf8' });
    times.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  }
  return sortedCopy(times);
}

async function main(): Promise<void> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'bench-cli-'));
  const schema = `bench_cli_${process.pid}`;
  try {
    const embedded = { DATA_DIR: path.join(scratch, 'data'), LOG_LEVEL: 'error' };
    const services = { DATABASE_URL, DATABASE_SCHEMA: schema, LOG_LEVEL: 'error' };
    // The first run creates the data directory or the schema (migrations): not what an operator waits for each time.
    await mkdir(embedded.DATA_DIR, { recursive: true });
    timeRuns([CLI, 'org', 'list'], embedded, 1);
    timeRuns([CLI, 'org', 'list'], services, 1);

    const node = timeRuns(['-e', '0'], {});
    const help = timeRuns([CLI, 'help'], embedded);
    const figures: Figure[] = [];
    for (const [mode, env] of [
      ['embedded', embedded],
      ['services', services],
    ] as const) {
      const runs = timeRuns([CLI, 'org', 'list'], env);
      const p50 = percentile(runs, 50);
      figures.push({
        bench: 'cli',
        measure: `org list, ${mode}, p50 of ${RUNS}`,
        value: p50,
        unit: 'ms',
        baseline: { label: 'help', value: percentile(help, 50) },
        added: p50 - percentile(help, 50),
        target: `< ${TARGET_MS} ms`,
        met: p50 < TARGET_MS,
      });
    }
    figures.push({ bench: 'cli', measure: `help, p50 of ${RUNS}`, value: percentile(help, 50), unit: 'ms' });
    figures.push({ bench: 'cli', measure: `node -e 0, p50 of ${RUNS}`, value: percentile(node, 50), unit: 'ms' });

    out(figuresTable(figures));
    const targets = figures.filter((f) => f.target !== undefined);
    out();
    out(
      `targets: ${targets.filter((f) => f.met).length} of ${targets.length} met (load average ${os.loadavg()[0]!.toFixed(1)})`,
    );
    const report: BenchReport = { bench: 'cli', figures, details: { runs: RUNS, loadAverage: os.loadavg() } };
    if (!process.env.BENCH_NO_RECORD) {
      const directory = path.join(ROOT, 'bench', 'results');
      await mkdir(directory, { recursive: true });
      const file = path.join(directory, `cli-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
      await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
      out(`recorded in ${path.relative(process.cwd(), file)}`);
    }
    out(JSON.stringify(report));
  } finally {
    await rm(scratch, { recursive: true, force: true });
    spawnSync('psql', [DATABASE_URL, '-qc', `DROP SCHEMA IF EXISTS ${schema} CASCADE`], { encoding: 'utf8' });
  }
}

await main();
