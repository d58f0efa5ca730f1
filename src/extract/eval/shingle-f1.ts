/**
 * The metric of the Zyte/scrapinghub article-extraction benchmark (upstream evaluate.py, as its README describes
 * it): 4-token shingles of `\w+` tokens (Python's Unicode `\w`: letters, numbers and `_`; case kept), matched as
 * multisets, normalised per page so that long articles weigh no more than short ones.
 */

/** Python's `re.findall(r'\w+', text, re.UNICODE)`: letters, digits/numerics and underscore (no combining marks). */
const TOKEN = /[\p{L}\p{N}_]+/gu;
const SHINGLE_SIZE = 4;

export interface ShingleCounts {
  /** Normalised so that tp + fp + fn = 1 (all 0 when both texts have no tokens). */
  readonly tp: number;
  readonly fp: number;
  readonly fn: number;
}

export function benchmarkTokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** Upstream's `_ngrams`: every run of 4 tokens, or the whole text as one shingle when it has fewer than 4 (none if empty). */
function shingles(text: string): Map<string, number> {
  const tokens = benchmarkTokens(text);
  const counts = new Map<string, number>();
  const last = Math.max(1, tokens.length - SHINGLE_SIZE + 1);
  for (let i = 0; i < last; i++) {
    const shingle = tokens.slice(i, i + SHINGLE_SIZE);
    if (shingle.length === 0) continue;
    // A separator that \w never matches keeps ("ab", "c") and ("a", "bc") apart.
    const key = shingle.join(' ');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Upstream's `string_shingle_matching(true, pred)`. */
export function shingleMatching(truth: string, predicted: string): ShingleCounts {
  const truthShingles = shingles(truth);
  const predictedShingles = shingles(predicted);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [key, predictedCount] of predictedShingles) {
    const truthCount = truthShingles.get(key) ?? 0;
    tp += Math.min(truthCount, predictedCount);
    fp += Math.max(0, predictedCount - truthCount);
  }
  for (const [key, truthCount] of truthShingles) fn += Math.max(0, truthCount - (predictedShingles.get(key) ?? 0));
  const sum = tp + fp + fn;
  return sum > 0 ? { tp: tp / sum, fp: fp / sum, fn: fn / sum } : { tp, fp, fn };
}

export function pagePrecision({ tp, fp, fn }: ShingleCounts): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fp === 0) return 0;
  return tp / (tp + fp);
}

export function pageRecall({ tp, fp, fn }: ShingleCounts): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fn === 0) return 0;
  return tp / (tp + fn);
}

export interface BenchmarkScore {
  readonly f1: number;
  readonly precision: number;
  readonly recall: number;
}

const average = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);

/**
 * Upstream's `metrics_from_tp_fp_fns`: precision averaged over pages with tp + fp > 0, recall over pages with
 * tp + fn > 0, and F1 the harmonic mean of those two means.
 */
export function benchmarkScore(pages: readonly ShingleCounts[]): BenchmarkScore {
  const precision = average(pages.filter((p) => p.tp + p.fp > 0).map(pagePrecision));
  const recall = average(pages.filter((p) => p.tp + p.fn > 0).map(pageRecall));
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { f1, precision, recall };
}
