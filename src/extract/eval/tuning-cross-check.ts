import { DEFAULT_TUNING, type ExtractionTuning } from '../html/extraction-tuning.js';
import { type BenchmarkPage, tunedExtractor } from './article-benchmark.js';
import { HALVES, type Half, type HalfScore, type ScoredPage, halfScores, otherHalf } from './benchmark-halves.js';
import { shingleMatching } from './shingle-f1.js';

/** One pass of the extractor with `tuning` over the pages (no timing), each page scored. */
export function scoreTuning(pages: readonly BenchmarkPage[], tuning: ExtractionTuning): ScoredPage[] {
  const extract = tunedExtractor(tuning);
  return pages.map((page) => ({ id: page.id, counts: shingleMatching(page.truth, extract(page)) }));
}

/** A threshold of the extractor and the values to try (the default among them). */
export interface ThresholdSweep {
  readonly name: keyof ExtractionTuning;
  readonly values: readonly number[];
}

export const THRESHOLD_SWEEPS: readonly ThresholdSweep[] = [
  { name: 'boilerplateMaxShare', values: [0.2, 0.3, 0.4, 0.5, 0.6] },
  { name: 'linkBlockDensity', values: [0.5, 0.6, 0.7, 0.8, 0.9] },
  { name: 'linkParagraphDensity', values: [0.6, 0.7, 0.8, 0.9, 1.01] },
  { name: 'imageCaptionMaxLength', values: [0, 200, 300, 500, 800, 1200] },
];

export interface SweepValue {
  readonly value: number;
  readonly halves: Record<Half, HalfScore>;
}

/** Two-fold: the value that scores best on `tunedOn`, and what it and the default score on the other half. */
export interface CrossFold {
  readonly tunedOn: Half;
  readonly picked: number;
  readonly pickedOnOther: number;
  readonly defaultOnOther: number;
}

export interface SweepResult {
  readonly name: string;
  readonly defaultValue: number;
  readonly values: readonly SweepValue[];
  readonly folds: readonly CrossFold[];
}

/**
 * Scores every value of the sweep on both halves, then for each half picks the best value there (ties to the
 * default, then to the first) and scores it on the other half: a threshold is honest when the value picked on one
 * half does no better on the other than the default, and the default is the same on both halves.
 */
export function crossCheck(
  pages: readonly BenchmarkPage[],
  sweep: ThresholdSweep,
  base: ExtractionTuning = DEFAULT_TUNING,
): SweepResult {
  const defaultValue = base[sweep.name] as number;
  const values = sweep.values.map((value) => ({
    value,
    halves: halfScores(scoreTuning(pages, { ...base, [sweep.name]: value })),
  }));
  const f1Of = (value: number, half: Half) => values.find((v) => v.value === value)?.halves[half].f1 ?? NaN;
  const folds = HALVES.map((tunedOn) => {
    const best = values.reduce((a, b) =>
      b.halves[tunedOn].f1 > a.halves[tunedOn].f1 + 1e-9 ||
      (Math.abs(b.halves[tunedOn].f1 - a.halves[tunedOn].f1) <= 1e-9 && b.value === defaultValue)
        ? b
        : a,
    );
    const other = otherHalf(tunedOn);
    return {
      tunedOn,
      picked: best.value,
      pickedOnOther: best.halves[other].f1,
      defaultOnOther: f1Of(defaultValue, other),
    };
  });
  return { name: sweep.name, defaultValue, values, folds };
}
