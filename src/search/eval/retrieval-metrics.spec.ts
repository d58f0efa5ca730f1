import { ndcgAt, recallAt, reciprocalRankAt } from './retrieval-metrics.js';

describe('retrieval metrics', () => {
  const judged = new Map([
    ['a', 1],
    ['b', 1],
    ['x', 0],
  ]);

  test('nDCG@k: 1 for an ideal ranking, discounted by log2(rank + 1) otherwise', () => {
    expect(ndcgAt(['a', 'b', 'c'], judged, 10)).toBeCloseTo(1, 10);
    expect(ndcgAt(['b', 'a'], judged, 10)).toBeCloseTo(1, 10);
    const ideal = 1 + 1 / Math.log2(3);
    expect(ndcgAt(['c', 'a', 'x', 'b'], judged, 10)).toBeCloseTo((1 / Math.log2(3) + 1 / Math.log2(5)) / ideal, 10);
    expect(ndcgAt(['c', 'a'], judged, 1)).toBe(0);
    expect(ndcgAt(['a'], new Map([['x', 0]]), 10)).toBe(0);
  });

  test('nDCG@k with graded gains', () => {
    const graded = new Map([
      ['a', 2],
      ['b', 1],
    ]);
    expect(ndcgAt(['b', 'a'], graded, 10)).toBeCloseTo((1 + 2 / Math.log2(3)) / (2 + 1 / Math.log2(3)), 10);
  });

  test('recall@k and reciprocal rank within k', () => {
    expect(recallAt(['c', 'a', 'x'], judged, 100)).toBe(0.5);
    expect(recallAt(['c', 'a', 'b'], judged, 2)).toBe(0.5);
    expect(reciprocalRankAt(['c', 'x', 'b', 'a'], judged, 10)).toBeCloseTo(1 / 3, 10);
    expect(reciprocalRankAt(['c', 'x', 'b'], judged, 2)).toBe(0);
  });
});
