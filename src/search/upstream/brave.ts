import type { ProviderSearchRequest, SearchHit, SearchProvider } from '../providers/search-provider.port.js';
import { filterHits, withSiteFilter } from './hit-filters.js';
import { type JsonRecord, ShapeError, expectRecord, isRecord, num, recordsAt, str, strings } from './json-shape.js';
import { type UpstreamHttp, readAnswer } from './upstream-http.js';
import {
  type TimeRange,
  canonicalUrl,
  countryCode,
  isoDay,
  parseUpstreamDate,
  plainText,
  rankScore,
  timeRangeSince,
} from './upstream-text.js';

/**
 * The Brave Search API (`BRAVE_API_KEY`, `BRAVE_BASE_URL`): `GET /res/v1/web/search`, `/res/v1/news/search` and
 * `/res/v1/images/search` with the `X-Subscription-Token` header.
 */
export interface BraveQuery {
  readonly q: string;
  readonly count: number;
  /** pd | pw | pm | py, or a range `YYYY-MM-DDtoYYYY-MM-DD` (web and news only). */
  readonly freshness?: string | null;
  /** A country code or name; sent only when Brave supports the country. */
  readonly country?: string | null;
  /** A language code; sent only when Brave supports it. */
  readonly searchLang?: string | null;
  readonly extraSnippets?: boolean;
}

export interface BraveWebResult {
  readonly url: string;
  readonly title: string;
  readonly description: string;
  readonly publishedDate: Date | null;
  readonly siteName: string | null;
  readonly favicon: string | null;
  readonly thumbnail: string | null;
  readonly extraSnippets: string[];
}

export interface BraveNewsResult {
  readonly url: string;
  readonly title: string;
  readonly description: string;
  readonly publishedDate: Date | null;
  readonly source: string | null;
  readonly thumbnail: string | null;
}

export interface BraveImageResult {
  /** The page the image is on. */
  readonly pageUrl: string | null;
  readonly title: string;
  readonly source: string | null;
  /** The image itself. */
  readonly imageUrl: string;
  readonly thumbnail: string | null;
  readonly width: number | null;
  readonly height: number | null;
}

/** Countries Brave's `country` parameter accepts (others would be a 422). */
const BRAVE_COUNTRIES = new Set(
  'AR AU AT BE BR CA CL DK FI FR DE HK IN ID IT JP KR MY MX NL NZ NO CN PL PT PH RU SA ZA ES SE CH TW TR GB US'.split(
    ' ',
  ),
);
const BRAVE_LANGUAGES = new Set(
  'ar eu bn bg ca zh-hans zh-hant hr cs da nl en en-gb et fi fr gl de gu he hi hu is it jp kn ko lv lt ms ml mr nb pl pt-br pt-pt pa ro ru sr sk sl es sv ta te th tr uk vi'.split(
    ' ',
  ),
);

const LANGUAGE_ALIASES: Record<string, string> = {
  ja: 'jp',
  zh: 'zh-hans',
  'zh-cn': 'zh-hans',
  'zh-tw': 'zh-hant',
  'zh-hk': 'zh-hant',
  pt: 'pt-pt',
  no: 'nb',
  nn: 'nb',
};

/** A language code as Brave's `search_lang` spells it (`jp`, `zh-hans`, `pt-br`, `en-gb`), or null when unsupported. */
export function braveLanguage(code: string | null): string | null {
  if (!code) return null;
  const lower = code.toLowerCase().replace('_', '-');
  for (const candidate of [
    lower,
    LANGUAGE_ALIASES[lower],
    lower.split('-')[0],
    LANGUAGE_ALIASES[lower.split('-')[0]!],
  ]) {
    if (candidate && BRAVE_LANGUAGES.has(candidate)) return candidate;
  }
  return null;
}

const UPSTREAM = 'brave';

export class BraveClient {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly http: UpstreamHttp,
  ) {}

  async web(query: BraveQuery, signal?: AbortSignal): Promise<BraveWebResult[]> {
    const json = await this.get('/res/v1/web/search', query, 20, signal);
    return readAnswer(UPSTREAM, () => parseBraveWeb(json));
  }

  async news(query: BraveQuery, signal?: AbortSignal): Promise<BraveNewsResult[]> {
    const json = await this.get('/res/v1/news/search', query, 50, signal);
    return readAnswer(UPSTREAM, () => parseBraveNews(json));
  }

  async images(query: BraveQuery, signal?: AbortSignal): Promise<BraveImageResult[]> {
    const json = await this.get('/res/v1/images/search', { ...query, freshness: null }, 200, signal);
    return readAnswer(UPSTREAM, () => parseBraveImages(json));
  }

  private get(path: string, query: BraveQuery, maxCount: number, signal?: AbortSignal): Promise<unknown> {
    const url = new URL(`${this.baseUrl}${path}`);
    url.searchParams.set('q', query.q);
    url.searchParams.set('count', String(Math.min(maxCount, Math.max(1, query.count))));
    if (query.freshness) url.searchParams.set('freshness', query.freshness);
    const country = countryCode(query.country ?? null);
    if (country && BRAVE_COUNTRIES.has(country)) url.searchParams.set('country', country);
    const lang = braveLanguage(query.searchLang ?? null);
    if (lang) url.searchParams.set('search_lang', lang);
    if (query.extraSnippets) url.searchParams.set('extra_snippets', 'true');
    return this.http.getJson(url, { 'x-subscription-token': this.apiKey }, signal);
  }
}

/** Brave's freshness for a window: pd/pw/pm/py when it reaches back to now, else a date range. */
export function braveFreshness(from: Date | null, to: Date | null, now = new Date()): string | null {
  if (!from && !to) return null;
  const range = to ? null : timeRangeSince(from, now);
  if (range) return FRESHNESS[range];
  const start = isoDay(from ?? new Date(0));
  const end = isoDay(to ? new Date(to.getTime() - 1) : now);
  return `${start}to${end}`;
}

export const FRESHNESS: Record<TimeRange, string> = { day: 'pd', week: 'pw', month: 'pm', year: 'py' };

function checkType(root: JsonRecord, expected: string): void {
  const type = str(root.type);
  if (type && type !== expected) throw new ShapeError(`the answer is of type ${type}, not ${expected}`);
}

/** `web.results[]` of a web search answer; an answer without `web` found nothing. */
export function parseBraveWeb(json: unknown): BraveWebResult[] {
  const root = expectRecord(json, 'the answer');
  checkType(root, 'search');
  if (root.web === undefined || root.web === null) {
    if (!isRecord(root.query)) throw new ShapeError('the answer has neither web results nor a query');
    return [];
  }
  const web = expectRecord(root.web, 'web');
  return recordsAt(web, 'results', 'web', false).flatMap((r): BraveWebResult[] => {
    const url = str(r.url);
    if (!url) return [];
    const profile = isRecord(r.profile) ? r.profile : {};
    const meta = isRecord(r.meta_url) ? r.meta_url : {};
    const thumbnail = isRecord(r.thumbnail) ? r.thumbnail : {};
    return [
      {
        url,
        title: plainText(str(r.title)),
        description: plainText(str(r.description)),
        publishedDate: parseUpstreamDate(str(r.page_age)) ?? parseUpstreamDate(str(r.age)),
        siteName: str(profile.name) ?? str(meta.hostname),
        favicon: str(meta.favicon) ?? str(profile.img),
        thumbnail: str(thumbnail.original) ?? str(thumbnail.src),
        extraSnippets: strings(r.extra_snippets).map((s) => plainText(s)),
      },
    ];
  });
}

/** `results[]` of a news search answer. */
export function parseBraveNews(json: unknown): BraveNewsResult[] {
  const root = expectRecord(json, 'the answer');
  checkType(root, 'news');
  return recordsAt(root, 'results', 'the answer', false).flatMap((r): BraveNewsResult[] => {
    const url = str(r.url);
    if (!url) return [];
    const meta = isRecord(r.meta_url) ? r.meta_url : {};
    const profile = isRecord(r.profile) ? r.profile : {};
    const thumbnail = isRecord(r.thumbnail) ? r.thumbnail : {};
    return [
      {
        url,
        title: plainText(str(r.title)),
        description: plainText(str(r.description)),
        publishedDate: parseUpstreamDate(str(r.page_age)) ?? parseUpstreamDate(str(r.age)),
        source: str(r.source) ?? str(profile.name) ?? str(meta.hostname),
        thumbnail: str(thumbnail.original) ?? str(thumbnail.src),
      },
    ];
  });
}

/** `results[]` of an image search answer: `properties.url` is the image, `url` the page it is on. */
export function parseBraveImages(json: unknown): BraveImageResult[] {
  const root = expectRecord(json, 'the answer');
  checkType(root, 'images');
  return recordsAt(root, 'results', 'the answer', false).flatMap((r): BraveImageResult[] => {
    const properties = isRecord(r.properties) ? r.properties : {};
    const thumbnail = isRecord(r.thumbnail) ? r.thumbnail : {};
    const imageUrl = str(properties.url);
    if (!imageUrl) return [];
    return [
      {
        pageUrl: str(r.url),
        title: plainText(str(r.title)),
        source: str(r.source),
        imageUrl,
        thumbnail: str(thumbnail.src),
        width: num(properties.width),
        height: num(properties.height),
      },
    ];
  });
}

/** Web results as SearchHits; at advanced depth the extra snippets join the description as further passages. */
export function braveHits(
  results: readonly BraveWebResult[],
  request: Pick<ProviderSearchRequest, 'depth' | 'chunksPerSource'>,
) {
  const hits: SearchHit[] = [];
  const seen = new Set<string>();
  results.forEach((result, index) => {
    const url = canonicalUrl(result.url);
    if (!url || seen.has(url)) return;
    seen.add(url);
    const passages = [result.description, ...(request.depth === 'advanced' ? result.extraSnippets : [])].filter(
      Boolean,
    );
    const image = canonicalUrl(result.thumbnail);
    hits.push({
      url,
      title: result.title || url,
      content: passages.slice(0, request.depth === 'advanced' ? request.chunksPerSource : 1).join(' [...] '),
      score: rankScore(index),
      rawContent: null,
      publishedDate: result.publishedDate,
      favicon: result.favicon,
      images: image ? [{ url: image, description: null }] : [],
      provider: UPSTREAM,
    });
  });
  return hits;
}

/** The Brave Search API as a POST /search provider (web search; news search for `topic: news`). */
export class BraveSearchProvider implements SearchProvider {
  readonly name = UPSTREAM;

  constructor(private readonly client: BraveClient) {}

  async search(request: ProviderSearchRequest): Promise<SearchHit[]> {
    if (request.maxResults <= 0) return [];
    const query: BraveQuery = {
      q: withSiteFilter(request.query, request.includeDomains),
      count: 20,
      freshness: braveFreshness(request.from, request.to),
      country: request.country,
      searchLang: request.language,
      extraSnippets: request.depth === 'advanced',
    };
    if (request.topic === 'news') {
      const news = await this.client.news(query, request.signal);
      const hits = braveHits(
        news.map((n) => ({ ...n, siteName: n.source, favicon: null, extraSnippets: [] })),
        request,
      );
      return filterHits(hits, request);
    }
    return filterHits(braveHits(await this.client.web(query, request.signal), request), request);
  }
}
