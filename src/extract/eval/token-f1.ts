/** Words and numbers, lower-cased, accents kept: the tokens an extraction benchmark compares. */
export function evaluationTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export interface F1 {
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
}

/** Token-level precision, recall and F1 of `predicted` against `expected` (bags of tokens). */
export function tokenF1(predicted: string, expected: string): F1 {
  const predictedTokens = evaluationTokens(predicted);
  const expectedTokens = evaluationTokens(expected);
  const counts = new Map<string, number>();
  for (const token of expectedTokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  let overlap = 0;
  for (const token of predictedTokens) {
    const left = counts.get(token) ?? 0;
    if (left > 0) {
      overlap++;
      counts.set(token, left - 1);
    }
  }
  const precision = predictedTokens.length ? overlap / predictedTokens.length : 0;
  const recall = expectedTokens.length ? overlap / expectedTokens.length : 0;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}
