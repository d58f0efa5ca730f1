/**
 * First pass (issue 27): new queries on a freshly started server, as every query an agent sends is new, while a crawl
 * writes to the index. Part of `npm run bench:search`.
 *
 * Per mode: the BEIR collection's documents are indexed (through DocumentIndexWriter, as `cli index` and crawl write
 * them) into a database of their own (services: a schema on DATABASE_URL; embedded: PGlite in a temporary directory,
 * on its own thread as the server runs it); then the server is "restarted" — a new pool with the server's size and a
 * new provider, and in embedded mode a new PGlite — so that no query has been seen and no translation learned. The
 * claims are then searched one after the other at basic depth (provider time) while a simulated crawl feeds pages to
 * the index as IndexFeed does (a page every 1000 / BENCH_FIRST_PASS_CRAWL_RATE ms; a write starts once 25 pages wait
 * and takes all that wait). The crawl's pages are the collection's documents again under another site's URLs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DocumentIndexWriter, type IndexedDocument } from '../src/documents/document-index.writer.js';
import { Database, quoteIdent } from '../src/database/database.js';
import { EmbeddedPostgres } from '../src/database/embedded-postgres.js';
import { migrate } from '../src/database/migrator.js';
import type { BeirDataset } from '../src/search/eval/beir-dataset.js';
import { beirIndexedDocument } from '../src/search/eval/beir-index.js';
import { LocalIndexProvider } from '../src/search/providers/local-index.provider.js';
import { unfilteredSearchRequest as request } from '../src/search/search-request.js';
import { percentile } from './bench-support.js';

/** The server's default pool (DATABASE_POOL_SIZE); embedded mode serves it 5 connections more. */
const POOL_SIZE = 10;
const INDEX_BATCH = 500;
/** Pages per second the simulated crawl feeds to the index (the real-site crawl's rate in bench:crawl). */
export const FIRST_PASS_CRAWL_RATE = Number(process.env.BENCH_FIRST_PASS_CRAWL_RATE ?? 40);
const FEED_MIN_BATCH = 25;
const COLLECTION_PREFIX = 'https://beir.bench.invalid/doc/';
const CRAWLED_PREFIX = 'https://mirror.bench.invalid/doc/';

export type FirstPassMode = 'services' | 'embedded';

export interface FirstPass {
  readonly mode: FirstPassMode;
  readonly queries: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
  /** Pages the simulated crawl wrote during the pass, and its writes' p50 / max in ms. */
  readonly crawlPages: number;
  readonly crawlWriteP50: number;
  readonly crawlWriteMax: number;
  /** The slowest queries: their place in the pass (0: the first after the start) and time. */
  readonly slowest: readonly { readonly query: number; readonly ms: number }[];
  /** Translations learned during the pass. */
  readonly learned: number;
  readonly indexMs: number;
}

interface Opened {
  readonly db: Database;
  close(): Promise<void>;
}

/** A database for one mode; `reopen` starts it again as a restarted server would find it. */
async function openDatabase(mode: FirstPassMode, databaseUrl: string) {
  if (mode === 'services') {
    const schema = `bench_first_pass_${process.pid}`;
    const open = async (): Promise<Opened> => {
      const db = Database.connect(databaseUrl, schema, POOL_SIZE);
      return { db, close: () => db.close() };
    };
    return {
      schema,
      open,
      drop: async () => {
        const db = Database.connect(databaseUrl, schema, 1);
        await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`).catch(() => {});
        await db.close();
      },
    };
  }
  const dataDir = await mkdtemp(path.join(tmpdir(), 'bench-first-pass-'));
  const open = async (): Promise<Opened> => {
    const embedded = await EmbeddedPostgres.start(dataDir, 0, POOL_SIZE + 5);
    const db = Database.connect(embedded.connectionString, 'public', POOL_SIZE, { singleBackend: true });
    return {
      db,
      close: async () => {
        await db.close();
        await embedded.stop();
      },
    };
  };
  return { schema: 'public', open, drop: () => rm(dataDir, { recursive: true, force: true }) };
}

export async function measureFirstPass(
  mode: FirstPassMode,
  beir: BeirDataset,
  claims: readonly string[],
  databaseUrl: string,
): Promise<FirstPass> {
  const database = await openDatabase(mode, databaseUrl);
  try {
    const indexStarted = performance.now();
    let opened = await database.open();
    try {
      if (mode === 'services') await opened.db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(database.schema)} CASCADE`);
      await migrate(opened.db.pool, database.schema, ['index']);
      const now = new Date();
      const documents = beir.corpus.map((doc) => beirIndexedDocument(doc, COLLECTION_PREFIX, now));
      const writer = new DocumentIndexWriter(opened.db);
      for (let i = 0; i < documents.length; i += INDEX_BATCH) await writer.upsert(documents.slice(i, i + INDEX_BATCH));
      await opened.db.query('VACUUM ANALYZE documents');
      await opened.db.query('VACUUM ANALYZE search_postings');
      await opened.db.query('ANALYZE search_terms');
    } finally {
      await opened.close();
    }
    const indexMs = performance.now() - indexStarted;

    opened = await database.open(); // the fresh server
    const provider = new LocalIndexProvider(opened.db, { mode });
    await provider.onApplicationBootstrap(); // as the server does before it listens
    const crawl = new SimulatedCrawl(new DocumentIndexWriter(opened.db), beir);
    try {
      const times: number[] = [];
      crawl.start();
      for (const claim of claims) {
        const started = performance.now();
        await provider.search(request(claim, 'basic', 10));
        times.push(performance.now() - started);
      }
      await crawl.stop();
      const learned = provider.index.translations.learned;
      await provider.index.close();
      const slowest = times
        .map((ms, query) => ({ query, ms: Math.round(ms) }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 5);
      times.sort((a, b) => a - b);
      const writes = [...crawl.writeMs].sort((a, b) => a - b);
      return {
        mode,
        queries: times.length,
        p50: percentile(times, 50),
        p90: percentile(times, 90),
        p99: percentile(times, 99),
        max: times.at(-1) ?? NaN,
        mean: times.reduce((sum, t) => sum + t, 0) / times.length,
        crawlPages: crawl.written,
        crawlWriteP50: percentile(writes, 50),
        crawlWriteMax: writes.at(-1) ?? NaN,
        slowest,
        learned,
        indexMs,
      };
    } finally {
      await crawl.stop();
      await provider.index.close();
      await opened.close();
    }
  } finally {
    await database.drop();
  }
}

/** Pages arriving at a crawl's pace, written as IndexFeed writes them: one write at a time, each taking all that wait. */
class SimulatedCrawl {
  readonly writeMs: number[] = [];
  written = 0;
  private timer: NodeJS.Timeout | null = null;
  private pending: IndexedDocument[] = [];
  private writing: Promise<void> | null = null;
  private next = 0;

  constructor(
    private readonly writer: DocumentIndexWriter,
    private readonly beir: BeirDataset,
  ) {}

  /** A rate of 0 (BENCH_FIRST_PASS_CRAWL_RATE=0) is a pass without a crawl. */
  start(): void {
    if (FIRST_PASS_CRAWL_RATE > 0) this.timer = setInterval(() => this.arrive(), 1000 / FIRST_PASS_CRAWL_RATE);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    while (this.writing) await this.writing;
  }

  private arrive(): void {
    const doc = this.beir.corpus[this.next++ % this.beir.corpus.length]!;
    this.pending.push(beirIndexedDocument(doc, `${CRAWLED_PREFIX}${this.next}/`, new Date()));
    if (!this.writing && this.pending.length >= FEED_MIN_BATCH) this.writing = this.write();
  }

  private async write(): Promise<void> {
    try {
      while (this.pending.length >= FEED_MIN_BATCH) {
        const batch = this.pending.splice(0);
        const started = performance.now();
        this.written += await this.writer.upsert(batch);
        this.writeMs.push(performance.now() - started);
      }
    } finally {
      this.writing = null;
    }
  }
}
