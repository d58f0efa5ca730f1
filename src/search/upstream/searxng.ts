import type { ProviderSearchRequest, SearchHit, SearchProvider } from '../providers/search-provider.port.js';
import { type JsonRecord, ShapeError, expectRecord, isRecord, num, recordsAt, str, strings } from './json-shape.js';
import { type UpstreamHttp, readAnswer, upstreamFailure } from './upstream-http.js';
import { filterHits, withSiteFilter } from './hit-filters.js';
import {
  type TimeRange,
  canonicalUrl,
  parseUpstreamDate,
  plainText,
  rankScore,
  timeRangeSince,
} from './upstream-text.js';

/**
 * A self-hosted SearXNG, through its JSON API: `GET {SEARXNG_URL}/search?q=…&format=json&categories=…&engines=…
 * &language=…&time_range=day|month|year&pageno=1`. The instance must have `json` among its `search.formats`.
 */
export interface SearxngQuery {
  readonly q: string;
  /** Comma-separated SearXNG categories: general, news, images, science, map, ... */
  readonly categories?: string;
  /** Comma-separated engine names (bing, duckduckgo, brave, ...): only these are asked. */
  readonly engines?: string;
  /** `en`, `en-US`, `all`; omitted: the instance's default. */
  readonly language?: string | null;
  /** SearXNG documents day, month and year: a week is asked as a month (callers filter by date). */
  readonly timeRange?: TimeRange | null;
  readonly pageno?: number;
}

/** One `results[]` entry, its common fields read; `raw` keeps the template-specific ones (map, images, paper). */
export interface SearxngResult {
  readonly url: string;
  readonly title: string;
  readonly content: string;
  readonly engine: string | null;
  readonly engines: string[];
  readonly score: number | null;
  readonly publishedDate: Date | null;
  readonly imgSrc: string | null;
  readonly thumbnail: string | null;
  readonly category: string | null;
  readonly template: string | null;
  readonly raw: JsonRecord;
}

export interface SearxngInfobox {
  readonly title: string;
  readonly url: string | null;
  readonly content: string;
  readonly imgSrc: string | null;
}

export interface SearxngResponse {
  readonly results: SearxngResult[];
  /** Direct answers: plain strings (older instances) or `{answer, url}` objects (newer), as text. */
  readonly answers: string[];
  readonly infoboxes: SearxngInfobox[];
  readonly suggestions: string[];
  /** Engines that failed, as `[name, reason]`. */
  readonly unresponsiveEngines: [string, string][];
}

const UPSTREAM = 'searxng';

export class SearxngClient {
  constructor(
    private readonly baseUrl: string,
    private readonly http: UpstreamHttp,
  ) {}

  async search(query: SearxngQuery, signal?: AbortSignal): Promise<SearxngResponse> {
    const url = new URL(`${this.baseUrl}/search`);
    url.searchParams.set('q', query.q);
    url.searchParams.set('format', 'json');
    if (query.categories) url.searchParams.set('categories', query.categories);
    if (query.engines) url.searchParams.set('engines', query.engines);
    if (query.language) url.searchParams.set('language', query.language);
    if (query.timeRange) url.searchParams.set('time_range', query.timeRange === 'week' ? 'month' : query.timeRange);
    url.searchParams.set('pageno', String(query.pageno ?? 1));
    const json = await this.http.getJson(url, {}, signal);
    const response = readAnswer(UPSTREAM, () => parseSearxngResponse(json));
    // Every engine failed: that is a failure of the upstream, not "nothing found".
    if (response.results.length === 0 && response.unresponsiveEngines.length > 0) {
      const names = response.unresponsiveEngines.map(([name, reason]) => `${name}: ${reason}`).join(', ');
      throw upstreamFailure(UPSTREAM, `had no answer from its engines (${names})`);
    }
    return response;
  }
}

/** Reads a SearXNG JSON answer; a top level that is not SearXNG's is a ShapeError. */
export function parseSearxngResponse(json: unknown): SearxngResponse {
  const root = expectRecord(json, 'the answer');
  if (!Array.isArray(root.results)) throw new ShapeError('the answer has no results array');
  const results: SearxngResult[] = [];
  for (const raw of recordsAt(root, 'results', 'the answer')) {
    const url = str(raw.url);
    if (!url) continue;
    results.push({
      url,
      title: plainText(str(raw.title)),
      content: plainText(str(raw.content)),
      engine: str(raw.engine),
      engines: strings(raw.engines),
      score: num(raw.score),
      publishedDate: parseUpstreamDate(str(raw.publishedDate) ?? str(raw.pubdate)),
      imgSrc: str(raw.img_src),
      thumbnail: str(raw.thumbnail) ?? str(raw.thumbnail_src),
      category: str(raw.category),
      template: str(raw.template),
      raw,
    });
  }
  const answers = (Array.isArray(root.answers) ? root.answers : [])
    .map((answer) => (isRecord(answer) ? str(answer.answer) : str(answer)))
    .filter((answer): answer is string => answer !== null);
  const infoboxes = recordsAt(root, 'infoboxes', 'the answer').map((box) => ({
    title: plainText(str(box.infobox)),
    url: str(box.id),
    content: plainText(str(box.content)),
    imgSrc: str(box.img_src),
  }));
  const unresponsive = (Array.isArray(root.unresponsive_engines) ? root.unresponsive_engines : []).map(
    (entry): [string, string] =>
      Array.isArray(entry)
        ? [str(entry[0]) ?? 'engine', str(entry[1]) ?? 'failed']
        : [str(entry) ?? 'engine', 'failed'],
  );
  return { results, answers, infoboxes, suggestions: strings(root.suggestions), unresponsiveEngines: unresponsive };
}

/**
 * SearXNG results as SearchHits: scores divided by the best score of the answer (SearXNG's own score grows with the
 * number of engines agreeing and falls with position), infoboxes with a URL kept as hits below the results.
 */
export function searxngHits(response: SearxngResponse): SearchHit[] {
  const best = Math.max(0, ...response.results.map((r) => r.score ?? 0));
  const hits: SearchHit[] = [];
  const seen = new Set<string>();
  response.results.forEach((result, index) => {
    const url = canonicalUrl(result.url);
    if (!url || seen.has(url)) return;
    seen.add(url);
    const image = canonicalUrl(result.thumbnail ?? result.imgSrc);
    hits.push({
      url,
      title: result.title || url,
      content: result.content,
      score:
        result.score !== null && best > 0
          ? Math.round(Math.min(1, Math.max(0, result.score / best)) * 1e6) / 1e6
          : rankScore(index),
      rawContent: null,
      publishedDate: result.publishedDate,
      favicon: null,
      images: image ? [{ url: image, description: null }] : [],
      provider: UPSTREAM,
    });
  });
  for (const box of response.infoboxes) {
    const url = canonicalUrl(box.url);
    if (!url || seen.has(url) || !box.content) continue;
    seen.add(url);
    const image = canonicalUrl(box.imgSrc);
    hits.push({
      url,
      title: box.title || url,
      content: box.content,
      score: 0.5,
      rawContent: null,
      publishedDate: null,
      favicon: null,
      images: image ? [{ url: image, description: box.title || null }] : [],
      provider: UPSTREAM,
    });
  }
  return hits;
}

/** SearXNG as a POST /search provider (categories general, or news for `topic: news`). */
export class SearxngSearchProvider implements SearchProvider {
  readonly name = UPSTREAM;

  constructor(private readonly client: SearxngClient) {}

  async search(request: ProviderSearchRequest): Promise<SearchHit[]> {
    if (request.maxResults <= 0) return [];
    const response = await this.client.search(
      {
        q: withSiteFilter(request.query, request.includeDomains),
        categories: request.topic === 'news' ? 'news' : 'general',
        timeRange: timeRangeSince(request.from),
        language: request.language,
      },
      request.signal,
    );
    return filterHits(searxngHits(response), request);
  }
}
