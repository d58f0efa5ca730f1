import { DEFAULT_TUNING, type ExtractionTuning } from '../html/extraction-tuning.js';
import type { BenchmarkPage } from './article-benchmark.js';
import { type Half, halfScores } from './benchmark-halves.js';
import { scoreTuning } from './tuning-cross-check.js';

/** One rule switched off: what F1 each half loses (a positive `loss`: the rule helps that half). */
export interface RuleEffect {
  readonly rule: string;
  readonly loss: Record<Half, number>;
  readonly verdict: 'helps both halves' | 'helps one half only' | 'no effect' | 'hurts';
}

/** Below this, a difference in F1 is no effect (a few shingles of one page). */
const NO_EFFECT = 0.0002;

export function verdictOf(loss: Record<Half, number>): RuleEffect['verdict'] {
  const helps = (half: Half) => loss[half] > NO_EFFECT;
  const hurts = (half: Half) => loss[half] < -NO_EFFECT;
  if (helps('even') && helps('odd')) return 'helps both halves';
  if (hurts('even') || hurts('odd')) return helps('even') || helps('odd') ? 'helps one half only' : 'hurts';
  return helps('even') || helps('odd') ? 'helps one half only' : 'no effect';
}

/** The rules the audit switches off one at a time: each class/id word, then each whole rule. */
export function auditedRules(base: ExtractionTuning): { rule: string; tuning: ExtractionTuning }[] {
  const words = [...base.boilerplateWords].map((word) => ({
    rule: `class/id word "${word}"`,
    tuning: { ...base, boilerplateWords: new Set([...base.boilerplateWords].filter((w) => w !== word)) },
  }));
  return [
    ...words,
    { rule: 'every class/id word', tuning: { ...base, boilerplateWords: new Set<string>() } },
    { rule: 'link blocks', tuning: { ...base, linkBlockDensity: 2 } },
    { rule: 'link paragraphs', tuning: { ...base, linkParagraphDensity: 2 } },
    { rule: 'image captions', tuning: { ...base, imageCaptionMaxLength: 0 } },
  ];
}

/** Switches each rule off in turn and measures what each half of the benchmark loses (`onEffect` hears each). */
export function auditRules(
  pages: readonly BenchmarkPage[],
  onEffect: (effect: RuleEffect) => void = () => {},
  base: ExtractionTuning = DEFAULT_TUNING,
): RuleEffect[] {
  const reference = halfScores(scoreTuning(pages, base));
  return auditedRules(base).map(({ rule, tuning }) => {
    const halves = halfScores(scoreTuning(pages, tuning));
    const loss = { even: reference.even.f1 - halves.even.f1, odd: reference.odd.f1 - halves.odd.f1 };
    const effect = { rule, loss, verdict: verdictOf(loss) };
    onEffect(effect);
    return effect;
  });
}
