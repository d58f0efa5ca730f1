/**
 * Search relevance and latency on judged queries (`npm run eval:search <dir>`; not part of `npm test`): indexes a
 * folder in the BEIR layout (corpus.jsonl, queries.jsonl, qrels/*.tsv; see beir-dataset.ts) through crawl's
 * DocumentIndexWriter, runs every judged query through the local index provider at basic and advanced depth, and
 * prints nDCG@10, recall@100, MRR@10 and the provider's latency (p50 / p99, max_results 10, one query at a time).
 *
 * With DATABASE_URL set (services mode) it works in a scratch schema of that database, dropped afterwards; without
 * it, in an embedded PGlite in a temporary data directory (the embedded mode's database). EVAL_KEEP=1 keeps either.
 * Options: --depth basic|advanced|basic,advanced (default both), --queries N (the first N judged queries), --run FILE
 * (writes each depth's top 100 of every query in the TREC run format, `qid Q0 docid rank score depth`, for trec_eval
 * or for fusing with another system's run).
 */
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DocumentIndexWriter, type IndexedDocument } from '../../documents/document-index.writer.js';
import { Database, quoteIdent } from '../../database/database.js';
import { EmbeddedPostgres } from '../../database/embedded-postgres.js';
import { migrate } from '../../database/migrator.js';
import { LocalIndexProvider } from '../providers/local-index.provider.js';
import { type BeirDataset, readBeirDataset } from './beir-dataset.js';
import { beirIndexedDocument } from './beir-index.js';
import { unfilteredSearchRequest as request } from '../search-request.js';
import { mean, ndcgAt, recallAt, reciprocalRankAt } from './retrieval-metrics.js';

type Depth = 'basic' | 'advanced';

export interface DepthResult {
  readonly depth: Depth;
  readonly ndcg10: number;
  readonly recall100: number;
  readonly mrr10: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

const URL_PREFIX = 'https://eval.invalid/doc/';
const WRITE_BATCH = 500;

export interface Args {
  readonly dir: string;
  readonly depths: Depth[];
  readonly queries: number;
  readonly run: string | null;
}

export function parseArgs(argv: readonly string[]): Args {
  let dir: string | undefined;
  let run: string | null = null;
  let depths: Depth[] = ['basic', 'advanced'];
  let queries = Infinity;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--depth') {
      depths = (argv[++i] ?? '').split(',').filter((d): d is Depth => d === 'basic' || d === 'advanced');
      if (depths.length === 0) throw new Error('--depth takes basic, advanced or basic,advanced');
    } else if (arg === '--queries') {
      queries = Number(argv[++i]);
      if (!Number.isInteger(queries) || queries < 1) throw new Error('--queries takes a positive integer');
    } else if (arg === '--run') {
      run = argv[++i] ?? '';
      if (!run) throw new Error('--run takes a file name');
    } else if (!arg.startsWith('--') && dir === undefined) dir = arg;
    else throw new Error(`unknown argument: ${arg}`);
  }
  if (!dir) throw new Error('usage: npm run eval:search <dir> [--depth basic,advanced] [--queries N] [--run FILE]');
  return { dir, depths, queries, run };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

async function indexCorpus(db: Database, dataset: BeirDataset): Promise<number> {
  const writer = new DocumentIndexWriter(db);
  const fetchedAt = new Date();
  const started = performance.now();
  for (let i = 0; i < dataset.corpus.length; i += WRITE_BATCH) {
    const batch: IndexedDocument[] = dataset.corpus
      .slice(i, i + WRITE_BATCH)
      .map((doc) => beirIndexedDocument(doc, URL_PREFIX, fetchedAt));
    await writer.upsert(batch);
  }
  await db.query('VACUUM ANALYZE documents');
  await db.query('VACUUM ANALYZE search_postings');
  return performance.now() - started;
}

export async function evaluate(
  provider: LocalIndexProvider,
  dataset: BeirDataset,
  depth: Depth,
  queries = dataset.queries,
  run: string[] | null = null,
): Promise<DepthResult> {
  const idOf = (url: string) => decodeURIComponent(url.slice(URL_PREFIX.length));
  const ndcg: number[] = [];
  const mrr: number[] = [];
  const recall: number[] = [];
  const times: number[] = [];
  for (const query of queries) {
    const judged = dataset.qrels.get(query.id)!;
    const started = performance.now();
    const top = await provider.search(request(query.text, depth, 10));
    times.push(performance.now() - started);
    const ranking = top.map((hit) => idOf(hit.url));
    ndcg.push(ndcgAt(ranking, judged, 10));
    mrr.push(reciprocalRankAt(ranking, judged, 10));
    const deep = await provider.search(request(query.text, depth, 100));
    deep.forEach((hit, i) => run?.push(`${query.id} Q0 ${idOf(hit.url)} ${i + 1} ${hit.score} ${depth}`));
    recall.push(
      recallAt(
        deep.map((hit) => idOf(hit.url)),
        judged,
        100,
      ),
    );
  }
  times.sort((a, b) => a - b);
  return {
    depth,
    ndcg10: mean(ndcg),
    recall100: mean(recall),
    mrr10: mean(mrr),
    p50Ms: percentile(times, 50),
    p99Ms: percentile(times, 99),
  };
}

/**
 * Indexes `args.dir` and evaluates its judged queries; prints through `out`. Services mode with `databaseUrl` (a
 * scratch schema, dropped afterwards unless `keep`), else an embedded PGlite in a temporary data directory.
 */
export async function runEvaluation(
  args: Args,
  options: { databaseUrl?: string; keep?: boolean; out: (line?: string) => void },
): Promise<DepthResult[]> {
  const dataset = await readBeirDataset(args.dir);
  const { databaseUrl, keep = false, out } = options;
  const schema = databaseUrl ? `eval_search_${process.pid}_${Date.now()}` : 'public';
  const dataDir = databaseUrl ? null : await mkdtemp(path.join(tmpdir(), 'eval-search-'));
  const embedded = dataDir ? await EmbeddedPostgres.start(dataDir, 0, 8) : null;
  const db = Database.connect(embedded?.connectionString ?? databaseUrl!, schema, 4, {
    singleBackend: embedded !== null,
  });
  try {
    await migrate(db.pool, schema, ['index']);
    const indexMs = await indexCorpus(db, dataset);
    const queries = dataset.queries.slice(0, args.queries);
    out(
      `${path.basename(path.resolve(args.dir))}: ${dataset.corpus.length.toLocaleString('en')} documents indexed in ` +
        `${(indexMs / 1000).toFixed(1)} s (${databaseUrl ? `services mode, schema ${schema}` : 'embedded mode, PGlite'}), ` +
        `${queries.length} judged queries`,
    );
    const provider = new LocalIndexProvider(db, { mode: databaseUrl ? 'services' : 'embedded' });
    // The queries' terms learn their translations first (in service, off the query path as queries first use them).
    const learning = performance.now();
    for (const query of queries) await provider.index.analyze(query.text);
    await provider.index.translations.idle();
    out(
      `translations learned for ${provider.index.translations.learned.toLocaleString('en')} query terms in ` +
        `${((performance.now() - learning) / 1000).toFixed(1)} s`,
    );
    await evaluate(provider, dataset, args.depths[0]!, queries.slice(0, 20)); // warm-up
    const results: DepthResult[] = [];
    if (args.run) await writeFile(args.run, '');
    for (const depth of args.depths) {
      const run: string[] | null = args.run ? [] : null;
      results.push(await evaluate(provider, dataset, depth, queries, run));
      if (args.run && run) await appendFile(args.run, run.map((line) => `${line}\n`).join(''));
    }
    out();
    out('| depth    | nDCG@10 | recall@100 | MRR@10 | p50 ms | p99 ms |');
    out('|----------|---------|------------|--------|--------|--------|');
    for (const r of results) {
      out(
        `| ${r.depth.padEnd(8)} | ${r.ndcg10.toFixed(4)}  | ${r.recall100.toFixed(4).padStart(10)} | ${r.mrr10.toFixed(4)} | ` +
          `${r.p50Ms.toFixed(1).padStart(6)} | ${r.p99Ms.toFixed(1).padStart(6)} |`,
      );
    }
    out(JSON.stringify({ dataset: path.resolve(args.dir), documents: dataset.corpus.length, results }));
    return results;
  } finally {
    if (databaseUrl && !keep) await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`).catch(() => {});
    await db.close();
    await embedded?.stop();
    if (dataDir && !keep) await rm(dataDir, { recursive: true, force: true });
    if (dataDir && keep) process.stderr.write(`kept ${dataDir}\n`);
  }
}
