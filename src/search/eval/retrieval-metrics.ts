/**
 * Ranking metrics as trec_eval computes them (binary or graded gains from the judgments): nDCG@k with the ideal
 * ranking from the judgments, recall@k, reciprocal rank of the first relevant result within k.
 */

/** Judged documents of one query: id → gain (> 0 relevant). */
export type Judgments = ReadonlyMap<string, number>;

export function ndcgAt(ranking: readonly string[], judged: Judgments, k: number): number {
  let dcg = 0;
  ranking.slice(0, k).forEach((id, i) => {
    const gain = judged.get(id) ?? 0;
    if (gain > 0) dcg += gain / Math.log2(i + 2);
  });
  const ideal = [...judged.values()]
    .filter((gain) => gain > 0)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, gain, i) => sum + gain / Math.log2(i + 2), 0);
  return ideal > 0 ? dcg / ideal : 0;
}

export function recallAt(ranking: readonly string[], judged: Judgments, k: number): number {
  const relevant = [...judged.values()].filter((gain) => gain > 0).length;
  if (relevant === 0) return 0;
  return ranking.slice(0, k).filter((id) => (judged.get(id) ?? 0) > 0).length / relevant;
}

export function reciprocalRankAt(ranking: readonly string[], judged: Judgments, k: number): number {
  const first = ranking.slice(0, k).findIndex((id) => (judged.get(id) ?? 0) > 0);
  return first < 0 ? 0 : 1 / (first + 1);
}

export const mean = (values: readonly number[]) =>
  values.length === 0 ? NaN : values.reduce((sum, v) => sum + v, 0) / values.length;
