import {
  type JsonRecord,
  bool,
  count,
  isRecord,
  num,
  recordsAt,
  str,
  strings,
} from '../../search/upstream/json-shape.js';
import { canonicalUrl, isoDay, parseUpstreamDate, plainText } from '../../search/upstream/upstream-text.js';
import { employmentTypeOf } from '../local/jobs-records.js';
import { doiOf } from '../local/scholar-records.js';
import { asinOf } from '../local/shopping-records.js';
import { currencyOf, priceOf } from '../local/schema-org.js';
import type {
  AmazonResult,
  FinanceResult,
  ImageResult,
  JobResult,
  NewsResult,
  PatentResult,
  PlaceResult,
  ProductResult,
  Salary,
  ScholarResult,
  TrendsResult,
  WebResult,
} from '../vertical-results.js';

/** SerpAPI answers (checked by parseSerpAnswer) as vertical records, one mapper per engine. */

const PROVIDER = 'serpapi' as const;

function record(value: unknown): JsonRecord {
  return isRecord(value) ? value : {};
}

/**
 * The currency of a SerpAPI price text (`$24.99`, `€19,99`, `₹67,400`): SerpAPI writes the symbol only. `$` is read
 * as USD only for US searches (no country, or `us`): elsewhere it may be any dollar, and is left unknown.
 */
export function serpCurrency(priceText: string | null, country: string | null): string | null {
  if (!priceText) return null;
  if (/^\s*\$/.test(priceText) && country && country.toUpperCase() !== 'US') return null;
  return currencyOf(null, priceText);
}

// ---------------------------------------------------------------------------------------------------------- shopping

/** engine=google_shopping: `shopping_results` (and `inline_shopping_results`). */
export function serpProducts(root: JsonRecord, country: string | null): ProductResult[] {
  const entries = [
    ...recordsAt(root, 'shopping_results', 'the answer'),
    ...recordsAt(root, 'inline_shopping_results', 'the answer'),
  ];
  return entries.flatMap((entry): ProductResult[] => {
    const title = plainText(str(entry.title));
    const url = canonicalUrl(str(entry.product_link) ?? str(entry.link));
    if (!title || !url) return [];
    const priceText = str(entry.price);
    return [
      {
        title,
        url,
        price: num(entry.extracted_price) ?? priceOf(priceText),
        currency: serpCurrency(priceText, country),
        availability: availabilityFromText(strings(entry.extensions).join(' ') + ' ' + (str(entry.delivery) ?? '')),
        rating: num(entry.rating),
        reviews: count(entry.reviews),
        seller: str(entry.source),
        brand: null,
        image: canonicalUrl(str(entry.thumbnail)),
        provider: PROVIDER,
      },
    ];
  });
}

function availabilityFromText(value: string): string | null {
  if (/out of stock|sold out/i.test(value)) return 'out_of_stock';
  if (/in stock/i.test(value)) return 'in_stock';
  if (/pre-?order/i.test(value)) return 'pre_order';
  return null;
}

/** engine=amazon: `organic_results` with `asin`, `extracted_price`, `rating`, `reviews`, Prime badges. */
export function serpAmazon(root: JsonRecord, country: string | null): AmazonResult[] {
  return recordsAt(root, 'organic_results', 'the answer').flatMap((entry): AmazonResult[] => {
    const title = plainText(str(entry.title));
    const url = canonicalUrl(str(entry.link_clean) ?? str(entry.link));
    if (!title || !url) return [];
    const priceText = str(entry.price);
    const delivery = strings(entry.delivery).join(' ');
    const prime = bool(entry.prime) ?? bool(entry.is_prime) ?? (/\bprime\b/i.test(delivery) ? true : null);
    return [
      {
        title,
        url,
        price: num(entry.extracted_price) ?? priceOf(priceText),
        currency: serpCurrency(priceText, country),
        availability: availabilityFromText(`${delivery} ${str(entry.stock) ?? ''}`),
        rating: num(entry.rating),
        reviews: count(entry.reviews),
        seller: str(entry.seller) ?? str(entry.brand_store),
        brand: str(entry.brand),
        image: canonicalUrl(str(entry.thumbnail)),
        asin: str(entry.asin) ?? asinOf(url),
        prime,
        provider: PROVIDER,
      },
    ];
  });
}

// -------------------------------------------------------------------------------------------------------------- jobs

const SALARY_PERIODS: Record<string, string> = { hour: 'hour', day: 'day', week: 'week', month: 'month', year: 'year' };

/** Google Jobs' salary texts: `80K–100K a year`, `$25–$30 an hour`, `From $120,000 a year`. */
export function salaryFromText(value: string | null): Salary | null {
  if (!value) return null;
  const amounts = [...value.matchAll(/(\d[\d,.]*)\s*([KkMm])?/g)].map((m) => {
    const base = Number(m[1]!.replace(/,/g, ''));
    const factor = m[2] ? (m[2].toLowerCase() === 'k' ? 1e3 : 1e6) : 1;
    return base * factor;
  });
  if (amounts.length === 0 || amounts.some((a) => !Number.isFinite(a))) return null;
  const period = /\b(?:an?|per)\s+(hour|day|week|month|year)\b/i.exec(value)?.[1]?.toLowerCase();
  const upTo = /^\s*up to/i.test(value);
  return {
    min: upTo ? null : amounts[0]!,
    max: amounts.length > 1 ? amounts[1]! : upTo ? amounts[0]! : /^\s*from/i.test(value) ? null : amounts[0]!,
    currency: currencyOf(null, value.replace(/^\s*(from|up to)\s*/i, '')),
    period: period ? (SALARY_PERIODS[period] ?? null) : null,
    text: value.trim(),
  };
}

/** engine=google_jobs: `jobs_results` with `detected_extensions` (posted_at, schedule_type, salary). */
export function serpJobs(root: JsonRecord, now = new Date()): JobResult[] {
  return recordsAt(root, 'jobs_results', 'the answer').flatMap((entry): JobResult[] => {
    const title = plainText(str(entry.title));
    if (!title) return [];
    const detected = record(entry.detected_extensions);
    const applyLink =
      recordsAt(entry, 'apply_options', 'a job')
        .map((o) => str(o.link))
        .find(Boolean) ?? null;
    const description = plainText(str(entry.description));
    return [
      {
        title,
        company: str(entry.company_name),
        location: str(entry.location),
        salary: salaryFromText(str(detected.salary)),
        employment_type: employmentTypeOf(str(detected.schedule_type)),
        posted_date: isoDay(parseUpstreamDate(str(detected.posted_at), now)),
        // The share link's fragment names the job: it is kept as given.
        url: applyLink ? canonicalUrl(applyLink) : str(entry.share_link),
        description: description
          ? description.length > 300
            ? `${description.slice(0, 299).trimEnd()}…`
            : description
          : null,
        provider: PROVIDER,
      },
    ];
  });
}

// ----------------------------------------------------------------------------------------------------------- patents

/** engine=google_patents: `organic_results` (patent_id `patent/US11734097B1/en`, publication_number, dates, pdf). */
export function serpPatents(root: JsonRecord): PatentResult[] {
  return recordsAt(root, 'organic_results', 'the answer').flatMap((entry): PatentResult[] => {
    const title = plainText(str(entry.title));
    if (!title) return [];
    const patentId = str(entry.patent_id);
    const number = str(entry.publication_number) ?? (patentId ? (/patent\/([^/]+)/.exec(patentId)?.[1] ?? null) : null);
    const inventors = strings(entry.inventor).flatMap((i) => i.split(/\s*,\s*/));
    return [
      {
        title,
        patent_number: number,
        assignee: str(entry.assignee),
        inventors,
        filing_date: isoDay(parseUpstreamDate(str(entry.filing_date))),
        publication_date: isoDay(parseUpstreamDate(str(entry.publication_date) ?? str(entry.grant_date))),
        abstract: plainText(str(entry.snippet)) || null,
        url: canonicalUrl(str(entry.patent_link) ?? (patentId ? `https://patents.google.com/${patentId}` : null)),
        pdf_url: canonicalUrl(str(entry.pdf)),
        provider: PROVIDER,
      },
    ];
  });
}

// ------------------------------------------------------------------------------------------------------------ trends

function intervalOf(dates: Date[]): string {
  if (dates.length < 2) return 'day';
  const step = (dates[dates.length - 1]!.getTime() - dates[0]!.getTime()) / (dates.length - 1);
  if (step < 20 * 3_600_000) return 'hour';
  if (step < 3 * 86_400_000) return 'day';
  if (step < 20 * 86_400_000) return 'week';
  return 'month';
}

/**
 * engine=google_trends: `interest_over_time.timeline_data[]` (`timestamp` in Unix seconds, `values[0].extracted_value`
 * 0–100); related queries from a RELATED_QUERIES answer (`related_queries.top` then `rising`).
 */
export function serpTrends(query: string, timeseries: JsonRecord, related: JsonRecord | null): TrendsResult[] {
  const interest = record(timeseries.interest_over_time);
  const timeline = recordsAt(interest, 'timeline_data', 'interest_over_time');
  const points = timeline.flatMap((entry) => {
    const seconds = num(entry.timestamp);
    const date =
      seconds !== null ? new Date(seconds * 1000) : parseUpstreamDate(str(entry.date)?.split(/\s+[–-]\s+/)[0] ?? null);
    const values = recordsAt(entry, 'values', 'timeline_data');
    const value = num(values[0]?.extracted_value) ?? num(values[0]?.value);
    return date && value !== null ? [{ date, value }] : [];
  });
  if (points.length === 0 && !related) return [];
  const interval = intervalOf(points.map((p) => p.date));
  const queries = related ? record(related.related_queries) : {};
  const relatedQueries = [
    ...recordsAt(queries, 'top', 'related_queries'),
    ...recordsAt(queries, 'rising', 'related_queries'),
  ]
    .map((entry) => str(entry.query))
    .filter((q): q is string => q !== null);
  return [
    {
      query,
      interval,
      value_type: 'relative_interest',
      points: points.map((p) => ({
        date: interval === 'hour' ? p.date.toISOString() : p.date.toISOString().slice(0, 10),
        value: p.value,
      })),
      related_queries: [...new Set(relatedQueries)],
      provider: PROVIDER,
    },
  ];
}

// ----------------------------------------------------------------------------------------------------------- finance

function movementOf(value: unknown): { change: number | null; percent: number | null } {
  const movement = record(value);
  const down = /down/i.test(str(movement.movement) ?? '');
  const sign = (n: number | null) => (n === null ? null : down ? -Math.abs(n) : Math.abs(n));
  return { change: sign(num(movement.value)), percent: sign(num(movement.percentage)) };
}

/** engine=google_finance: the quote of `summary`, else the instruments of `markets` (indexes, currencies, ...). */
export function serpFinance(root: JsonRecord, query: string): FinanceResult[] {
  const summary = record(root.summary);
  if (Object.keys(summary).length > 0) {
    const stock = str(summary.stock) ?? query.split(':')[0]!.toUpperCase();
    const exchange = str(summary.exchange) ?? query.split(':')[1]?.toUpperCase() ?? null;
    const priceText = str(summary.price);
    const { change, percent } = movementOf(summary.price_movement);
    const extensions = strings(summary.extensions);
    return [
      {
        symbol: stock,
        name: str(summary.title),
        price: num(summary.extracted_price) ?? priceOf(priceText),
        currency: currencyOf(summary.currency, priceText),
        change,
        change_percent: percent,
        exchange,
        as_of: str(summary.date) ?? extensions.find((e) => /\d{1,2}:\d{2}/.test(e)) ?? null,
        url: `https://www.google.com/finance/quote/${encodeURIComponent(stock)}${exchange ? `:${encodeURIComponent(exchange)}` : ''}`,
        provider: PROVIDER,
      },
    ];
  }
  const markets = record(root.markets);
  return Object.values(markets)
    .flatMap((group) => (Array.isArray(group) ? group.filter(isRecord) : []))
    .flatMap((entry): FinanceResult[] => {
      const stock = str(entry.stock);
      if (!stock) return [];
      const [symbol, exchange] = stock.split(':');
      const { change, percent } = movementOf(entry.price_movement);
      return [
        {
          symbol: symbol!,
          name: str(entry.name),
          price: num(entry.price) ?? priceOf(str(entry.price)),
          currency: null,
          change,
          change_percent: percent,
          exchange: exchange ?? null,
          as_of: null,
          url: canonicalUrl(str(entry.link)),
          provider: PROVIDER,
        },
      ];
    });
}

// ----------------------------------------------------------------------------------------------------------- scholar

/** `A Vaswani, N Shazeer, N Parmar… - Advances in neural …, 2017 - proceedings.neurips.cc` */
function publicationParts(summary: string | null): { authors: string[]; venue: string | null; year: number | null } {
  if (!summary) return { authors: [], venue: null, year: null };
  const parts = summary.split(/\s+-\s+/);
  const authors =
    parts.length > 1
      ? parts[0]!
          .split(/\s*,\s*/)
          .map((a) => a.replace(/…$/, '').trim())
          .filter(Boolean)
      : [];
  const middle = parts.length > 1 ? parts[1]! : parts[0]!;
  const yearMatch = /\b(1[5-9]\d{2}|20\d{2})\b/.exec(middle);
  const venue = middle
    .replace(/,?\s*\b(1[5-9]\d{2}|20\d{2})\b\s*$/, '')
    .replace(/^\s*\b(1[5-9]\d{2}|20\d{2})\b\s*$/, '')
    .trim();
  return { authors, venue: venue || null, year: yearMatch ? Number(yearMatch[1]) : null };
}

/** engine=google_scholar: `organic_results` with `publication_info`, `resources` (PDFs), `inline_links.cited_by`. */
export function serpScholar(root: JsonRecord): ScholarResult[] {
  return recordsAt(root, 'organic_results', 'the answer').flatMap((entry): ScholarResult[] => {
    const title = plainText(str(entry.title));
    if (!title) return [];
    const info = record(entry.publication_info);
    const parts = publicationParts(str(info.summary));
    const named = recordsAt(info, 'authors', 'publication_info')
      .map((a) => str(a.name))
      .filter((n): n is string => !!n);
    const pdf = recordsAt(entry, 'resources', 'a result').find((r) => /pdf/i.test(str(r.file_format) ?? ''));
    const cited = record(record(entry.inline_links).cited_by);
    const link = str(entry.link);
    return [
      {
        title,
        authors: named.length >= parts.authors.length ? named : parts.authors,
        venue: parts.venue,
        year: parts.year,
        doi: doiOf(link),
        pdf_url: canonicalUrl(pdf ? str(pdf.link) : null),
        citations: count(cited.total),
        url: canonicalUrl(link),
        snippet: plainText(str(entry.snippet)) || null,
        provider: PROVIDER,
      },
    ];
  });
}

// ------------------------------------------------------------------------------------------------------------ places

function place(entry: JsonRecord): PlaceResult | null {
  const name = plainText(str(entry.title));
  if (!name) return null;
  const gps = record(entry.gps_coordinates);
  const placeId = str(entry.place_id);
  return {
    name,
    address: str(entry.address),
    latitude: num(gps.latitude),
    longitude: num(gps.longitude),
    rating: num(entry.rating),
    reviews: count(entry.reviews),
    phone: str(entry.phone),
    website: canonicalUrl(str(entry.website)),
    category: str(entry.type) ?? strings(entry.types)[0] ?? null,
    url: placeId ? `https://www.google.com/maps/place/?q=place_id:${encodeURIComponent(placeId)}` : null,
    provider: PROVIDER,
  };
}

/** engine=google_maps (type=search): `local_results`, or `place_results` when the search names one place. */
export function serpPlaces(root: JsonRecord): PlaceResult[] {
  const single = isRecord(root.place_results) ? [root.place_results] : [];
  return [...recordsAt(root, 'local_results', 'the answer'), ...single]
    .map(place)
    .filter((p): p is PlaceResult => p !== null);
}

// --------------------------------------------------------------------------------------------------- web, news, images

/** engine=bing | duckduckgo: `organic_results`. */
export function serpWeb(root: JsonRecord): WebResult[] {
  return recordsAt(root, 'organic_results', 'the answer').flatMap((entry): WebResult[] => {
    const url = canonicalUrl(str(entry.link));
    if (!url) return [];
    return [
      {
        title: plainText(str(entry.title)) || url,
        url,
        snippet: plainText(str(entry.snippet)) || null,
        published_date: parseUpstreamDate(str(entry.date))?.toISOString() ?? null,
        provider: PROVIDER,
      },
    ];
  });
}

/** engine=google_news: `news_results`, stories of highlighted clusters included. */
export function serpNews(root: JsonRecord): NewsResult[] {
  const entries = recordsAt(root, 'news_results', 'the answer').flatMap((entry) => [
    ...(isRecord(entry.highlight) ? [entry.highlight] : []),
    ...(entry.link ? [entry] : []),
    ...recordsAt(entry, 'stories', 'a news result'),
  ]);
  return entries.flatMap((entry): NewsResult[] => {
    const url = canonicalUrl(str(entry.link));
    if (!url) return [];
    const source = isRecord(entry.source) ? str(entry.source.name) : str(entry.source);
    return [
      {
        title: plainText(str(entry.title)) || url,
        url,
        source,
        published_date: parseUpstreamDate(str(entry.iso_date) ?? str(entry.date))?.toISOString() ?? null,
        snippet: plainText(str(entry.snippet)) || null,
        image: canonicalUrl(str(entry.thumbnail)),
        provider: PROVIDER,
      },
    ];
  });
}

/** engine=google_images: `images_results` (`original` is the image, `link` the page). */
export function serpImages(root: JsonRecord): ImageResult[] {
  return recordsAt(root, 'images_results', 'the answer').flatMap((entry): ImageResult[] => {
    const url = canonicalUrl(str(entry.original));
    if (!url) return [];
    return [
      {
        url,
        thumbnail: canonicalUrl(str(entry.thumbnail)),
        title: plainText(str(entry.title)) || null,
        source_url: canonicalUrl(str(entry.link)),
        width: num(entry.original_width),
        height: num(entry.original_height),
        provider: PROVIDER,
      },
    ];
  });
}

/** engine=youtube: the watch links of `video_results`, best first. */
export function serpYoutubeVideos(root: JsonRecord): string[] {
  return recordsAt(root, 'video_results', 'the answer')
    .map((entry) => str(entry.link))
    .filter((link): link is string => link !== null);
}
