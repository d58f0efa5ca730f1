import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Readability } from '@mozilla/readability';
import { parseDocument } from '../html/dom.js';
import { DEFAULT_TUNING, type ExtractionTuning } from '../html/extraction-tuning.js';
import { extractHtml } from '../html/html-page.js';
import { type BenchmarkScore, type ShingleCounts, benchmarkScore, shingleMatching } from './shingle-f1.js';

/** One page of an article-extraction benchmark folder: `html/<id>.html.gz` and its ground truth. */
export interface BenchmarkPage {
  readonly id: string;
  readonly url: string;
  readonly html: string;
  readonly truth: string;
}

export class BenchmarkFolderError extends Error {}

/**
 * Reads a folder laid out like the Zyte/scrapinghub article-extraction benchmark: `ground-truth.json`
 * (`{ id: { articleBody, url } }`) and `html/<id>.html.gz` (or `.html`). Every id of the ground truth must have a page.
 */
export function loadBenchmark(dir: string): BenchmarkPage[] {
  const truthFile = path.join(dir, 'ground-truth.json');
  if (!existsSync(truthFile))
    throw new BenchmarkFolderError(
      `${dir}: no ground-truth.json here (expected an article-extraction benchmark folder)`,
    );
  const truth = JSON.parse(readFileSync(truthFile, 'utf8')) as Record<string, { articleBody?: string; url?: string }>;
  const files = new Set(existsSync(path.join(dir, 'html')) ? readdirSync(path.join(dir, 'html')) : []);
  return Object.keys(truth)
    .sort()
    .map((id) => {
      const gz = `${id}.html.gz`;
      const plain = `${id}.html`;
      const file = files.has(gz) ? gz : files.has(plain) ? plain : null;
      if (!file) throw new BenchmarkFolderError(`${dir}: html/${gz} is missing for a page of ground-truth.json`);
      const bytes = readFileSync(path.join(dir, 'html', file));
      const html = (file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
      return { id, url: truth[id]?.url ?? `https://example.com/${id}`, html, truth: truth[id]?.articleBody ?? '' };
    });
}

export type Extractor = (page: BenchmarkPage) => string;

/** Our extractor as the API's `basic` depth, `text` format would answer (with other tuning: an experiment). */
export const tunedExtractor =
  (tuning: ExtractionTuning): Extractor =>
  (page) =>
    extractHtml(page.html, page.url, { depth: 'basic', format: 'text' }, tuning).content;

export const ourExtractor: Extractor = tunedExtractor(DEFAULT_TUNING);

/** Mozilla Readability with default options on the same parse library (linkedom): its textContent, as upstream runs it. */
export const readabilityExtractor: Extractor = (page) => {
  const article = new Readability(parseDocument(page.html) as never).parse();
  return article?.textContent ?? '';
};

export interface PageResult {
  readonly id: string;
  readonly counts: ShingleCounts;
  readonly ms: number;
}

export interface ExtractorRun extends BenchmarkScore {
  readonly name: string;
  /** CPU milliseconds per page (one extraction at a time, HTML in memory, after a warm-up pass). */
  readonly medianMs: number;
  readonly meanMs: number;
  readonly p90Ms: number;
  readonly maxMs: number;
  readonly pages: readonly PageResult[];
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

/**
 * Runs one extractor over every page: a warm-up pass (JIT; none for a single round), then `rounds` timed passes; a page's time is the CPU
 * time of its fastest pass (CPU rather than wall time, so that other work on a shared machine does not count; it
 * includes the garbage collector's threads), its score that of the first timed pass.
 */
export function runExtractor(
  name: string,
  extract: Extractor,
  pages: readonly BenchmarkPage[],
  rounds = 3,
): ExtractorRun {
  if (rounds > 1) for (const page of pages) extract(page);
  const best = new Array<number>(pages.length).fill(Infinity);
  const outputs = new Array<string>(pages.length);
  for (let round = 0; round < rounds; round++) {
    pages.forEach((page, i) => {
      const start = process.cpuUsage();
      const text = extract(page);
      const { user, system } = process.cpuUsage(start);
      best[i] = Math.min(best[i]!, (user + system) / 1000);
      outputs[i] ??= text;
    });
  }
  const results = pages.map((page, i) => ({
    id: page.id,
    counts: shingleMatching(page.truth, outputs[i]!),
    ms: best[i]!,
  }));
  const sorted = [...best].sort((a, b) => a - b);
  return {
    name,
    ...benchmarkScore(results.map((r) => r.counts)),
    medianMs: quantile(sorted, 0.5),
    meanMs: sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length),
    p90Ms: quantile(sorted, 0.9),
    maxMs: sorted[sorted.length - 1] ?? NaN,
    pages: results,
  };
}
