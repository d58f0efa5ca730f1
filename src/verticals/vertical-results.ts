/**
 * The normalized result records of POST /search/{vertical}, one schema per vertical. Every field is always present:
 * `null` (or an empty array) when no provider knew it. Every record names the `provider` that filled it: `local` (the
 * structured data of the local documents index), `searxng`, `brave`, `serpapi` or `youtube`.
 *
 * Conventions: prices and counts are numbers; `currency` is an ISO 4217 code when it is known; `*_date` fields are
 * `YYYY-MM-DD` days except `published_date` (news and web results), which is a full ISO 8601 instant.
 */

export type VerticalProvider = 'local' | 'searxng' | 'brave' | 'serpapi' | 'youtube';

/** products (shopping). */
export interface ProductResult {
  title: string;
  url: string;
  price: number | null;
  currency: string | null;
  /** in_stock, out_of_stock, pre_order, back_order, limited_availability, sold_out, discontinued, ... */
  availability: string | null;
  /** Average rating (usually out of 5). */
  rating: number | null;
  /** Number of reviews (or ratings). */
  reviews: number | null;
  seller: string | null;
  brand: string | null;
  image: string | null;
  provider: VerticalProvider;
}

/** amazon: a product, with its ASIN and Prime eligibility. */
export interface AmazonResult extends ProductResult {
  asin: string | null;
  prime: boolean | null;
}

/** images: `url` is the image itself, `source_url` the page showing it. */
export interface ImageResult {
  url: string;
  thumbnail: string | null;
  title: string | null;
  source_url: string | null;
  width: number | null;
  height: number | null;
  provider: VerticalProvider;
}

/** places (maps). */
export interface PlaceResult {
  name: string;
  address: string | null;
  latitude: number | null;
  longitude: number | null;
  rating: number | null;
  reviews: number | null;
  phone: string | null;
  website: string | null;
  /** The kind of place: a schema.org type (`CafeOrCoffeeShop`), or the upstream's category (`Coffee shop`). */
  category: string | null;
  /** Where the place was found (its page, or the map service's page for it). */
  url: string | null;
  provider: VerticalProvider;
}

/** news. */
export interface NewsResult {
  title: string;
  url: string;
  /** The publisher. */
  source: string | null;
  published_date: string | null;
  snippet: string | null;
  image: string | null;
  provider: VerticalProvider;
}

export interface Salary {
  min: number | null;
  max: number | null;
  currency: string | null;
  /** hour, day, week, month or year. */
  period: string | null;
  /** The salary as written (`USD 95,000–120,000 per year`, `80K–100K a year`). */
  text: string;
}

/** jobs. */
export interface JobResult {
  title: string;
  company: string | null;
  location: string | null;
  salary: Salary | null;
  /** full_time, part_time, contractor, temporary, intern, volunteer, per_diem, other. */
  employment_type: string | null;
  posted_date: string | null;
  url: string | null;
  description: string | null;
  provider: VerticalProvider;
}

/** realestate. */
export interface RealEstateResult {
  title: string;
  price: number | null;
  currency: string | null;
  address: string | null;
  bedrooms: number | null;
  bathrooms: number | null;
  floor_area: number | null;
  /** sqm or sqft. */
  floor_area_unit: string | null;
  /** sale or rent. */
  listing_type: string | null;
  image: string | null;
  url: string;
  provider: VerticalProvider;
}

export interface TranscriptSegment {
  /** Seconds from the start of the video. */
  start: number;
  duration: number;
  text: string;
}

/** youtube_transcript. */
export interface YoutubeTranscriptResult {
  video_id: string;
  title: string | null;
  channel: string | null;
  language: string | null;
  url: string;
  thumbnail: string | null;
  /** The captions joined into paragraphs. */
  transcript: string;
  segments: TranscriptSegment[];
  provider: VerticalProvider;
}

/** scholar. */
export interface ScholarResult {
  title: string;
  authors: string[];
  /** Journal, conference or publisher. */
  venue: string | null;
  year: number | null;
  doi: string | null;
  pdf_url: string | null;
  /** Times cited, when the provider counts them. */
  citations: number | null;
  url: string | null;
  snippet: string | null;
  provider: VerticalProvider;
}

/** patents. */
export interface PatentResult {
  title: string;
  patent_number: string | null;
  assignee: string | null;
  inventors: string[];
  filing_date: string | null;
  publication_date: string | null;
  abstract: string | null;
  url: string | null;
  pdf_url: string | null;
  provider: VerticalProvider;
}

export interface TrendPoint {
  /** The start of the period: `YYYY-MM-DD`, or an ISO instant for hourly points. */
  date: string;
  value: number;
}

/** trends: interest in the query over time. */
export interface TrendsResult {
  query: string;
  /** hour, day, week or month. */
  interval: string;
  /**
   * document_count: matching documents of the local index published in the period; relative_interest: Google Trends'
   * 0–100 scale.
   */
  value_type: 'document_count' | 'relative_interest';
  points: TrendPoint[];
  related_queries: string[];
  provider: VerticalProvider;
}

/** finance: a quote. */
export interface FinanceResult {
  symbol: string;
  name: string | null;
  price: number | null;
  currency: string | null;
  /** Change since the previous close, in the price's currency (negative when down). */
  change: number | null;
  change_percent: number | null;
  exchange: string | null;
  /** When the price was observed, as the provider states it. */
  as_of: string | null;
  url: string | null;
  provider: VerticalProvider;
}

/** bing, duckduckgo, brave: web results of that engine. */
export interface WebResult {
  title: string;
  url: string;
  snippet: string | null;
  published_date: string | null;
  provider: VerticalProvider;
}

export interface VerticalResults {
  products: ProductResult;
  images: ImageResult;
  places: PlaceResult;
  news: NewsResult;
  jobs: JobResult;
  realestate: RealEstateResult;
  youtube_transcript: YoutubeTranscriptResult;
  amazon: AmazonResult;
  scholar: ScholarResult;
  patents: PatentResult;
  trends: TrendsResult;
  finance: FinanceResult;
  bing: WebResult;
  duckduckgo: WebResult;
  brave: WebResult;
}

/** The response of POST /search/{vertical} (the metering pipeline adds `request_id` and, on request, `usage`). */
export interface VerticalResponse<V extends keyof VerticalResults = keyof VerticalResults> {
  query: string;
  vertical: V;
  results: VerticalResults[V][];
  response_time: number;
}
