import { DEFAULT_TUNING, type ExtractionTuning } from '../html/extraction-tuning.js';
import type { BenchmarkPage } from './article-benchmark.js';
import { HALVES, type Half, halfScores } from './benchmark-halves.js';
import { scoreTuning } from './tuning-cross-check.js';

/** One rule switched off: what F1 each half loses (a positive `loss`: the rule helps that half). */
export interface RuleEffect {
  readonly rule: string;
  readonly loss: Record<Half, number>;
  readonly verdict: Verdict;
}

/**
 * - `helps both halves`: a rule that generalises;
 * - `fits one half`: it helps one half and hurts the other;
 * - `one half, no effect on the other`: it changes pages of one half only (evidence too thin to call it either way);
 * - `hurts`, `no effect`.
 */
export type Verdict =
  'helps both halves' | 'fits one half' | 'one half, no effect on the other' | 'hurts' | 'no effect';

/** Below this, a difference in F1 is no effect (a few shingles of one page). */
const NO_EFFECT = 0.0002;

export function verdictOf(loss: Record<Half, number>): Verdict {
  const helps = HALVES.filter((half) => loss[half] > NO_EFFECT).length;
  const hurts = HALVES.filter((half) => loss[half] < -NO_EFFECT).length;
  if (helps === 2) return 'helps both halves';
  if (helps === 1) return hurts === 1 ? 'fits one half' : 'one half, no effect on the other';
  return hurts > 0 ? 'hurts' : 'no effect';
}

/** The rules the audit switches off one at a time: each class/id word, then each whole rule. */
export interface AuditedRule {
  readonly rule: string;
  readonly tuning: ExtractionTuning;
  /** Whether switching the rule off can change the page's extraction (false: the page is not extracted again). */
  readonly mayChange: (page: BenchmarkPage) => boolean;
}

/** Class/id words that boilerplate.ts makes out of longer spellings (`sr-only`, `most-read`, `skip-to-content`). */
const SPELLED_OTHERWISE = new Set(['sronly', 'mostread', 'skiplink']);

const everyPage = () => true;

export function auditedRules(base: ExtractionTuning): AuditedRule[] {
  const words = [...base.boilerplateWords].map((word) => ({
    rule: `class/id word "${word}"`,
    tuning: { ...base, boilerplateWords: new Set([...base.boilerplateWords].filter((w) => w !== word)) },
    // A word that the page's markup does not hold anywhere, in any case, cannot be in its class names.
    mayChange: SPELLED_OTHERWISE.has(word) ? everyPage : (page: BenchmarkPage) => lowerHtml(page).includes(word),
  }));
  return [
    ...words,
    { rule: 'every class/id word', tuning: { ...base, boilerplateWords: new Set<string>() }, mayChange: everyPage },
    { rule: 'link blocks', tuning: { ...base, linkBlockDensity: 2 }, mayChange: everyPage },
    { rule: 'link paragraphs', tuning: { ...base, linkParagraphDensity: 2 }, mayChange: everyPage },
    { rule: 'image captions', tuning: { ...base, imageCaptionMaxLength: 0 }, mayChange: everyPage },
    { rule: 'trailing follow lines', tuning: { ...base, trailingFollowLines: false }, mayChange: everyPage },
  ];
}

/** Switches each rule off in turn and measures what each half of the benchmark loses (`onEffect` hears each). */
export function auditRules(
  pages: readonly BenchmarkPage[],
  onEffect: (effect: RuleEffect) => void = () => {},
  base: ExtractionTuning = DEFAULT_TUNING,
): RuleEffect[] {
  const referencePages = scoreTuning(pages, base);
  const reference = halfScores(referencePages);
  return auditedRules(base).map(({ rule, tuning, mayChange }) => {
    const changed = pages.filter(mayChange);
    const rescored = new Map(scoreTuning(changed, tuning).map((page) => [page.id, page]));
    const halves = halfScores(referencePages.map((page) => rescored.get(page.id) ?? page));
    const loss = { even: reference.even.f1 - halves.even.f1, odd: reference.odd.f1 - halves.odd.f1 };
    const effect = { rule, loss, verdict: verdictOf(loss) };
    onEffect(effect);
    return effect;
  });
}

const lowered = new WeakMap<BenchmarkPage, string>();

function lowerHtml(page: BenchmarkPage): string {
  let html = lowered.get(page);
  if (html === undefined) lowered.set(page, (html = page.html.toLowerCase()));
  return html;
}
