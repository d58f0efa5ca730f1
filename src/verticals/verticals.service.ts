import { BadRequestException, HttpException, HttpStatus, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { FETCHER, type Fetcher } from '../fetch/fetcher.port.js';
import { errorBody } from '../http/error-body.js';
import { createValidationPipe } from '../http/validation.pipe.js';
import type { WorkOutcome } from '../metering/metering-pipeline.js';
import { FRESHNESS } from '../search/upstream/brave.js';
import { UPSTREAM_CLIENTS, type UpstreamClients } from '../search/upstream/index.js';
import { isRecord } from '../search/upstream/json-shape.js';
import { type TimeRange, countryCode, inWindow, rangeStart } from '../search/upstream/upstream-text.js';
import { VerticalRequestDto } from './dto/vertical-request.dto.js';
import { type DocumentFilter, type Interval, type LocalDocument, LocalDocuments } from './local/local-documents.js';
import { imagesOf } from './local/images-records.js';
import { jobsOf } from './local/jobs-records.js';
import { newsOf } from './local/news-records.js';
import { patentsOf } from './local/patents-records.js';
import { placesOf, realEstateOf } from './local/places-records.js';
import { scholarOf } from './local/scholar-records.js';
import { amazonOf, productsOf } from './local/shopping-records.js';
import { mentionsAny, mergeResults, queryTerms, urlKey } from './merge.js';
import { braveImageResults, braveNewsResults, braveWebResults } from './upstream/brave-verticals.js';
import { searxngImages, searxngNews, searxngPlaces, searxngScholar, searxngWeb } from './upstream/searxng-verticals.js';
import { serpImages } from './upstream/serpapi/serpapi-images.js';
import { serpJobs, serpNews, serpScholar } from './upstream/serpapi/serpapi-news-jobs-scholar.js';
import { serpFinance, serpPatents, serpTrends } from './upstream/serpapi/serpapi-patents-trends-finance.js';
import { serpPlaces } from './upstream/serpapi/serpapi-places.js';
import { serpAmazon, serpProducts } from './upstream/serpapi/serpapi-shopping.js';
import { serpWeb } from './upstream/serpapi/serpapi-web.js';
import { serpYoutubeVideos } from './upstream/serpapi/serpapi-youtube.js';
import type { TrendPoint, TrendsResult, VerticalResults, WebResult } from './vertical-results.js';
import { VERTICALS, type VerticalName, isVertical } from './verticals.js';
import { videoIdOf, youtubeTranscript } from './youtube/youtube-transcripts.js';

const DEFAULT_MAX_RESULTS = 10;
/** Pages of the local index read per vertical search (each may hold several records). */
const LOCAL_PAGES = 50;

/** A vertical search as the providers receive it: validated, defaults applied. */
export interface VerticalRequest {
  readonly vertical: VerticalName;
  readonly query: string;
  readonly maxResults: number;
  /** ISO 3166-1 alpha-2, upper case. */
  readonly country: string | null;
  readonly language: string | null;
  readonly location: string | null;
  readonly timeRange: TimeRange | null;
  /** The start of `timeRange`, back from now. */
  readonly from: Date | null;
  readonly listingType: 'sale' | 'rent' | null;
  readonly now: Date;
}

/** One provider's part of a vertical search: its records, best first. */
type Task<T> = (signal: AbortSignal) => Promise<T[]>;

const TIME_RANGES: Record<string, TimeRange> = {
  day: 'day',
  d: 'day',
  week: 'week',
  w: 'week',
  month: 'month',
  m: 'month',
  year: 'year',
  y: 'year',
};

const AMAZON_DOMAINS: Record<string, string> = {
  US: 'amazon.com',
  GB: 'amazon.co.uk',
  DE: 'amazon.de',
  FR: 'amazon.fr',
  IT: 'amazon.it',
  ES: 'amazon.es',
  CA: 'amazon.ca',
  JP: 'amazon.co.jp',
  IN: 'amazon.in',
  AU: 'amazon.com.au',
  MX: 'amazon.com.mx',
  BR: 'amazon.com.br',
  NL: 'amazon.nl',
  SE: 'amazon.se',
  PL: 'amazon.pl',
  SG: 'amazon.sg',
  AE: 'amazon.ae',
  SA: 'amazon.sa',
  TR: 'amazon.com.tr',
  BE: 'amazon.com.be',
  EG: 'amazon.eg',
};

/** Regular expressions over a page's structured data (JSON text) telling which pages may hold a vertical's records. */
const PAGES_WITH = {
  products:
    '(Product|ProductGroup|IndividualProduct|ProductModel|SomeProducts|Offer|AggregateOffer|Vehicle|Car)"|"og:type": "[a-z:.]*product',
  images: 'ImageObject"|Photograph"|"og:image"',
  places:
    '"(geo|address)":|(Place|Business|Restaurant|Hotel|Store|Museum|Park|Shop|Attraction|CafeOrCoffeeShop|BarOrPub|Bakery)"|"og:type": "[a-z.]*(place|business)',
  news: '(NewsArticle|Article|BlogPosting|LiveBlogPosting)"|"og:type": "article"',
  jobs: 'JobPosting"',
  realestate:
    '(RealEstateListing|Accommodation|Apartment|House|SingleFamilyResidence|Residence|ApartmentComplex|Room|Suite)"',
  scholar: '(ScholarlyArticle|MedicalScholarlyArticle|Thesis)"|"citation_title"',
  patents: '"citation_patent_|Patent"',
} as const;

const INTERVALS: Record<TimeRange, Interval> = { day: 'hour', week: 'day', month: 'day', year: 'week' };
const TRENDS_DATES: Record<TimeRange, string> = {
  day: 'now 1-d',
  week: 'now 7-d',
  month: 'today 1-m',
  year: 'today 12-m',
};

/**
 * POST /search/{vertical}: the vertical's providers are asked together — the local documents index (structured
 * data), the YouTube transcript reader, and the configured upstreams (SearXNG, Brave, SerpAPI) — and their records are
 * merged, de-duplicated by URL (or the vertical's own key), and cut at max_results. Any provider's failure fails the
 * call (a 502 for upstreams, which the metering pipeline does not bill) and cancels the others.
 */
@Injectable()
export class VerticalsService {
  private readonly validation = createValidationPipe();

  constructor(
    private readonly local: LocalDocuments,
    @Inject(UPSTREAM_CLIENTS) private readonly upstream: UpstreamClients,
    @Inject(FETCHER) private readonly fetcher: Fetcher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async search(vertical: string, rawBody: unknown): Promise<WorkOutcome> {
    const startedAt = performance.now();
    if (!isVertical(vertical)) {
      throw new NotFoundException(
        errorBody(`Unknown vertical '${vertical.slice(0, 60)}'. Verticals: ${VERTICALS.join(', ')}.`),
      );
    }
    const request = await this.resolve(vertical, rawBody);
    const results = await this.results(request);
    return {
      body: {
        query: request.query,
        vertical,
        results,
        response_time: Math.round(performance.now() - startedAt) / 1000,
      },
      counts: { results: results.length },
    };
  }

  /** The body validated (400 with the first problem) and resolved to a VerticalRequest. */
  async resolve(vertical: VerticalName, rawBody: unknown, now = new Date()): Promise<VerticalRequest> {
    if (rawBody !== undefined && rawBody !== null && !isRecord(rawBody)) {
      throw new BadRequestException(errorBody('The request body must be a JSON object'));
    }
    const body = (await this.validation.transform(rawBody ?? {}, {
      type: 'body',
      metatype: VerticalRequestDto,
    })) as VerticalRequestDto;
    let query = body.query?.trim() ?? '';
    if (vertical === 'youtube_transcript' && !query && body.url) query = body.url.trim();
    if (!query) {
      throw new BadRequestException(
        errorBody(
          vertical === 'youtube_transcript' ? 'query (a YouTube video URL or id) is required' : 'query is required',
        ),
      );
    }
    const country = body.country ? countryCode(body.country) : null;
    if (body.country && !country) throw new BadRequestException(errorBody(`country '${body.country}' is not known`));
    const timeRange = body.time_range ? TIME_RANGES[body.time_range]! : null;
    return {
      vertical,
      query,
      maxResults: body.max_results ?? DEFAULT_MAX_RESULTS,
      country,
      language: body.language?.replace('_', '-') ?? null,
      location: body.location?.trim() ?? null,
      timeRange,
      from: timeRange ? rangeStart(timeRange, now) : null,
      listingType: body.listing_type ?? null,
      now,
    };
  }

  private async results(request: VerticalRequest): Promise<VerticalResults[VerticalName][]> {
    const { maxResults: max } = request;
    const byUrl = (item: { url: string | null }) => urlKey(item.url);
    switch (request.vertical) {
      case 'products':
        return mergeResults(await this.gather(this.productTasks(request)), byUrl, max);
      case 'amazon':
        return mergeResults(await this.gather(this.amazonTasks(request)), (a) => a.asin ?? urlKey(a.url), max);
      case 'images':
        return mergeResults(await this.gather(this.imageTasks(request)), byUrl, max);
      case 'places':
        return mergeResults(await this.gather(this.placeTasks(request)), (p) => urlKey(p.website ?? p.url), max);
      case 'news':
        return mergeResults(await this.gather(this.newsTasks(request)), byUrl, max);
      case 'jobs':
        return mergeResults(await this.gather(this.jobTasks(request)), byUrl, max);
      case 'realestate':
        return mergeResults(await this.gather(this.realEstateTasks(request)), byUrl, max);
      case 'scholar':
        return mergeResults(
          await this.gather(this.scholarTasks(request)),
          (s) => (s.doi ? `doi:${s.doi.toLowerCase()}` : urlKey(s.url)),
          max,
        );
      case 'patents':
        return mergeResults(
          await this.gather(this.patentTasks(request)),
          (p) => patentKey(p.patent_number) ?? urlKey(p.url),
          max,
        );
      case 'trends':
        return (await this.gather(this.trendTasks(request))).flat();
      case 'finance':
        return mergeResults(
          await this.gather(this.required(request, this.financeTasks(request))),
          (f) => `${f.symbol}:${f.exchange ?? ''}`.toUpperCase(),
          max,
        );
      case 'bing':
      case 'duckduckgo':
      case 'brave':
        return mergeResults(await this.gather(this.required(request, this.webTasks(request))), byUrl, max);
      case 'youtube_transcript':
        return this.youtube(request);
    }
  }

  /** Runs the providers together; the first failure cancels the others and fails the search. */
  private async gather<T>(tasks: readonly Task<T>[]): Promise<T[][]> {
    const controller = new AbortController();
    try {
      return await Promise.all(
        tasks.map((task) =>
          task(controller.signal).catch((error: unknown) => {
            controller.abort(error);
            throw error;
          }),
        ),
      );
    } finally {
      controller.abort();
    }
  }

  /** A vertical served by upstreams only, with none configured: 501, not billed. */
  private required<T>(request: VerticalRequest, tasks: Task<T>[]): Task<T>[] {
    if (tasks.length > 0) return tasks;
    const needs =
      request.vertical === 'finance'
        ? 'SERPAPI_API_KEY'
        : request.vertical === 'brave'
          ? 'BRAVE_API_KEY or SEARXNG_URL'
          : 'SEARXNG_URL or SERPAPI_API_KEY';
    throw new HttpException(
      errorBody(`The ${request.vertical} vertical is not available on this server: it needs an upstream (${needs}).`),
      HttpStatus.NOT_IMPLEMENTED,
    );
  }

  /**
   * Records of the local index: pages that may hold them and mention the query, read in rank order; on a page with
   * several records, those that mention the query themselves (when some do); records naming the query come first.
   */
  private localTask<T>(
    request: VerticalRequest,
    filter: Omit<DocumentFilter, 'limit'>,
    extract: (doc: LocalDocument) => T[],
    textOf: (item: T) => string,
    keep: (item: T) => boolean = () => true,
  ): Task<T> {
    return async () => {
      const documents = await this.local.find(request.query, { ...filter, limit: LOCAL_PAGES });
      const terms = queryTerms(request.query);
      const records: T[] = [];
      for (const doc of documents) {
        let items = extract(doc).filter(keep);
        if (items.length > 1 && terms.length > 0) {
          const mentioning = items.filter((item) => mentionsAny(textOf(item), terms));
          if (mentioning.length > 0) items = mentioning;
        }
        records.push(...items);
      }
      // Records that name the query themselves before those found on a page that merely mentions it.
      if (terms.length === 0) return records;
      const named = records.filter((item) => mentionsAny(textOf(item), terms));
      return [...named, ...records.filter((item) => !named.includes(item))];
    };
  }

  private inLocation(request: VerticalRequest, ...texts: (string | null)[]): boolean {
    if (!request.location) return true;
    const wanted = request.location.toLowerCase();
    return texts.some((text) => text?.toLowerCase().includes(wanted));
  }

  private inTime = (request: VerticalRequest) => (item: { published_date: string | null }) =>
    inWindow(item.published_date ? new Date(item.published_date) : null, request.from, null);

  // -------------------------------------------------------------------------------------------------------- tasks

  private productTasks(request: VerticalRequest) {
    const { serpapi } = this.upstream;
    const tasks: Task<VerticalResults['products']>[] = [
      this.localTask(
        request,
        { structuredData: PAGES_WITH.products },
        productsOf,
        (p) => `${p.title} ${p.brand ?? ''}`,
      ),
    ];
    if (serpapi) {
      tasks.push(async (signal) =>
        serpProducts(
          await serpapi.search(
            'google_shopping',
            request.query,
            { gl: request.country?.toLowerCase(), hl: request.language?.split('-')[0] },
            signal,
          ),
          request.country,
        ),
      );
    }
    return tasks;
  }

  private amazonTasks(request: VerticalRequest) {
    const { serpapi } = this.upstream;
    const tasks: Task<VerticalResults['amazon']>[] = [
      this.localTask(
        request,
        { structuredData: PAGES_WITH.products, domain: '(^|\\.)amazon\\.' },
        amazonOf,
        (p) => `${p.title} ${p.brand ?? ''}`,
      ),
    ];
    if (serpapi) {
      const domain = request.country ? AMAZON_DOMAINS[request.country] : undefined;
      tasks.push(async (signal) =>
        serpAmazon(
          await serpapi.search('amazon', request.query, { amazon_domain: domain }, signal),
          domain && request.country !== 'US' ? request.country : null,
        ),
      );
    }
    return tasks;
  }

  private imageTasks(request: VerticalRequest) {
    const { searxng, brave, serpapi } = this.upstream;
    const tasks: Task<VerticalResults['images']>[] = [
      this.localTask(
        request,
        { structuredData: PAGES_WITH.images, withImages: true },
        imagesOf,
        (i) => `${i.title ?? ''} ${i.url}`,
      ),
    ];
    if (searxng) {
      tasks.push(async (signal) =>
        searxngImages(
          await searxng.search({ q: request.query, categories: 'images', language: request.language }, signal),
        ),
      );
    }
    if (brave) {
      tasks.push(async (signal) =>
        braveImageResults(
          await brave.images(
            { q: request.query, count: request.maxResults, country: request.country, searchLang: request.language },
            signal,
          ),
        ),
      );
    }
    if (serpapi) {
      tasks.push(async (signal) =>
        serpImages(
          await serpapi.search('google_images', request.query, { gl: request.country?.toLowerCase() }, signal),
        ),
      );
    }
    return tasks;
  }

  private placeTasks(request: VerticalRequest) {
    const { searxng, serpapi } = this.upstream;
    const where = request.location ? `${request.query} ${request.location}` : request.query;
    const tasks: Task<VerticalResults['places']>[] = [
      this.localTask(
        request,
        { structuredData: PAGES_WITH.places },
        placesOf,
        (p) => `${p.name} ${p.category ?? ''}`,
        (p) => this.inLocation(request, p.address, p.name),
      ),
    ];
    if (searxng) {
      tasks.push(async (signal) =>
        searxngPlaces(await searxng.search({ q: where, categories: 'map', language: request.language }, signal)),
      );
    }
    if (serpapi) {
      tasks.push(async (signal) =>
        serpPlaces(
          await serpapi.search(
            'google_maps',
            where,
            { type: 'search', gl: request.country?.toLowerCase(), hl: request.language?.split('-')[0] },
            signal,
          ),
        ),
      );
    }
    return tasks;
  }

  private newsTasks(request: VerticalRequest) {
    const { searxng, brave, serpapi } = this.upstream;
    const inTime = this.inTime(request);
    const dated = (item: { published_date: string | null }) =>
      !request.from || (item.published_date !== null && inTime(item));
    const tasks: Task<VerticalResults['news']>[] = [
      this.localTask(
        request,
        { structuredData: PAGES_WITH.news, publishedFrom: request.from },
        newsOf,
        (n) => `${n.title} ${n.snippet ?? ''}`,
        dated,
      ),
    ];
    if (searxng) {
      tasks.push(async (signal) =>
        searxngNews(
          await searxng.search(
            { q: request.query, categories: 'news', language: request.language, timeRange: request.timeRange },
            signal,
          ),
        ).filter(inTime),
      );
    }
    if (brave) {
      tasks.push(async (signal) => braveNewsResults(await brave.news(braveQuery(request), signal)).filter(inTime));
    }
    if (serpapi) {
      tasks.push(async (signal) =>
        serpNews(
          await serpapi.search(
            'google_news',
            request.query,
            { gl: request.country?.toLowerCase(), hl: request.language?.split('-')[0] },
            signal,
          ),
        ).filter(inTime),
      );
    }
    return tasks;
  }

  private jobTasks(request: VerticalRequest) {
    const { serpapi } = this.upstream;
    const tasks: Task<VerticalResults['jobs']>[] = [
      this.localTask(
        request,
        { structuredData: PAGES_WITH.jobs },
        jobsOf,
        (j) => `${j.title} ${j.company ?? ''}`,
        (j) => this.inLocation(request, j.location),
      ),
    ];
    if (serpapi) {
      tasks.push(async (signal) =>
        serpJobs(
          await serpapi.search(
            'google_jobs',
            request.query,
            { location: request.location, gl: request.country?.toLowerCase(), hl: request.language?.split('-')[0] },
            signal,
          ),
          request.now,
        ),
      );
    }
    return tasks;
  }

  private realEstateTasks(request: VerticalRequest) {
    return [
      this.localTask(
        request,
        { structuredData: PAGES_WITH.realestate },
        realEstateOf,
        (r) => `${r.title} ${r.address ?? ''}`,
        (r) =>
          this.inLocation(request, r.address, r.title) &&
          (!request.listingType || r.listing_type === request.listingType),
      ),
    ];
  }

  private scholarTasks(request: VerticalRequest) {
    const { searxng, serpapi } = this.upstream;
    const tasks: Task<VerticalResults['scholar']>[] = [
      this.localTask(
        request,
        { structuredData: PAGES_WITH.scholar },
        scholarOf,
        (s) => `${s.title} ${s.snippet ?? ''}`,
      ),
    ];
    if (searxng) {
      tasks.push(async (signal) =>
        searxngScholar(
          await searxng.search({ q: request.query, categories: 'science', language: request.language }, signal),
        ),
      );
    }
    if (serpapi) {
      tasks.push(async (signal) =>
        serpScholar(
          await serpapi.search(
            'google_scholar',
            request.query,
            { num: request.maxResults, hl: request.language?.split('-')[0] },
            signal,
          ),
        ),
      );
    }
    return tasks;
  }

  private patentTasks(request: VerticalRequest) {
    const { serpapi } = this.upstream;
    const tasks: Task<VerticalResults['patents']>[] = [
      this.localTask(
        request,
        { structuredData: PAGES_WITH.patents },
        patentsOf,
        (p) => `${p.title} ${p.abstract ?? ''}`,
      ),
    ];
    if (serpapi) {
      tasks.push(async (signal) =>
        serpPatents(
          await serpapi.search(
            'google_patents',
            request.query,
            { num: request.maxResults <= 10 ? 10 : 20, country: request.country },
            signal,
          ),
        ),
      );
    }
    return tasks;
  }

  private trendTasks(request: VerticalRequest) {
    const { serpapi } = this.upstream;
    const range = request.timeRange ?? 'year';
    const tasks: Task<TrendsResult>[] = [async () => [await this.localTrend(request, range)]];
    if (serpapi) {
      tasks.push(async (signal) => {
        const params = { date: TRENDS_DATES[range], geo: request.country ?? undefined, tz: 0 };
        const [timeseries, related] = await Promise.all([
          serpapi.search('google_trends', request.query, { ...params, data_type: 'TIMESERIES' }, signal),
          serpapi.search('google_trends', request.query, { ...params, data_type: 'RELATED_QUERIES' }, signal),
        ]);
        return serpTrends(request.query, timeseries, related);
      });
    }
    return tasks;
  }

  /** Matching pages of the local index published in each period of the range (periods without any count 0). */
  private async localTrend(request: VerticalRequest, range: TimeRange): Promise<TrendsResult> {
    const interval = INTERVALS[range];
    const from = truncate(rangeStart(range, request.now), interval);
    const to = request.now;
    const counts = await this.local.countsOverTime(request.query, from, new Date(to.getTime() + 1), interval);
    const points: TrendPoint[] = [];
    for (let at = from; at.getTime() <= to.getTime(); at = next(at, interval)) {
      const key = at.toISOString().slice(0, 19);
      points.push({
        date: interval === 'hour' ? at.toISOString() : key.slice(0, 10),
        value: counts.get(key) ?? 0,
      });
    }
    return {
      query: request.query,
      interval,
      value_type: 'document_count',
      points,
      related_queries: [],
      provider: 'local',
    };
  }

  private financeTasks(request: VerticalRequest) {
    const { serpapi } = this.upstream;
    const tasks: Task<VerticalResults['finance']>[] = [];
    if (serpapi) {
      tasks.push(async (signal) =>
        serpFinance(
          await serpapi.search(
            'google_finance',
            request.query,
            { hl: request.language?.split('-')[0] ?? 'en' },
            signal,
          ),
          request.query,
        ),
      );
    }
    return tasks;
  }

  /** bing, duckduckgo, brave: that engine through SearXNG, SerpAPI (bing, duckduckgo) or Brave's API (brave). */
  private webTasks(request: VerticalRequest) {
    const { searxng, brave, serpapi } = this.upstream;
    const engine = request.vertical as 'bing' | 'duckduckgo' | 'brave';
    const inTime = this.inTime(request);
    const tasks: Task<WebResult>[] = [];
    if (engine === 'brave' && brave) {
      tasks.push(async (signal) => braveWebResults(await brave.web(braveQuery(request), signal)).filter(inTime));
    }
    if (searxng) {
      tasks.push(async (signal) =>
        searxngWeb(
          await searxng.search(
            { q: request.query, engines: engine, language: request.language, timeRange: request.timeRange },
            signal,
          ),
          engine,
        ).filter(inTime),
      );
    }
    if (serpapi && engine !== 'brave') {
      const country = request.country?.toLowerCase();
      const language = request.language?.split('-')[0]?.toLowerCase() ?? 'en';
      const params =
        engine === 'bing'
          ? { cc: country, count: request.maxResults }
          : { kl: country ? `${country}-${language}` : undefined, df: request.timeRange?.[0] };
      tasks.push(async (signal) => serpWeb(await serpapi.search(engine, request.query, params, signal)).filter(inTime));
    }
    return tasks;
  }

  /** youtube_transcript: the video named by the query, or (with SerpAPI) the first video a YouTube search finds. */
  private async youtube(request: VerticalRequest): Promise<VerticalResults['youtube_transcript'][]> {
    let videoId = videoIdOf(request.query);
    if (!videoId && this.upstream.serpapi) {
      const links = serpYoutubeVideos(await this.upstream.serpapi.search('youtube', request.query));
      videoId = links.map(videoIdOf).find((id): id is string => id !== null) ?? null;
      if (!videoId) return [];
    }
    if (!videoId) {
      throw new BadRequestException(errorBody('query must be a YouTube video URL or an 11-character video id'));
    }
    return [await youtubeTranscript(this.fetcher, this.config.youtubeBaseUrl, videoId, request.language)];
  }
}

/** A patent number without separators and kind code: `US:11234567`, `US11234567B2` → `US11234567`. */
export function patentKey(number: string | null): string | null {
  if (!number) return null;
  const compact = number.toUpperCase().replace(/[^A-Z0-9]/g, '');
  const match = /^([A-Z]{2})(\d+)/.exec(compact);
  return match ? `patent:${match[1]}${match[2]}` : `patent:${compact}`;
}

function truncate(date: Date, interval: Interval): Date {
  const d = new Date(date);
  d.setUTCMinutes(0, 0, 0);
  if (interval === 'hour') return d;
  d.setUTCHours(0);
  if (interval === 'week') d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  if (interval === 'month') d.setUTCDate(1);
  return d;
}

function next(date: Date, interval: Interval): Date {
  const d = new Date(date);
  if (interval === 'hour') d.setUTCHours(d.getUTCHours() + 1);
  else if (interval === 'day') d.setUTCDate(d.getUTCDate() + 1);
  else if (interval === 'week') d.setUTCDate(d.getUTCDate() + 7);
  else d.setUTCMonth(d.getUTCMonth() + 1);
  return d;
}

/** The query parameters every Brave endpoint takes for a vertical request. */
function braveQuery(request: VerticalRequest) {
  return {
    q: request.query,
    count: request.maxResults,
    freshness: request.timeRange ? FRESHNESS[request.timeRange] : null,
    country: request.country,
    searchLang: request.language,
  };
}
