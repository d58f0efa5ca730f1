import type { RerankSettings } from '../../../config/app-config.js';

export class RerankError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RerankError';
  }
}

/** The endpoint: a URL already ending in /rerank as it is, else the format's path under it. */
export function rerankEndpoint(settings: RerankSettings): string {
  if (/\/rerank$/.test(settings.url)) return settings.url;
  if (settings.format === 'tei') return `${settings.url}/rerank`;
  return /\/v1$/.test(settings.url) ? `${settings.url}/rerank` : `${settings.url}/v1/rerank`;
}

/**
 * One call of a rerank service: the relevance of each text to the query, by the texts' index (in [0, 1]).
 * text-embeddings-inference: `{query, texts, raw_scores: false, truncate: true}` → `[{index, score}]`.
 * Cohere and Jina: `{model, query, documents, top_n}` → `{results: [{index, relevance_score}]}`, with the API key
 * as a bearer token. A text the answer leaves out has no score. Rejects on any failure (never with the key in the
 * message) and once `signal` aborts.
 */
export async function requestRerank(
  settings: RerankSettings,
  query: string,
  texts: readonly string[],
  signal: AbortSignal,
): Promise<Map<number, number>> {
  const body =
    settings.format === 'tei'
      ? { query, texts, raw_scores: false, truncate: true }
      : { ...(settings.model ? { model: settings.model } : {}), query, documents: texts, top_n: texts.length };
  const response = await fetch(rerankEndpoint(settings), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
    },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new RerankError(`the rerank service answered ${response.status}`);
  }
  const answer: unknown = await response.json();
  const entries = settings.format === 'tei' ? answer : (answer as { results?: unknown } | null)?.results;
  if (!Array.isArray(entries)) throw new RerankError('the rerank service answered no list of scores');
  const scores = new Map<number, number>();
  for (const entry of entries as Record<string, unknown>[]) {
    const index = entry?.index;
    const score = settings.format === 'tei' ? entry?.score : entry?.relevance_score;
    if (typeof index !== 'number' || typeof score !== 'number' || !Number.isFinite(score)) continue;
    if (Number.isInteger(index) && index >= 0 && index < texts.length) scores.set(index, score);
  }
  if (scores.size === 0) throw new RerankError('the rerank service scored none of the passages');
  return scores;
}
