import { type BenchmarkScore, type ShingleCounts, benchmarkScore } from './shingle-f1.js';

/**
 * The two halves of a benchmark by page-id parity: a rule or a threshold that helps one half only fits the pages
 * it was made on rather than pages in general.
 */
export type Half = 'even' | 'odd';
export const HALVES: readonly Half[] = ['even', 'odd'];

/** The parity of a page id read as a hexadecimal number (its last hex digit); another id, of its last character. */
export function halfOf(id: string): Half {
  const last = id.at(-1) ?? '0';
  const digit = Number.parseInt(last, 16);
  return (Number.isNaN(digit) ? last.charCodeAt(0) : digit) % 2 === 0 ? 'even' : 'odd';
}

export interface ScoredPage {
  readonly id: string;
  readonly counts: ShingleCounts;
}

export interface HalfScore extends BenchmarkScore {
  readonly pages: number;
}

/** The benchmark's score of each half. */
export function halfScores(pages: readonly ScoredPage[]): Record<Half, HalfScore> {
  const of = (half: Half) => {
    const mine = pages.filter((page) => halfOf(page.id) === half);
    return { ...benchmarkScore(mine.map((page) => page.counts)), pages: mine.length };
  };
  return { even: of('even'), odd: of('odd') };
}

export const otherHalf = (half: Half): Half => (half === 'even' ? 'odd' : 'even');
