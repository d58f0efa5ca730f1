import { benchmarkScore, benchmarkTokens, pagePrecision, pageRecall, shingleMatching } from './shingle-f1.js';

describe('the article benchmark metric (upstream evaluate.py)', () => {
  test('tokens are Unicode \\w runs, case kept; combining marks split words as in Python', () => {
    expect(benchmarkTokens('Café x_y, 2½ — नमस्ते')).toEqual(['Café', 'x_y', '2½', 'नमस', 'त']);
  });

  test('4-token shingles matched as multisets, normalised to tp + fp + fn = 1', () => {
    // truth: a b c d e -> (abcd, bcde); prediction: a b c d x -> (abcd, bcdx)
    expect(shingleMatching('a b c d e', 'a b c d x')).toEqual({ tp: 1 / 3, fp: 1 / 3, fn: 1 / 3 });
    // abcd twice, bcda, cdab, dabc once each against one abcd.
    expect(shingleMatching('a b c d', 'a b c d a b c d')).toEqual({ tp: 1 / 5, fp: 4 / 5, fn: 0 });
    // Fewer than 4 tokens: the whole text is one shingle.
    expect(shingleMatching('a b', 'a b')).toEqual({ tp: 1, fp: 0, fn: 0 });
    expect(shingleMatching('', '')).toEqual({ tp: 0, fp: 0, fn: 0 });
  });

  test('per-page scores and the F1 of the mean precision and mean recall', () => {
    const empty = shingleMatching('', '');
    expect([pagePrecision(empty), pageRecall(empty)]).toEqual([1, 1]);
    const missed = shingleMatching('a b c d', '');
    expect([pagePrecision(missed), pageRecall(missed)]).toEqual([0, 0]);
    // The missed page counts for recall only (no predicted shingles), the half page for both.
    const half = shingleMatching('a b c d e', 'a b c d x');
    const score = benchmarkScore([missed, half]);
    expect(score.precision).toBeCloseTo(0.5);
    expect(score.recall).toBeCloseTo(0.25);
    expect(score.f1).toBeCloseTo((2 * 0.5 * 0.25) / 0.75);
  });
});
