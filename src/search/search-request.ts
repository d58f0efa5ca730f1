import { BadRequestException } from '@nestjs/common';
import { errorBody } from '../http/error-body.js';
import type { SearchRequestDto } from './dto/search-request.dto.js';
import type { AnswerLevel } from './answer/extractive-answer.js';
import type { ProviderSearchRequest, SearchTopic } from './providers/search-provider.port.js';
import { type ReadPlan, readPlan } from './read/read-plan.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const DEFAULT_MAX_RESULTS = 5;
/** Evaluations and research: passages per result, as they were measured (one best window below advanced). */
const DEFAULT_CHUNKS = { basic: 1, advanced: 3 } as const;
/** include_domains_mode 'prefer': candidates asked for per result shown. */
const PREFER_POOL_FACTOR = 3;

/** `pt-BR` → `pt`: pages record their language in many forms, their primary subtag is what compares. */
export function primaryLanguage(tag: string): string {
  return tag.trim().toLowerCase().split(/[-_]/)[0]!;
}

/** A search of the query alone: general topic, no dates, domains, phrases or country (evaluations, research). */
export function unfilteredSearchRequest(
  query: string,
  depth: 'basic' | 'advanced',
  maxResults: number,
): ProviderSearchRequest {
  return {
    query,
    depth,
    maxResults,
    topic: 'general',
    from: null,
    to: null,
    includeDomains: [],
    excludeDomains: [],
    requiredPhrases: [],
    chunksPerSource: DEFAULT_CHUNKS[depth],
    country: null,
    language: null,
    languageStrict: false,
  };
}

/** What the response shows, beyond the hits. */
export interface ResponseOptions {
  readonly maxResults: number;
  readonly rawContent: 'markdown' | 'text' | null;
  readonly images: boolean;
  readonly imageDescriptions: boolean;
  readonly favicon: boolean;
  readonly answer: AnswerLevel | null;
  /** Set when auto_parameters was asked for: the values it settled on. */
  readonly autoParameters: Record<string, unknown> | null;
  /** include_domains with include_domains_mode 'prefer': sites ranked higher, not required. */
  readonly preferDomains: readonly string[];
}

export interface ResolvedSearch {
  readonly provider: ProviderSearchRequest;
  readonly response: ResponseOptions;
  /** What the depth reads of upstream hits (used when an upstream provider is configured). */
  readonly read: ReadPlan;
}

function badRequest(message: string): BadRequestException {
  return new BadRequestException(errorBody(message));
}

/** The parts of the query between double quotes ("…", “…”): the phrases exact_match requires. */
export function quotedPhrases(query: string): string[] {
  const phrases: string[] = [];
  for (const match of query.matchAll(/["“”„]([^"“”„]+)["“”„]/g)) {
    const phrase = match[1]!.trim();
    if (phrase) phrases.push(phrase);
  }
  return phrases;
}

const RANGE_DAYS: Record<string, number> = { day: 1, d: 1, week: 7, w: 7, month: 30, m: 30, year: 365, y: 365 };

/**
 * max_hours / time_range / days / start_date / end_date as [from, to); explicit dates win over time_range (as
 * tavily-mcp); max_hours wins over time_range and days, and with dates the later start counts.
 */
export function timeWindow(
  body: Pick<SearchRequestDto, 'time_range' | 'days' | 'start_date' | 'end_date' | 'max_hours'>,
  topic: SearchTopic,
  now: Date,
): { from: Date | null; to: Date | null } {
  const start = body.start_date ? new Date(`${body.start_date}T00:00:00Z`) : null;
  const end = body.end_date ? new Date(new Date(`${body.end_date}T00:00:00Z`).getTime() + DAY_MS) : null;
  if (start && end && start.getTime() >= end.getTime()) {
    throw badRequest('start_date must not be after end_date');
  }
  const hoursBack = body.max_hours ? new Date(now.getTime() - body.max_hours * HOUR_MS) : null;
  if (hoursBack) {
    const from = start && start.getTime() > hoursBack.getTime() ? start : hoursBack;
    if (end && from.getTime() >= end.getTime()) throw badRequest('max_hours leaves nothing before end_date');
    return { from, to: end };
  }
  if (start || end) return { from: start, to: end };
  if (body.time_range) return { from: new Date(now.getTime() - RANGE_DAYS[body.time_range]! * DAY_MS), to: null };
  // `days` is the legacy "days back" of topic=news.
  if (body.days && topic === 'news') return { from: new Date(now.getTime() - body.days * DAY_MS), to: null };
  return { from: null, to: null };
}

const NEWS_WORDS =
  /\b(news|latest|breaking|headlines?|today|yesterday|this week|this month|announced|announcement|just released)\b/i;
const FINANCE_WORDS =
  /\b(stocks?|shares?|earnings|dividends?|ticker|market cap(italization)?|nasdaq|nyse|ipo|etfs?|bond yields?|quarterly results|price target|share price|stock price)\b/i;

/**
 * auto_parameters: topic and time range from the query's wording. Explicit values win; include_answer,
 * include_raw_content and max_results are never set; depth is never raised (it would change the price).
 */
export function autoParameters(body: SearchRequestDto): {
  topic: SearchTopic;
  timeRange: SearchRequestDto['time_range'];
} {
  let topic: SearchTopic = body.topic ?? 'general';
  let timeRange = body.time_range;
  if (!body.topic) {
    if (NEWS_WORDS.test(body.query)) topic = 'news';
    else if (FINANCE_WORDS.test(body.query)) topic = 'finance';
  }
  if (!body.time_range && !body.start_date && !body.end_date && topic === 'news') {
    if (/\b(today|breaking|yesterday)\b/i.test(body.query)) timeRange = 'day';
    else if (/\b(this week|latest)\b/i.test(body.query)) timeRange = 'week';
    else if (/\bthis month\b/i.test(body.query)) timeRange = 'month';
  }
  return { topic, timeRange };
}

export function answerLevel(value: SearchRequestDto['include_answer']): AnswerLevel | null {
  if (value === true || value === 'basic') return 'basic';
  if (value === 'advanced') return 'advanced';
  return null;
}

/**
 * A validated body turned into the providers' request and the response's options. With `autoChoices` false, an
 * auto_parameters search keeps the caller's own parameters (and reports them as what auto settled on).
 */
export function resolveSearch(body: SearchRequestDto, now = new Date(), autoChoices = true): ResolvedSearch {
  const query = body.query.trim();
  const auto = body.auto_parameters
    ? autoChoices
      ? autoParameters(body)
      : { topic: body.topic ?? 'general', timeRange: body.time_range }
    : null;
  const topic: SearchTopic = auto?.topic ?? body.topic ?? 'general';
  const timeRange = auto?.timeRange ?? body.time_range;
  const depth = body.search_depth === 'advanced' ? 'advanced' : 'basic';
  const { from, to } = timeWindow({ ...body, time_range: timeRange }, topic, now);
  const maxResults = body.max_results ?? DEFAULT_MAX_RESULTS;
  const answer = answerLevel(body.include_answer);
  const preferDomains = body.include_domains_mode === 'prefer' ? (body.include_domains ?? []) : [];
  if (body.filter_by_language && !body.language) {
    throw badRequest("filter_by_language needs language (a language code such as 'en')");
  }
  const shownOrAnswered = answer && maxResults === 0 ? DEFAULT_MAX_RESULTS : maxResults;
  const rawContent =
    body.include_raw_content === true || body.include_raw_content === 'markdown'
      ? 'markdown'
      : body.include_raw_content === 'text'
        ? 'text'
        : null;
  const read = readPlan(body.search_depth ?? 'basic', maxResults, {
    chunksPerSource: body.chunks_per_source,
    maxAgeSeconds: body.max_age,
    fetchTimeoutSeconds: body.fetch_timeout,
    cacheFallback: body.cache_fallback,
  });
  return {
    provider: {
      query,
      depth,
      // An answer draws on a few results even when none are shown; preferred sites need others to rank against.
      maxResults: preferDomains.length > 0 ? Math.max(shownOrAnswered * PREFER_POOL_FACTOR, 10) : shownOrAnswered,
      topic,
      from,
      to,
      includeDomains: preferDomains.length > 0 ? [] : (body.include_domains ?? []),
      excludeDomains: body.exclude_domains ?? [],
      requiredPhrases: body.exact_match ? quotedPhrases(query) : [],
      // The local index's own content, as the reading's ranking would cut it (the depth's default number).
      chunksPerSource: read.chunks,
      country: topic === 'general' && body.country ? body.country.trim().toLowerCase() : null,
      language: body.language ? primaryLanguage(body.language) : null,
      languageStrict: body.filter_by_language === true,
    },
    read,
    response: {
      maxResults,
      rawContent,
      images: body.include_images === true,
      imageDescriptions: body.include_images === true && body.include_image_descriptions === true,
      favicon: body.include_favicon === true,
      answer,
      preferDomains,
      autoParameters: auto
        ? {
            topic,
            search_depth: body.search_depth ?? 'basic',
            ...(timeRange ? { time_range: timeRange } : {}),
            ...(body.include_domains ? { include_domains: body.include_domains } : {}),
            ...(body.exclude_domains ? { exclude_domains: body.exclude_domains } : {}),
          }
        : null,
    },
  };
}
