import { ImageResult } from './dto/images-results.dto.js';
import { JobResult, NewsResult, ScholarResult } from './dto/news-jobs-scholar-results.dto.js';
import { FinanceResult, PatentResult, TrendsResult } from './dto/patents-trends-finance-results.dto.js';
import { PlaceResult, RealEstateResult } from './dto/places-results.dto.js';
import { AmazonResult, ProductResult } from './dto/shopping-results.dto.js';
import { WebResult } from './dto/web-results.dto.js';
import { YoutubeTranscriptResult } from './dto/youtube-results.dto.js';

/**
 * The record class of each vertical (the classes, with their descriptions, are in dto/*-results.dto.ts): what its
 * providers return, and what its response documents as `results`. A new vertical is one line here.
 */
export const VERTICAL_RECORDS = {
  products: ProductResult,
  images: ImageResult,
  places: PlaceResult,
  news: NewsResult,
  jobs: JobResult,
  realestate: RealEstateResult,
  youtube_transcript: YoutubeTranscriptResult,
  amazon: AmazonResult,
  scholar: ScholarResult,
  patents: PatentResult,
  trends: TrendsResult,
  finance: FinanceResult,
  bing: WebResult,
  duckduckgo: WebResult,
  brave: WebResult,
} as const;

/** The record type of each vertical. */
export type VerticalResults = { [V in keyof typeof VERTICAL_RECORDS]: InstanceType<(typeof VERTICAL_RECORDS)[V]> };
