import type { ResearchModel } from '../research-pricing.js';

/** output_length: how long a task's report is. `medium` is the default. */
export const OUTPUT_LENGTHS = ['short', 'medium', 'long'] as const;
export type OutputLength = (typeof OUTPUT_LENGTHS)[number];
export const DEFAULT_OUTPUT_LENGTH: OutputLength = 'medium';

/** The extractive report: sentences quoted per section (by model), and per source within one section. */
const QUOTES: Record<OutputLength, { readonly perSection: Record<ResearchModel, number>; readonly perSource: number }> =
  {
    short: { perSection: { mini: 1, pro: 2 }, perSource: 1 },
    medium: { perSection: { mini: 3, pro: 5 }, perSource: 2 },
    long: { perSection: { mini: 6, pro: 10 }, perSource: 3 },
  };

/** A model's report: the length it is asked for, and the tokens it may write (by model). */
const WRITTEN: Record<OutputLength, { readonly words: string; readonly maxTokens: Record<ResearchModel, number> }> = {
  short: { words: 'Keep it short: about 150 to 300 words.', maxTokens: { mini: 600, pro: 900 } },
  medium: { words: 'Aim for about 500 to 1,000 words.', maxTokens: { mini: 1500, pro: 3000 } },
  long: { words: 'Make it long and detailed: 1,500 words or more.', maxTokens: { mini: 3000, pro: 6000 } },
};

export function quotesPerSection(length: OutputLength, model: ResearchModel): number {
  return QUOTES[length].perSection[model];
}

export function quotesPerSource(length: OutputLength): number {
  return QUOTES[length].perSource;
}

/** The sentence that tells the model how long to write. */
export function lengthInstruction(length: OutputLength): string {
  return WRITTEN[length].words;
}

export function reportMaxTokens(length: OutputLength, model: ResearchModel): number {
  return WRITTEN[length].maxTokens[model];
}
