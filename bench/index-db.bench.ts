/**
 * Index-database benchmark (`npm run bench:index-db`; not part of `npm test` nor `npm run bench`): does a crawl's
 * writing delay a charge's append, and does INDEX_DATABASE_URL take that delay away? CreditsCharged events are
 * appended through ChargeWriter (the service's group commit on the PostgreSQL event store) at BENCH_RATE a second,
 * an open loop, for BENCH_SECONDS, first alone, then while BENCH_INDEX_WRITERS loops index large pages (about
 * BENCH_PAGE_KB each, BENCH_BATCH a statement) through DocumentIndexWriter without pause, as a heavy crawl would.
 * Three layouts, BENCH_ROUNDS rounds of each in A-B-C-C-B-A order: the index in the main database through the same
 * pool (the service without INDEX_DATABASE_URL), in the main database through a pool of its own (to tell the pool's
 * share of a difference from the database's), and in a second database with its pool (INDEX_DATABASE_URL). Each
 * phase starts after a CHECKPOINT. Both databases are on DATABASE_URL's server (this machine has one); a second
 * server would also part their CPU, disk and WAL. Figures: append p50 / p99 of each layout under the index load,
 * against the first. Prints a table and, last, one JSON line (BenchReport); the report is also written to
 * bench/results/index-db-<time>.json unless BENCH_NO_RECORD.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Database, quoteIdent } from '../src/database/database.js';
import { mainDatabaseSets, migrate } from '../src/database/migrator.js';
import { DocumentIndexWriter, type IndexedDocument } from '../src/documents/document-index.writer.js';
import type { Actor } from '../src/event-store/domain-event.js';
import { PostgresEventStore } from '../src/event-store/postgres/postgres-event-store.js';
import { ChargeWriter } from '../src/metering/charge-writer.js';
import { billingMonth } from '../src/metering/counter-keys.js';
import type { CreditsCharged } from '../src/metering/events/credits-charged.event.js';
import { type BenchReport, type Figure, figuresTable, percentile, sortedCopy } from './bench-support.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const INDEX_DATABASE_NAME = `bench_index_${process.pid}`;
const INDEX_DATABASE_URL = Object.assign(new URL(DATABASE_URL), { pathname: `/${INDEX_DATABASE_NAME}` }).href;
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const INDEX_WRITERS = Number(process.env.BENCH_INDEX_WRITERS ?? 4);
const PAGE_KB = Number(process.env.BENCH_PAGE_KB ?? 40);
const BATCH = Number(process.env.BENCH_BATCH ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const POOL_SIZE = 10;
const ORGS = 50;
const ACTOR: Actor = { type: 'operator', id: 'bench' };

/** The third layout tells the database's share of the difference from the pool's. */
type Layout = 'one database' | 'one database, two pools' | 'two databases';
const LAYOUTS: readonly Layout[] = ['one database', 'one database, two pools', 'two databases'];
interface AppendLatencies {
  readonly charges: number;
  readonly achievedRate: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}
interface LayoutResult {
  readonly layout: Layout;
  readonly quiet: AppendLatencies;
  readonly underIndexing: AppendLatencies;
  readonly pagesIndexed: number;
  readonly indexedMbPerSecond: number;
}

const out = (line = '') => process.stdout.write(`${line}\n`);
const log = (line: string) => process.stderr.write(`  index-db ${line}\n`);

function chargeFor(org: { org: string; project: string; key: string }): CreditsCharged {
  return {
    type: 'CreditsCharged',
    data: {
      charge_id: randomUUID(),
      org_id: org.org,
      project_id: org.project,
      key_id: org.key,
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

/** A vocabulary large enough that every page adds postings for thousands of distinct terms. */
const VOCABULARY = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}${'aeiou'[i % 5]}n`);

let pageNumber = 0;
function largePage(): IndexedDocument {
  const n = pageNumber++;
  const words: string[] = [];
  for (let length = 0; length < PAGE_KB * 1024;) {
    const word = VOCABULARY[Math.floor(Math.random() ** 2 * VOCABULARY.length)]!;
    words.push(word);
    length += word.length + 1;
  }
  return {
    url: `https://bench-${n % 97}.test/page/${n}`,
    title: `Page ${n} ${words.slice(0, 6).join(' ')}`,
    content: words.join(' '),
    publishedDate: null,
    language: 'en',
    favicon: null,
    images: [],
    structuredData: [],
    fetchedAt: new Date(),
  };
}

/** Charges at RATE a second for SECONDS (issued on time whatever the appends take), each append's latency. */
async function appendSteadily(writer: ChargeWriter, orgs: readonly { org: string; project: string; key: string }[]) {
  const latencies: number[] = [];
  const pending: Promise<unknown>[] = [];
  const total = Math.round(RATE * SECONDS);
  const started = performance.now();
  for (let issued = 0; issued < total;) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE) + 1);
    for (; issued < due; issued++) {
      const at = performance.now();
      pending.push(
        writer.append(chargeFor(orgs[issued % orgs.length]!), ACTOR).then(() => latencies.push(performance.now() - at)),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await Promise.all(pending);
  return { latencies, achievedRate: total / ((performance.now() - started) / 1000) };
}

function summary(runs: readonly { latencies: number[]; achievedRate: number }[]): AppendLatencies {
  const sorted = sortedCopy(runs.flatMap((run) => run.latencies));
  return {
    charges: sorted.length,
    achievedRate: Math.min(...runs.map((run) => run.achievedRate)),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

/** INDEX_WRITERS loops indexing pages until `stop` resolves: the pages and bytes written. */
function indexWithoutPause(indexWriter: DocumentIndexWriter, stop: Promise<void>) {
  let stopped = false;
  void stop.then(() => (stopped = true));
  const written = { pages: 0, bytes: 0 };
  const loop = async () => {
    while (!stopped) {
      const pages = Array.from({ length: BATCH }, largePage);
      await indexWriter.upsert(pages);
      written.pages += pages.length;
      written.bytes += pages.reduce((sum, page) => sum + page.content.length, 0);
    }
  };
  return { done: Promise.all(Array.from({ length: INDEX_WRITERS }, loop)), written };
}

interface Round {
  readonly quiet: { latencies: number[]; achievedRate: number };
  readonly underIndexing: { latencies: number[]; achievedRate: number };
  readonly pagesIndexed: number;
  readonly indexedBytes: number;
  readonly seconds: number;
}

async function runRound(layout: Layout): Promise<Round> {
  const schema = `bench_index_db_${process.pid}`;
  const separate = layout === 'two databases';
  const db = Database.connect(DATABASE_URL, schema, POOL_SIZE);
  const indexDb =
    layout === 'one database' ? db : Database.connect(separate ? INDEX_DATABASE_URL : DATABASE_URL, schema, POOL_SIZE);
  try {
    await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await indexDb.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await migrate(db.pool, schema, mainDatabaseSets(separate));
    if (separate) await migrate(indexDb.pool, schema, ['index']);
    const store = await PostgresEventStore.create(db, { announce: false });
    const writer = new ChargeWriter(store);
    const orgs = Array.from({ length: ORGS }, () => ({ org: randomUUID(), project: randomUUID(), key: randomUUID() }));
    const indexWriter = new DocumentIndexWriter(indexDb);
    // A first index so that the load below updates postings of an index that already holds pages.
    await indexWriter.upsert(Array.from({ length: 100 }, largePage));

    // Each phase starts with no dirty pages left by the set-up (a checkpoint amid one phase would weigh on its p99).
    await db.query('CHECKPOINT');
    const quiet = await appendSteadily(writer, orgs);
    log(`${layout}, appends alone: p99 ${percentile(sortedCopy(quiet.latencies), 99).toFixed(1)} ms`);
    await db.query('CHECKPOINT');
    let finish!: () => void;
    const indexing = indexWithoutPause(indexWriter, new Promise<void>((resolve) => (finish = resolve)));
    const started = performance.now();
    const underIndexing = await appendSteadily(writer, orgs);
    finish();
    await indexing.done;
    const seconds = (performance.now() - started) / 1000;
    log(
      `${layout}, appends while indexing (${indexing.written.pages} pages): ` +
        `p99 ${percentile(sortedCopy(underIndexing.latencies), 99).toFixed(1)} ms`,
    );
    return {
      quiet,
      underIndexing,
      pagesIndexed: indexing.written.pages,
      indexedBytes: indexing.written.bytes,
      seconds,
    };
  } finally {
    await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`).catch(() => {});
    if (indexDb !== db) {
      await indexDb.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`).catch(() => {});
      await indexDb.close();
    }
    await db.close();
  }
}

/** The second database, created once before the rounds (CREATE DATABASE writes much WAL) and dropped after them. */
async function withIndexDatabase<T>(work: () => Promise<T>): Promise<T> {
  const admin = Database.connect(DATABASE_URL, 'public', 1);
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(INDEX_DATABASE_NAME)}`);
    await admin.query(`CREATE DATABASE ${quoteIdent(INDEX_DATABASE_NAME)}`);
    return await work();
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(INDEX_DATABASE_NAME)} WITH (FORCE)`).catch(() => {});
    await admin.close();
  }
}

async function main(): Promise<void> {
  out(
    `index-db benchmark: ${RATE} charges/s for ${SECONDS} s, alone then with ${INDEX_WRITERS} index writers ` +
      `(${PAGE_KB} KB pages, ${BATCH} a statement); load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs`,
  );
  // A-B-B-A: a drift of the machine's load over the run weighs on both layouts alike.
  const order: Layout[] = Array.from({ length: ROUNDS }, (_, i) =>
    i % 2 === 0 ? LAYOUTS : [...LAYOUTS].reverse(),
  ).flat();
  const rounds = new Map<Layout, Round[]>(LAYOUTS.map((layout) => [layout, []]));
  await withIndexDatabase(async () => {
    for (const layout of order) rounds.get(layout)!.push(await runRound(layout));
  });
  const result = (layout: Layout): LayoutResult => {
    const runs = rounds.get(layout)!;
    return {
      layout,
      quiet: summary(runs.map((run) => run.quiet)),
      underIndexing: summary(runs.map((run) => run.underIndexing)),
      pagesIndexed: runs.reduce((sum, run) => sum + run.pagesIndexed, 0),
      indexedMbPerSecond:
        runs.reduce((sum, run) => sum + run.indexedBytes, 0) /
        1024 /
        1024 /
        runs.reduce((sum, run) => sum + run.seconds, 0),
    };
  };
  const one = result('one database');
  const twoPools = result('one database, two pools');
  const two = result('two databases');
  const figures: Figure[] = [
    ...[one, twoPools, two].flatMap((r) => [
      { bench: 'index-db', measure: `append p50 alone, ${r.layout}`, value: r.quiet.p50, unit: 'ms' },
      { bench: 'index-db', measure: `append p99 alone, ${r.layout}`, value: r.quiet.p99, unit: 'ms' },
      {
        bench: 'index-db',
        measure: `pages indexed while appending, ${r.layout}`,
        value: r.indexedMbPerSecond,
        unit: 'MB/s',
      },
    ]),
    ...[twoPools, two].flatMap((r) =>
      (['p50', 'p99'] as const).map((p) => ({
        bench: 'index-db',
        measure: `append ${p} while indexing, ${r.layout}`,
        value: r.underIndexing[p],
        unit: 'ms',
        baseline: { label: 'one database', value: one.underIndexing[p] },
        ratio: r.underIndexing[p] / one.underIndexing[p],
      })),
    ),
  ];
  out(figuresTable(figures));
  const report: BenchReport = {
    bench: 'index-db',
    figures,
    details: {
      rate: RATE,
      seconds: SECONDS,
      indexWriters: INDEX_WRITERS,
      pageKb: PAGE_KB,
      batch: BATCH,
      rounds: ROUNDS,
      layouts: [one, twoPools, two],
      sameServer: true,
      loadAverage: os.loadavg(),
      cpus: os.cpus().length,
    },
  };
  if (!process.env.BENCH_NO_RECORD) {
    const directory = path.join(ROOT, 'bench', 'results');
    await mkdir(directory, { recursive: true });
    const file = path.join(directory, `index-db-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    out(`recorded in ${path.relative(process.cwd(), file)}`);
  }
  out(JSON.stringify(report));
}

await main();
