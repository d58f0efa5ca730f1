import type { ProviderSearchRequest, SearchHit, SearchProvider } from '../providers/search-provider.port.js';
import { filterHits, withSiteFilter } from './hit-filters.js';
import { type JsonRecord, ShapeError, expectRecord, isRecord, recordsAt, str } from './json-shape.js';
import { type UpstreamHttp, readAnswer, upstreamFailure } from './upstream-http.js';
import { canonicalUrl, countryCode, parseUpstreamDate, plainText, rankScore, timeRangeSince } from './upstream-text.js';

/**
 * SerpAPI and servers speaking its format (`SERPAPI_API_KEY`, `SERPAPI_BASE_URL`):
 * `GET /search.json?engine=…&q=…&api_key=…`, answering the engine's own result arrays next to `search_metadata`.
 */
export type SerpEngine =
  | 'google'
  | 'google_shopping'
  | 'amazon'
  | 'google_jobs'
  | 'google_patents'
  | 'google_trends'
  | 'google_finance'
  | 'google_scholar'
  | 'google_maps'
  | 'bing'
  | 'duckduckgo'
  | 'google_news'
  | 'google_images'
  | 'youtube';

/** The arrays of objects each engine answers with; absent means nothing was found, another type is malformed. */
const RESULT_ARRAYS: Record<SerpEngine, readonly string[]> = {
  google: ['organic_results', 'news_results'],
  google_shopping: ['shopping_results', 'inline_shopping_results'],
  amazon: ['organic_results'],
  google_jobs: ['jobs_results'],
  google_patents: ['organic_results'],
  google_trends: [],
  google_finance: [],
  google_scholar: ['organic_results'],
  google_maps: ['local_results'],
  bing: ['organic_results'],
  duckduckgo: ['organic_results'],
  google_news: ['news_results'],
  google_images: ['images_results'],
  youtube: ['video_results'],
};

/** Objects some engines answer with (checked to be objects when present). */
const RESULT_OBJECTS: Partial<Record<SerpEngine, readonly string[]>> = {
  google_trends: ['interest_over_time', 'related_queries'],
  google_finance: ['summary', 'markets'],
  google_maps: ['place_results'],
};

/** The query parameter of each engine: `q`, except Amazon (`k`) and YouTube (`search_query`). */
const QUERY_PARAMETER: Partial<Record<SerpEngine, string>> = { amazon: 'k', youtube: 'search_query' };

/** SerpAPI's way of saying "nothing found": HTTP 200, status Success, and this `error`. */
const NO_RESULTS = /(hasn't|has not) returned any results|no results found/i;

const UPSTREAM = 'serpapi';

export type SerpParams = Record<string, string | number | null | undefined>;

export class SerpApiClient {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly http: UpstreamHttp,
  ) {}

  /** One search; the answer is returned checked (see parseSerpAnswer), to be read by the engine's mapper. */
  async search(engine: SerpEngine, query: string, params: SerpParams = {}, signal?: AbortSignal): Promise<JsonRecord> {
    const url = new URL(`${this.baseUrl}/search.json`);
    url.searchParams.set('engine', engine);
    url.searchParams.set(QUERY_PARAMETER[engine] ?? 'q', query);
    for (const [name, value] of Object.entries(params)) {
      if (value !== null && value !== undefined && value !== '') url.searchParams.set(name, String(value));
    }
    url.searchParams.set('api_key', this.apiKey);
    const json = await this.http.getJson(url, {}, signal);
    const answer = readAnswer(UPSTREAM, () => parseSerpAnswer(engine, json));
    if (answer.failure) throw upstreamFailure(UPSTREAM, `(${engine}) reported an error: ${answer.failure}`);
    return answer.root;
  }
}

/**
 * Checks a SerpAPI answer: an object with `search_metadata`, result arrays (and objects) of the expected types.
 * `failure` is set when the search itself failed (status not Success, or an `error` other than "no results").
 */
export function parseSerpAnswer(engine: SerpEngine, json: unknown): { root: JsonRecord; failure: string | null } {
  const root = expectRecord(json, 'the answer');
  const metadata = expectRecord(root.search_metadata, 'search_metadata');
  const error = str(root.error);
  const status = str(metadata.status);
  if (error && !NO_RESULTS.test(error)) return { root, failure: error.slice(0, 200) };
  if (status && status !== 'Success') return { root, failure: `search status ${status}` };
  for (const key of RESULT_ARRAYS[engine]) recordsAt(root, key, 'the answer');
  for (const key of RESULT_OBJECTS[engine] ?? []) {
    if (root[key] !== undefined && root[key] !== null && !isRecord(root[key])) {
      throw new ShapeError(`the answer's ${key} is not an object`);
    }
  }
  return { root, failure: null };
}

/** `tbs` of Google searches for a window: qdr:d|w|m|y back from now, else a custom date range. */
export function googleTbs(from: Date | null, to: Date | null): string | null {
  if (!from && !to) return null;
  const range = to ? null : timeRangeSince(from);
  if (range) return `qdr:${range[0]}`;
  const day = (date: Date) => `${date.getUTCMonth() + 1}/${date.getUTCDate()}/${date.getUTCFullYear()}`;
  return `cdr:1,cd_min:${from ? day(from) : ''},cd_max:${to ? day(new Date(to.getTime() - 1)) : ''}`;
}

/** Google web results (`organic_results`) or news results (`news_results`, `tbm=nws`) as SearchHits. */
export function serpGoogleHits(root: JsonRecord, news: boolean): SearchHit[] {
  const entries = recordsAt(root, news ? 'news_results' : 'organic_results', 'the answer');
  const hits: SearchHit[] = [];
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    const url = canonicalUrl(str(entry.link));
    if (!url || seen.has(url)) return;
    seen.add(url);
    const image = canonicalUrl(str(entry.thumbnail));
    hits.push({
      url,
      title: plainText(str(entry.title)) || url,
      content: plainText(str(entry.snippet)),
      score: rankScore(index),
      rawContent: null,
      publishedDate: parseUpstreamDate(str(entry.iso_date) ?? str(entry.date)),
      favicon: str(entry.favicon),
      images: image ? [{ url: image, description: null }] : [],
      provider: UPSTREAM,
    });
  });
  return hits;
}

/** SerpAPI (engine google; `tbm=nws` for `topic: news`) as a POST /search provider, when SERPAPI_WEB_SEARCH is on. */
export class SerpApiSearchProvider implements SearchProvider {
  readonly name = UPSTREAM;

  constructor(private readonly client: SerpApiClient) {}

  async search(request: ProviderSearchRequest): Promise<SearchHit[]> {
    if (request.maxResults <= 0) return [];
    const news = request.topic === 'news';
    const country = countryCode(request.country);
    const root = await this.client.search(
      'google',
      withSiteFilter(request.query, request.includeDomains),
      {
        tbm: news ? 'nws' : null,
        tbs: googleTbs(request.from, request.to),
        gl: country?.toLowerCase(),
        hl: request.language ?? 'en',
        // Google's own language restriction, as filter_by_language asks.
        lr: request.language && request.languageStrict ? `lang_${request.language}` : null,
      },
      request.signal,
    );
    return filterHits(serpGoogleHits(root, news), request);
  }
}
