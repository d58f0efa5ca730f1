/**
 * `npm run bench`: runs every benchmark, one after the other, each in a process of its own (as `npm run bench:<name>`
 * would; their own output is shown as it comes), then prints one combined table and writes it, with each
 * benchmark's report, to bench/results/<timestamp>.json.
 *
 * BENCH_ONLY=metering,search runs some of them. Every benchmark's environment variables apply (BENCH_DOCS,
 * BENCH_PAGES, BENCH_DURATION, BENCH_WEB_CLAIMS, ...). The exit code is non-zero when a benchmark failed; the others still run.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchReport, type Figure, figuresTable, mib } from './bench-support.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const BENCHES = ['metering', 'search', 'crawl', 'web'] as const;
type BenchName = (typeof BENCHES)[number];

interface Run {
  readonly name: BenchName;
  readonly exitCode: number | null;
  readonly seconds: number;
  readonly peakRssBytes: number | null;
  readonly stdout: string;
}

async function runBench(name: BenchName, scratch: string): Promise<Run> {
  const rssFile = path.join(scratch, `${name}.rss`);
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', path.join(here, 'rss-probe.js'), path.join(here, `${name}.bench.js`)],
    { env: { ...process.env, BENCH_RSS_FILE: rssFile, BENCH_NO_RECORD: '1' }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    process.stdout.write(chunk);
  });
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const rss = await readFile(rssFile, 'utf8').catch(() => null);
  return {
    name,
    exitCode,
    seconds: (performance.now() - started) / 1000,
    peakRssBytes: rss ? Number(rss) : null,
    stdout,
  };
}

/** The last stdout line that parses as a JSON object. */
function lastJson(stdout: string): Record<string, unknown> | null {
  for (const line of stdout.trim().split('\n').reverse()) {
    if (!line.startsWith('{')) continue;
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      // not JSON after all
    }
  }
  return null;
}

function meteringFigures(run: Run): { figures: Figure[]; report: unknown } {
  const report = lastJson(run.stdout) as BenchReport | null;
  return { figures: report?.figures ? [...report.figures] : [], report };
}

/**
 * search.bench.ts prints its report as its last JSON line (figures with the targets of issue 15); older builds print
 * only an "indexing: … = N docs/s" line and a Markdown table of latencies per depth and set.
 */
function searchFigures(run: Run): { figures: Figure[]; report: unknown } {
  const bench = 'search';
  const report = lastJson(run.stdout) as BenchReport | null;
  if (report?.figures) {
    const figures = [...report.figures];
    if (run.peakRssBytes) figures.push({ bench, measure: 'peak RSS', value: mib(run.peakRssBytes), unit: 'MiB' });
    return { figures, report };
  }
  const figures: Figure[] = [];
  const indexing = /indexing: ([\d,]+) docs .*= ([\d,]+) docs\/s/.exec(run.stdout);
  const docs = indexing ? Number(indexing[1]!.replace(/,/g, '')) : null;
  if (indexing) {
    figures.push({ bench, measure: 'indexing', value: Number(indexing[2]!.replace(/,/g, '')), unit: 'docs/s' });
  }
  const rows: Record<string, unknown>[] = [];
  for (const match of run.stdout.matchAll(
    /^\| (basic|advanced)\s+\| (\w+)\s+\| (\d+)\s+\| +([\d.]+) \| +([\d.]+) \| +([\d.]+) \| +([\d.]+) \|$/gm,
  )) {
    const [, depth, set, n, p50, p99, mean, hits] = match;
    rows.push({ depth, set, queries: Number(n), p50: Number(p50), p99: Number(p99), mean: Number(mean), hits });
    if (set !== 'all') continue;
    const over = docs ? ` over ${docs.toLocaleString('en')} docs` : '';
    figures.push({
      bench,
      measure: `${depth} search p50${over}`,
      value: Number(p50),
      unit: 'ms',
      ...(depth === 'basic' ? { target: '< 20 ms', met: Number(p50) < 20 } : {}),
    });
    figures.push({ bench, measure: `${depth} search p99${over}`, value: Number(p99), unit: 'ms' });
  }
  if (run.peakRssBytes) figures.push({ bench, measure: 'peak RSS', value: mib(run.peakRssBytes), unit: 'MiB' });
  return { figures, report: { docs, latencies: rows } };
}

/** crawl.bench.ts prints its report as its last JSON line. */
function crawlFigures(run: Run): { figures: Figure[]; report: unknown } {
  const bench = 'crawl';
  const report = lastJson(run.stdout) as {
    crawl?: { pages: number; pages_per_second: number; ms_per_page: number };
    map?: { pages: number; pages_per_second: number };
  } | null;
  const figures: Figure[] = [];
  if (report?.crawl) {
    figures.push({
      bench,
      measure: `crawl with extraction (${report.crawl.pages} pages)`,
      value: report.crawl.pages_per_second,
      unit: 'pages/s',
    });
  }
  if (report?.map) {
    figures.push({
      bench,
      measure: `map (${report.map.pages} pages)`,
      value: report.map.pages_per_second,
      unit: 'pages/s',
    });
  }
  if (run.peakRssBytes) figures.push({ bench, measure: 'peak RSS', value: mib(run.peakRssBytes), unit: 'MiB' });
  return { figures, report };
}

const PARSERS: Record<BenchName, (run: Run) => { figures: Figure[]; report: unknown }> = {
  metering: meteringFigures,
  search: searchFigures,
  crawl: crawlFigures,
  // web.bench.ts prints a BenchReport (issue 25's figures and targets), as metering does; its service runs in a
  // process of its own, so the probe's peak RSS (the bench's) is not shown.
  web: meteringFigures,
};

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
  const selected = BENCHES.filter((name) => !only || only.includes(name));
  const startedAt = new Date();
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'bench-all-'));
  const results: Record<string, unknown>[] = [];
  const figures: Figure[] = [];
  let failed = false;
  try {
    for (const name of selected) {
      process.stdout.write(`\n=== ${name} ===\n`);
      const run = await runBench(name, scratch);
      const parsed = PARSERS[name](run);
      if (run.exitCode !== 0) failed = true;
      figures.push(...parsed.figures);
      results.push({
        name,
        exitCode: run.exitCode,
        seconds: Math.round(run.seconds * 10) / 10,
        peakRssMiB: run.peakRssBytes ? mib(run.peakRssBytes) : null,
        report: parsed.report,
      });
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }

  const document = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      memoryMiB: mib(os.totalmem()),
      loadAverageAtEnd: os.loadavg(),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    figures,
    benches: results,
  };
  const directory = path.resolve(here, '..', '..', 'bench', 'results');
  await mkdir(directory, { recursive: true });
  const file = path.join(directory, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(file, `${JSON.stringify(document, null, 2)}\n`);

  process.stdout.write(`\n=== all benchmarks ===\n${figuresTable(figures)}\n`);
  for (const result of results) {
    if (result.exitCode !== 0)
      process.stdout.write(`${String(result.name)} FAILED (exit code ${String(result.exitCode)})\n`);
  }
  process.stdout.write(`written to ${path.relative(process.cwd(), file)}\n`);
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
